"""Compiled walks over the navmesh's polygons (numba, ``cache=True``, no fast-math): the surface raycast,
the polygons under a point (through a uniform bucket grid), and both for many rays in one call.

Polygons come as the padded tables of `agent_kernels.edge_table` (per polygon and edge: start (ax, ay) and
vector (ex, ey) [m]; padding edges are (0, 0) and never cross anything) and `neighbor_table` (the polygon
across each edge, -1 for a wall or padding).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit

from navigation.agent_kernels import inside
from navigation.arguments import COORDINATE_LIMIT
from navigation.kernel_cache import forget_stale_kernels
from navigation.navmesh import NavMesh

# compiled into these kernels: `agent_kernels.inside`, and `arguments.COORDINATE_LIMIT` (a constant)
forget_stale_kernels(__file__, ("navigation.agent_kernels", "navigation.arguments"))

RAY_CLEAR = 0  # the whole segment is walkable
RAY_WALL = 1  # a wall edge stops the walk
RAY_LOST = 2  # the walk did not end within polygon_count + 8 steps (inconsistent adjacency)
RAY_OFF_MESH = 3  # `surface_raycasts` only: the start is on no polygon, nothing was walked
SLID_CLEAR = 0  # `surface_slides`: the move was walkable (or too short to walk)
SLID_WALL = 1  # `surface_slides`: a wall stopped the move (it slid along it, or stayed at the stop)
SLID_OFF_MESH = 2  # `surface_slides`: the start is on no polygon


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


def bucket_grid(
    lo: np.ndarray, hi: np.ndarray, origin: np.ndarray, size: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A uniform grid of square cells of `size` [m] from `origin` (2,) [m] over the polygons' bounding boxes
    `lo`, `hi` (P, 2) [m], as CSR: (first cell index (2,) int64, cell starts ((nx * ny) + 1,) int64, the
    polygons of each cell in polygon order). Cell (ix, iy) is row (ix - first[0]) * ny + (iy - first[1]),
    ny = the grid's cell count in y."""
    ilo = np.floor((lo - origin) / size - 1e-9).astype(np.int64)
    ihi = np.floor((hi - origin) / size + 1e-9).astype(np.int64)
    first = ilo.min(axis=0)
    shape = ihi.max(axis=0) - first + 1
    cells: list[list[int]] = [[] for _ in range(int(shape[0] * shape[1]))]
    for p in range(len(lo)):
        for ix in range(ilo[p, 0], ihi[p, 0] + 1):
            for iy in range(ilo[p, 1], ihi[p, 1] + 1):
                cells[(ix - first[0]) * shape[1] + (iy - first[1])].append(p)
    starts = np.zeros(len(cells) + 1, dtype=np.int64)
    starts[1:] = np.cumsum([len(c) for c in cells])
    items = np.array([p for c in cells for p in c], dtype=np.int64)
    return np.concatenate([first, shape]), starts, items


@njit(cache=True)
def polygons_at(
    grid: np.ndarray,
    starts: np.ndarray,
    items: np.ndarray,
    origin_x: float,
    origin_y: float,
    size: float,
    edges: np.ndarray,
    planes: np.ndarray,
    x: float,
    y: float,
    z: float,
    tolerance: float,
    found: np.ndarray,
    gaps: np.ndarray,
) -> int:
    """The polygons holding (x, y) [m] (within a length epsilon of their edges: `agent_kernels.inside`)
    whose surface is within `tolerance` [m] of height z (any height when z is NaN), written into `found`
    nearest in height first (ties by polygon id), their height gaps [m] into `gaps`; returns how many.
    `grid`, `starts`, `items` are a `bucket_grid` of cell `size` [m] from (origin_x, origin_y)."""
    ix = np.int64(math.floor((x - origin_x) / size)) - grid[0]
    iy = np.int64(math.floor((y - origin_y) / size)) - grid[1]
    if ix < 0 or iy < 0 or ix >= grid[2] or iy >= grid[3]:
        return 0
    cell = ix * grid[3] + iy
    count = 0
    for k in range(starts[cell], starts[cell + 1]):
        q = items[k]
        if not inside(edges, q, x, y, False):
            continue
        dz = 0.0 if math.isnan(z) else abs(planes[q, 0] * x + planes[q, 1] * y + planes[q, 2] - z)
        if dz > tolerance:
            continue
        j = count  # insertion by (gap, polygon id)
        while j > 0 and (gaps[j - 1] > dz or (gaps[j - 1] == dz and found[j - 1] > q)):
            gaps[j], found[j] = gaps[j - 1], found[j - 1]
            j -= 1
        gaps[j], found[j] = dz, q
        count += 1
    return count


@njit(cache=True)
def surface_raycasts(
    grid: np.ndarray,
    starts: np.ndarray,
    items: np.ndarray,
    origin_x: float,
    origin_y: float,
    size: float,
    edges: np.ndarray,
    planes: np.ndarray,
    neighbors: np.ndarray,
    eps: float,
    tolerance: float,
    ray_starts: np.ndarray,
    ray_ends: np.ndarray,
    found: np.ndarray,
    gaps: np.ndarray,
    visited: np.ndarray,
    status: np.ndarray,
    fraction: np.ndarray,
    last: np.ndarray,
    wall: np.ndarray,
) -> int:
    """Ray k of `ray_starts`, `ray_ends` (k, 3) [m] (a start z of NaN: any height): the start's polygon
    (`polygons_at` within `tolerance` [m], the nearest in height) and `surface_raycast` from it toward the
    end, exactly as one `NavMeshQuery.raycast` does. Writes `status[k]` (RAY_CLEAR / RAY_WALL / RAY_LOST,
    or RAY_OFF_MESH when the start is on no polygon), `fraction[k]` (0 when off the mesh), `last[k]` (the
    polygon the walk ended in, -1 off the mesh) and `wall[k]` (the wall edge's index in it, else -1).
    `found`, `gaps` (polygon_count long) and `visited` (polygon_count + 9) are scratch. Returns the first
    ray whose walk got lost (RAY_LOST), or -1; before any walk, -2 (-3) when a start (an end) has an x or
    y that is not a number within `arguments.COORDINATE_LIMIT`, or a z that is neither that nor NaN."""
    for k in range(ray_starts.shape[0]):
        if not (_coordinates_ok(ray_starts, k)):
            return -2
        if not (_coordinates_ok(ray_ends, k)):
            return -3
    lost = -1
    for k in range(ray_starts.shape[0]):
        code, t, p, edge = _walk_from(
            grid, starts, items, origin_x, origin_y, size, edges, planes, neighbors, eps, tolerance,
            ray_starts[k, 0], ray_starts[k, 1], ray_starts[k, 2], ray_ends[k, 0], ray_ends[k, 1], found, gaps,
            visited,
        )  # fmt: skip
        status[k], fraction[k], last[k], wall[k] = code, t, p, edge
        if code == RAY_LOST and lost < 0:
            lost = k
    return lost


@njit(cache=True)
def _walk_from(
    grid: np.ndarray,
    starts: np.ndarray,
    items: np.ndarray,
    origin_x: float,
    origin_y: float,
    size: float,
    edges: np.ndarray,
    planes: np.ndarray,
    neighbors: np.ndarray,
    eps: float,
    tolerance: float,
    sx: float,
    sy: float,
    sz: float,
    ex: float,
    ey: float,
    found: np.ndarray,
    gaps: np.ndarray,
    visited: np.ndarray,
) -> tuple[int, float, int, int]:
    """One surface raycast from (sx, sy, sz) toward (ex, ey) [m] as `surface_raycasts` runs it: (status,
    fraction, last polygon, wall edge); RAY_OFF_MESH when the start is on no polygon."""
    n = polygons_at(
        grid, starts, items, origin_x, origin_y, size, edges, planes, sx, sy, sz, tolerance, found, gaps
    )
    if n == 0:
        return RAY_OFF_MESH, 0.0, -1, -1
    code, t, p, edge, _ = surface_raycast(edges, neighbors, eps, found[0], sx, sy, ex, ey, visited)
    return code, t, p, edge


@njit(cache=True)
def surface_slides(
    grid: np.ndarray,
    starts: np.ndarray,
    items: np.ndarray,
    origin_x: float,
    origin_y: float,
    size: float,
    edges: np.ndarray,
    planes: np.ndarray,
    neighbors: np.ndarray,
    eps: float,
    tolerance: float,
    move_starts: np.ndarray,
    move_ends: np.ndarray,
    back: float,
    found: np.ndarray,
    gaps: np.ndarray,
    visited: np.ndarray,
    out: np.ndarray,
    flags: np.ndarray,
) -> int:
    """Row k walks from `move_starts[k]` toward `move_ends[k]` (k, 3) [m] on the surface; a wall stops it
    `back` [m] short of the hit, from where it slides along the wall by the rest of the move projected on
    the wall (one more walk: its end if clear, else the stop). `agent.move_on_surface` for k rows (without
    its snap). Writes `out[k]` (where the row ends [m], at its polygon's height) and `flags[k]`: SLID_CLEAR
    (0), SLID_WALL (1: a wall stopped the first walk), SLID_OFF_MESH (2: the start is on no polygon; out =
    start). A move shorter than 1e-12 m keeps its start (flag 0). Returns `surface_raycasts`' codes: -1
    done, -2 / -3 a bad start / end coordinate, else the first row whose walk got lost."""
    for k in range(move_starts.shape[0]):
        if not (_coordinates_ok(move_starts, k)):
            return -2
        if not (_coordinates_ok(move_ends, k)):
            return -3
    lost = -1
    for k in range(move_starts.shape[0]):
        sx, sy, sz = move_starts[k, 0], move_starts[k, 1], move_starts[k, 2]
        ex, ey, ez = move_ends[k, 0], move_ends[k, 1], move_ends[k, 2]
        out[k, 0], out[k, 1], out[k, 2] = sx, sy, sz
        flags[k] = SLID_CLEAR
        length = math.hypot(ex - sx, ey - sy)
        if length < 1e-12:
            continue
        code, t, p, edge = _walk_from(
            grid, starts, items, origin_x, origin_y, size, edges, planes, neighbors, eps, tolerance,
            sx, sy, sz, ex, ey, found, gaps, visited,
        )  # fmt: skip
        if code == RAY_OFF_MESH:
            flags[k] = SLID_OFF_MESH
            continue
        if code == RAY_LOST:
            lost = k if lost < 0 else lost
            continue
        if code == RAY_CLEAR:
            out[k, 0], out[k, 1] = ex, ey
            out[k, 2] = planes[p, 0] * ex + planes[p, 1] * ey + planes[p, 2]
            continue
        flags[k] = SLID_WALL
        hx, hy = sx + t * (ex - sx), sy + t * (ey - sy)
        hz = planes[p, 0] * hx + planes[p, 1] * hy + planes[p, 2]
        wx, wy = edges[2, p, edge], edges[3, p, edge]
        w = math.hypot(wx, wy)
        nx, ny = -wy / w, wx / w  # the wall's normal, back into the mesh
        scale = back / max(length, 1e-12)
        qx, qy, qz = hx - (ex - sx) * scale, hy - (ey - sy) * scale, hz - (ez - sz) * scale  # the stop
        rx, ry = ex - hx, ey - hy
        along = rx * nx + ry * ny
        tx, ty = qx + rx - nx * along, qy + ry - ny * along  # the stop plus the rest along the wall
        code2, _, p2, _ = _walk_from(
            grid, starts, items, origin_x, origin_y, size, edges, planes, neighbors, eps, tolerance,
            qx, qy, qz, tx, ty, found, gaps, visited,
        )  # fmt: skip
        if code2 == RAY_CLEAR:
            out[k, 0], out[k, 1] = tx, ty
            out[k, 2] = planes[p2, 0] * tx + planes[p2, 1] * ty + planes[p2, 2]
        elif code2 == RAY_WALL:
            out[k, 0], out[k, 1], out[k, 2] = qx, qy, qz
        elif code2 == RAY_LOST:
            lost = k if lost < 0 else lost
        # (a stop on no polygon keeps the start, as `move_on_surface` does)
    return lost


@njit(cache=True)
def _coordinates_ok(points: np.ndarray, k: int) -> bool:
    """Row k of `points` (k, 3) [m]: |x|, |y| <= COORDINATE_LIMIT (False for NaN), |z| too or z NaN."""
    z = points[k, 2]
    return (
        abs(points[k, 0]) <= COORDINATE_LIMIT
        and abs(points[k, 1]) <= COORDINATE_LIMIT
        and (abs(z) <= COORDINATE_LIMIT or math.isnan(z))
    )


@njit(cache=True)
def nearest_wall(
    wall_a: np.ndarray,
    wall_b: np.ndarray,
    wall_island: np.ndarray,
    island: int,
    p: np.ndarray,
    dims: int,
    reach: float,
    out: np.ndarray,
) -> int:
    """The wall segment (rows of `wall_a` -> `wall_b`, (w, 3) [m]) nearest to `p` in its first `dims` (2 or
    3) coordinates, among the walls of `island` (-1: any) whose bounding box lies within `reach` [m, inf
    for no limit] of `p`. Returns its index (the first of equal ones; -1 when none qualifies) and writes
    the nearest point's x, y and the distance [m] into `out[:3]`."""
    best, best_d = -1, math.inf
    for i in range(wall_a.shape[0]):
        if island >= 0 and wall_island[i] != island:
            continue
        far = False
        for k in range(dims):
            a, b = wall_a[i, k], wall_b[i, k]
            if min(a, b) > p[k] + reach or max(a, b) < p[k] - reach:
                far = True
        if far:
            continue
        den, num = 0.0, 0.0
        for k in range(dims):
            e = wall_b[i, k] - wall_a[i, k]
            den += e * e
            num += (p[k] - wall_a[i, k]) * e
        t = min(max(num / (den if den > 0.0 else 1.0), 0.0), 1.0)
        d2 = 0.0
        for k in range(dims):
            g = wall_a[i, k] + t * (wall_b[i, k] - wall_a[i, k]) - p[k]
            d2 += g * g
        d = math.sqrt(d2)
        if d < best_d:
            best, best_d = i, d
            out[0] = wall_a[i, 0] + t * (wall_b[i, 0] - wall_a[i, 0])
            out[1] = wall_a[i, 1] + t * (wall_b[i, 1] - wall_a[i, 1])
    out[2] = best_d
    return best


# -- compile once ---------------------------------------------------------------------------------------
@functools.cache  # once per process: a later call costs nothing (an env reset builds a new world)
def warm_up() -> None:
    """Run every kernel of this module once on a one-square mesh with the types `NavMeshQuery` passes (its
    planes are read-only), so no query pays for compiling: the machine code is compiled (seconds, once per
    environment) or loaded from the on-disk cache (tens of ms). `NavMeshQuery` calls it when it is made;
    once per process, later calls return at once."""
    edges = np.zeros((6, 1, 4))
    edges[:4, 0] = np.array(
        [[0.0, 1.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0], [1.0, 0.0, -1.0, 0.0], [0.0, 1.0, 0.0, -1.0]]
    )
    edges[4:] = -np.inf
    neighbors = np.full((1, 4), -1, dtype=np.int64)
    planes = np.zeros((1, 3))
    planes.setflags(write=False)
    grid, starts, items = bucket_grid(np.zeros((1, 2)), np.ones((1, 2)), np.zeros(2), 2.0)
    found, gaps, visited = np.zeros(1, dtype=np.int64), np.zeros(1), np.zeros(10, dtype=np.int64)
    polygons_at(grid, starts, items, 0.0, 0.0, 2.0, edges, planes, 0.5, 0.5, 0.0, 1.0, found, gaps)
    surface_raycast(edges, neighbors, 1e-9, 0, 0.5, 0.5, 2.0, 0.5, visited)
    rays = np.array([[0.5, 0.5, 0.0]])
    one, f = np.zeros(1, dtype=np.int64), np.zeros(1)
    surface_raycasts(
        grid, starts, items, 0.0, 0.0, 2.0, edges, planes, neighbors, 1e-9, 1.0, rays, rays + 1.0, found,
        gaps, visited, one, f, one.copy(), one.copy(),
    )  # fmt: skip
    surface_slides(
        grid, starts, items, 0.0, 0.0, 2.0, edges, planes, neighbors, 1e-9, 1.0, rays, rays + 1.0, 1e-4,
        found, gaps, visited, np.zeros((1, 3)), one.copy(),
    )  # fmt: skip
    walls = np.zeros((4, 3))
    nearest_wall(walls, walls + 1.0, np.zeros(4, dtype=np.int64), -1, rays[0], 2, math.inf, np.zeros(3))
