"""The per-tick rules of path following, compiled (numba): one definition each, for `NavAgent` (one agent,
called from Python) and `AgentBatch` (every row in one compiled loop).

A path is its points `pts` (n, 3) [m] (an `AgentBatch` row pads them by repeating the last point), `tail`
(n,) the horizontal path length from each point to the end [m] (`path_tail`), and `corner`, the index of
the steering target. Lengths are horizontal: heights come from the mesh surface, never from the path.
The batched loops return a status per row for the rare events that stay in Python (a point to lift off
the agent's next few corridor polygons, braking without a path, a re-plan, a polygon lookup, a walk that
leaves a polygon): the rules for those are in `navigation.agent`.

No fastmath: the results are bit-identical from run to run, and equal to numpy's to round-off.
"""

from __future__ import annotations

import functools
import math
import weakref

import numpy as np
from numba import njit

from navigation.navmesh import NavMesh

CORNER_EPS = 1e-3  # a corner counts as reached within this horizontal distance [m]
MIN_CORNER_SPEED = 0.25  # fraction of top speed kept through a U-turn corner
WINDOW = 4  # corridor polygons tried for a path point's height: the agent's and the next 3
UNKNOWN = -2  # `poly_id` of an agent whose polygon is not known (looked up on the next `follow`)

# statuses of `advance_rows` (bits) and `follow_rows`
LIFT = 1  # the point is off the next WINDOW corridor polygons: `surface_point` gives its height
BRAKE = 2  # no path and still moving: coasts along its heading (`coast`), in Python
REPLAN = 4  # farther than `corridor_tolerance` from its path segment: plan again
WALKED = 8  # `advance`: the agent walked along its path this tick
LOOKUP = 1  # `follow_rows`: the polygon of the agent is not known; look it up, then run the row again
SLIDE = 2  # `follow_rows`: the target leaves the agent's polygon: walk there with a surface raycast
_INSIDE = 4.0  # `follow` keeps the polygon of a point this many length epsilons inside all its edges
_EDGES: weakref.WeakKeyDictionary[NavMesh, np.ndarray] = weakref.WeakKeyDictionary()
_PLANES: weakref.WeakKeyDictionary[NavMesh, np.ndarray] = weakref.WeakKeyDictionary()


def edge_table(mesh: NavMesh) -> np.ndarray:
    """Every polygon's edges, padded to the largest polygon, as one (6, P, V) array (made once per mesh): per
    edge its start (ax, ay), its vector (ex, ey), the `NavMeshQuery._contains` bound and the bound of "well
    inside" (`inside`); the padding edges (0, 0) always pass."""
    if mesh not in _EDGES:
        loops, eps = mesh.loops, mesh.length_epsilon
        table = np.zeros((6, mesh.polygon_count, max(len(xy) for xy in loops.xy)))
        table[4:] = -np.inf
        for q, xy in enumerate(loops.xy):
            for i, (x0, y0) in enumerate(xy):
                x1, y1 = xy[(i + 1) % len(xy)]
                length = math.hypot(x1 - x0, y1 - y0)  # as `_contains` computes it, for the same verdicts
                table[:, q, i] = (x0, y0, x1 - x0, y1 - y0, -eps * length, _INSIDE * eps * length)
        _EDGES[mesh] = table
    return _EDGES[mesh]


def plane_table(mesh: NavMesh) -> np.ndarray:
    """(P, 3) the polygons' planes z = a x + b y + c, as a writable float64 copy made once per mesh (the
    kernels are compiled for writable arrays; a mesh's own are read-only)."""
    if mesh not in _PLANES:
        _PLANES[mesh] = np.array(mesh.planes, dtype=np.float64, order="C")
    return _PLANES[mesh]


@njit(cache=True)
def path_tail(pts: np.ndarray) -> np.ndarray:
    """(n,) horizontal path length [m] from each of the points `pts` (n, 3) to the last one (summed from
    the end, segment by segment)."""
    n = pts.shape[0]
    tail = np.zeros(n)
    total = 0.0
    for k in range(n - 2, -1, -1):
        dx = pts[k + 1, 0] - pts[k, 0]
        dy = pts[k + 1, 1] - pts[k, 1]
        total += math.sqrt(dx * dx + dy * dy)
        tail[k] = total
    return tail


@njit(cache=True)
def remaining_distance(pts: np.ndarray, tail: np.ndarray, n: int, corner: int, x: float, y: float) -> float:
    """Path length [m] from (x, y) through the corners `corner`..n-1 of the path `pts` to its end (0 when
    no corner is left)."""
    if corner >= n:
        return 0.0
    return math.hypot(pts[corner, 0] - x, pts[corner, 1] - y) + float(tail[corner])


@njit(cache=True)
def speed_limit(
    pts: np.ndarray,
    n: int,
    corner: int,
    x: float,
    y: float,
    remaining: float,
    top: float,
    acceleration: float,
    stopping: float,
    braking: bool,
) -> float:
    """Top speed allowed now [m/s] at (x, y) [m] with `remaining` [m] to go: `top`, braking (`braking`) with
    `acceleration` [m/s^2] to stop `stopping` [m] short of the end, and slowing for the corner after the
    steering target: through a U-turn at MIN_CORNER_SPEED of top speed, reachable within the distance to
    it."""
    two_acc = 2.0 * acceleration
    limit = top
    if braking:
        limit = min(limit, math.sqrt(two_acc * max(0.0, remaining - stopping)))
    if corner + 1 < n:
        ax, ay = pts[corner, 0] - x, pts[corner, 1] - y
        bx, by = pts[corner + 1, 0] - pts[corner, 0], pts[corner + 1, 1] - pts[corner, 1]
        na, nb = math.hypot(ax, ay), math.hypot(bx, by)
        if na > 1e-9 and nb > 1e-9:
            cos_turn = (ax * bx + ay * by) / (na * nb)
            corner_speed = top * max(MIN_CORNER_SPEED, (1.0 + cos_turn) / 2.0)
            limit = min(limit, math.sqrt(corner_speed * corner_speed + two_acc * na))
    return limit


@njit(cache=True)
def ramp(speed: float, target: float, dv: float) -> float:
    """`speed` [m/s] moved toward `target` by at most `dv`."""
    return min(max(target, speed - dv), speed + dv)


@njit(cache=True)
def walk_path(pts: np.ndarray, n: int, corner: int, pos: np.ndarray, distance: float) -> tuple[int, bool]:
    """Move `pos` (3,) [m, written] `distance` metres along the path corners from `corner` (never cutting or
    overshooting one; the last stops the walk). Returns (the new steering corner, whether the walk ended
    between corners: then `pos` is interpolated in 3-D and its height must come from the surface)."""
    d = distance
    k = corner
    while k < n:
        seg = math.hypot(pts[k, 0] - pos[0], pts[k, 1] - pos[1])
        if seg <= d + CORNER_EPS and (d > 1e-12 or seg <= 1e-12):
            pos[0], pos[1], pos[2] = pts[k, 0], pts[k, 1], pts[k, 2]  # also a corner straight above
            d = max(0.0, d - seg)
            if k == n - 1:
                break
            k += 1
        elif d > 1e-12:
            frac = d / seg
            pos[0] = pos[0] + (pts[k, 0] - pos[0]) * frac
            pos[1] = pos[1] + (pts[k, 1] - pos[1]) * frac
            pos[2] = pos[2] + (pts[k, 2] - pos[2]) * frac
            return k, True
        else:
            break
    return k, False


@njit(cache=True)
def segment_distance(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """Horizontal distance [m] from (px, py) to the segment from (ax, ay) to (bx, by)."""
    abx, aby = bx - ax, by - ay
    denom = abx * abx + aby * aby
    t = 0.0 if denom == 0 else min(1.0, max(0.0, ((px - ax) * abx + (py - ay) * aby) / denom))
    return math.hypot(ax + t * abx - px, ay + t * aby - py)


@njit(cache=True)
def inside(edges: np.ndarray, q: int, x: float, y: float, strict: bool) -> bool:
    """Polygon `q` holds (x, y), as `NavMeshQuery._contains` decides (`strict`: well inside every edge);
    `edges` is the mesh's `edge_table` (6, P, V)."""
    bound = 5 if strict else 4
    for v in range(edges.shape[2]):
        cross = edges[2, q, v] * (y - edges[1, q, v]) - edges[3, q, v] * (x - edges[0, q, v])
        if not cross >= edges[bound, q, v]:
            return False
    return True


@njit(cache=True)
def advance(
    pts: np.ndarray,
    tail: np.ndarray,
    n: int,
    corner: int,
    has_path: bool,
    stopped: bool,
    pos: np.ndarray,
    velocity: np.ndarray,
    dt: float,
    top: float,
    acceleration: float,
    stopping: float,
    braking: bool,
    corridor: np.ndarray,
    corridor_len: int,
    poly: int,
    edges: np.ndarray,
    planes: np.ndarray,
) -> tuple[int, int, int, float]:
    """One agent's tick of `dt` [s] (`NavAgent.update`; `AgentBatch.update` runs it for each row): the
    speed ramps within `acceleration` [m/s^2] toward the speed limit (`speed_limit`; 0 when stopped, without
    a path or arrived within `stopping` + 1e-9 m of the end), the agent walks its path from `pos` (3,) [m]
    (`walk_path`), a point between corners gets the height of the corridor polygon it is in
    (`corridor_polygon`, from index `poly`), and `velocity` (3,) [m/s] becomes the horizontal move over
    `dt`. Writes `pos` and `velocity`; returns (status, corner, poly, the new speed [m/s]): status bits
    WALKED (it walked its path), LIFT (the point is off the next corridor polygons: `surface_point` gives
    its height), or BRAKE alone (no path, still moving: `pos` and `velocity` are left for `coast`)."""
    sx, sy = pos[0], pos[1]
    speed0 = math.hypot(velocity[0], velocity[1])
    rem = remaining_distance(pts, tail, n, corner, sx, sy) if has_path else 0.0
    moving = has_path and rem > stopping + 1e-9 and not stopped
    target = speed_limit(pts, n, corner, sx, sy, rem, top, acceleration, stopping, braking) if moving else 0.0
    speed = ramp(speed0, target, acceleration * dt)
    if speed > 0.0 and not has_path:
        return BRAKE, corner, poly, speed
    status = 0
    if moving:
        status = WALKED
        corner, mid = walk_path(pts, n, corner, pos, min(speed * dt, max(rem - stopping, 0.0)))
        if mid:
            found = corridor_polygon(corridor, corridor_len, poly, pos[0], pos[1], edges)
            if found >= 0:
                q = corridor[found]
                pos[2] = planes[q, 0] * pos[0] + planes[q, 1] * pos[1] + planes[q, 2]
                poly = found
            else:
                status |= LIFT
    velocity[0], velocity[1], velocity[2] = (pos[0] - sx) / dt, (pos[1] - sy) / dt, 0.0
    return status, corner, poly, speed


@njit(cache=True)
def advance_rows(
    rows: np.ndarray,
    dt: float,
    next_position: np.ndarray,
    velocity: np.ndarray,
    corner: np.ndarray,
    poly: np.ndarray,
    poly_id: np.ndarray,
    path_corners: np.ndarray,
    tail: np.ndarray,
    path_len: np.ndarray,
    has_path: np.ndarray,
    is_stopped: np.ndarray,
    top_speed: np.ndarray,
    acceleration: np.ndarray,
    stopping_distance: np.ndarray,
    auto_braking: np.ndarray,
    corridor_tolerance: np.ndarray,
    corridors: np.ndarray,
    corridor_len: np.ndarray,
    edges: np.ndarray,
    planes: np.ndarray,
    speed_out: np.ndarray,
    status: np.ndarray,
) -> int:
    """`advance` for the agents `rows` (`AgentBatch.update`, the arrays are its own), then the corridor
    check of those that walked. Writes `status[j]` (LIFT, BRAKE, REPLAN bits) and `speed_out[j]` (the new
    speed [m/s]) for row j; returns how many rows have a status. BRAKE rows are left unmoved; LIFT rows
    hold the point to lift."""
    count = 0
    for j in range(rows.size):
        i = rows[j]
        pts = path_corners[i]
        st, k, poly[i], speed_out[j] = advance(
            pts,
            tail[i],
            path_len[i],
            corner[i],
            has_path[i],
            is_stopped[i],
            next_position[i],
            velocity[i],
            dt,
            top_speed[i],
            acceleration[i],
            stopping_distance[i],
            auto_braking[i],
            corridors[i],
            corridor_len[i],
            poly[i],
            edges,
            planes,
        )
        corner[i] = k
        if st & WALKED:
            poly_id[i] = UNKNOWN
            p = next_position[i]
            a = max(k - 1, 0)
            off = segment_distance(p[0], p[1], pts[a, 0], pts[a, 1], pts[k, 0], pts[k, 1])
            if off > corridor_tolerance[i]:
                st |= REPLAN
        status[j] = st & (LIFT | BRAKE | REPLAN)
        if status[j]:
            count += 1
    return count


@njit(cache=True)
def corridor_polygon(
    corridor: np.ndarray, length: int, start: int, x: float, y: float, edges: np.ndarray
) -> int:
    """Index of the first of the corridor polygons `corridor[start]`.. `corridor[start + WINDOW - 1]` (of
    `length`) holding (x, y) [m]: the polygon a point of the path is in, from the one the agent was last in;
    -1 when none does (then `surface_point` looks further, at the same rule)."""
    for kk in range(start, min(start + WINDOW, length)):
        if inside(edges, corridor[kk], x, y, False):
            return kk
    return -1


@njit(cache=True)
def follow_rows(
    rows: np.ndarray,
    targets: np.ndarray,
    next_position: np.ndarray,
    has_path: np.ndarray,
    poly_id: np.ndarray,
    edges: np.ndarray,
    planes: np.ndarray,
    status: np.ndarray,
) -> int:
    """Agents `rows` without a path move to `targets[j]` (m, 3) [m] where that stays well inside the polygon
    they are in, at its height (`AgentBatch.follow`). Writes `status[j]`: 0 done (or left alone: a path, no
    move), LOOKUP (polygon unknown), SLIDE (leaves the polygon); returns how many rows have a status."""
    count = 0
    for j in range(rows.size):
        i = rows[j]
        status[j] = 0
        if has_path[i]:
            continue
        tx, ty = targets[j, 0], targets[j, 1]
        if math.hypot(tx - next_position[i, 0], ty - next_position[i, 1]) < 1e-12:
            continue
        q = poly_id[i]
        if q == UNKNOWN:
            status[j] = LOOKUP
        elif q >= 0 and inside(edges, q, tx, ty, True):
            next_position[i, 0], next_position[i, 1] = tx, ty
            next_position[i, 2] = planes[q, 0] * tx + planes[q, 1] * ty + planes[q, 2]
        else:
            status[j] = SLIDE
        if status[j]:
            count += 1
    return count


@njit(cache=True)
def move_rows(
    rows: np.ndarray,
    targets: np.ndarray,
    next_position: np.ndarray,
    poly_id: np.ndarray,
    poly: np.ndarray,
    corridors: np.ndarray,
    corridor_len: np.ndarray,
    has_path: np.ndarray,
    has_destination: np.ndarray,
    corner: np.ndarray,
    path_corners: np.ndarray,
    corridor_tolerance: np.ndarray,
    edges: np.ndarray,
    planes: np.ndarray,
    status: np.ndarray,
) -> int:
    """Agents `rows` move to `targets[j]` (m, 3) [m] (`AgentBatch.set_next_position`) where that is the
    surface raycast's answer without casting it: start and target well inside the polygon the agent is
    in, which the raycast starts in (a row with a path: its corridor polygon, the start on that polygon's
    surface; without: `poly_id`); the target then gets that polygon's height. Writes `status[j]`: 0 (moved,
    or no move within 1e-12 m), SLIDE (raycast it), REPLAN (moved, and now farther than
    `corridor_tolerance` from its path segment); returns how many rows have a status."""
    count = 0
    for j in range(rows.size):
        i = rows[j]
        status[j] = 0
        sx, sy, sz = next_position[i, 0], next_position[i, 1], next_position[i, 2]
        tx, ty = targets[j, 0], targets[j, 1]
        if math.hypot(tx - sx, ty - sy) < 1e-12:
            continue
        q = -1
        if has_path[i]:
            if poly[i] < corridor_len[i]:
                q = corridors[i, poly[i]]
                on = planes[q, 0] * sx + planes[q, 1] * sy + planes[q, 2] == sz
                if not (on and inside(edges, q, sx, sy, True)):
                    q = -1
        elif poly_id[i] >= 0:
            q = poly_id[i]
        if q < 0 or not inside(edges, q, tx, ty, True):
            status[j] = SLIDE
            count += 1
            continue
        next_position[i, 0], next_position[i, 1] = tx, ty
        next_position[i, 2] = planes[q, 0] * tx + planes[q, 1] * ty + planes[q, 2]
        poly_id[i] = UNKNOWN
        if has_path[i] and has_destination[i]:
            k, pts = corner[i], path_corners[i]
            off = segment_distance(tx, ty, pts[k - 1, 0], pts[k - 1, 1], pts[k, 0], pts[k, 1])
            if off > corridor_tolerance[i]:
                status[j] = REPLAN
                count += 1
    return count


@njit(cache=True)
def off_path_rows(
    rows: np.ndarray,
    next_position: np.ndarray,
    has_path: np.ndarray,
    has_destination: np.ndarray,
    corner: np.ndarray,
    path_corners: np.ndarray,
    corridor_tolerance: np.ndarray,
    out: np.ndarray,
) -> int:
    """The agents of `rows` with a path and a destination whose `next_position` is farther than their
    `corridor_tolerance` from their current path segment (horizontally): they re-plan (`AgentBatch`). Writes
    them, in order, to out[:count]; returns count."""
    count = 0
    for j in range(rows.size):
        i = rows[j]
        if not (has_path[i] and has_destination[i]):
            continue
        k, pts = corner[i], path_corners[i]
        x, y = next_position[i, 0], next_position[i, 1]
        if segment_distance(x, y, pts[k - 1, 0], pts[k - 1, 1], pts[k, 0], pts[k, 1]) > corridor_tolerance[i]:
            out[count] = i
            count += 1
    return count


@njit(cache=True)
def passed_rows(
    rows: np.ndarray,
    next_position: np.ndarray,
    has_path: np.ndarray,
    corner: np.ndarray,
    path_len: np.ndarray,
    path_corners: np.ndarray,
    near: np.ndarray,
    out: np.ndarray,
) -> int:
    """The agents of `rows` with a path that a move carried past their steering corner: beyond the line
    through it square to the path's next leg (horizontally), or within `near[i]` [m] of it (a crowd
    pushing an agent about a corner: it must not walk back to the exact point), with a corner after it.
    Candidates only: the
    caller steers them for the next corner where the mesh lets them walk straight to it (`AgentBatch`).
    Writes them, in order, to out[:count]; returns count."""
    count = 0
    for j in range(rows.size):
        i = rows[j]
        if has_path[i] and past_corner(path_corners[i], corner[i], path_len[i], next_position[i], near[i]):
            out[count] = i
            count += 1
    return count


@njit(cache=True)
def past_corner(pts: np.ndarray, k: int, n: int, p: np.ndarray, near: float = 0.0) -> bool:
    """Point p [m] is beyond the line through corner k of the path `pts` (its first n rows) square to the
    leg after it, or within `near` [m] of corner k (horizontally), and corner k has a corner after it:
    `passed_rows` for one agent."""
    if k < 1 or k + 1 >= n:
        return False
    dx, dy = p[0] - pts[k, 0], p[1] - pts[k, 1]
    lx, ly = pts[k + 1, 0] - pts[k, 0], pts[k + 1, 1] - pts[k, 1]
    ahead: bool = dx * lx + dy * ly > 0.0 or math.hypot(dx, dy) < near
    return ahead


@njit(cache=True)
def remaining_rows(
    rows: np.ndarray,
    next_position: np.ndarray,
    path_corners: np.ndarray,
    tail: np.ndarray,
    corner: np.ndarray,
    path_len: np.ndarray,
    has_path: np.ndarray,
    out: np.ndarray,
) -> None:
    """`out[j]`: the remaining path length [m] of agent `rows[j]` from its `next_position` (0 without a
    path)."""
    for j in range(rows.size):
        i = rows[j]
        out[j] = 0.0
        if has_path[i]:
            out[j] = remaining_distance(
                path_corners[i], tail[i], path_len[i], corner[i], next_position[i, 0], next_position[i, 1]
            )


# -- compile once ---------------------------------------------------------------------------------------
@functools.cache  # once per process: a later call costs nothing (an env reset builds a new world)
def warm_up() -> None:
    """Run every kernel of this module once on tiny inputs with the types `NavAgent` and `AgentBatch` pass,
    so no tick pays for compiling: the machine code is compiled (seconds, once per environment) or loaded
    from the on-disk cache (well under a second). Idempotent."""
    one = np.zeros(1, dtype=np.int64)
    f, f3, yes = np.zeros(1), np.zeros((1, 3)), np.ones(1, dtype=np.bool_)
    pts, tail, edges, planes = np.zeros((1, 2, 3)), np.zeros((1, 2)), np.zeros((6, 1, 3)), np.zeros((1, 3))
    corridors = np.zeros((1, 2), dtype=np.int64)
    row = (f3, f3.copy(), one + 1, one.copy(), one.copy(), pts, tail, one + 2, yes, ~yes, f + 1, f + 1, f)
    advance_rows(one, 0.1, *row, yes, f + 1, corridors, one + 2, edges, planes, f.copy(), one.copy())
    follow_rows(one, f3, f3.copy(), ~yes, one.copy(), edges, planes, one.copy())
    move_rows(one, f3, f3.copy(), one.copy(), one.copy(), corridors, one.copy(), yes, yes, one + 1, pts,
              f + 1, edges, planes, one.copy())  # fmt: skip
    remaining_rows(one, f3, pts, tail, one, one, yes, f.copy())
    off_path_rows(one, f3, yes, yes, one + 1, pts, f + 1, one.copy())
    passed_rows(one, f3, yes, one + 1, one + 2, pts, f.copy(), one.copy())
    past_corner(pts[0], 1, 2, f3[0], 0.0)
    past_corner(pts[0], 1, 2, f3[0])  # NavAgent's call: the default `near` is its own signature
    path_tail(pts[0])
    advance(pts[0], tail[0], 2, 1, True, False, np.zeros(3), np.zeros(3), 0.1, 1.0, 1.0, 0.0, True,
            corridors[0], 2, 0, edges, planes)  # fmt: skip
    speed_limit(pts[0], 2, 1, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, True)
    remaining_distance(pts[0], tail[0], 2, 1, 0.0, 0.0)
    corridor_polygon(corridors[0], 2, 0, 0.0, 0.0, edges)
    segment_distance(0.0, 0.0, 0.0, 0.0, 1.0, 1.0)
    inside(edges, 0, 0.0, 0.0, True)
    ramp(0.0, 1.0, 0.1)
    walk_path(pts[0], 2, 1, np.zeros(3), 0.1)
