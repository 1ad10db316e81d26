"""String pulling: the shortest path through a corridor of polygons (the "simple stupid funnel"), and
the heights of a path from the polygons of its corridor."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
from numba import njit

from navigation.errors import NavMeshError
from navigation.navmesh import NavMesh, PolygonLoops

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
    return string_pull_indexed(portals, start, goal)[0]


def string_pull_indexed(
    portals: list[tuple[np.ndarray, np.ndarray]], start: np.ndarray, goal: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """`string_pull`, plus where each corner is in the corridor the portals come from.

    Returns:
        (k, 2) corners [m], and (k,) ints: for each corner, the index in the corridor of the first
        polygon it lies in (0 for the start, len(portals) for the goal, i for a corner at an end of
        portal i, which joins corridor polygons i and i + 1). A multi-level path reads its heights
        from these polygons (a point over a bridge is on the bridge or under it, never both).
    """
    start = np.asarray(start, dtype=float)[:2]
    goal = np.asarray(goal, dtype=float)[:2]
    ports = [(start, start), *portals, (goal, goal)]
    pts = [start]
    at = [0]  # index in `ports` of each corner
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
                at.append(left_i)
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
                at.append(right_i)
                apex, apex_i = right, right_i
                left = right = apex
                left_i = right_i = apex_i
                i = apex_i + 1
                continue
        i += 1
    if not np.array_equal(pts[-1], goal):
        pts.append(goal)
        at.append(len(ports) - 1)
    out = np.asarray(pts, dtype=float)
    owner = np.maximum(np.asarray(at, dtype=np.int64) - 1, 0)  # ports[i] lies on corridor polygon i - 1
    keep = np.ones(len(out), dtype=bool)
    keep[1:] = np.any(out[1:] != out[:-1], axis=1)
    rows = np.flatnonzero(keep) if keep.sum() >= 2 else np.array([0, len(out) - 1])
    out, owner = out[rows], owner[rows]
    owner[-1] = len(portals)  # the goal is in the last polygon
    return out, owner


def lift_path(
    planes: Sequence[tuple[float, float, float]],
    loops: PolygonLoops,
    xy: Sequence[tuple[float, float]],
    owners: Sequence[int],
    corridor: Sequence[int],
) -> np.ndarray:
    """A 2-D path through a corridor, with each height from the corridor polygon the path is in there.

    Corner i is on polygon corridor[owners[i]]. Where the path crosses a portal between polygons of
    different planes a point is added, twice (one height per side: a vertical step, of at most the bake's
    max_climb) where their heights differ. Never "a polygon under this (x, y)": over a ramp or a bridge
    there are several. Points collinear in 3-D with their neighbours stay (see `drop_collinear`).

    Args:
        planes: per polygon, its height plane (a, b, c): z = a x + b y + c (`NavMesh.planes` as tuples).
        loops: the mesh's polygons as lists (`NavMesh.loops`).
        xy: (x, y) corners [m], start to goal.
        owners: for each corner, its index in `corridor`, non-decreasing; the first 0, the last the end.
        corridor: polygon ids the path crosses, in order.
    Returns:
        (j, 3) path [m], j >= len(xy).
    """

    def height(poly: int, x: float, y: float) -> float:
        a, b, c = planes[poly]
        return a * x + b * y + c

    x0, y0 = xy[0]
    out = [(x0, y0, height(corridor[owners[0]], x0, y0))]
    for i in range(1, len(xy)):
        (ax, ay), (bx, by) = xy[i - 1], xy[i]
        t_prev = 0.0
        for j in range(owners[i - 1], owners[i]):
            pa, pb = corridor[j], corridor[j + 1]
            if planes[pa] == planes[pb]:
                continue
            k = loops.neighbors[pa].index(pb)
            ring = loops.xy[pa]
            (cx, cy), (dx, dy) = ring[k], ring[(k + 1) % len(ring)]
            # where segment a->b crosses the portal's line, never before the last crossing
            sa = (dx - cx) * (ay - cy) - (dy - cy) * (ax - cx)
            sb = (dx - cx) * (by - cy) - (dy - cy) * (bx - cx)
            t = min(max(sa / (sa - sb) if sa != sb else t_prev, t_prev), 1.0)
            px, py = ax + t * (bx - ax), ay + t * (by - ay)
            za, zb = height(pa, px, py), height(pb, px, py)
            out.append((px, py, za))
            if zb != za:
                out.append((px, py, zb))
            t_prev = t
        out.append((bx, by, height(corridor[owners[i]], bx, by)))
    return np.array(out, dtype=np.float64)


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
    p = np.ascontiguousarray(points, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] < 2:
        raise NavMeshError(f"points must be a (k, d) polyline with d >= 2, got shape {p.shape}")
    keep: np.ndarray = _kept_points(p, float(horizontal_tolerance), float(tolerance))
    out: np.ndarray = p[keep].copy()
    return out


@njit(cache=True)
def _kept_points(p: np.ndarray, horizontal: float, other: float) -> np.ndarray:
    """Indices of the points of the polyline `p` (k, d) that `drop_collinear` keeps."""
    keep = np.arange(p.shape[0])
    n = drop_collinear_rows(p.copy(), keep, p.shape[0], horizontal, other)
    return keep[:n]


@njit(cache=True)
def drop_collinear_rows(p: np.ndarray, ids: np.ndarray, n: int, horizontal: float, other: float) -> int:
    """`drop_collinear` in place: the first n rows of `p` (k, d) and of `ids` (k,) (anything carried
    along, such as vertex ids) are compacted to the rows kept, in order; returns how many (no allocation:
    `paths.find_path` runs it on its output rows)."""
    changed = n > 2
    while changed:  # dropping a point changes its neighbours' neighbours: repeat until nothing drops
        changed = False
        m = 1  # rows before m are kept; row j + 1 is not yet moved (m <= j), so reading it is safe
        for j in range(1, n - 1):
            if _on_segment(p[j], p[m - 1], p[j + 1], horizontal, other):
                changed = True
                continue
            if m != j:
                p[m] = p[j]
                ids[m] = ids[j]
            m += 1
        p[m] = p[n - 1]
        ids[m] = ids[n - 1]
        n = m + 1
    return n


@njit(cache=True)
def _on_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray, horizontal: float, other: float) -> bool:
    """Is p on the segment a-b: within `horizontal` [m] of it in x, y, and within `other` [m] of the point
    of the segment over it in the remaining dimensions?"""
    abx, aby = b[0] - a[0], b[1] - a[1]
    den = abx * abx + aby * aby
    t = 0.0 if den == 0.0 else min(1.0, max(0.0, ((p[0] - a[0]) * abx + (p[1] - a[1]) * aby) / den))
    gx, gy = a[0] + t * abx - p[0], a[1] + t * aby - p[1]
    if math.sqrt(gx * gx + gy * gy) > horizontal:
        return False
    for k in range(2, p.shape[0]):
        if den == 0.0:  # a and b over one spot: p lies between them in height, or on one of them
            if not (min(a[k], b[k]) - other <= p[k] <= max(a[k], b[k]) + other):
                return False
        elif not abs(a[k] + t * (b[k] - a[k]) - p[k]) <= other:
            return False
    return True


def polyline_length(points: np.ndarray) -> float:
    """Total length of a (k, d) polyline [m]."""
    p = np.asarray(points, dtype=float)
    return float(np.linalg.norm(np.diff(p, axis=0), axis=1).sum()) if len(p) > 1 else 0.0
