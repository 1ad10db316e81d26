"""String pulling: the shortest path through a corridor of polygons (the "simple stupid funnel")."""

from __future__ import annotations

import itertools

import numpy as np

from navigation.errors import NavMeshError
from navigation.navmesh import NavMesh


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


def polyline_length(points: np.ndarray) -> float:
    """Total length of a (k, d) polyline [m]."""
    p = np.asarray(points, dtype=float)
    return float(np.linalg.norm(np.diff(p, axis=0), axis=1).sum()) if len(p) > 1 else 0.0
