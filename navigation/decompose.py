"""Free space (a cell mask or shapely polygons) -> convex polygons.

Constrained Delaunay triangulation (shapely/GEOS) of the free polygon, then Hertel-Mehlhorn: remove
diagonals, longest first, while the two polygons they join stay convex and small. Triangulation adds no
vertices, so the result covers the input exactly; two pieces that only touch at a point share no edge.
"""

from __future__ import annotations

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
    pad = np.zeros((m.shape[0], m.shape[1] + 2), dtype=np.int8)
    pad[:, 1:-1] = m
    d = np.diff(pad, axis=1)
    rs, cs = np.nonzero(d == 1)  # row-major order: the k-th run start pairs with the k-th run end
    _, ce = np.nonzero(d == -1)
    i0, j0 = origin
    boxes = shapely.box(cs + i0, rs + j0, ce + i0, rs + j0 + 1)
    return as_multipolygon(shapely.union_all(boxes))


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
    mp = as_multipolygon(shapely.simplify(geom, 0.0) if simplify else geom)
    tris: list[np.ndarray] = []
    cuts: list[tuple[int, float]] = []
    for poly in mp.geoms:
        if poly.area > 0:
            tris.extend(_cdt_pieces(poly, cuts))
    if not sum(len(t) for t in tris):
        return np.zeros((0, 2)), np.zeros((0, 3), dtype=np.int64), cuts
    pts = np.concatenate(tris, dtype=np.float64).reshape(-1, 2)
    # the distinct corners in (x, y) order, as np.unique(axis=0) gives them, by one lexsort
    order = np.lexsort((pts[:, 1], pts[:, 0]))
    ranked = pts[order]
    first = np.ones(len(ranked), dtype=bool)
    first[1:] = (ranked[1:] != ranked[:-1]).any(axis=1)
    verts = ranked[first]
    rank = np.empty(len(pts), dtype=np.int64)
    rank[order] = np.cumsum(first) - 1
    ids = rank.reshape(-1, 3)
    a, b, c = verts[ids[:, 0]], verts[ids[:, 1]], verts[ids[:, 2]]
    area2 = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
    flip = area2 < 0
    ids[flip] = ids[flip][:, [0, 2, 1]]
    scale = max(1.0, float(np.abs(verts).max()))
    keep = np.abs(area2) > 1e-12 * scale * scale
    return verts, ids[keep], cuts


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
    if max_verts < 3:
        raise NavMeshError(f"max_verts must be >= 3, got {max_verts}")
    tris = np.ascontiguousarray(triangles, dtype=np.int64).reshape(-1, 3)
    if len(tris) == 0:
        return []
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
    scale = max(1.0, float(np.abs(verts).max())) if len(verts) else 1.0
    xy = np.ascontiguousarray(verts, dtype=np.float64)
    offsets, corners = merge_triangles(xy, tris, diagonal, twin, int(max_verts), 1e-12 * scale * scale)
    flat, bounds = corners.tolist(), offsets.tolist()
    return [flat[bounds[p] : bounds[p + 1]] for p in range(len(bounds) - 1)]


def decompose(
    geom: shapely.Geometry, max_verts: int = 6, simplify: bool = True
) -> tuple[np.ndarray, list[list[int]]]:
    """Convex polygons covering a polygonal geometry exactly: (nv, 2) vertices, CCW vertex id lists.
    `simplify` as in `triangulate`."""
    verts, tris, cuts = triangulate(geom, simplify)
    return verts, split_t_junctions(verts, merge_convex(verts, tris, max_verts), cuts)
