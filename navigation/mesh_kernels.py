"""Compiled walks over the navmesh's polygons (numba, ``cache=True``, no fast-math): the surface raycast.

Polygons come as the padded tables of `agent_kernels.edge_table` (per polygon and edge: start (ax, ay) and
vector (ex, ey) [m]; padding edges are (0, 0) and never cross anything) and `neighbor_table` (the polygon
across each edge, -1 for a wall or padding).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from navigation.navmesh import NavMesh

RAY_CLEAR = 0  # the whole segment is walkable
RAY_WALL = 1  # a wall edge stops the walk
RAY_LOST = 2  # the walk did not end within polygon_count + 8 steps (inconsistent adjacency)


def neighbor_table(mesh: NavMesh) -> np.ndarray:
    """(P, V) int64: the polygon across each edge of each polygon (-1: a wall, or padding past its last
    edge), V the largest polygon's edge count."""
    nbs = mesh.loops.neighbors
    table = np.full((mesh.polygon_count, max(len(n) for n in nbs)), -1, dtype=np.int64)
    for q, row in enumerate(nbs):
        table[q, : len(row)] = row
    return table


@njit(cache=True)
def surface_raycast(
    edges: np.ndarray,
    neighbors: np.ndarray,
    eps: float,
    start_poly: int,
    ax: float,
    ay: float,
    bx: float,
    by: float,
    visited: np.ndarray,
) -> tuple[int, float, int, int, int]:
    """Walk from (ax, ay) in polygon `start_poly` toward (bx, by) [m] across polygon edges until the end or
    a wall edge. `eps` [m] is the mesh's length epsilon. Writes the polygons walked through into `visited`
    (at least polygon_count + 9 long). Returns (status RAY_CLEAR / RAY_WALL / RAY_LOST, the fraction of the
    segment walked, the last polygon, the wall edge's index in it (-1 when clear), polygons visited)."""
    dx, dy = bx - ax, by - ay
    p = start_poly
    visited[0] = p
    count = 1
    t_cur = 0.0
    prev = -1
    end_slack = eps / max(math.hypot(dx, dy), 1e-300)
    for _ in range(neighbors.shape[0] + 8):
        t_exit = math.inf
        edge = -1
        for i in range(edges.shape[2]):
            x0, y0, ex, ey = edges[0, p, i], edges[1, p, i], edges[2, p, i], edges[3, p, i]
            den = ey * dx - ex * dy  # outward normal (ey, -ex) of a CCW edge, against the direction
            if den <= 1e-300:
                continue
            t = (ey * (x0 - ax) - ex * (y0 - ay)) / den
            along = ((ax + t * dx - x0) * ex + (ay + t * dy - y0) * ey) / max(ex * ex + ey * ey, 1e-300)
            slack = eps / max(math.hypot(ex, ey), 1e-300)
            if not (-slack <= along <= 1.0 + slack):
                continue  # a collinear edge the exit point is not on
            nb = neighbors[p, i]
            if t < t_exit - 1e-12 or (abs(t - t_exit) <= 1e-12 and nb >= 0 and nb != prev):
                t_exit, edge = t, i
        t_exit = max(t_exit, t_cur)
        if edge < 0 or t_exit >= 1.0 - end_slack:
            return RAY_CLEAR, 1.0, p, -1, count
        q = neighbors[p, edge]
        if q < 0:
            return RAY_WALL, t_exit, p, edge, count
        prev, p, t_cur = p, q, t_exit
        visited[count] = p
        count += 1
    return RAY_LOST, t_cur, p, -1, count
