"""Obstacle footprints carved out of a navmesh, polygon by polygon: the local rebuild.

Each polygon of the base mesh is carved on its own: the polygon minus the union of the footprints (in
obstacle order) that overlap its inside and its height range, cut into convex pieces by
`navigation.decompose`. A polygon no footprint overlaps is kept as it is. So a polygon's pieces depend only
on it and the footprints over it: an update re-carves the polygons under the footprints that changed, and
the result is the same mesh, array for array, as carving every obstacle at once (`carve_navmesh`).

Pieces of two neighbouring polygons meet where a footprint crosses their shared edge; the points they cut
there are welded by their place along that edge, so the pieces keep their portal. The welded point takes
the first side's coordinates, and the two sides' cuts may differ in the last bit (each is cut by the union
of its own footprints): re-carving one side can move the other's corner by that much. Heights: a piece
takes its polygon's plane; new points on a base edge take the height along that edge.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon

from navigation.decompose import decompose_many
from navigation.navmesh import NavMesh, build_navmesh_flat
from navigation.obstacles import Footprint
from navigation.settings import CarveSettings


@dataclass(frozen=True)
class Pieces:
    """What is left of one base polygon: convex polygons, `sizes` (np,) corners each and their `corners`
    one polygon after another (CCW ids into its k points), and per point where it is on the base mesh:
    `base_id`, the base vertex it is (-1: a new point). For the new points, in point order: `new_edge`,
    the base edge each lies on (lower vertex id x vertex count + higher id; -1: inside the polygon),
    `new_place`, how far along that edge from its lower id end [0..1], and `new_xyz` (m, 3) [m]."""

    sizes: np.ndarray
    corners: np.ndarray
    base_id: np.ndarray
    new_edge: np.ndarray
    new_place: np.ndarray
    new_xyz: np.ndarray


_NONE = np.zeros(0, dtype=np.int64)
_EMPTY = Pieces(_NONE, _NONE, _NONE, _NONE, np.zeros(0), np.zeros((0, 3)))


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
        self.sizes = np.diff(base.poly_offsets)
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
        nv = len(base.vertices)
        # every base edge as one number (lower id x vertex count + higher id, as `Pieces.new_edge`) and its
        # polygon: which polygons a new point on a base edge also borders
        self.edge_key = np.concatenate([lo * nv + hi for lo, hi in self.edge_ends] or [_NONE])
        self.edge_poly = np.repeat(np.arange(base.polygon_count), self.sizes)

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
    out = {p: _EMPTY for p in ps}
    if len(parts) == 0:
        return out
    done = decompose_many(parts, which.astype(np.int64), len(ps), max_verts)
    for p, (xy, polys) in zip(ps, done, strict=True):
        if polys:
            out[p] = _locate(index, p, np.asarray(xy, dtype=np.float64), polys)
    return out


def _locate(index: BaseIndex, p: int, xy: np.ndarray, polys: list[list[int]]) -> Pieces:
    """Pieces of base polygon p with each corner placed on the base mesh (see `Pieces`)."""
    base = index.base
    corner = index.corner_of[p]
    base_id = np.array([corner.get((x, y), -1) for x, y in xy.tolist()], dtype=np.int64)
    new = np.flatnonzero(base_id < 0)
    edge = np.full(len(new), -1, dtype=np.int64)
    place = np.zeros(len(new))
    xyz = np.zeros((len(new), 3))
    if new.size:
        lo, hi = index.edge_ends[p]
        a, b = base.vertices[lo, :2], base.vertices[hi, :2]
        d = b - a
        length = np.hypot(d[:, 0], d[:, 1])
        rel = xy[new][:, None, :] - a[None, :, :]  # (new points, edges, 2)
        t = (rel[..., 0] * d[:, 0] + rel[..., 1] * d[:, 1]) / (length * length)
        off = np.abs(rel[..., 0] * d[:, 1] - rel[..., 1] * d[:, 0]) / length
        on = (t >= 0) & (t <= 1) & (off <= index.eps)
        hit = on.any(axis=1)
        e = np.argmax(on, axis=1)
        a_id, b_id = lo[e], hi[e]
        edge = np.where(hit, a_id * len(base.vertices) + b_id, -1)
        place = np.where(hit, t[np.arange(len(new)), e], 0.0)
        za, zb = base.vertices[a_id, 2], base.vertices[b_id, 2]
        plane = base.planes[p]
        inside = plane[0] * xy[new, 0] + plane[1] * xy[new, 1] + plane[2]
        xyz = np.column_stack([xy[new], np.where(hit, za + place * (zb - za), inside)])
    sizes = np.array([len(q) for q in polys], dtype=np.int64)
    corners = np.array([i for q in polys for i in q], dtype=np.int64)
    return Pieces(sizes, corners, base_id, edge, place, xyz)


def assemble(index: BaseIndex, pieces: dict[int, Pieces]) -> tuple[NavMesh, np.ndarray, np.ndarray]:
    """The mesh of the base polygons, each replaced by its pieces when it has some entry in `pieces`
    (an empty entry: nothing is left of it), in base polygon order, with the base's meta.

    New points are numbered after the base vertices in the order they first appear; two on the same
    base edge within `index.eps` of each other (the two sides of a portal a footprint cuts) are one, at
    the first one's coordinates.

    Returns:
        the mesh; per polygon of it, its base polygon (`origin`) and its rank among that one's pieces.
    """
    base = index.base
    nv, n = len(base.vertices), base.polygon_count
    cut = [pieces[p] for p in sorted(pieces) if pieces[p].sizes.size]
    cut_ids = np.array([p for p in sorted(pieces) if pieces[p].sizes.size], dtype=np.int64)
    ids, first = _weld(
        base,
        np.concatenate([c.new_edge for c in cut] or [_NONE]),
        np.concatenate([c.new_place for c in cut] or [np.zeros(0)]),
        index.eps,
    )
    xyz = np.concatenate([c.new_xyz for c in cut] or [np.zeros((0, 3))])
    # the pieces' points as mesh vertex ids: base vertices as they are, new points numbered by the weld
    gid = np.concatenate([c.base_id for c in cut] or [_NONE])
    gid[gid < 0] = nv + ids
    points = np.array([len(c.base_id) for c in cut], dtype=np.int64)
    per = np.array([len(c.sizes) for c in cut], dtype=np.int64)  # pieces per carved polygon
    piece_sizes = np.concatenate([c.sizes for c in cut] or [_NONE])
    piece_corners = gid[
        np.concatenate([c.corners for c in cut] or [_NONE])
        + np.repeat(np.cumsum(points) - points, [len(c.corners) for c in cut])
    ]
    piece_origin = np.repeat(cut_ids, per)
    piece_rank = np.arange(len(piece_sizes)) - np.repeat(np.cumsum(per) - per, per)
    # the base polygons kept as they are, then every polygon in base order (pieces by rank)
    kept = np.ones(n, dtype=bool)
    kept[list(pieces)] = False
    keep_ids = np.flatnonzero(kept)
    sizes = np.concatenate([index.sizes[keep_ids], piece_sizes])
    corners = np.concatenate([base.poly_verts[np.repeat(kept, index.sizes)], piece_corners])
    origin = np.concatenate([keep_ids, piece_origin])
    rank = np.concatenate([np.zeros(len(keep_ids), dtype=np.int64), piece_rank])
    order = np.lexsort((rank, origin))
    starts = np.cumsum(sizes) - sizes
    ordered = sizes[order]
    gather = np.repeat(starts[order] - (np.cumsum(ordered) - ordered), ordered) + np.arange(len(corners))
    mesh = build_navmesh_flat(
        np.vstack([base.vertices, xyz[first]]), ordered, corners[gather],
        planes=base.planes[origin[order]], meta=base.meta, area_ids=base.area_ids[origin[order]],
    )  # fmt: skip
    # a new point on the edge of a base polygon left whole (a cut flush with its side) must split that
    # polygon's edge too; usually there is none, and the mesh is final
    on_edge = np.concatenate([c.new_edge for c in cut] or [_NONE])
    whole = kept[index.edge_poly]
    if np.isin(on_edge[on_edge >= 0], index.edge_key[whole]).any():
        mesh = join_t_junctions(mesh, nv)
    return mesh, origin[order].astype(np.int64), rank[order].astype(np.int64)


def join_t_junctions(mesh: NavMesh, first_new: int) -> NavMesh:
    """`mesh` with each new vertex (id >= `first_new`) that lies inside a wall edge inserted into that
    edge, and the portals rebuilt (the mesh itself when there is none). A cut along a base edge (a
    footprint edge flush with a wall, an area outline along a shelf) reaches the polygon on one side
    only; the corner where it ends must split the other side's edge too, or the two sides lose their
    portal there."""
    new = np.arange(first_new, len(mesh.vertices))
    off, pv, nb, v = mesh.poly_offsets, mesh.poly_verts, mesh.poly_neighbors, mesh.vertices
    walls = np.flatnonzero(nb < 0)
    if new.size == 0 or walls.size == 0:
        return mesh
    nxt = np.arange(len(pv)) + 1
    nxt[off[1:] - 1] = off[:-1]
    a, b = v[pv[walls]], v[pv[nxt[walls]]]  # (w, 3)
    d = b[:, :2] - a[:, :2]
    length = np.hypot(d[:, 0], d[:, 1])
    rel = v[new, None, :2] - a[None, :, :2]  # (new, walls, 2)
    t = (rel[..., 0] * d[:, 0] + rel[..., 1] * d[:, 1]) / (length * length)
    off_line = np.abs(rel[..., 0] * d[:, 1] - rel[..., 1] * d[:, 0]) / length
    eps = 1e-9 * mesh.length_scale
    z_line = a[:, 2] + t * (b[:, 2] - a[:, 2])
    on = (off_line <= eps) & (t * length > eps) & ((1.0 - t) * length > eps)
    on &= np.abs(v[new, 2][:, None] - z_line) <= 1e-6
    if not on.any():
        return mesh
    vi, wi = np.nonzero(on)
    order = np.lexsort((t[vi, wi], walls[wi]))  # by corner slot, then along the edge
    slot, vertex = walls[wi[order]], new[vi[order]]
    extra = np.bincount(slot, minlength=len(pv))  # vertices to insert after each corner slot
    out = np.empty(len(pv) + len(vertex), dtype=np.int64)
    at = np.arange(len(pv)) + np.concatenate([[0], np.cumsum(extra)[:-1]])
    out[at] = pv
    fill = np.repeat(at, extra) + (np.arange(len(vertex)) - np.repeat(np.cumsum(extra) - extra, extra)) + 1
    out[fill] = vertex
    sizes = np.diff(off) + np.add.reduceat(extra, off[:-1])
    return build_navmesh_flat(v, sizes, out, mesh.planes, mesh.meta, mesh.area_ids)


def _weld(base: NavMesh, edge: np.ndarray, place: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Number m new points: those on the same base edge (`edge` >= 0) whose `place` along it differ by at
    most eps [m] share a number. Returns (m,) numbers, 0.. in order of first appearance, and for each
    number the index of its first point."""
    m = len(edge)
    if m == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    nv = len(base.vertices)
    order = np.lexsort((place, edge))
    e, t = edge[order], place[order]
    lo, hi = np.maximum(e, 0) // nv, np.maximum(e, 0) % nv
    length = np.linalg.norm(base.vertices[hi, :2] - base.vertices[lo, :2], axis=1)
    same = np.zeros(m, dtype=bool)
    same[1:] = (e[1:] == e[:-1]) & (e[1:] >= 0) & ((t[1:] - t[:-1]) * length[1:] <= eps)
    group = np.empty(m, dtype=np.int64)
    group[order] = np.cumsum(~same) - 1
    count = int(group.max()) + 1
    first = np.full(count, m, dtype=np.int64)
    np.minimum.at(first, group, np.arange(m))
    number = np.empty(count, dtype=np.int64)
    by_first = np.argsort(first, kind="stable")
    number[by_first] = np.arange(count)
    return number[group], first[by_first]


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
