"""Obstacle footprints carved out of a navmesh, polygon by polygon: the local rebuild.

Each polygon of the base mesh is carved on its own: the polygon minus the union of the footprints (in
obstacle order) that overlap its inside and its height range, cut into convex pieces by
`navigation.decompose`. A polygon no footprint overlaps is kept as it is. So a polygon's pieces depend only
on it and the footprints over it: an update re-carves the polygons under the footprints that changed, and
the result is the same mesh, array for array, as carving every obstacle at once (`carve_navmesh`).

Pieces of two neighbouring polygons meet where a footprint crosses their shared edge; the points they cut
there are welded by their place along that edge, so the pieces keep their portal. Heights: a piece takes
its polygon's plane; new points on a base edge take the height along that edge.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon

from navigation.decompose import decompose_many
from navigation.navmesh import NavMesh, build_navmesh
from navigation.obstacles import Footprint
from navigation.settings import CarveSettings


@dataclass(frozen=True)
class Pieces:
    """What is left of one base polygon: convex `polygons` (CCW vertex ids into `xy`, (k, 2) [m])."""

    xy: np.ndarray
    polygons: list[list[int]]


class BaseIndex:
    """A base mesh's polygons as shapely polygons in an STRtree, with each polygon's height range.

    Args:
        base: the mesh obstacles are carved from.
    """

    def __init__(self, base: NavMesh) -> None:
        self.base = base
        loops = base.loops
        self.polygons = np.array([Polygon(xy) for xy in loops.xy], dtype=object)
        self.tree = shapely.STRtree(self.polygons)
        z = base.vertices[base.poly_verts, 2]
        self.z_low = np.minimum.reduceat(z, base.poly_offsets[:-1]) if len(z) else np.zeros(0)
        self.z_high = np.maximum.reduceat(z, base.poly_offsets[:-1]) if len(z) else np.zeros(0)
        self.eps = 1e-9 * base.length_scale
        # per polygon, the vertex id and (x, y) of each corner: how pieces find the corners they kept
        self.corner_of: list[dict[tuple[float, float], int]] = [
            dict(zip(xy, ids, strict=True)) for xy, ids in zip(loops.xy, loops.vertex_ids, strict=True)
        ]
        # per polygon, its edges' end vertex ids, lower id first (one direction for both sides of a portal)
        self.edge_ends: list[tuple[np.ndarray, np.ndarray]] = []
        for ids in loops.vertex_ids:
            a = np.array(ids, dtype=np.int64)
            b = np.roll(a, -1)
            self.edge_ends.append((np.minimum(a, b), np.maximum(a, b)))

    def touched(self, fp: Footprint, agent_height: float) -> np.ndarray:
        """Sorted ids of the polygons whose inside the footprint overlaps and whose height range meets
        [fp.bottom - agent_height, fp.top]."""
        near: np.ndarray = self.tree.query(fp.polygon, predicate="intersects")
        if near.size == 0:
            return near.astype(np.int64)
        near = near[shapely.relate_pattern(self.polygons[near], fp.polygon, "T********")]
        near = near[(self.z_high[near] >= fp.bottom - agent_height) & (self.z_low[near] <= fp.top)]
        return np.sort(near).astype(np.int64)


def carve_polygons(index: BaseIndex, cutters: dict[int, list[Polygon]], max_verts: int) -> dict[int, Pieces]:
    """Per base polygon p of `cutters`, p minus the union of its cutters (in the order given), as convex
    pieces: one vectorised difference and one `decompose_many` for all (each polygon's pieces are the
    same as carved alone)."""
    ps = sorted(cutters)
    if not ps:
        return {}
    cut = np.empty(len(ps), dtype=object)
    cut[:] = [c[0] if len(c) == 1 else shapely.union_all(c) for c in (cutters[p] for p in ps)]
    rest = shapely.difference(index.polygons[ps], cut)
    parts, which = shapely.get_parts(rest, return_index=True)
    keep = shapely.area(parts) > 0 if len(parts) else np.zeros(0, dtype=bool)
    parts, which = parts[keep], which[keep]
    out = {p: Pieces(np.zeros((0, 2)), []) for p in ps}
    if len(parts) == 0:
        return out
    done = decompose_many(parts, which.astype(np.int64), len(ps), max_verts)
    for p, (xy, polys) in zip(ps, done, strict=True):
        out[p] = Pieces(np.asarray(xy, dtype=np.float64), polys)
    return out


def assemble(index: BaseIndex, pieces: dict[int, Pieces]) -> tuple[NavMesh, np.ndarray, np.ndarray]:
    """The mesh of the base polygons, each replaced by its pieces when it has some entry in `pieces`
    (an empty entry: nothing is left of it), in base polygon order, with the base's meta.

    Returns:
        the mesh; per polygon of it, its base polygon (`origin`) and its rank among that one's pieces.
    """
    base = index.base
    ids = base.loops.vertex_ids
    polygons: list[list[int]] = []
    origin: list[int] = []
    rank: list[int] = []
    welder = _Welder(index)
    for p in range(base.polygon_count):
        piece = pieces.get(p)
        if piece is None:
            polygons.append(ids[p])
            origin.append(p)
            rank.append(0)
            continue
        if not piece.polygons:
            continue
        local = welder.vertex_ids(p, piece.xy)
        for k, poly in enumerate(piece.polygons):
            polygons.append([local[i] for i in poly])
            origin.append(p)
            rank.append(k)
    verts = np.vstack([base.vertices, np.array(welder.extra, dtype=np.float64).reshape(-1, 3)])
    origin_a = np.array(origin, dtype=np.int64)
    mesh = build_navmesh(verts, polygons, planes=base.planes[origin_a].reshape(-1, 3), meta=base.meta)
    return mesh, origin_a, np.array(rank, dtype=np.int64)


class _Welder:
    """Mesh vertex ids of piece corners: a base vertex where a corner is one, else the point already cut
    at the same place on the same base edge (by the polygon across it), else a new vertex (`extra`)."""

    def __init__(self, index: BaseIndex) -> None:
        self.index = index
        self.extra: list[tuple[float, float, float]] = []
        self.on_edge: dict[tuple[int, int], list[tuple[float, int]]] = {}  # edge -> (place along, id)

    def vertex_ids(self, p: int, xy: np.ndarray) -> list[int]:
        index, base = self.index, self.index.base
        corner = index.corner_of[p]
        out = [corner.get((x, y), -1) for x, y in xy.tolist()]
        new = [i for i, v in enumerate(out) if v < 0]
        if not new:
            return out
        lo, hi = index.edge_ends[p]
        a, b = base.vertices[lo, :2], base.vertices[hi, :2]
        d = b - a
        length = np.hypot(d[:, 0], d[:, 1])
        rel = xy[new][:, None, :] - a[None, :, :]  # (new, edges, 2)
        t = (rel[..., 0] * d[:, 0] + rel[..., 1] * d[:, 1]) / (length * length)
        off = np.abs(rel[..., 0] * d[:, 1] - rel[..., 1] * d[:, 0]) / length
        on = (t >= 0) & (t <= 1) & (off <= index.eps)
        n0 = len(base.vertices)
        for row, i in enumerate(new):
            x, y = float(xy[i, 0]), float(xy[i, 1])
            hits = np.flatnonzero(on[row])
            if hits.size == 0:
                self.extra.append((x, y, base.height_at(p, x, y)))
                out[i] = n0 + len(self.extra) - 1
                continue
            e = int(hits[0])
            key = (int(lo[e]), int(hi[e]))
            s, tol = float(t[row, e]), index.eps / float(length[e])
            seen = self.on_edge.setdefault(key, [])
            match = next((j for u, j in seen if abs(u - s) <= tol), -1)
            if match < 0:
                za, zb = float(base.vertices[key[0], 2]), float(base.vertices[key[1], 2])
                self.extra.append((x, y, za + s * (zb - za)))
                match = n0 + len(self.extra) - 1
                seen.append((s, match))
            out[i] = match
        return out


def touching_map(
    index: BaseIndex, footprints: Iterable[tuple[int, Footprint]], agent_height: float
) -> dict[int, list[int]]:
    """Per base polygon, the sorted keys of the footprints that carve it."""
    out: dict[int, list[int]] = {}
    for key, fp in footprints:
        for p in index.touched(fp, agent_height).tolist():
            out.setdefault(p, []).append(key)
    return {p: sorted(keys) for p, keys in out.items()}


def carve_navmesh(
    base: NavMesh, footprints: Sequence[Footprint], settings: CarveSettings, index: BaseIndex | None = None
) -> NavMesh:
    """The base mesh with every footprint carved out, computed from scratch in one call (the base itself
    when no footprint reaches a polygon): what a
    `DynamicNavMesh` gives after any sequence of updates that leaves these footprints carved (in this
    order: its obstacles by id).

    Args:
        base: the mesh without obstacles. footprints: the obstacles' `navigation.obstacles.footprint`.
        settings: `agent_height` (which polygons an obstacle reaches) and `max_verts_per_poly`.
        index: a `BaseIndex` of `base` to reuse (made when None).
    """
    index = index if index is not None else BaseIndex(base)
    touching = touching_map(index, enumerate(footprints), settings.agent_height)
    cutters = {p: [footprints[k].polygon for k in keys] for p, keys in touching.items()}
    pieces = carve_polygons(index, cutters, settings.max_verts_per_poly)
    return assemble(index, pieces)[0] if pieces else base
