"""Free space (a cell mask or shapely polygons) -> convex polygons.

Constrained Delaunay triangulation (shapely/GEOS) of the free polygon, then Hertel-Mehlhorn: remove
diagonals, longest first, while the two polygons they join stay convex and small. Triangulation adds no
vertices, so the result covers the input exactly; two pieces that only touch at a point share no edge.
Many geometries (a bake's regions) go through each step together (`cell_outlines`, `decompose_many`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import shapely
from shapely.geometry import MultiPolygon, Polygon, box

from navigation.bake_kernels import merge_triangles
from navigation.errors import NavMeshError


def mask_to_geometry(mask: np.ndarray, origin: tuple[int, int] = (0, 0)) -> MultiPolygon:
    """Union of the unit squares [i, i+1] x [j, j+1] of the True cells of a (rows=j, cols=i) mask, shifted
    by `origin` (the (i, j) of the mask's first column and row)."""
    m = np.asarray(mask, dtype=bool)
    if m.ndim != 2 or not m.any():
        return MultiPolygon()
    j, i = np.nonzero(m)
    return cell_outlines(i + origin[0], j + origin[1], np.zeros(len(i), dtype=np.int64), 1)[0]


def cell_outlines(i: np.ndarray, j: np.ndarray, owner: np.ndarray, n: int) -> list[MultiPolygon]:
    """Per owner 0..n-1, the union of the unit squares [i, i+1] x [j, j+1] of its cells: cell k is
    (i[k], j[k]) [cells] and belongs to owner[k] (repeats allowed). Each owner's row runs of cells become
    boxes in row-major order, and the boxes of all owners are unioned in a few vectorised calls (owners
    grouped by box count)."""
    out: list[MultiPolygon] = [MultiPolygon()] * n
    if len(i) == 0:
        return out
    order = np.lexsort((i, j, owner))
    i, j, owner = (np.asarray(a, dtype=np.int64)[order] for a in (i, j, owner))
    fresh = np.ones(len(i), dtype=bool)
    fresh[1:] = (owner[1:] != owner[:-1]) | (j[1:] != j[:-1]) | (i[1:] != i[:-1])
    i, j, owner = i[fresh], j[fresh], owner[fresh]
    start = np.ones(len(i), dtype=bool)
    start[1:] = (owner[1:] != owner[:-1]) | (j[1:] != j[:-1]) | (i[1:] != i[:-1] + 1)
    first = np.flatnonzero(start)
    last = np.append(first[1:], len(i)) - 1
    boxes = shapely.box(i[first], j[first], i[last] + 1, j[last] + 1)
    whose = owner[first]
    count = np.bincount(whose, minlength=n)
    rank = np.arange(len(whose)) - np.searchsorted(whose, whose)  # box's place among its owner's
    width = np.maximum(1, 1 << np.ceil(np.log2(np.maximum(count, 1))).astype(np.int64))
    for w in np.unique(width[count > 0]).tolist():  # owners padded to a power of two boxes (None: nothing)
        who = np.flatnonzero((width == w) & (count > 0))
        table = np.full((len(who), w), None, dtype=object)
        row = np.full(n, -1, dtype=np.int64)
        row[who] = np.arange(len(who))
        mine = row[whose] >= 0
        table[row[whose[mine]], rank[mine]] = boxes[mine]
        for o, geom in zip(who.tolist(), shapely.union_all(table, axis=1).tolist(), strict=True):
            out[o] = as_multipolygon(geom)
    return out


def as_multipolygon(geom: shapely.Geometry) -> MultiPolygon:
    """The polygonal part of a geometry as a MultiPolygon (empty if none)."""
    if geom.is_empty:
        return MultiPolygon()
    if isinstance(geom, Polygon):
        return MultiPolygon([geom])
    if isinstance(geom, MultiPolygon):
        return geom
    parts = [g for g in getattr(geom, "geoms", []) if isinstance(g, (Polygon, MultiPolygon))]
    polys: list[Polygon] = []
    for g in parts:
        polys.extend(as_multipolygon(g).geoms)
    return MultiPolygon(polys)


def _cdt_pieces(poly: Polygon, cuts: list[tuple[int, float]], depth: int = 0) -> list[np.ndarray]:
    """CDT triangles of one polygon, as (k, 3, 2) arrays; where GEOS cannot triangulate it (holes touching
    the shell at a point can defeat its hole joiner), bisect the polygon and triangulate the halves (cuts
    recorded)."""
    try:
        out = shapely.constrained_delaunay_triangles(poly)
        return [shapely.get_coordinates(shapely.get_parts(out)).reshape(-1, 4, 2)[:, :3]]
    except shapely.errors.GEOSException:
        if depth > 24:
            raise NavMeshError("could not triangulate the walkable area (degenerate geometry)") from None
    x0, y0, x1, y1 = poly.bounds
    axis = 0 if x1 - x0 >= y1 - y0 else 1
    lo, hi = (x0, x1) if axis == 0 else (y0, y1)
    c = 0.5 * (lo + hi)
    if hi - lo > 2 and float(lo).is_integer() and float(hi).is_integer():
        c = float(round(c))
    cuts.append((axis, c))
    halves = (
        (box(x0 - 1, y0 - 1, c, y1 + 1), box(c, y0 - 1, x1 + 1, y1 + 1))
        if axis == 0
        else (box(x0 - 1, y0 - 1, x1 + 1, c), box(x0 - 1, c, x1 + 1, y1 + 1))
    )
    tris: list[np.ndarray] = []
    for half in halves:
        for part in as_multipolygon(poly.intersection(half)).geoms:
            if part.area > 0:
                tris.extend(_cdt_pieces(shapely.simplify(part, 0.0), cuts, depth + 1))
    return tris


def triangulate(
    geom: shapely.Geometry, simplify: bool = True
) -> tuple[np.ndarray, np.ndarray, list[tuple[int, float]]]:
    """Constrained Delaunay triangles of a polygonal geometry; with `simplify`, collinear and repeated
    ring vertices are dropped first (pass False to keep vertices another mesh piece must share).

    Returns:
        (nv, 2) unique vertices, (nt, 3) CCW triangle vertex ids (zero-area triangles dropped), and the
        axis-aligned cut lines (axis, coordinate) used where the polygon had to be bisected.
    """
    parts = np.array(as_multipolygon(shapely.simplify(geom, 0.0) if simplify else geom).geoms, dtype=object)
    mesh = _triangulate_many(parts, np.zeros(len(parts), dtype=np.int64), 1)
    return mesh.verts, mesh.tris, mesh.cuts[0]


class _Triangles(NamedTuple):
    """The triangles of n meshes at once: mesh m's vertices are verts[vert_off[m]:vert_off[m + 1]] and its
    triangles tris[tri_off[m]:tri_off[m + 1]] (ids into `verts`); `cuts[m]` as `triangulate` says."""

    verts: np.ndarray
    vert_off: np.ndarray
    tris: np.ndarray
    tri_off: np.ndarray
    cuts: list[list[tuple[int, float]]]


def _triangulate_many(polys: np.ndarray, owner: np.ndarray, n: int) -> _Triangles:
    """`triangulate(simplify=False)` of n meshes at once: polygon k of `polys` belongs to mesh owner[k]
    (owners in increasing order); one vectorised triangulation for all when GEOS manages every polygon."""
    cuts: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    keep = np.flatnonzero(shapely.area(polys) > 0) if len(polys) else np.zeros(0, dtype=np.int64)
    polys, owner = polys[keep], owner[keep]
    try:
        pieces = shapely.constrained_delaunay_triangles(polys)
        tri, which = shapely.get_parts(pieces, return_index=True)
        corners = shapely.get_coordinates(tri).reshape(-1, 4, 2)[:, :3]
        tri_owner = owner[which]
    except shapely.errors.GEOSException:  # rare: one polygon at a time, bisecting those GEOS cannot do
        per = [(o, _cdt_pieces(p, cuts[o])) for p, o in zip(polys.tolist(), owner.tolist(), strict=True)]
        corners = np.concatenate([t for _, ts in per for t in ts] or [np.zeros((0, 3, 2))])
        tri_owner = np.repeat([o for o, ts in per for _ in ts], [len(t) for _, ts in per for t in ts])
        tri_owner = tri_owner.astype(np.int64)
    pts = np.asarray(corners, dtype=np.float64).reshape(-1, 2)
    pt_owner = np.repeat(tri_owner, 3)
    # each mesh's distinct corners in (x, y) order, as np.unique(axis=0) gives them, by one lexsort
    order = np.lexsort((pts[:, 1], pts[:, 0], pt_owner))
    ranked = pts[order]
    first = np.ones(len(ranked), dtype=bool)
    first[1:] = (ranked[1:] != ranked[:-1]).any(axis=1) | (pt_owner[order][1:] != pt_owner[order][:-1])
    verts = ranked[first]
    vert_owner = pt_owner[order][first]
    rank = np.empty(len(pts), dtype=np.int64)
    rank[order] = np.cumsum(first) - 1
    ids = rank.reshape(-1, 3)
    a, b, c = verts[ids[:, 0]], verts[ids[:, 1]], verts[ids[:, 2]]
    area2 = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
    flip = area2 < 0
    ids[flip] = ids[flip][:, [0, 2, 1]]
    scale = _scales(verts, vert_owner, n)[tri_owner]
    kept = np.abs(area2) > 1e-12 * scale * scale
    tri_off = np.searchsorted(tri_owner[kept], np.arange(n + 1))
    vert_off = np.searchsorted(vert_owner, np.arange(n + 1))
    return _Triangles(verts, vert_off, ids[kept], tri_off, cuts)


def _scales(verts: np.ndarray, owner: np.ndarray, n: int) -> np.ndarray:
    """(n,) per mesh: max(1, the largest |coordinate| of its vertices (owner (nv,) sorted))."""
    out = np.ones(n)
    if len(verts):
        np.maximum.at(out, owner, np.abs(verts).max(axis=1))
    return out


def split_t_junctions(
    verts: np.ndarray, polys: list[list[int]], cuts: list[tuple[int, float]]
) -> list[list[int]]:
    """Insert the vertices lying on cut lines into the polygon edges running along them (collinear
    vertices keep a polygon convex), so pieces triangulated separately share whole edges."""
    if not cuts:
        return polys
    scale = max(1.0, float(np.abs(verts).max()))
    tol = 1e-9 * scale
    out = []
    lines = {(axis, c) for axis, c in cuts}
    on_line = {key: np.flatnonzero(np.abs(verts[:, key[0]] - key[1]) <= tol) for key in lines}
    for poly in polys:
        new: list[int] = []
        k = len(poly)
        for i in range(k):
            u, v = poly[i], poly[(i + 1) % k]
            new.append(u)
            for (axis, _c), cand in on_line.items():
                if cand.size == 0 or u not in cand or v not in cand:
                    continue
                other = 1 - axis
                a, b = verts[u, other], verts[v, other]
                vals = verts[cand, other]
                inner = cand[(np.minimum(a, b) + tol < vals) & (vals < np.maximum(a, b) - tol)]
                if inner.size:
                    order = np.argsort(verts[inner, other] * (1 if b > a else -1))
                    new.extend(int(x) for x in inner[order])
                break
        out.append(new)
    return out


def merge_convex(verts: np.ndarray, triangles: np.ndarray, max_verts: int = 6) -> list[list[int]]:
    """Hertel-Mehlhorn: merge CCW triangles across shared edges into convex polygons of <= max_verts,
    trying the diagonals longest first (`bake_kernels.merge_triangles` does the merging)."""
    tris = np.ascontiguousarray(triangles, dtype=np.int64).reshape(-1, 3)
    scale = max(1.0, float(np.abs(verts).max())) if len(verts) else 1.0
    offsets, corners = _merge(verts, tris, np.full(len(tris), 1e-12 * scale * scale), max_verts)
    flat, bounds = corners.tolist(), offsets.tolist()
    return [flat[bounds[p] : bounds[p + 1]] for p in range(len(bounds) - 1)]


def _merge(
    verts: np.ndarray, tris: np.ndarray, eps: np.ndarray, max_verts: int
) -> tuple[np.ndarray, np.ndarray]:
    """`merge_convex` of (nt, 3) triangles, each with its convexity tolerance eps (nt,); separate meshes
    (sharing no vertex) merge in one call exactly as one by one. Returns (offsets, corners)."""
    if max_verts < 3:
        raise NavMeshError(f"max_verts must be >= 3, got {max_verts}")
    if len(tris) == 0:
        return np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64)
    nv = np.int64(len(verts))
    u = tris.reshape(-1)
    v = tris[:, [1, 2, 0]].reshape(-1)
    key = u * nv + v
    order = np.argsort(key, kind="stable")
    pos = np.clip(np.searchsorted(key[order], v * nv + u), 0, len(key) - 1)
    twin = np.where(key[order][pos] == v * nv + u, order[pos], -1)
    diagonal = np.flatnonzero((u < v) & (twin >= 0))  # each shared edge once, in triangle order
    length = np.hypot(
        verts[u[diagonal], 0] - verts[v[diagonal], 0], verts[u[diagonal], 1] - verts[v[diagonal], 1]
    )
    diagonal = diagonal[np.argsort(-length, kind="stable")]
    xy = np.ascontiguousarray(verts, dtype=np.float64)
    offsets: np.ndarray
    corners: np.ndarray
    offsets, corners = merge_triangles(
        xy, tris, diagonal, twin, int(max_verts), np.ascontiguousarray(eps, dtype=np.float64)
    )
    return offsets, corners


def decompose(
    geom: shapely.Geometry, max_verts: int = 6, simplify: bool = True
) -> tuple[np.ndarray, list[list[int]]]:
    """Convex polygons covering a polygonal geometry exactly: (nv, 2) vertices, CCW vertex id lists.
    `simplify` as in `triangulate`."""
    parts = np.array(as_multipolygon(shapely.simplify(geom, 0.0) if simplify else geom).geoms, dtype=object)
    return decompose_many(parts, np.zeros(len(parts), dtype=np.int64), 1, max_verts)[0]


def decompose_many(
    polys: np.ndarray, owner: np.ndarray, n: int, max_verts: int = 6
) -> list[tuple[np.ndarray, list[list[int]]]]:
    """`decompose(simplify=False)` of n geometries at once, each given as its polygons: polygon k of
    `polys` (object array) belongs to geometry owner[k] (owners in increasing order). Per geometry, its
    (nv, 2) vertices and CCW polygons of vertex ids, as `decompose` gives them."""
    mesh = _triangulate_many(polys, owner, n)
    tri_owner = np.repeat(np.arange(n), np.diff(mesh.tri_off))
    scale = _scales(mesh.verts, np.repeat(np.arange(n), np.diff(mesh.vert_off)), n)
    offsets, corners = _merge(mesh.verts, mesh.tris, (1e-12 * scale * scale)[tri_owner], max_verts)
    # polygons come out in the order of their first triangle, so mesh by mesh; ids back to each mesh's own
    vert_owner = np.repeat(np.arange(n), np.diff(mesh.vert_off))
    poly_owner = vert_owner[corners[offsets[:-1]]]
    flat, bounds = (corners - mesh.vert_off[vert_owner[corners]]).tolist(), offsets.tolist()
    everything = [flat[bounds[p] : bounds[p + 1]] for p in range(len(bounds) - 1)]
    poly_off = np.searchsorted(poly_owner, np.arange(n + 1)).tolist()
    out = []
    for m in range(n):
        verts = mesh.verts[mesh.vert_off[m] : mesh.vert_off[m + 1]]
        mine = everything[poly_off[m] : poly_off[m + 1]]
        out.append((verts, split_t_junctions(verts, mine, mesh.cuts[m])))
    return out
