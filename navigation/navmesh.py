"""The immutable navigation mesh: convex polygons, their portal (shared edge) graph, heights; save/load.

Coordinates are metres, z up. Polygons are convex and counter-clockwise seen from above. Edge k of a
polygon runs from its vertex k to vertex k+1; `poly_neighbors` holds the polygon across it (-1 = wall).
Heights are per polygon: z = a*x + b*y + c with (a, b, c) = `planes[p]`, so paths follow slopes and
two layers of a multi-level level (a bridge above a walkway) are different polygons.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

import networkx as nx
import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from navigation.errors import NavMeshError

FORMAT_VERSION = 2  # 2: per-polygon area ids (version 1 files load with every polygon GROUND_AREA)
FLAG_ISLAND = 1  # polygon is not in the largest connected component
GROUND_AREA = 0  # the area id of a polygon no area volume marks (`navigation.areas`)
MAX_AREA = 63  # the largest area id (Recast's RC_WALKABLE_AREA is 63 too)


def _frozen(a: Any, dtype: Any) -> np.ndarray:
    out = np.array(a, dtype=dtype, copy=True)
    out.setflags(write=False)
    return out


class PolygonLoops(NamedTuple):
    """The polygons as plain Python lists, for scalar per-polygon loops (searches, point-in-polygon).

    Attributes:
        xy: per polygon, its (x, y) corners [m], counter-clockwise.
        vertex_ids: per polygon, its vertex ids.
        neighbors: per polygon, the polygon across each edge (-1 = wall).
    """

    xy: list[list[tuple[float, float]]]
    vertex_ids: list[list[int]]
    neighbors: list[list[int]]


@dataclass(frozen=True, eq=False)
class NavMesh:
    """Convex polygons with portals. Build it with `build_navmesh`; all arrays are read-only.

    Attributes:
        vertices: (nv, 3) vertex positions [m].
        poly_offsets: (np + 1,) start of each polygon's run in `poly_verts`.
        poly_verts: (sum of sizes,) vertex ids, counter-clockwise from above.
        poly_neighbors: (sum of sizes,) polygon across each edge, -1 for a wall edge.
        planes: (np, 3) height plane of each polygon (z = a x + b y + c).
        areas: (np,) horizontal area of each polygon [m^2].
        islands: (np,) connected-component label (>= 0); `build_navmesh` gives 0 to the largest component
            by area. `main_island` says which label is the largest, for any mesh.
        flags: (np,) uint16 bit flags (FLAG_ISLAND).
        meta: free-form JSON-able description (bake source, settings, content hash; `meta["areas"]`, when
            areas are marked, names each area id: {"water": 1, ...}).
        area_ids: (np,) uint8 area id of each polygon, GROUND_AREA (0) .. MAX_AREA (`navigation.areas`
            marks them; None: every polygon GROUND_AREA). Query filters give areas costs or exclude them.
    """

    vertices: np.ndarray
    poly_offsets: np.ndarray
    poly_verts: np.ndarray
    poly_neighbors: np.ndarray
    planes: np.ndarray
    areas: np.ndarray
    islands: np.ndarray
    flags: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)
    area_ids: np.ndarray = None  # type: ignore[assignment]  # None: filled in by __post_init__

    @property
    def polygon_count(self) -> int:
        return int(self.poly_offsets.shape[0] - 1)

    @cached_property
    def island_areas(self) -> np.ndarray:
        """(k,) total horizontal area of each island label 0..k-1 [m^2] (0 for an unused label)."""
        out = np.bincount(self.islands, weights=self.areas, minlength=1 if self.polygon_count else 0)
        out.setflags(write=False)
        return out

    @cached_property
    def main_island(self) -> int:
        """The island agents live on: the label with the largest total walkable area (ties: the lowest
        label); -1 for a mesh without polygons. Spawns, wander targets and sample paths use this island."""
        return int(np.argmax(self.island_areas)) if self.polygon_count else -1

    @cached_property
    def loops(self) -> PolygonLoops:
        """The polygons as plain Python lists (see `PolygonLoops`); built once per mesh."""
        off, v = self.poly_offsets.tolist(), self.vertices
        ids = [self.poly_verts[off[p] : off[p + 1]].tolist() for p in range(self.polygon_count)]
        xy = [[(float(v[i, 0]), float(v[i, 1])) for i in poly] for poly in ids]
        nbs = [self.poly_neighbors[off[p] : off[p + 1]].tolist() for p in range(self.polygon_count)]
        return PolygonLoops(xy, ids, nbs)

    @cached_property
    def length_scale(self) -> float:
        """Largest horizontal coordinate magnitude, at least 1 [m]: what tolerances are relative to."""
        extent = float(np.abs(self.vertices[:, :2]).max()) if self.vertices.size else 1.0
        return max(1.0, extent)

    @property
    def length_epsilon(self) -> float:
        """Horizontal distance below which two points count as the same [m] (1e-9 x `length_scale`)."""
        return 1e-9 * self.length_scale

    def polygon(self, p: int) -> np.ndarray:
        """Vertex ids of polygon p (CCW)."""
        return self.poly_verts[self.poly_offsets[p] : self.poly_offsets[p + 1]]

    def polygon_xy(self, p: int) -> np.ndarray:
        """(k, 2) horizontal corners of polygon p [m]."""
        return self.vertices[self.polygon(p), :2]

    def neighbors(self, p: int) -> np.ndarray:
        """Polygon across each edge of p (-1 = wall)."""
        return self.poly_neighbors[self.poly_offsets[p] : self.poly_offsets[p + 1]]

    def height_at(self, p: int, x: float, y: float) -> float:
        """Height of polygon p's surface above (x, y) [m]."""
        a, b, c = self.planes[p]
        return float(a * x + b * y + c)

    @property
    def portals(self) -> np.ndarray:
        """(m, 4) int rows (poly_a, edge_a, poly_b, edge_b), poly_a < poly_b, one per shared edge."""
        poly_of = np.repeat(np.arange(self.polygon_count), np.diff(self.poly_offsets))
        edge_of = np.arange(self.poly_verts.shape[0]) - self.poly_offsets[poly_of]
        nb = self.poly_neighbors
        keep = nb > poly_of
        rows = []
        for a, ea, b in zip(poly_of[keep], edge_of[keep], nb[keep], strict=True):
            nbs = self.neighbors(int(b))
            eb = int(np.flatnonzero(nbs == a)[0])
            rows.append((int(a), int(ea), int(b), eb))
        return np.array(rows, dtype=np.int64).reshape(-1, 4)

    def boundary_edges(self) -> tuple[np.ndarray, np.ndarray]:
        """(starts, ends): the (k, 3) end points [m] of every edge with no polygon across (a wall or a
        ledge), polygon by polygon, counter-clockwise: the mesh lies on each edge's left."""
        off = self.poly_offsets
        sizes = np.diff(off)
        poly_of = np.repeat(np.arange(self.polygon_count), sizes)
        local = np.arange(self.poly_verts.shape[0]) - off[poly_of]
        nxt = off[poly_of] + (local + 1) % sizes[poly_of]
        edge = self.poly_neighbors < 0
        starts = self.vertices[self.poly_verts[edge]].reshape(-1, 3)
        return starts, self.vertices[self.poly_verts[nxt[edge]]].reshape(-1, 3)

    def portal_segment(self, p: int, edge: int) -> np.ndarray:
        """(2, 3) end points of edge `edge` of polygon p [m]."""
        ids = self.polygon(p)
        return self.vertices[[ids[edge], ids[(edge + 1) % ids.shape[0]]]]

    def centroids(self) -> np.ndarray:
        """(np, 3) vertex-mean centre of each polygon [m]."""
        sums = np.add.reduceat(self.vertices[self.poly_verts], self.poly_offsets[:-1], axis=0)
        return sums / np.diff(self.poly_offsets)[:, None]

    def graph(self) -> nx.Graph:
        """Polygon adjacency graph: nodes are polygon ids, edges are portals weighted by centre distance."""
        g = nx.Graph()
        g.add_nodes_from(range(self.polygon_count))
        c = self.centroids()
        for a, ea, b, _ in self.portals:
            g.add_edge(int(a), int(b), weight=float(np.linalg.norm(c[a] - c[b])), edge=int(ea))
        return g

    @property
    def total_area(self) -> float:
        return float(self.areas.sum())

    def save(self, path: str | Path) -> Path:
        """Write the mesh to exactly `path` and return it (npz data, format version FORMAT_VERSION).

        `.npz` is the usual name, but no suffix is ever added: the file written is the path returned.
        """
        p = Path(path)
        with p.open("wb") as f:  # given a file object, numpy does not append ".npz" to the name
            np.savez_compressed(
                f,
                version=np.array(FORMAT_VERSION),
                vertices=self.vertices,
                poly_offsets=self.poly_offsets,
                poly_verts=self.poly_verts,
                poly_neighbors=self.poly_neighbors,
                planes=self.planes,
                areas=self.areas,
                islands=self.islands,
                flags=self.flags,
                area_ids=self.area_ids,
                meta=np.array(json.dumps(self.meta, sort_keys=True, default=str)),
            )
        return p

    @classmethod
    def load(cls, path: str | Path) -> NavMesh:
        """Read a mesh written by `save`; any defect raises NavMeshError."""
        p = Path(path)
        try:
            with np.load(p, allow_pickle=False) as z:
                data = {k: z[k] for k in z.files}
        except FileNotFoundError:
            raise NavMeshError(f"{p}: no such navmesh file") from None
        except Exception as exc:
            raise NavMeshError(f"{p}: not a navmesh .npz file ({exc})") from None
        if "version" not in data or int(data["version"]) not in (1, FORMAT_VERSION):
            got = data["version"].item() if "version" in data else None
            raise NavMeshError(
                f"{p}: navmesh format version {got!r}, this build reads {FORMAT_VERSION}; re-bake"
            )
        try:
            meta = json.loads(str(data.pop("meta")))
            data.pop("version")
            return cls(meta=meta, **data)
        except (TypeError, KeyError, ValueError) as exc:
            raise NavMeshError(f"{p}: corrupt navmesh file: {exc}") from None

    def __post_init__(self) -> None:
        v = np.asarray(self.vertices, dtype=np.float64)
        if v.ndim != 2 or v.shape[1] != 3 or not np.isfinite(v).all():
            raise NavMeshError(f"vertices must be a finite (n, 3) array, got shape {v.shape}")
        off = np.asarray(self.poly_offsets, dtype=np.int64)
        pv = np.asarray(self.poly_verts, dtype=np.int64)
        nb = np.asarray(self.poly_neighbors, dtype=np.int64)
        n = off.shape[0] - 1
        if off.ndim != 1 or n < 0 or off[0] != 0 or off[-1] != pv.shape[0] or (np.diff(off) < 3).any():
            raise NavMeshError("poly_offsets must start at 0, end at len(poly_verts), polygons >= 3 vertices")
        if nb.shape != pv.shape or (pv.size and (pv.min() < 0 or pv.max() >= v.shape[0])):
            raise NavMeshError("poly_verts must index vertices and poly_neighbors must match its shape")
        if nb.size and (nb.min() < -1 or nb.max() >= n):
            raise NavMeshError("poly_neighbors must be -1 or a polygon id")
        for name, shape in (("planes", (n, 3)), ("areas", (n,)), ("islands", (n,)), ("flags", (n,))):
            if np.shape(getattr(self, name)) != shape:
                raise NavMeshError(f"{name} must have shape {shape}, got {np.shape(getattr(self, name))}")
        if n and np.min(self.islands) < 0:
            raise NavMeshError("islands must hold labels >= 0")
        object.__setattr__(self, "vertices", _frozen(v, np.float64))
        object.__setattr__(self, "poly_offsets", _frozen(off, np.int64))
        object.__setattr__(self, "poly_verts", _frozen(pv, np.int64))
        object.__setattr__(self, "poly_neighbors", _frozen(nb, np.int64))
        object.__setattr__(self, "planes", _frozen(self.planes, np.float64))
        object.__setattr__(self, "areas", _frozen(self.areas, np.float64))
        object.__setattr__(self, "islands", _frozen(self.islands, np.int64))
        object.__setattr__(self, "flags", _frozen(self.flags, np.uint16))
        object.__setattr__(self, "meta", dict(self.meta))
        ids = np.zeros(n, dtype=np.uint8) if self.area_ids is None else np.asarray(self.area_ids)
        if ids.shape != (n,) or (
            n and (not np.issubdtype(ids.dtype, np.integer) or ids.min() < 0 or ids.max() > MAX_AREA)
        ):
            raise NavMeshError(f"area_ids must be ({n},) whole numbers 0..{MAX_AREA}, got shape {ids.shape}")
        object.__setattr__(self, "area_ids", _frozen(ids, np.uint8))


def _polygon_areas(x: np.ndarray, y: np.ndarray, off: np.ndarray) -> np.ndarray:
    """Shoelace areas [m^2] of the polygons whose corners are runs off[p]:off[p+1] of x, y (CCW > 0)."""
    sizes = np.diff(off)
    nxt = np.arange(x.shape[0]) + 1
    nxt[off[1:] - 1] = off[:-1]  # each polygon's last corner wraps to its first
    terms = x * y[nxt] - x[nxt] * y
    return 0.5 * np.add.reduceat(terms, off[:-1]) if sizes.size else np.zeros(0)


def build_navmesh(
    vertices: np.ndarray,
    polygons: list[list[int]] | list[np.ndarray],
    planes: np.ndarray | None = None,
    meta: dict[str, Any] | None = None,
    area_ids: np.ndarray | None = None,
) -> NavMesh:
    """Assemble a NavMesh: find portals (edges used by two polygons in opposite directions), areas, islands.

    Args:
        vertices: (nv, 2) or (nv, 3) positions [m]; a missing z is 0.
        polygons: convex polygons as vertex id lists, counter-clockwise from above.
        planes: (np, 3) height planes; default: fitted through each polygon's vertices.
        meta: free-form description. area_ids: (np,) area id per polygon (default: all GROUND_AREA).
    """
    v = _vertices(vertices)
    n = len(polygons)
    sizes = np.fromiter(map(len, polygons), dtype=np.int64, count=n)
    corners = (
        np.fromiter((i for p in polygons for i in p), dtype=np.int64, count=int(sizes.sum()))
        if n
        else np.zeros(0, np.int64)
    )
    return build_navmesh_flat(v, sizes, corners, planes, meta, area_ids)


def _vertices(vertices: np.ndarray) -> np.ndarray:
    """(nv, 3) float positions [m] from (nv, 2) (z 0) or (nv, 3)."""
    v = np.asarray(vertices, dtype=np.float64)
    if v.ndim != 2 or v.shape[1] not in (2, 3):
        raise NavMeshError(f"vertices must be (n, 2) or (n, 3), got {v.shape}")
    if v.shape[1] == 2:
        v = np.column_stack([v, np.zeros(len(v))])
    return v


def build_navmesh_flat(
    vertices: np.ndarray,
    sizes: np.ndarray,
    corners: np.ndarray,
    planes: np.ndarray | None = None,
    meta: dict[str, Any] | None = None,
    area_ids: np.ndarray | None = None,
) -> NavMesh:
    """`build_navmesh` of polygons given as flat arrays: (np,) vertex counts and (sum of counts,) vertex
    ids, one polygon after another (no Python list per polygon: for callers that re-assemble often)."""
    v = _vertices(vertices)
    sizes = np.asarray(sizes, dtype=np.int64)
    pv = np.asarray(corners, dtype=np.int64)
    n = len(sizes)
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    if off[-1] != len(pv):
        raise NavMeshError(f"the polygon sizes add up to {off[-1]} corners, but {len(pv)} are given")
    if (sizes < 3).any():
        raise NavMeshError("poly_offsets must start at 0, end at len(poly_verts), polygons >= 3 vertices")
    if pv.size and (pv.min() < 0 or pv.max() >= len(v)):
        raise NavMeshError("poly_verts must index vertices and poly_neighbors must match its shape")
    # edge k of polygon p runs pv[off[p] + k] -> the next corner; a portal is the same edge reversed
    poly_of = np.repeat(np.arange(n), sizes)
    nxt = np.arange(pv.shape[0]) + 1
    if n:
        nxt[off[1:] - 1] = off[:-1]
    nv = np.int64(max(len(v), 1))
    key = pv * nv + pv[nxt]
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    dup = np.flatnonzero(sorted_key[1:] == sorted_key[:-1])
    if dup.size:
        k = int(sorted_key[dup[0]])
        raise NavMeshError(
            f"edge {(k // int(nv), k % int(nv))} is used twice in the same direction (overlapping polygons)"
        )
    back = pv[nxt] * nv + pv
    pos = np.clip(np.searchsorted(sorted_key, back), 0, max(len(key) - 1, 0))
    found = sorted_key[pos] == back if key.size else np.zeros(0, dtype=bool)
    nb = np.where(found, poly_of[order[pos]] if key.size else -1, -1).astype(np.int64)
    areas = _polygon_areas(v[pv, 0], v[pv, 1], off)
    if n and (areas <= 0).any():
        bad = int(np.flatnonzero(areas <= 0)[0])
        raise NavMeshError(f"polygon {bad} is not counter-clockwise or has zero area")
    if planes is None:
        planes = np.zeros((n, 3))
        for p in range(n):
            planes[p] = fit_plane(v[pv[off[p] : off[p + 1]]])
    islands = _island_labels(n, poly_of[nb >= 0], nb[nb >= 0], areas)
    flags = np.where(islands > 0, FLAG_ISLAND, 0).astype(np.uint16)
    ids = np.zeros(n, dtype=np.uint8) if area_ids is None else area_ids
    return NavMesh(v, off, pv, nb, np.asarray(planes, float), areas, islands, flags, dict(meta or {}), ids)


def _island_labels(n: int, a: np.ndarray, b: np.ndarray, areas: np.ndarray) -> np.ndarray:
    """(n,) connected-component labels of the polygon graph with edges a-b: 0 for the largest total area,
    then by decreasing area; areas equal to 1e-12 of the largest are ties (summation noise must not
    order two equal islands), broken by the lowest polygon id first."""
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    graph = coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n))
    comp = np.asarray(connected_components(graph, directed=False)[1], dtype=np.int64)
    k = int(comp.max()) + 1
    total = np.bincount(comp, weights=areas, minlength=k)
    first = np.full(k, n, dtype=np.int64)
    np.minimum.at(first, comp, np.arange(n))
    rank = np.empty(k, dtype=np.int64)
    level = np.rint(total * (1e12 / max(float(total.max()), 1e-300)))
    rank[np.lexsort((first, -level))] = np.arange(k)
    labels: np.ndarray = rank[comp]
    return labels


def fit_plane(points: np.ndarray) -> np.ndarray:
    """Least-squares plane z = a x + b y + c through (k, 3) points; flat (0, 0, mean z) if degenerate."""
    pts = np.asarray(points, dtype=np.float64)
    if np.ptp(pts[:, 2]) < 1e-12 or len(pts) < 3:
        return np.array([0.0, 0.0, float(pts[:, 2].mean())])
    A = np.column_stack([pts[:, 0], pts[:, 1], np.ones(len(pts))])
    sol, _, rank, _ = np.linalg.lstsq(A, pts[:, 2], rcond=None)
    if rank < 3:
        return np.array([0.0, 0.0, float(pts[:, 2].mean())])
    return sol
