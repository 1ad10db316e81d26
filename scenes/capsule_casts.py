"""Box casts against upright capsules in closed form: the part of `World.box_casts` that meets characters.

A box turned only about Z (yaw) and moving horizontally meets an upright capsule (a vertical segment of
half length `hh` around its centre, swept by a sphere of radius `r`) where its horizontal rectangle meets
one circle: every horizontal slice of the capsule is a circle about the same axis, and the largest slice
inside the box's height range, of radius `rho`, is met first. So the cast is a 2-D ray (the capsule's
axis, seen from the box, moving backwards) against the rectangle grown by `rho` with rounded corners:
a slab test, then, in a corner region, a ray-circle test. Exact, where conservative advancement with
`getClosestPoints` needs several PyBullet queries per capsule (the crowd's probes made 5,300 a tick at
1,000 NPCs). Against PyBullet's conservative advancement: within 3 mm where the box meets a capsule's
cylinder; where a box edge meets a spherical cap, up to about a centimetre later in PyBullet, whose box
shapes have rounded edges (`tests/scenes/test_capsule_casts.py` measures both).

A cast that moves vertically (start and end at different heights) is not handled here: the caller keeps
conservative advancement for it.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit


@njit(cache=True)
def _ray_rounded_rect(px: float, py: float, dx: float, dy: float, hx: float, hy: float, rho: float) -> float:
    """The first t in [0, 1] at which p + t d [m] is within `rho` of the rectangle [-hx, hx] x [-hy, hy],
    or -1.0 if none (0.0 when p already is)."""
    qx, qy = max(abs(px) - hx, 0.0), max(abs(py) - hy, 0.0)
    if qx * qx + qy * qy <= rho * rho:
        return 0.0
    # slab test against the rectangle grown by rho on every side
    t0, t1 = 0.0, 1.0
    for p, d, h in ((px, dx, hx + rho), (py, dy, hy + rho)):
        if abs(d) < 1e-300:
            if abs(p) > h:
                return -1.0
            continue
        a, b = (-h - p) / d, (h - p) / d
        if a > b:
            a, b = b, a
        t0, t1 = max(t0, a), min(t1, b)
        if t0 > t1:
            return -1.0
    ex, ey = px + t0 * dx, py + t0 * dy
    if abs(ex) <= hx or abs(ey) <= hy:
        return t0  # entered through a flat side
    # a corner region: the ray against the corner's circle, from where it entered the grown box
    cx, cy = math.copysign(hx, ex), math.copysign(hy, ey)
    fx, fy = px - cx, py - cy
    a = dx * dx + dy * dy
    if a < 1e-300:
        return -1.0  # no motion, and not within rho at the start
    b = fx * dx + fy * dy
    c = fx * fx + fy * fy - rho * rho
    disc = b * b - a * c
    if disc < 0.0:
        return -1.0
    t = (-b - math.sqrt(disc)) / a
    if t < t0 - 1e-12 or t > 1.0:
        return -1.0
    return max(t, 0.0)


@njit(cache=True)
def _touch(
    half: np.ndarray,
    yaw: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    c: int,
    center: np.ndarray,
    radius: float,
    half_segment: float,
    fraction: np.ndarray,
    point: np.ndarray,
    normal: np.ndarray,
    started: np.ndarray,
) -> bool:
    """Cast c against one capsule (`center` (3,), `radius`, `half_segment` [m]): if it touches it before
    `fraction[c]`, write the touch into row c of the outputs and return True."""
    hz = half[c, 2]
    z = min(max(center[2], starts[c, 2] - hz), starts[c, 2] + hz)
    over = max(abs(z - center[2]) - half_segment, 0.0)
    if over >= radius:
        return False  # no slice of the capsule within the box's heights
    rho = math.sqrt(radius * radius - over * over)
    cs, sn = math.cos(yaw[c]), math.sin(yaw[c])
    # the capsule's axis in the box's frame at the start, and its motion relative to the box
    rx, ry = center[0] - starts[c, 0], center[1] - starts[c, 1]
    mx, my = ends[c, 0] - starts[c, 0], ends[c, 1] - starts[c, 1]
    px, py = cs * rx + sn * ry, -sn * rx + cs * ry
    dx, dy = -(cs * mx + sn * my), -(-sn * mx + cs * my)
    t = _ray_rounded_rect(px, py, dx, dy, half[c, 0], half[c, 1], rho)
    if t < 0.0 or t >= fraction[c]:
        return False
    fraction[c], started[c] = t, t == 0.0
    # the box's closest point to the axis at the touch, and the normal from the axis toward it
    ax, ay = px + t * dx, py + t * dy
    kx, ky = min(max(ax, -half[c, 0]), half[c, 0]), min(max(ay, -half[c, 1]), half[c, 1])
    lx, ly = kx - ax, ky - ay
    length = math.hypot(lx, ly)
    if length < 1e-12:  # the axis inside the box (a start in contact): away from the box's centre
        lx, ly, length = -ax, -ay, max(math.hypot(ax, ay), 1e-12)
    nx, ny = (cs * lx - sn * ly) / length, (sn * lx + cs * ly) / length
    normal[c, 0], normal[c, 1], normal[c, 2] = nx, ny, 0.0
    point[c, 0], point[c, 1], point[c, 2] = center[0] + rho * nx, center[1] + rho * ny, z
    return True


@njit(cache=True)
def first_hits(
    half: np.ndarray,
    yaw: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    cast_of: np.ndarray,
    centers: np.ndarray,
    radius: np.ndarray,
    half_segment: np.ndarray,
    fraction: np.ndarray,
    which: np.ndarray,
    point: np.ndarray,
    normal: np.ndarray,
    started: np.ndarray,
) -> None:
    """For m casts (half extents `half` (m, 3), `yaw` (m,) [rad], `starts`, `ends` (m, 3) box centres [m],
    horizontal moves) and k (cast, capsule) candidate pairs (`cast_of` (k,), the capsule's `centers`
    (k, 3), `radius` (k,), `half_segment` (k,) [m]), each cast's first touch of one of its capsules:
    `fraction[c]` of its move (left alone when no capsule is met before the value it holds), `which[c]`
    the pair index (-1: none), `point[c]` the touch on the capsule [m], `normal[c]` (unit, horizontal,
    from the capsule toward the box), `started[c]` (touching at the start)."""
    for j in range(cast_of.shape[0]):
        c = cast_of[j]
        if _touch(half, yaw, starts, ends, c, centers[j], radius[j], half_segment[j], fraction, point, normal,
                  started):  # fmt: skip
            which[c] = j


@njit(cache=True)
def _later(wx: float, wy: float, mx: float, my: float, length2: float, within: float, best: float) -> bool:
    """Can a box whose centre moves by (mx, my) [m] (length2 its squared length) and whose footprint stays
    within `within` [m] of its centre (its half diagonal plus the capsule's radius) not touch the capsule
    axis at (wx, wy) from the start [m] before the fraction `best`? True when the axis stays farther than
    `within` from the centre's path, or comes within it only at a fraction at or after `best` (or past
    the move's end): a bound with a 1e-9 margin, so `_touch` would not have written the capsule either."""
    dot = wx * mx + wy * my
    off2 = wx * wx + wy * wy - dot * dot / length2  # squared distance of the axis from the centre's line
    if off2 > within * within + 1e-9:
        return True
    first = (dot - math.sqrt(max(within * within - off2, 0.0) * length2)) / length2  # [fraction]
    return first - 1e-9 >= best or first > 1.0 + 1e-9


GRID_PAIRS = 4096
"""Above this many (cast, capsule) pairs, `first_hits_near` finds each cast's capsules through a grid."""


@njit(cache=True)
def first_hits_near(
    half: np.ndarray,
    yaw: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    eligible: np.ndarray,
    skip: np.ndarray,
    centers: np.ndarray,
    radius: np.ndarray,
    half_segment: np.ndarray,
    fraction: np.ndarray,
    which: np.ndarray,
    point: np.ndarray,
    normal: np.ndarray,
    started: np.ndarray,
) -> None:
    """`first_hits` of every cast against every `eligible` (n,) capsule (rows of `centers` (n, 3), `radius`,
    `half_segment` (n,) [m]) but those in its row of `skip` (m, j) (capsule rows, -1 for none), found by
    their bounding boxes instead of a candidate list; `which[c]` is the capsule's row. Beyond `GRID_PAIRS`
    pairs the capsules near a cast come from a uniform grid of their centres; either way each cast meets
    its capsules in row order, so the answers do not depend on the grid."""
    m, n = starts.shape[0], centers.shape[0]
    use_grid = m * n > GRID_PAIRS
    found = np.arange(n)  # each cast's candidates in row order: every capsule, or those of nearby cells
    count = n
    if use_grid:
        size, x0, y0, nx, ny, first, order = _grid(centers, radius, eligible)
    widest = 0.0
    for k in range(n):
        if eligible[k]:
            widest = max(widest, radius[k])
    for c in range(m):
        sx, sy, ex, ey = starts[c, 0], starts[c, 1], ends[c, 0], ends[c, 1]
        reach = math.hypot(half[c, 0], half[c, 1])  # the box's horizontal extent from its centre, any yaw
        lo_x, hi_x = min(sx, ex) - reach, max(sx, ex) + reach
        lo_y, hi_y = min(sy, ey) - reach, max(sy, ey) + reach
        if use_grid:
            count = 0
            gx0, gx1 = _cell(lo_x - widest - x0, size, nx), _cell(hi_x + widest - x0, size, nx)
            for gy in range(_cell(lo_y - widest - y0, size, ny), _cell(hi_y + widest - y0, size, ny) + 1):
                for g in range(gy * nx + gx0, gy * nx + gx1 + 1):
                    for q in range(first[g], first[g + 1]):
                        found[count] = order[q]
                        count += 1
            found[:count].sort()
        for k in found[:count]:
            if not eligible[k]:
                continue
            r = radius[k]
            x, y = centers[k, 0], centers[k, 1]
            if x + r < lo_x or x - r > hi_x or y + r < lo_y or y - r > hi_y:
                continue
            if abs(centers[k, 2] - starts[c, 2]) > half[c, 2] + half_segment[k] + r:
                continue
            _near_pair(half, yaw, starts, ends, c, k, reach, skip, centers, radius, half_segment, fraction,
                       which, point, normal, started)  # fmt: skip


@njit(cache=True)
def _cell(offset: float, size: float, cells: int) -> int:
    """The grid column (row) of an offset [m] from the grid's origin, clamped to 0..cells-1."""
    v = offset / size  # clamped as a float first: a far-off cast never overflows an integer
    if not v >= 0.0:
        return 0
    return cells - 1 if v >= cells - 1 else int(v)


@njit(cache=True)
def _grid(
    centers: np.ndarray, radius: np.ndarray, eligible: np.ndarray
) -> tuple[float, float, float, int, int, np.ndarray, np.ndarray]:
    """A uniform grid of the eligible capsules' centres: (cell size [m], origin x, y [m], columns, rows,
    (cells + 1,) each cell's first entry in `order`, the capsule rows ordered by cell, then by row)."""
    n = centers.shape[0]
    x0, y0, x1, y1, widest, count = math.inf, math.inf, -math.inf, -math.inf, 0.0, 0
    for k in range(n):
        if eligible[k]:
            x0, y0 = min(x0, centers[k, 0]), min(y0, centers[k, 1])
            x1, y1 = max(x1, centers[k, 0]), max(y1, centers[k, 1])
            widest, count = max(widest, radius[k]), count + 1
    if count == 0:
        return 1.0, 0.0, 0.0, 1, 1, np.zeros(2, dtype=np.int64), np.zeros(0, dtype=np.int64)
    size = max(1.0, 2.0 * widest)
    while ((x1 - x0) / size + 1.0) * ((y1 - y0) / size + 1.0) > 4.0 * count + 64.0:
        size *= 2.0
    nx, ny = int((x1 - x0) / size) + 1, int((y1 - y0) / size) + 1
    cell = np.full(n, -1, dtype=np.int64)
    first = np.zeros(nx * ny + 1, dtype=np.int64)
    for k in range(n):
        if eligible[k]:
            cell[k] = _cell(centers[k, 1] - y0, size, ny) * nx + _cell(centers[k, 0] - x0, size, nx)
            first[cell[k] + 1] += 1
    for g in range(nx * ny):
        first[g + 1] += first[g]
    order = np.empty(count, dtype=np.int64)
    fill = first[:-1].copy()
    for k in range(n):  # in row order: each cell's entries ascending
        if cell[k] >= 0:
            order[fill[cell[k]]] = k
            fill[cell[k]] += 1
    return size, x0, y0, nx, ny, first, order


@njit(cache=True)
def _near_pair(
    half: np.ndarray,
    yaw: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    c: int,
    k: int,
    reach: float,
    skip: np.ndarray,
    centers: np.ndarray,
    radius: np.ndarray,
    half_segment: np.ndarray,
    fraction: np.ndarray,
    which: np.ndarray,
    point: np.ndarray,
    normal: np.ndarray,
    started: np.ndarray,
) -> None:
    """Cast c (its box `reach` [m] from its centre) against capsule k, whose bounding box and heights
    meet the cast's: unless the centre's path keeps clear of it (`_later`) or the cast skips it,
    `_touch`, and `which[c] = k` when it touches first."""
    sx, sy = starts[c, 0], starts[c, 1]
    mx, my = ends[c, 0] - sx, ends[c, 1] - sy
    length2 = mx * mx + my * my
    r = radius[k]
    if length2 > 0.0 and _later(
        centers[k, 0] - sx, centers[k, 1] - sy, mx, my, length2, reach + r, fraction[c]
    ):
        return
    for q in range(skip.shape[1]):
        if skip[c, q] == k:
            return
    if _touch(half, yaw, starts, ends, c, centers[k], r, half_segment[k], fraction, point, normal, started):
        which[c] = k


@functools.cache  # once per process: a later call costs nothing (an env reset builds a new world)
def warm_up() -> None:
    """Compile `first_hits` and `first_hits_near` now (or load them from the disk cache), not in the first
    cast that needs them."""
    one, three = np.zeros(1), np.zeros((1, 3))
    first_hits(
        np.ones((1, 3)), one, three, three + [1.0, 0.0, 0.0], np.zeros(1, dtype=np.int64), three + 5.0,
        one + 0.3, one, np.ones(1), np.full(1, -1, dtype=np.int64), three.copy(), three.copy(),
        np.zeros(1, dtype=np.bool_),
    )  # fmt: skip
    first_hits_near(
        np.ones((1, 3)), one, three, three + [1.0, 0.0, 0.0], np.ones(1, dtype=np.bool_),
        np.full((1, 1), -1, dtype=np.int64), three + 5.0, one + 0.3, one, np.ones(1),
        np.full(1, -1, dtype=np.int64), three.copy(), three.copy(), np.zeros(1, dtype=np.bool_),
    )  # fmt: skip
