"""Simplify the cell outlines of many regions at once, never moving or dropping a pinned corner.

An outline's corners are whole cells apart; each ring is simplified by at most a tolerance inwards (never
outwards) between its pinned corners (`bake_kernels.simplify_rings`), so every simplified part lies inside
its cell outline and parts of different regions cannot overlap. A part that comes out invalid, empty or
poking out of its outline is tried again with half the tolerance, then with none, then kept as it was.
All rings of all regions go through each step in one vectorised call.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry import MultiPolygon, Polygon

from navigation.bake_kernels import simplify_rings


def simplify_outlines(
    outlines: Sequence[MultiPolygon], pinned: Sequence[set[tuple[int, int]]], tol: float
) -> tuple[np.ndarray, np.ndarray]:
    """Simplify every ring of each outline (in cells, integer corners) by at most tol [cells] inwards,
    keeping the pinned corners (x, y) of its own set in `pinned`; collinear runs of pinned corners keep
    only their ends (the T-junction pass restores the inner ones a neighbour uses).

    Returns:
        The simplified polygons (object array, CCW shells, CW holes), outline by outline in the order of
        their parts, and the outline index of each.
    """
    n = len(outlines)
    seg = np.empty(n, dtype=object)
    seg[:] = list(outlines)
    parts, owner = shapely.get_parts(shapely.segmentize(seg, 1.0), return_index=True)
    polygonal = shapely.get_type_id(parts) == shapely.GeometryType.POLYGON
    parts, owner = parts[polygonal], owner[polygonal].astype(np.int64)
    out = np.empty(len(parts), dtype=object)
    if len(parts) == 0:
        return out, owner
    polys = shapely.orient_polygons(parts, exterior_cw=False)  # shell CCW, holes CW: area on the left
    rings, ring_poly = shapely.get_rings(polys, return_index=True)
    coords, ring_of = shapely.get_coordinates(rings, return_index=True)
    closing = np.cumsum(np.bincount(ring_of, minlength=len(rings))) - 1
    open_ = np.ones(len(coords), dtype=bool)
    open_[closing] = False
    pts = np.ascontiguousarray(np.rint(coords[open_]))
    ring_of = ring_of[open_]
    offsets = np.searchsorted(ring_of, np.arange(len(rings) + 1)).astype(np.int64)
    shell = np.searchsorted(ring_poly, np.arange(len(polys)))  # each polygon's first ring
    is_shell = np.zeros(len(rings), dtype=bool)
    is_shell[shell] = True
    is_pin = _pinned(pts.astype(np.int64), owner[ring_poly[ring_of]], pinned)
    pending = np.arange(len(polys))
    for t in (tol, tol / 2, 0.0):
        if pending.size == 0:
            break
        todo = np.flatnonzero(np.isin(ring_poly, pending))
        keep = simplify_rings(pts, is_pin, offsets, todo.astype(np.int64), float(t))
        kept = np.bincount(ring_of[keep], minlength=len(rings))  # corners each ring keeps
        cand = pending[kept[shell[pending]] >= 3]
        if cand.size == 0:
            continue
        use = np.isin(ring_poly, cand) & (is_shell | (kept >= 3))
        corner = keep & use[ring_of]
        ring_ids, ring_new = np.unique(ring_of[corner], return_inverse=True)
        new_rings = shapely.linearrings(pts[corner], indices=ring_new.reshape(-1))
        shapes = shapely.polygons(new_rings, indices=np.searchsorted(cand, ring_poly[ring_ids]))
        ok = shapely.is_valid(shapes) & (shapely.area(shapes) > 0)
        if ok.any():
            inside = shapely.area(shapely.difference(shapes[ok], polys[cand[ok]])) <= 1e-9
            ok[np.flatnonzero(ok)[~inside]] = False
        out[cand[ok]] = shapes[ok]
        pending = np.setdiff1d(pending, cand[ok])
    for i in pending.tolist():  # no tolerance gave a valid part inside the outline: keep the outline
        poly = polys[i]
        out[i] = Polygon(np.rint(poly.exterior.coords), [np.rint(r.coords) for r in poly.interiors])
    return out, owner


def _pinned(xy: np.ndarray, owner: np.ndarray, pinned: Sequence[set[tuple[int, int]]]) -> np.ndarray:
    """(m,) bool: is corner xy (m, 2) [cells] among the pinned corners of its outline (owner (m,))?"""
    pins = [(o, x, y) for o, corners in enumerate(pinned) for x, y in corners]
    if not pins or len(xy) == 0:
        return np.zeros(len(xy), dtype=bool)
    p = np.array(pins, dtype=np.int64)
    lo = min(int(xy.min()), int(p[:, 1:].min()))
    span = max(int(xy.max()), int(p[:, 1:].max())) - lo + 1

    def key(o: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        out: np.ndarray = (o * span + (y - lo)) * span + (x - lo)
        return out

    return np.isin(key(owner, xy[:, 0], xy[:, 1]), key(p[:, 0], p[:, 1], p[:, 2]))
