"""Reciprocal velocity obstacles (ORCA) for a whole crowd in one compiled call: the neighbour grid, the
half-planes and the linear programs of `navigation.avoidance` (numba, one implementation).

A half-plane ("line") is a row (px, py, dx, dy) of a float64 array: a point on its boundary and the unit
direction of the boundary; the permitted velocities lie on its left (``det(d, p - v) <= 0``), as in RVO2
(van den Berg, Guy, Lin and Manocha, "Reciprocal n-body collision avoidance", 2011). `lp1`, `lp2` and
`lp3` follow RVO2's linearProgram1/2/3: the velocity nearest the target inside every half-plane and the
max-speed circle, and when that is empty, the velocity that violates the agents' half-planes least while
keeping the walls' half-planes hard.

No fastmath: the same input gives the same velocities bit for bit.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from navigation.avoidance_rules import TOUCH, along_walls, keep_right, narrow_turn
from navigation.kernel_cache import forget_stale_kernels

forget_stale_kernels(__file__, ("navigation.avoidance_rules",))  # compiled into avoid_rows

EPS = 1e-9  # two boundary directions are parallel below this |det| (unit vectors)
MAX_WALL_LINES = 32  # wall half-planes kept per agent (the nearest uncovered segments)
ACROSS = math.sqrt(0.5)  # `wall_room`: walls whose normals oppose by more than 45 degrees face each other
MAX_CONTACTS = 32  # contact half-planes kept per agent (agents within one tick's reach)
CELLS_PER_RANGE = 6  # the agent grid's cells are the neighbour distance over this wide (`agent_grid`)
MIN_CELL = 0.5  # [m] and at least this


@njit(cache=True)
def lp1(
    lines: np.ndarray, no: int, radius: float, ox: float, oy: float, direction_opt: bool
) -> tuple[bool, float, float]:
    """The point of line `no` inside the circle of `radius` and lines 0..no-1 nearest (ox, oy) (or
    farthest along it when `direction_opt`); (False, 0, 0) when there is none."""
    px, py, dx, dy = lines[no, 0], lines[no, 1], lines[no, 2], lines[no, 3]
    dot = px * dx + py * dy
    disc = dot * dot + radius * radius - (px * px + py * py)
    if disc < 0.0:
        return False, 0.0, 0.0
    sq = math.sqrt(disc)
    t_left = -dot - sq
    t_right = -dot + sq
    for i in range(no):
        qx, qy, ex, ey = lines[i, 0], lines[i, 1], lines[i, 2], lines[i, 3]
        denominator = dx * ey - dy * ex
        numerator = ex * (py - qy) - ey * (px - qx)
        if abs(denominator) <= EPS:
            if numerator < 0.0:
                return False, 0.0, 0.0
            continue
        t = numerator / denominator
        if denominator >= 0.0:
            t_right = min(t_right, t)
        else:
            t_left = max(t_left, t)
        if t_left > t_right:
            return False, 0.0, 0.0
    if direction_opt:
        t = t_right if ox * dx + oy * dy > 0.0 else t_left
    else:
        t = dx * (ox - px) + dy * (oy - py)
        t = min(max(t, t_left), t_right)
    return True, px + t * dx, py + t * dy


@njit(cache=True)
def lp2(
    lines: np.ndarray, count: int, radius: float, ox: float, oy: float, direction_opt: bool
) -> tuple[int, float, float]:
    """The velocity nearest (ox, oy) inside lines 0..count-1 and the circle of `radius`: (count, x, y), or
    (i, x, y) with the best point before line i when line i cannot be met."""
    if direction_opt:
        x, y = ox * radius, oy * radius
    elif ox * ox + oy * oy > radius * radius:
        norm = math.sqrt(ox * ox + oy * oy)
        x, y = ox / norm * radius, oy / norm * radius
    else:
        x, y = ox, oy
    for i in range(count):
        if lines[i, 2] * (lines[i, 1] - y) - lines[i, 3] * (lines[i, 0] - x) > 0.0:
            ok, nx, ny = lp1(lines, i, radius, ox, oy, direction_opt)
            if not ok:
                return i, x, y
            x, y = nx, ny
    return count, x, y


@njit(cache=True)
def lp3(
    lines: np.ndarray, count: int, hard: int, begin: int, radius: float, x: float, y: float, proj: np.ndarray
) -> tuple[float, float]:
    """When lines 0..count-1 cannot all be met: the velocity that keeps the first `hard` lines (walls) and
    minimises the largest violation of the others (RVO2's linearProgram3). `proj` is scratch (>= count, 4)."""
    distance = 0.0
    for i in range(begin, count):
        px, py, dx, dy = lines[i, 0], lines[i, 1], lines[i, 2], lines[i, 3]
        if dx * (py - y) - dy * (px - x) <= distance:
            continue
        n = 0
        for j in range(hard):
            proj[n, :] = lines[j, :]
            n += 1
        for j in range(hard, i):
            qx, qy, ex, ey = lines[j, 0], lines[j, 1], lines[j, 2], lines[j, 3]
            determinant = dx * ey - dy * ex
            if abs(determinant) <= EPS:
                if dx * ex + dy * ey > 0.0:
                    continue
                bx, by = 0.5 * (px + qx), 0.5 * (py + qy)
            else:
                s = (ex * (py - qy) - ey * (px - qx)) / determinant
                bx, by = px + s * dx, py + s * dy
            ux, uy = ex - dx, ey - dy
            norm = math.sqrt(ux * ux + uy * uy)
            proj[n, 0], proj[n, 1] = bx, by
            proj[n, 2], proj[n, 3] = ux / norm, uy / norm
            n += 1
        fail, nx, ny = lp2(proj, n, radius, -dy, dx, True)
        if fail >= n:  # else round-off: the current point is kept, as RVO2 does
            x, y = nx, ny
        distance = dx * (py - y) - dy * (px - x)
    return x, y


@njit(cache=True)
def agent_grid(
    pos: np.ndarray, cell: float
) -> tuple[float, float, float, int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A dense grid over the agents' bounding box, cells of side `cell` [m] (widened so that there are at
    most 4N + 16 of them), the agents sorted by cell (a counting sort): (origin x, origin y, side, nx,
    ny, ix (N,), iy (N,), start (nx * ny + 1,), order (N,)); cell (a, b) holds
    order[start[a + nx * b]:start[a + nx * b + 1]]."""
    n = pos.shape[0]
    x0, y0, x1, y1 = math.inf, math.inf, -math.inf, -math.inf
    for i in range(n):
        x0, x1 = min(x0, pos[i, 0]), max(x1, pos[i, 0])
        y0, y1 = min(y0, pos[i, 1]), max(y1, pos[i, 1])
    if n == 0:
        x0, y0, x1, y1 = 0.0, 0.0, 0.0, 0.0
    side = cell
    cap = 4 * n + 16
    while (math.floor((x1 - x0) / side) + 1) * (math.floor((y1 - y0) / side) + 1) > cap:
        side *= 1.5
    nx = math.floor((x1 - x0) / side) + 1
    ny = math.floor((y1 - y0) / side) + 1
    ix = np.empty(n, np.int64)
    iy = np.empty(n, np.int64)
    start = np.zeros(nx * ny + 1, np.int64)
    for i in range(n):
        ix[i] = min(math.floor((pos[i, 0] - x0) / side), nx - 1)
        iy[i] = min(math.floor((pos[i, 1] - y0) / side), ny - 1)
        start[ix[i] + nx * iy[i] + 1] += 1
    for b in range(nx * ny):
        start[b + 1] += start[b]
    fill = start[:-1].copy()
    order = np.empty(n, np.int64)
    for i in range(n):
        c = ix[i] + nx * iy[i]
        order[fill[c]] = i
        fill[c] += 1
    return x0, y0, side, nx, ny, ix, iy, start, order


@njit(cache=True)
def bucket_segments(
    a: np.ndarray, b: np.ndarray, ox: float, oy: float, cell: float, nx: int, ny: int
) -> tuple[np.ndarray, np.ndarray]:
    """The wall grid: (start (nx * ny + 1,), items) with the segments a[k]-b[k] that pass within half a
    cell diagonal of each cell's centre (so every cell a segment crosses lists it); cell (ix, iy) is
    ix + nx * iy."""
    half = 0.5 * cell * math.sqrt(2.0) * (1.0 + 1e-9) + 1e-12
    start = np.zeros(nx * ny + 1, np.int64)
    items = np.empty(0, np.int64)
    for rep in range(2):
        if rep == 1:
            for c in range(nx * ny):
                start[c + 1] += start[c]
            items = np.empty(start[nx * ny], np.int64)
            fill = start[:-1].copy()
        for k in range(a.shape[0]):
            x0, x1 = min(a[k, 0], b[k, 0]), max(a[k, 0], b[k, 0])
            y0, y1 = min(a[k, 1], b[k, 1]), max(a[k, 1], b[k, 1])
            i0 = max(0, math.floor((x0 - ox) / cell))
            i1 = min(nx - 1, math.floor((x1 - ox) / cell))
            j0 = max(0, math.floor((y0 - oy) / cell))
            j1 = min(ny - 1, math.floor((y1 - oy) / cell))
            for j in range(j0, j1 + 1):
                for i in range(i0, i1 + 1):
                    qx, qy = ox + (i + 0.5) * cell, oy + (j + 0.5) * cell
                    if _segment_distance(a[k, 0], a[k, 1], b[k, 0], b[k, 1], qx, qy)[0] <= half:
                        c = i + nx * j
                        if rep == 0:
                            start[c + 1] += 1
                        else:
                            items[fill[c]] = k
                            fill[c] += 1
    return start, items


@njit(cache=True)
def _segment_distance(
    ax: float, ay: float, bx: float, by: float, px: float, py: float
) -> tuple[float, float, float, float]:
    """(distance [m], s in [0, 1], closest x, closest y) from (px, py) to the segment a-b."""
    ex, ey = bx - ax, by - ay
    length_sq = ex * ex + ey * ey
    s = 0.0 if length_sq <= 0.0 else ((px - ax) * ex + (py - ay) * ey) / length_sq
    s = min(max(s, 0.0), 1.0)
    cx, cy = ax + s * ex, ay + s * ey
    return math.hypot(px - cx, py - cy), s, cx, cy


@njit(cache=True)
def _insert_sorted(keys: np.ndarray, vals: np.ndarray, count: int, cap: int, key: float, val: int) -> int:
    """Insert (key, val) into the ascending first `count` entries, keeping at most `cap`; the new count."""
    if count == cap and key >= keys[count - 1]:
        return count
    i = count if count < cap else cap - 1
    while i > 0 and keys[i - 1] > key:
        keys[i] = keys[i - 1]
        vals[i] = vals[i - 1]
        i -= 1
    keys[i] = key
    vals[i] = val
    return count + 1 if count < cap else cap


@njit(cache=True)
def _cells_within(
    px: float, py: float, reach: float, grid: np.ndarray, w_shape: np.ndarray
) -> tuple[int, int, int, int]:
    """The wall grid's cells (i0..i1, j0..j1, inclusive) within `reach` [m] of (px, py) along x and y."""
    ox, oy, cell = grid[0], grid[1], grid[2]
    nx, ny = w_shape[0], w_shape[1]
    i0 = max(0, math.floor((px - reach - ox) / cell))
    i1 = min(nx - 1, math.floor((px + reach - ox) / cell))
    j0 = max(0, math.floor((py - reach - oy) / cell))
    j1 = min(ny - 1, math.floor((py + reach - oy) / cell))
    return i0, i1, j0, j1


@njit(cache=True)
def _wall_lines(
    i: int,
    px: float,
    py: float,
    pz: float,
    reach: float,
    r_eff: float,
    push_cap: float,
    tau_o: float,
    dt: float,
    height_range: float,
    use_z: bool,
    wall_a: np.ndarray,
    wall_b: np.ndarray,
    wall_z: np.ndarray,
    one_sided: bool,
    grid: np.ndarray,
    w_shape: np.ndarray,
    w_start: np.ndarray,
    w_items: np.ndarray,
    stamp: np.ndarray,
    cand_d: np.ndarray,
    cand_k: np.ndarray,
    planes: np.ndarray,
    lines: np.ndarray,
) -> int:
    """Write agent i's wall half-planes into `lines` (nearest segment first, segments behind an earlier
    plane skipped); their count. See `navigation.avoidance` for the formulation and why it is sound."""
    nx = w_shape[0]
    i0, i1, j0, j1 = _cells_within(px, py, reach, grid, w_shape)
    cap = cand_d.shape[0]
    found = 0
    for j in range(j0, j1 + 1):
        for ii in range(i0, i1 + 1):
            c = ii + nx * j
            for t in range(w_start[c], w_start[c + 1]):
                k = w_items[t]
                if stamp[k] == i:
                    continue
                stamp[k] = i
                d, s, _, _ = _segment_distance(wall_a[k, 0], wall_a[k, 1], wall_b[k, 0], wall_b[k, 1], px, py)
                if d >= reach:
                    continue
                if use_z and abs(pz - (wall_z[k, 0] + s * (wall_z[k, 1] - wall_z[k, 0]))) > height_range:
                    continue
                found = _insert_sorted(cand_d, cand_k, found, cap, d, k)
    count = 0
    for f in range(found):
        if count == MAX_WALL_LINES:
            break
        k = cand_k[f]
        ax, ay, bx, by = wall_a[k, 0], wall_a[k, 1], wall_b[k, 0], wall_b[k, 1]
        covered = False
        for m in range(count):
            qx, qy, mx, my = planes[m, 0], planes[m, 1], planes[m, 2], planes[m, 3]
            if (ax - qx) * mx + (ay - qy) * my <= 1e-9 and (bx - qx) * mx + (by - qy) * my <= 1e-9:
                covered = True
                break
        if covered:
            continue
        d, s, cx, cy = _segment_distance(ax, ay, bx, by, px, py)
        ex, ey = bx - ax, by - ay
        length = math.hypot(ex, ey)
        lx, ly = (-ey / length, ex / length) if length > 0.0 else (1.0, 0.0)  # left normal
        if one_sided and 0.0 < s < 1.0 and ex * (py - ay) - ey * (px - ax) < 0.0:
            nx_, ny_, d = lx, ly, -d  # behind a one-sided wall: back to its front side
        elif d > 1e-9:
            nx_, ny_ = (px - cx) / d, (py - cy) / d
        else:
            nx_, ny_ = lx, ly
        gap = d - r_eff
        floor = -gap / tau_o if gap >= 0.0 else min(-gap / dt, push_cap)  # v . n >= floor
        planes[count, 0], planes[count, 1], planes[count, 2], planes[count, 3] = cx, cy, nx_, ny_
        lines[count, 0], lines[count, 1] = floor * nx_, floor * ny_
        lines[count, 2], lines[count, 3] = ny_, -nx_
        count += 1
    return count


@njit(cache=True)
def wall_room(
    px: float,
    py: float,
    pz: float,
    reach: float,
    height_range: float,
    use_z: bool,
    wall_a: np.ndarray,
    wall_b: np.ndarray,
    wall_z: np.ndarray,
    grid: np.ndarray,
    w_shape: np.ndarray,
    w_start: np.ndarray,
    w_items: np.ndarray,
) -> tuple[float, float, float, float]:
    """The room between the walls around (px, py, pz) [m], looking `reach` [m] far: (the distance to the
    nearest wall [m], the unit normal (x, y) from it toward the point, the distance to the nearest wall
    across from it (its normal at least 45 degrees past square to the first's: the other side of a
    corridor) [m]); distances are inf where there is none. With `use_z`, walls more than `height_range`
    [m] above or below pz are not there (another floor). The wall grid is `avoid_rows`'."""
    nx = w_shape[0]
    i0, i1, j0, j1 = _cells_within(px, py, reach, grid, w_shape)
    near, far, mx, my = math.inf, math.inf, 0.0, 0.0
    for rep in range(2):  # the nearest wall, then the nearest across from it
        for j in range(j0, j1 + 1):
            for ii in range(i0, i1 + 1):
                c = ii + nx * j
                for t in range(w_start[c], w_start[c + 1]):
                    k = w_items[t]
                    ax, ay, bx, by = wall_a[k, 0], wall_a[k, 1], wall_b[k, 0], wall_b[k, 1]
                    d, s, cx, cy = _segment_distance(ax, ay, bx, by, px, py)
                    if d >= reach or d <= 1e-9:
                        continue
                    if use_z and abs(pz - (wall_z[k, 0] + s * (wall_z[k, 1] - wall_z[k, 0]))) > height_range:
                        continue
                    ux, uy = (px - cx) / d, (py - cy) / d
                    if rep == 0 and d < near:
                        near, mx, my = d, ux, uy
                    elif rep == 1 and ux * mx + uy * my < -ACROSS and d < far:
                        far = d
        if near == math.inf:
            break
    return near, mx, my, far


@njit(cache=True)
def _contact_line(
    i: int,
    j: int,
    dx: float,
    dy: float,
    dsq: float,
    radii: np.ndarray,
    vel: np.ndarray,
    vmax: np.ndarray,
    prio: np.ndarray,
    dt: float,
    lines: np.ndarray,
    count: int,
) -> int:
    """Add agent i's contact half-plane for j when they could touch within dt: i closes at most its share
    of the gap g in one tick, ``v . n <= share * max(g, 0) / dt`` (n: unit i -> j). The two shares add up
    to one, so the pair cannot overlap after the tick, and v = 0 always meets it."""
    comb = radii[i] + radii[j]
    reach = comb + (vmax[i] + vmax[j]) * dt
    if dsq >= reach * reach:
        return count
    dist = math.sqrt(dsq)
    share = prio[j] / (prio[i] + prio[j])
    if dist > 0.0:
        nx, ny = dx / dist, dy / dist
    else:
        nx, ny = (1.0, 0.0) if i < j else (-1.0, 0.0)
    room = max(dist - comb, 0.0) / dt
    # split around the current closing speeds, as ORCA splits: i's allowance plus j's is the room
    bound = (1.0 - share) * (vel[i, 0] * nx + vel[i, 1] * ny) + share * (vel[j, 0] * nx + vel[j, 1] * ny)
    bound = min(max(bound + share * room, 0.0), room)
    if bound >= vmax[i]:
        return count  # the speed limit already keeps it
    # v . n <= bound: the boundary through bound * n, permitted side on the left of (-ny, nx)
    lines[count, 0], lines[count, 1] = bound * nx, bound * ny
    lines[count, 2], lines[count, 3] = -ny, nx
    return count + 1


@njit(cache=True)
def avoid_rows(
    pos: np.ndarray,
    z: np.ndarray,
    vel: np.ndarray,
    pref: np.ndarray,
    radii: np.ndarray,
    vmax: np.ndarray,
    prio: np.ndarray,
    params: np.ndarray,
    max_neighbours: int,
    use_z: bool,
    wall_a: np.ndarray,
    wall_b: np.ndarray,
    wall_z: np.ndarray,
    wall_params: np.ndarray,
    w_shape: np.ndarray,
    w_start: np.ndarray,
    w_items: np.ndarray,
    out: np.ndarray,
    out_neighbours: np.ndarray,
    out_walls: np.ndarray,
    out_fallback: np.ndarray,
) -> None:
    """One ORCA step for every agent (see `navigation.avoidance.avoid`, which validates the arguments).

    params: neighbour distance [m], time horizon [s], wall time horizon [s], height range [m], side
    preference, smoothing, dt [s], grid cell [m], pass-right turn, narrow pass-right turn, lane turn [rad].
    wall_params: grid origin x, y [m], cell [m], radius factor, margin [m], one-sided (1.0 or 0.0), walls
    have heights (1.0 or 0.0), walls constrain (1.0; 0.0: they only mark agents near them as narrow)."""
    n = pos.shape[0]
    nd, tau, tau_o, height_range = params[0], params[1], params[2], params[3]
    side, smoothing, dt, turn_right, turn_narrow = params[4], params[5], params[6], params[8], params[9]
    tau = max(tau, dt)
    tau_o = max(tau_o, dt)
    radius_factor, margin = wall_params[3], wall_params[4]
    one_sided, walls_z = wall_params[5] > 0.5, wall_params[6] > 0.5
    constrain = wall_params[7] > 0.5  # False: walls only tell which agents are in a narrow place
    k_walls = wall_a.shape[0]
    stamp = np.full(k_walls, -1, np.int64)
    cand_d = np.empty(4 * MAX_WALL_LINES)
    cand_k = np.empty(4 * MAX_WALL_LINES, np.int64)
    planes = np.empty((MAX_WALL_LINES, 4))
    size = MAX_WALL_LINES + MAX_CONTACTS + max_neighbours
    lines = np.empty((size, 4))
    proj = np.empty((size, 4))
    nb_d = np.empty(max_neighbours)
    nb_j = np.empty(max_neighbours, np.int64)
    # the nearest neighbours are searched ring by ring of cells around the agent's, until the next ring
    # lies beyond both the search range (which shrinks to the farthest of max_neighbours found) and
    # one tick's reach of the fastest, largest pair (params[7]: the contact half-planes)
    gx0, gy0, g, nx, ny, cx, cy, start, order = agent_grid(pos, max(nd / CELLS_PER_RANGE, MIN_CELL))
    contact = params[7]
    nd_sq = nd * nd
    for i in range(n):
        px, py, pz = pos[i, 0], pos[i, 1], z[i]
        vx, vy = vel[i, 0], vel[i, 1]
        tx = (1.0 - smoothing) * pref[i, 0] + smoothing * vx
        ty = (1.0 - smoothing) * pref[i, 1] + smoothing * vy
        count = 0
        r_eff = radius_factor * radii[i] + margin
        if k_walls > 0:
            count = _wall_lines(
                i, px, py, pz, tau_o * vmax[i] + r_eff, r_eff, 0.9 * vmax[i], tau_o, dt, height_range,
                use_z and walls_z, wall_a, wall_b, wall_z, one_sided, wall_params, w_shape, w_start,
                w_items, stamp, cand_d, cand_k, planes, lines,
            )  # fmt: skip
        out_walls[i] = count
        if not constrain:
            count = 0
        # the nearest max_neighbours agents within nd (RVO2's insertAgentNeighbor) and every agent within
        # one tick's reach (the contact half-planes), ring by ring of cells around the agent's
        found = 0
        range_sq = nd_sq
        ci, cj = cx[i], cy[i]
        lx, ly = px - gx0, py - gy0  # in the grid's frame
        ring = 0
        while True:
            if ring > 0:  # the nearest point of this ring: beyond the square of the rings inside it
                near = min(lx - (ci - ring + 1) * g, (ci + ring) * g - lx)
                near = min(near, ly - (cj - ring + 1) * g, (cj + ring) * g - ly)
                if (near * near >= range_sq and near >= contact) or (
                    ci - ring < 0 and ci + ring >= nx and cj - ring < 0 and cj + ring >= ny
                ):
                    break
            for b in range(max(cj - ring, 0), min(cj + ring, ny - 1) + 1):
                step = 1 if b == cj - ring or b == cj + ring else 2 * ring  # inner rows: the two ends
                for a in range(ci - ring, ci + ring + 1, step):
                    if a < 0 or a >= nx:
                        continue
                    c = a + nx * b
                    for t in range(start[c], start[c + 1]):
                        j = order[t]
                        if j == i or (use_z and abs(z[j] - pz) > height_range):
                            continue
                        dx, dy = pos[j, 0] - px, pos[j, 1] - py
                        dsq = dx * dx + dy * dy
                        if dsq < range_sq:
                            found = _insert_sorted(nb_d, nb_j, found, max_neighbours, dsq, j)
                            if found == max_neighbours:
                                range_sq = nb_d[found - 1]
                        if count < lines.shape[0] - max_neighbours:
                            count = _contact_line(i, j, dx, dy, dsq, radii, vel, vmax, prio, dt, lines, count)
            ring += 1
        hard = count
        narrow = out_walls[i] > 0  # a wall within the wall horizon: a corridor, a doorway
        turn = turn_right
        if narrow:  # a stopped agent may back off (narrow_turn): a moving one keeps to the open turn
            turn = narrow_turn(
                math.hypot(vx, vy), math.hypot(pref[i, 0], pref[i, 1]), turn_right, turn_narrow
            )
        lane = params[10] if narrow else 0.0
        if (turn > 0.0 or lane > 0.0) and found:
            kx, ky = keep_right(
                i, tx, ty, pref, vel, pos, radii, prio, nb_j, found, tau, turn, turn_right, nd, lane
            )
            if not constrain:  # hard walls: the linear program keeps the agent off them
                kx, ky = along_walls(px, py, tx, ty, kx, ky, planes, out_walls[i], r_eff + TOUCH)
            tx, ty = kx, ky
        inv_tau = 1.0 / tau
        for f in range(found):
            j = nb_j[f]
            rx, ry = pos[j, 0] - px, pos[j, 1] - py
            wx0, wy0 = vx - vel[j, 0], vy - vel[j, 1]  # relative velocity
            dist_sq = rx * rx + ry * ry
            comb = radii[i] + radii[j]
            comb_sq = comb * comb
            share = prio[j] / (prio[i] + prio[j])
            if dist_sq > comb_sq:
                wx, wy = wx0 - inv_tau * rx, wy0 - inv_tau * ry
                w_sq = wx * wx + wy * wy
                dot = wx * rx + wy * ry
                if dot < 0.0 and dot * dot > comb_sq * w_sq:
                    w_len = math.sqrt(w_sq)
                    ux_, uy_ = wx / w_len, wy / w_len
                    ldx, ldy = uy_, -ux_
                    ux, uy = (comb * inv_tau - w_len) * ux_, (comb * inv_tau - w_len) * uy_
                else:
                    leg = math.sqrt(dist_sq - comb_sq)
                    # pass on the right: near a tie between the legs, take the right one
                    if rx * wy - ry * wx > side * math.sqrt(dist_sq * w_sq):
                        ldx, ldy = (rx * leg - ry * comb) / dist_sq, (rx * comb + ry * leg) / dist_sq
                    else:
                        ldx, ldy = -(rx * leg + ry * comb) / dist_sq, -(-rx * comb + ry * leg) / dist_sq
                    proj_len = wx0 * ldx + wy0 * ldy
                    ux, uy = proj_len * ldx - wx0, proj_len * ldy - wy0
            else:
                inv_dt = 1.0 / dt
                wx, wy = wx0 - inv_dt * rx, wy0 - inv_dt * ry
                w_len = math.sqrt(wx * wx + wy * wy)
                if w_len > 0.0:
                    ux_, uy_ = wx / w_len, wy / w_len
                elif i < j:  # same place, same velocity: split along x by index
                    ux_, uy_ = -1.0, 0.0
                else:
                    ux_, uy_ = 1.0, 0.0
                ldx, ldy = uy_, -ux_
                ux, uy = (comb * inv_dt - w_len) * ux_, (comb * inv_dt - w_len) * uy_
            lines[count, 0], lines[count, 1] = vx + share * ux, vy + share * uy
            lines[count, 2], lines[count, 3] = ldx, ldy
            count += 1
        fail, rx_, ry_ = lp2(lines, count, vmax[i], tx, ty, False)
        out_fallback[i] = fail < count
        if fail < count:
            rx_, ry_ = lp3(lines, count, hard, fail, vmax[i], rx_, ry_, proj)
        speed = math.hypot(rx_, ry_)
        if speed > vmax[i]:  # round-off of the linear programs (3e-8 relative seen): the limit is hard
            rx_, ry_ = rx_ * (vmax[i] / speed), ry_ * (vmax[i] / speed)
        out[i, 0], out[i, 1] = rx_, ry_
        out_neighbours[i] = found
