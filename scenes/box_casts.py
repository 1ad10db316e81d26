"""Box casts against the level's boxes in closed form: the part of `World.box_casts` that meets walls.

A box turned only about Z (yaw) and moving horizontally meets another such box exactly where the
separating-axis test says so: their horizontal rectangles overlap when their projections overlap on each
of the four edge normals, and their height ranges overlap for the whole move. On each axis the overlap
is an interval of the move's fraction t, so the first touch is the largest entry over the axes, if it
comes before the smallest exit (the time-of-impact form of the test). Exact for sharp boxes, where
conservative advancement with `getClosestPoints` makes a few PyBullet queries per candidate per step.
PyBullet's box shapes have edges rounded by their collision margin: where a corner meets a face at a
grazing angle PyBullet's touch can come a few millimetres later (`tests/scenes/test_box_casts.py`
measures both).

The table of boxes is `scenes.build.StaticBoxes`. The level's boxes turned about other axes (ramps),
its meshes and its loaded assets keep conservative advancement, and so does a cast that moves vertically
or not at all.

Conventions: world Z-up, metres, radians; a yaw turns about +Z.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit

from scenes.capsule_casts import first_hits_near


@njit(cache=True)
def _support_mid(cx: float, cy: float, ux: float, uy: float, hx: float, hy: float, dx: float, dy: float,
                 tx: float, ty: float, lo: float, hi: float) -> tuple[float, float]:  # fmt: skip
    """The middle of the support set of the rectangle (centre c, axes u and perp(u), half sizes hx, hy) in
    direction d: its corner, or, for an edge facing d, the part of the edge whose coordinate along t lies in
    [lo, hi] (the other box's extent there)."""
    vx, vy = -uy, ux
    a = ux * dx + uy * dy
    b = vx * dx + vy * dy
    sa = 1.0 if a > 0.0 else -1.0
    sb = 1.0 if b > 0.0 else -1.0
    px, py = cx + sa * hx * ux + sb * hy * vx, cy + sa * hx * uy + sb * hy * vy
    if abs(a) <= 1e-9:  # the edge along u faces d: its ends differ in the u coordinate
        qx, qy = px - 2.0 * sa * hx * ux, py - 2.0 * sa * hx * uy
    elif abs(b) <= 1e-9:  # the edge along v faces d
        qx, qy = px - 2.0 * sb * hy * vx, py - 2.0 * sb * hy * vy
    else:
        return px, py
    s0, s1 = px * tx + py * ty, qx * tx + qy * ty
    a0, a1 = max(min(s0, s1), lo), min(max(s0, s1), hi)
    if a0 > a1:
        return px, py
    mid = 0.5 * (a0 + a1)
    f = 0.0 if s1 == s0 else (mid - s0) / (s1 - s0)
    return px + f * (qx - px), py + f * (qy - py)


@njit(cache=True)
def first_box_hits(
    half: np.ndarray,
    yaw: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    rows: np.ndarray,
    box_center: np.ndarray,
    box_half: np.ndarray,
    box_yaw: np.ndarray,
    fraction: np.ndarray,
    which: np.ndarray,
    point: np.ndarray,
    normal: np.ndarray,
    started: np.ndarray,
) -> None:
    """For the casts `rows` of m (half extents `half` (m, 3), `yaw` (m,) [rad], `starts`, `ends` (m, 3) box
    centres [m], horizontal moves of non-zero length) against every box of the table (`box_center`,
    `box_half` (k, 3) [m], `box_yaw` (k,) [rad]), each cast's first touch of one of the boxes:
    `fraction[c]` of its move (left alone when no box is met before the value it holds), `which[c]` the
    box (-1: none), `point[c]` the touch on the box [m], `normal[c]` (unit, from the box toward the cast),
    `started[c]` (touching or overlapping at the start)."""
    for c in rows:
        sx, sy, sz = starts[c, 0], starts[c, 1], starts[c, 2]
        mx, my = ends[c, 0] - sx, ends[c, 1] - sy
        ca, sa = math.cos(yaw[c]), math.sin(yaw[c])
        hx, hy, hz = half[c, 0], half[c, 1], half[c, 2]
        # the cast's swept bounding box, for a quick rejection
        ex = abs(ca) * hx + abs(sa) * hy
        ey = abs(sa) * hx + abs(ca) * hy
        lo_x, hi_x = min(sx, sx + mx) - ex, max(sx, sx + mx) + ex
        lo_y, hi_y = min(sy, sy + my) - ey, max(sy, sy + my) + ey
        for k in range(box_center.shape[0]):
            bx, by, bz = box_center[k, 0], box_center[k, 1], box_center[k, 2]
            if abs(sz - bz) > hz + box_half[k, 2]:
                continue  # apart in height for the whole (horizontal) move
            cb, sb = math.cos(box_yaw[k]), math.sin(box_yaw[k])
            fx, fy = box_half[k, 0], box_half[k, 1]
            gx = abs(cb) * fx + abs(sb) * fy
            gy = abs(sb) * fx + abs(cb) * fy
            if bx - gx > hi_x or bx + gx < lo_x or by - gy > hi_y or by + gy < lo_y:
                continue
            enter, leave, axis, side = -math.inf, math.inf, -1, 0.0
            best_pen, pen_axis, pen_side = math.inf, -1, 0.0
            apart = False
            for j in range(4):
                if j == 0:
                    lx, ly = ca, sa
                elif j == 1:
                    lx, ly = -sa, ca
                elif j == 2:
                    lx, ly = cb, sb
                else:
                    lx, ly = -sb, cb
                reach = (
                    hx * abs(ca * lx + sa * ly) + hy * abs(-sa * lx + ca * ly)
                    + fx * abs(cb * lx + sb * ly) + fy * abs(-sb * lx + cb * ly)
                )  # fmt: skip
                gap0 = (sx - bx) * lx + (sy - by) * ly  # the cast's centre from the box's, along the axis
                v = mx * lx + my * ly
                pen = reach - abs(gap0)
                if pen < best_pen:
                    best_pen, pen_axis, pen_side = pen, j, 1.0 if gap0 >= 0.0 else -1.0
                if abs(v) < 1e-300:
                    if abs(gap0) > reach:
                        apart = True
                        break
                    continue
                t0, t1 = (-reach - gap0) / v, (reach - gap0) / v
                if t0 > t1:
                    t0, t1 = t1, t0
                if t0 > enter:
                    enter, axis, side = t0, j, -1.0 if v > 0.0 else 1.0
                leave = min(leave, t1)
            if apart or enter > leave or leave < 0.0 or enter > 1.0:
                continue
            t = max(enter, 0.0)
            if t >= fraction[c]:
                continue
            fraction[c], which[c], started[c] = t, k, enter <= 0.0
            if enter <= 0.0:  # overlapping at the start: out along the axis of least penetration
                zpen = hz + box_half[k, 2] - abs(sz - bz)
                axis, side = pen_axis, pen_side
                if zpen < best_pen:
                    axis, side = 4, 1.0 if sz >= bz else -1.0
            if axis == 4:
                nx, ny, nz = 0.0, 0.0, side
            elif axis == 0:
                nx, ny, nz = side * ca, side * sa, 0.0
            elif axis == 1:
                nx, ny, nz = -side * sa, side * ca, 0.0
            elif axis == 2:
                nx, ny, nz = side * cb, side * sb, 0.0
            else:
                nx, ny, nz = -side * sb, side * cb, 0.0
            normal[c, 0], normal[c, 1], normal[c, 2] = nx, ny, nz
            # the touch: on a face of the wall, the cast's support toward it; on a face of the cast, the
            # wall's support toward the cast; along the other face's extent where an edge meets a face
            ax, ay = sx + t * mx, sy + t * my
            tx, ty = -ny, nx
            if axis >= 2 and axis <= 3:
                span = abs(fx * (cb * tx + sb * ty)) + abs(fy * (-sb * tx + cb * ty))
                mid = bx * tx + by * ty
                px, py = _support_mid(ax, ay, ca, sa, hx, hy, -nx, -ny, tx, ty, mid - span, mid + span)
            elif axis <= 1:
                span = abs(hx * (ca * tx + sa * ty)) + abs(hy * (-sa * tx + ca * ty))
                mid = ax * tx + ay * ty
                px, py = _support_mid(bx, by, cb, sb, fx, fy, nx, ny, tx, ty, mid - span, mid + span)
            else:  # above or below: the cast's centre over the wall, clamped onto its rectangle
                rx, ry = ax - bx, ay - by
                u = min(max(cb * rx + sb * ry, -fx), fx)
                w = min(max(-sb * rx + cb * ry, -fy), fy)
                px, py = bx + cb * u - sb * w, by + sb * u + cb * w
            top, bottom = min(sz + hz, bz + box_half[k, 2]), max(sz - hz, bz - box_half[k, 2])
            point[c, 0], point[c, 1] = px, py
            point[c, 2] = 0.5 * (top + bottom) if axis != 4 else bz + side * box_half[k, 2]


@njit(cache=True)
def closed_table(
    half: np.ndarray,
    yaw: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    eligible: np.ndarray,
    skip: np.ndarray,
    centers: np.ndarray,
    radius: np.ndarray,
    half_segment: np.ndarray,
    capsule_body: np.ndarray,
    box_center: np.ndarray,
    box_half: np.ndarray,
    box_yaw: np.ndarray,
    box_body: np.ndarray,
    table: np.ndarray,
) -> None:
    """m horizontal casts (as in `first_box_hits`) against the capsules near each (`capsule_casts.
    first_hits_near`: `eligible`, `skip`, `centers`, `radius`, `half_segment`, and `capsule_body` the body
    id of each capsule row) and every box (`box_*`, `box_body` the body of each), in one call: writes the
    casts' results into `table` (m, 14), the rows of `scenes.boxcast.result_table` (hit, fraction, distance,
    position (3), point (3), normal (3), body, started). A capsule and a box met at the same fraction: the
    capsule."""
    m = starts.shape[0]
    fraction = np.ones(m)
    which = np.full(m, -1, dtype=np.int64)
    point, normal = np.zeros((m, 3)), np.zeros((m, 3))
    started = np.zeros(m, dtype=np.bool_)
    first_hits_near(
        half, yaw, starts, ends, eligible, skip, centers, radius, half_segment, fraction, which, point,
        normal, started,
    )  # fmt: skip
    body = np.full(m, -1, dtype=np.int64)
    for c in range(m):
        if which[c] >= 0:
            body[c] = capsule_body[which[c]]
    which[:] = -1
    first_box_hits(
        half, yaw, starts, ends, np.arange(m), box_center, box_half, box_yaw, fraction, which, point, normal,
        started,
    )  # fmt: skip
    for c in range(m):
        if which[c] >= 0:
            body[c] = box_body[which[c]]
        mx, my, mz = ends[c, 0] - starts[c, 0], ends[c, 1] - starts[c, 1], ends[c, 2] - starts[c, 2]
        length = math.sqrt(mx * mx + my * my + mz * mz)
        row = table[c]
        if body[c] < 0:
            row[0], row[1], row[2] = 0.0, 1.0, length
            row[3], row[4], row[5] = ends[c, 0], ends[c, 1], ends[c, 2]
            row[6], row[7], row[8] = math.nan, math.nan, math.nan
            row[9], row[10], row[11] = 0.0, 0.0, 0.0
            row[12], row[13] = -1.0, 0.0
            continue
        t = fraction[c]
        row[0], row[1], row[2] = 1.0, t, t * length
        row[3], row[4], row[5] = starts[c, 0] + t * mx, starts[c, 1] + t * my, starts[c, 2] + t * mz
        row[6], row[7], row[8] = point[c, 0], point[c, 1], point[c, 2]
        row[9], row[10], row[11] = normal[c, 0], normal[c, 1], normal[c, 2]
        row[12], row[13] = float(body[c]), 1.0 if started[c] else 0.0


@njit(cache=True)
def checked_table(
    half: np.ndarray,
    yaw: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    ignore: np.ndarray,
    row_of: np.ndarray,
    eligible: np.ndarray,
    centers: np.ndarray,
    radius: np.ndarray,
    half_segment: np.ndarray,
    capsule_body: np.ndarray,
    box_center: np.ndarray,
    box_half: np.ndarray,
    box_yaw: np.ndarray,
    box_body: np.ndarray,
    tabled: np.ndarray,
    rest_lo: np.ndarray,
    rest_hi: np.ndarray,
    table: np.ndarray,
) -> bool:
    """`closed_table` for m casts given as they come, once they are known to meet only the tables: half
    extents (1, 3) for all or (m, 3) [m], yaws (m,) [rad], starts and ends (m, 3) [m], `ignore` (m, j)
    body ids each cast passes through (-1: none), `row_of` body id -> capsule row (-1: none), `tabled` the
    bodies of the level's boxes. Returns False, writing nothing, when a number is not finite, a half extent
    is not > 0, a cast is not horizontal or does not move, a cast ignores a body in `tabled`, or
    its swept box (the AABB query of `scenes.boxcast.candidates`, 1 cm wider) meets one of the AABBs
    `rest_lo`, `rest_hi` (k, 3) [m]: the caller then takes the general way."""
    m, whole = starts.shape[0], half.shape[0] == starts.shape[0]
    for c in range(m):
        h = half[c if whole else 0]
        if not (h[0] > 0.0 and h[1] > 0.0 and h[2] > 0.0 and math.isfinite(h[0] + h[1] + h[2])):
            return False
        if not math.isfinite(yaw[c]) or starts[c, 2] != ends[c, 2]:
            return False
        if starts[c, 0] == ends[c, 0] and starts[c, 1] == ends[c, 1]:
            return False
        for k in range(3):
            if not (math.isfinite(starts[c, k]) and math.isfinite(ends[c, k])):
                return False
        for b in ignore[c]:
            for t in tabled:
                if b == t:
                    return False
        co, si = abs(math.cos(yaw[c])), abs(math.sin(yaw[c]))
        reach = (co * h[0] + si * h[1], si * h[0] + co * h[1], h[2])
        for r in range(rest_lo.shape[0]):
            meets = True
            for k in range(3):
                lo = min(starts[c, k], ends[c, k]) - reach[k] - 0.01
                hi = max(starts[c, k], ends[c, k]) + reach[k] + 0.01
                meets = meets and lo <= rest_hi[r, k] and hi >= rest_lo[r, k]
            if meets:
                return False
    full = half
    if not whole:
        full = np.empty((m, 3))
        for c in range(m):
            full[c] = half[0]
    skip = np.full(ignore.shape, -1, dtype=np.int64)
    for c in range(m):
        for j in range(ignore.shape[1]):
            b = ignore[c, j]
            if 0 <= b < row_of.shape[0]:
                skip[c, j] = row_of[b]
    closed_table(
        full, yaw, starts, ends, eligible, skip, centers, radius, half_segment, capsule_body, box_center,
        box_half, box_yaw, box_body, table,
    )  # fmt: skip
    return True


@functools.cache  # once per process: a later call costs nothing (an env reset builds a new world)
def warm_up() -> None:
    """Compile `first_box_hits`, `closed_table` and `checked_table` now (or load them from the disk
    cache), not in the first cast that needs them."""
    one, three = np.zeros(1), np.zeros((1, 3))
    first_box_hits(
        np.ones((1, 3)), one, three, three + [5.0, 0.0, 0.0], np.zeros(1, dtype=np.int64),
        three + [3.0, 0.0, 0.0], np.ones((1, 3)), one, np.ones(1), np.full(1, -1, dtype=np.int64),
        three.copy(), three.copy(), np.zeros(1, dtype=np.bool_),
    )  # fmt: skip
    empty = np.zeros(0)
    closed_table(
        np.ones((1, 3)), one, three, three + [5.0, 0.0, 0.0], np.zeros(0, dtype=np.bool_),
        np.full((1, 1), -1, dtype=np.int64), np.zeros((0, 3)), empty, empty, np.zeros(0, dtype=np.int64),
        three + [3.0, 0.0, 0.0], np.ones((1, 3)), one, np.zeros(1, dtype=np.int64), np.empty((1, 14)),
    )  # fmt: skip
    checked_table(
        np.ones((1, 3)), one, three, three + [5.0, 0.0, 0.0], np.full((1, 1), -1, dtype=np.int64),
        np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.bool_), np.zeros((0, 3)), empty, empty,
        np.zeros(0, dtype=np.int64), three + [3.0, 0.0, 0.0], np.ones((1, 3)), one,
        np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros((0, 3)), np.zeros((0, 3)),
        np.empty((1, 14)),
    )  # fmt: skip
