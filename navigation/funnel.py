"""String pulling: the shortest path through a corridor of polygons (the "simple stupid funnel")."""

from __future__ import annotations

import itertools

import numpy as np

from navigation.errors import NavMeshError
from navigation.navmesh import NavMesh

# A path point is redundant when it lies on the segment joining its neighbours: within HORIZONTAL_TOLERANCE
# [m] of it seen from above (round-off only: dropping a real corner, however slight, would cut it and leave
# the mesh) and within COLLINEAR_TOLERANCE [m] of it in height (far below a bake's height resolution,
# cell_height ~0.1 m; far above the plane-fit noise between neighbouring polygons of one floor, 1e-6..1e-4 m
# on the monastery).
HORIZONTAL_TOLERANCE = 1e-9
COLLINEAR_TOLERANCE = 1e-3


def corridor_portals(
    mesh: NavMesh, corridor: tuple[int, ...] | list[int]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(left, right) horizontal end points [m] of each portal along a corridor, as seen walking it."""
    out = []
    for a, b in itertools.pairwise(corridor):
        nbs = mesh.neighbors(int(a))
        hit = np.flatnonzero(nbs == b)
        if hit.size == 0:
            raise NavMeshError(f"corridor polygons {a} and {b} are not neighbours")
        seg = mesh.portal_segment(int(a), int(hit[0]))[:, :2]
        out.append((seg[1].copy(), seg[0].copy()))  # leaving a: its edge end is on the left
    return out


def _cross(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))


def string_pull(
    portals: list[tuple[np.ndarray, np.ndarray]], start: np.ndarray, goal: np.ndarray
) -> np.ndarray:
    """Shortest path from start to goal through portals (left, right) in order; (k, 2) corners [m]."""
    start = np.asarray(start, dtype=float)[:2]
    goal = np.asarray(goal, dtype=float)[:2]
    ports = [(start, start), *portals, (goal, goal)]
    pts = [start]
    apex, left, right = start, start, start
    apex_i = left_i = right_i = 0
    i = 1
    while i < len(ports):
        pl, pr = ports[i]
        # tighten the right side
        if _cross(apex, right, pr) >= 0.0:
            if np.array_equal(apex, right) or _cross(apex, left, pr) < 0.0:
                right, right_i = pr, i
            else:
                pts.append(left)
                apex, apex_i = left, left_i
                left = right = apex
                left_i = right_i = apex_i
                i = apex_i + 1
                continue
        # tighten the left side
        if _cross(apex, left, pl) <= 0.0:
            if np.array_equal(apex, left) or _cross(apex, right, pl) > 0.0:
                left, left_i = pl, i
            else:
                pts.append(right)
                apex, apex_i = right, right_i
                left = right = apex
                left_i = right_i = apex_i
                i = apex_i + 1
                continue
        i += 1
    if not np.array_equal(pts[-1], goal):
        pts.append(goal)
    out = np.asarray(pts, dtype=float)
    keep = np.ones(len(out), dtype=bool)
    keep[1:] = np.any(out[1:] != out[:-1], axis=1)
    return out[keep] if keep.sum() >= 2 else out[[0, -1]]


def portal_midpoint_path(
    portals: list[tuple[np.ndarray, np.ndarray]], start: np.ndarray, goal: np.ndarray
) -> np.ndarray:
    """Start, every portal's midpoint, goal: (k, 2) [m] (the engine baseline the funnel improves on)."""
    mids = [0.5 * (np.asarray(a) + np.asarray(b)) for a, b in portals]
    return np.asarray([np.asarray(start, float)[:2], *mids, np.asarray(goal, float)[:2]])


def drop_collinear(
    points: np.ndarray,
    tolerance: float = COLLINEAR_TOLERANCE,
    horizontal_tolerance: float = HORIZONTAL_TOLERANCE,
) -> np.ndarray:
    """The polyline without redundant interior points: repeats, and points on the segment joining their
    (kept) neighbours: within `horizontal_tolerance` [m] of it in x, y and within `tolerance` [m] of it in
    the remaining dimensions (the height of a (k, 3) path).

    On a multi-level path a point where the slope changes is a real 3-D corner and stays, even when the path
    runs straight seen from above; a horizontal corner stays however slight it is, so the path never cuts a
    corner of the mesh. The ends always stay.

    Args:
        points: (k, d) polyline [m], d >= 2.
        tolerance: largest height deviation of a dropped point from its neighbours' segment [m, >= 0].
        horizontal_tolerance: largest horizontal distance of a dropped point from that segment [m, >= 0].
    Returns:
        (j, d) polyline, j <= k, the first and last points unchanged.
    """
    for name, value in (("tolerance", tolerance), ("horizontal_tolerance", horizontal_tolerance)):
        if not (value >= 0 and np.isfinite(value)):
            raise NavMeshError(f"{name} must be a finite number >= 0 [m], got {value!r}")
    p = np.asarray(points, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] < 2:
        raise NavMeshError(f"points must be a (k, d) polyline with d >= 2, got shape {p.shape}")
    keep = list(range(len(p)))
    changed = len(keep) > 2
    while changed:  # dropping a point changes its neighbours' neighbours: repeat until nothing drops
        changed = False
        out = [keep[0]]
        for j in range(1, len(keep) - 1):
            a, b, c = p[out[-1]], p[keep[j]], p[keep[j + 1]]
            if _on_segment(b, a, c, horizontal_tolerance, tolerance):
                changed = True
                continue
            out.append(keep[j])
        out.append(keep[-1])
        keep = out
    return p[keep].copy()


def _on_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray, horizontal: float, other: float) -> bool:
    """Is p on the segment a-b: within `horizontal` [m] of it in x, y, and within `other` [m] of the point
    of the segment over it in the remaining dimensions?"""
    ab = b - a
    den = float(ab[:2] @ ab[:2])
    t = 0.0 if den == 0.0 else min(1.0, max(0.0, float((p - a)[:2] @ ab[:2]) / den))
    gap = a + t * ab - p
    if float(np.linalg.norm(gap[:2])) > horizontal:
        return False
    if den == 0.0:  # a and b over one spot: p lies between them in height, or on one of them
        lo, hi = np.minimum(a[2:], b[2:]) - other, np.maximum(a[2:], b[2:]) + other
        return bool(((p[2:] >= lo) & (p[2:] <= hi)).all())
    return bool((np.abs(gap[2:]) <= other).all())


def polyline_length(points: np.ndarray) -> float:
    """Total length of a (k, d) polyline [m]."""
    p = np.asarray(points, dtype=float)
    return float(np.linalg.norm(np.diff(p, axis=0), axis=1).sum()) if len(p) > 1 else 0.0
