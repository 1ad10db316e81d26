"""The simulation crowd's tick, compiled (numba): `npc_ai.body.crowd.Crowd.steer` in one call.

`steer_rows` gathers every row's avoidance input from the batch's arrays (a path row is its agent before this
tick's advance, its preferred velocity that advance over dt; a free-walking row is its body and its walking
intent; a row that does not mean to move is an obstacle with `STILL_PRIORITY`), appends the bodies that are
not rows (the player), runs `navigation.avoidance_kernels.avoid_rows` on them, and scatters the answer: the
velocities the rows keep for the next tick, the low-pass filtered velocities steered path rows face along,
the surface-move targets of changed path rows (moved by the caller, `AgentBatch.set_next_position`) and the
new speeds and headings of changed free rows. Every buffer is the crowd's own, allocated once: a tick
allocates nothing but `avoid_rows`' scratch.

The rules are those `Crowd` documents, in the same order and with the same floating-point operations as
the numpy version they replace (bit-identical answers). No fastmath: the same input gives the same output
bit for bit.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from navigation.avoidance_kernels import avoid_rows, wall_room
from navigation.crowd_gates import GO_PRIORITY, HOLD, MAX_GREEN, REACH, YIELD_PRIORITY, gate_rows
from navigation.kernel_cache import forget_stale_kernels

forget_stale_kernels(  # compiled into steer_rows
    __file__, ("navigation.avoidance_kernels", "navigation.avoidance_rules", "navigation.crowd_gates")
)

STILL_PRIORITY = 1e3  # a row that does not move: movers take (almost) the whole share of avoiding it
MOVING = 1e-6  # [m/s] slower than this is standing
CRAWL = 0.05  # [m/s] a free row the avoidance slows below this keeps the heading its behaviour turns it to
CHANGED = 1e-9  # [m/s] an answer this close to the preferred velocity leaves the row alone
PARK_RADIUS = 1.0  # [m] a path row steering for its path's end within this of it is parked
PARKED_SHARE = 0.25  # a parked row's priority is its own times this: the passing ones push it aside
MAKE_WAY_GAP = 0.3  # [m] a parked row this close (surface to surface) ahead of a blocked mover steps aside
BLOCKED = 0.5  # a moving path row answered slower than this share of its preferred speed is blocked
MAKE_WAY_AFTER = 1.0  # [s] a mover blocked this long in a row has parked rows in its way step aside
OWN_SIDE, OTHER_SIDE, AHEAD = 0, 1, 2  # the ways a row steps out of a blocked mover's way (`make_way`)
HEAD_ON_TURN = math.radians(45.0)  # two blocked movers head-on walk this far to the right of their way
NARROW_BODIES = 3.0  # a place with less room across than this many bodies abreast is narrow
PASS_BODIES = 2.0  # and with less than this many, nobody passes a row standing there anyway
WALL_GAP = 0.05  # [m] a row parked in a narrow place stands this far from the nearest wall
WALL_TIME = 0.5  # [s] and walks there within about this long


@njit(cache=True)
def gather_rows(
    dt: float,
    feet: np.ndarray,
    body_vel: np.ndarray,
    before: np.ndarray,
    next_position: np.ndarray,
    top_speed: np.ndarray,
    agent_radius: np.ndarray,
    path_rows: np.ndarray,
    free: np.ndarray,
    free_speed: np.ndarray,
    free_heading: np.ndarray,
    yaw: np.ndarray,
    priority: np.ndarray,
    others_feet: np.ndarray,
    others_vel: np.ndarray,
    others_radius: np.ndarray,
    last: np.ndarray,
    positions: np.ndarray,
    vel: np.ndarray,
    pref: np.ndarray,
    radii: np.ndarray,
    top: np.ndarray,
    prio: np.ndarray,
    z: np.ndarray,
    moving: np.ndarray,
    on_path: np.ndarray,
    has_path: np.ndarray,
    is_stopped: np.ndarray,
    corner: np.ndarray,
    path_len: np.ndarray,
    path_corners: np.ndarray,
    parked: np.ndarray,
) -> float:
    """The avoidance's input rows (`steer_rows` documents the arguments); returns the
    contact reach [m]: one tick's reach of the fastest, largest pair (`avoid_rows`' params[7]: its
    neighbour search goes at least this far, so contacts are never missed)."""
    n = feet.shape[0]
    k = others_feet.shape[0]
    if n + k == 0:
        return 0.0
    for i in range(n):
        positions[i, 0], positions[i, 1], positions[i, 2] = feet[i, 0], feet[i, 1], feet[i, 2]
        vel[i, 0], vel[i, 1] = body_vel[i, 0], body_vel[i, 1]
        pref[i, 0] = 0.0
        pref[i, 1] = 0.0
        top[i] = 0.0
        radii[i] = agent_radius[i]
        on_path[i] = False
        parked[i] = False
    for j in range(path_rows.shape[0]):  # the agent's own step this tick is what it prefers
        i = path_rows[j]
        on_path[i] = True
        px = (next_position[i, 0] - before[i, 0]) / dt
        py = (next_position[i, 1] - before[i, 1]) / dt
        pref[i, 0], pref[i, 1] = px, py
        top[i] = max(top_speed[i], math.hypot(px, py))
        positions[i, 0], positions[i, 1], positions[i, 2] = before[i, 0], before[i, 1], before[i, 2]
        vel[i, 0], vel[i, 1] = last[i, 0], last[i, 1]
        end = path_len[i] - 1
        if has_path[i] and not is_stopped[i] and end >= 0 and corner[i] >= end:
            ex, ey = path_corners[i, end, 0] - before[i, 0], path_corners[i, end, 1] - before[i, 1]
            parked[i] = math.hypot(ex, ey) < PARK_RADIUS
    for i in range(n):
        if free[i] and free_speed[i] > MOVING:
            heading = yaw[i] if math.isnan(free_heading[i]) else free_heading[i]
            pref[i, 0] = free_speed[i] * math.cos(heading)
            pref[i, 1] = free_speed[i] * math.sin(heading)
            top[i] = free_speed[i]
        moving[i] = parked[i] or math.hypot(pref[i, 0], pref[i, 1]) > MOVING
        prio[i] = priority[i] if moving[i] else STILL_PRIORITY
        if parked[i]:
            prio[i] = priority[i] * PARKED_SHARE
    for j in range(k):  # bodies that are not rows (the player): obstacles like standing rows
        i = n + j
        positions[i, 0], positions[i, 1] = others_feet[j, 0], others_feet[j, 1]
        positions[i, 2] = others_feet[j, 2]
        vel[i, 0], vel[i, 1] = others_vel[j, 0], others_vel[j, 1]
        pref[i, 0] = 0.0
        pref[i, 1] = 0.0
        radii[i] = others_radius[j]
        top[i] = 0.0
        prio[i] = STILL_PRIORITY
    big_r, big_v = radii[0], top[0]
    for i in range(n + k):
        z[i] = positions[i, 2]
        big_r = max(big_r, radii[i])
        big_v = max(big_v, top[i])
    return 2.0 * (big_r + big_v * dt)


@njit(cache=True)
def _held_for(seconds: float, held: bool, dt: float) -> float:
    """A timer [s] of how long a condition has held in a row: `dt` [s] more while it holds, else 0."""
    return seconds + dt if held else 0.0


@njit(cache=True)
def make_way(
    n: int,
    dt: float,
    destination: np.ndarray,
    positions: np.ndarray,
    vel: np.ndarray,
    pref: np.ndarray,
    radii: np.ndarray,
    top: np.ndarray,
    moving: np.ndarray,
    on_path: np.ndarray,
    parked: np.ndarray,
    held: np.ndarray,
    blocked_s: np.ndarray,
    aside: np.ndarray,
    body_vel: np.ndarray,
    stuck_aside_s: np.ndarray,
    aside_way: np.ndarray,
    row_gate: np.ndarray,
    row_dir: np.ndarray,
    gate_centre: np.ndarray,
) -> int:
    """Parked rows, and rows a gate holds, step out of the way of the movers they block, and blocked movers
    head-on pass each other; returns how many rows do either.

    A blocked mover is a path row that means to move, is neither parked nor held by a gate, and whose answers
    `vel` or whose body's velocity `body_vel` (n, 3) [m/s] have been slower than `BLOCKED` of its preferred
    speed for `MAKE_WAY_AFTER` seconds in a row (`blocked_s` (n,) [s] counts, tick by tick of `dt` [s]; the
    body too: a mover pressed into a wall beside a parked row was answered its full speed into the wall,
    stood, and never counted as blocked). A parked or held row j ahead of such a mover i (in front of i's
    preferred direction, within both radii and `MAKE_WAY_GAP`, and not bound for i's own `destination` (n, 3)
    [m]: j's is `PARK_RADIUS` or more from it; a crowd converging on one point is not in its way, and the
    behaviour's crowded-goal rule deals with that, while rows parked at their own goals next to i's, a
    formation's slots, stood in the way of those bound for the slots behind them) prefers, this tick, to walk
    square to i's way at its own top speed, on the side of it where it stands (to i's left when dead ahead: i
    keeps right), and is marked in `aside` (n,) so it moves by its answer. Two parked agents a row apart
    leave less than a body's width between them, and ORCA stops a mover there for good (its answer is to
    stand, theirs to stay); now they part, and their paths bring them back once it has passed. Rows a gate
    holds wait where those that came through it walk on (the mouth of a doorway, on the way back to where the
    waiting ones came from), and stood there in the same deadlock: they step aside the same way (`npc-ai
    bench crowd` doorway: 28 -> 39 of 40 arrive). A row whose body has not moved for `MAKE_WAY_AFTER` seconds
    while stepping aside (its `stuck_aside_s` (n,) [s] counts) steps the next way from then on, until it
    is no longer asked (`aside_way` (n,) int64: `OWN_SIDE`, then `OTHER_SIDE`, then `AHEAD`, round again): a
    parked NPC that stepped into the wall it stood by held a mover there for good (doorway, a late agent
    walking along the inner wall). `AHEAD`: both sides shut, it walks the mover's way at its own top speed,
    out of the one-body lane they share (`scatter_rows` moves it by that, not by the avoidance's answer). In
    the warehouse's band between the north wall and a crate, an NPC parked at the crate's corner and a
    mover pressed into the wall stood 0.77 m apart, where passing takes 0.8 m: the sides were the crate and
    the mover, and the two stood for good (`npc-ai bench crowd` doorway, 1 to 3 of 41 layouts). The
    nearest blocked mover decides; the loop is (parked and held rows) x (blocked movers), after one pass
    to find the latter. Then `pass_head_on` for the blocked movers no row stepped aside for (row_gate,
    row_dir (n,) int64: the gate each row is queued on or in, -1 none, and its direction there, as
    `gate_rows` wrote them; gate_centre: the gates' centres [m])."""
    blocked = np.empty(n, dtype=np.int64)  # the blocked movers first: few, so the pair loop is short
    b = 0
    for i in range(n):
        aside[i] = False
        speed = math.hypot(pref[i, 0], pref[i, 1])
        mover = on_path[i] and moving[i] and not parked[i] and not held[i] and speed > MOVING
        going = min(math.hypot(vel[i, 0], vel[i, 1]), math.hypot(body_vel[i, 0], body_vel[i, 1]))
        blocked_s[i] = _held_for(blocked_s[i], mover and going < BLOCKED * speed, dt)
        if blocked_s[i] >= MAKE_WAY_AFTER:
            blocked[b] = i
            b += 1
    count = 0
    for j in range(n):
        if not b or not (parked[j] or held[j]):
            stuck_aside_s[j], aside_way[j] = 0.0, OWN_SIDE
            continue
        best, bx, by = math.inf, 0.0, 0.0
        wx, wy = 0.0, 0.0  # the nearest blocked mover's way
        for k in range(b):
            i = blocked[k]
            speed = math.hypot(pref[i, 0], pref[i, 1])
            ex, ey = positions[j, 0] - positions[i, 0], positions[j, 1] - positions[i, 1]
            d = math.hypot(ex, ey)
            ux, uy = pref[i, 0] / speed, pref[i, 1] / speed
            if d >= radii[i] + radii[j] + MAKE_WAY_GAP or d >= best or ex * ux + ey * uy <= 0.0:
                continue
            gx, gy = destination[i, 0] - destination[j, 0], destination[i, 1] - destination[j, 1]
            if math.hypot(gx, gy) < PARK_RADIUS:
                continue  # j stands at i's goal, not on its way: a crowd at one point stays (Crowd)
            side = 1.0 if ux * ey - uy * ex >= 0.0 else -1.0  # +1: j stands on i's left
            best, bx, by = d, -uy * side, ux * side
            wx, wy = ux, uy
        if best == math.inf:
            stuck_aside_s[j], aside_way[j] = 0.0, OWN_SIDE
            continue
        still = math.hypot(body_vel[j, 0], body_vel[j, 1]) < BLOCKED * top[j]
        stuck_aside_s[j] = _held_for(stuck_aside_s[j], still, dt)
        if stuck_aside_s[j] >= MAKE_WAY_AFTER:  # that way is shut (a wall, others): try the next one
            aside_way[j], stuck_aside_s[j] = (aside_way[j] + 1) % 3, 0.0
        if aside_way[j] == OTHER_SIDE:
            bx, by = -bx, -by
        elif aside_way[j] == AHEAD:
            bx, by = wx, wy
        pref[j, 0], pref[j, 1] = bx * top[j], by * top[j]
        aside[j] = True
        count += 1
    return count + pass_head_on(
        blocked[:b], positions, pref, radii, top, aside, row_gate, row_dir, gate_centre
    )  # fmt: skip


@njit(cache=True)
def pass_head_on(
    blocked: np.ndarray, positions: np.ndarray, pref: np.ndarray, radii: np.ndarray, top: np.ndarray,
    aside: np.ndarray,
    row_gate: np.ndarray,
    row_dir: np.ndarray,
    gate_centre: np.ndarray,
) -> int:  # fmt: skip
    """Two blocked movers (rows `blocked`) head-on, each ahead of the other within both radii and
    `MAKE_WAY_GAP` and meaning to go opposite ways, both walk `HEAD_ON_TURN` to the right of their way at
    their top speed this tick (their `pref` rewritten, marked in `aside` so they move by their answers);
    returns how many do. The rows go in order, and a row already turned counts with its new way: once one
    of a pair has turned, the other turns too only if they are still head-on (two agents swapping places
    across a corridor no longer are, and one of them stepping off the line is enough). In a corridor
    whose parked rows stand by the walls (`stand_by_walls`) one body fits between them: two movers that
    met there, or two swapping places between two rows, stood for good (ORCA's answer to both is to
    stand); turning right, they go round each other where the rows leave a gap (`npc-ai bench crowd`
    corridor, 60 moved layouts: all 40 arrived in 50 -> 56 of them; turning both of a pair whatever the
    first did: 54, with one gridlock of the passing itself). Two on the same gate the same way (`row_gate`,
    `row_dir`) are not head-on: they converge on its mouth from its two sides, one of them often on a
    corner of its path at the jamb and steering along the wall into the other, and turning right walked
    them into each other and the jamb for good (`npc-ai bench crowd` doorway with long turns: 2 of 41
    layouts left agents there). Their ways cross (each makes for the far jamb), and the one farther from
    the gate's centre (`gate_centre` (G, 2|3) [m]; the higher row on a tie) waits: its `pref` is 0 this
    tick, and it moves by its answer, out of the other's way; both pressing on stood for good (4 agents, 1
    of 41 layouts). The one nearer goes: letting the shorter way left wait instead stopped an agent
    standing in the mouth's middle for one beside it, and the five queued there stood 25 s (`npc-ai bench
    crowd` doorway, out of 40 more layouts: worst 62.7 -> 55.4 s)."""
    count = 0
    c, s = math.cos(HEAD_ON_TURN), math.sin(HEAD_ON_TURN)
    for i in blocked:
        if aside[i]:
            continue
        for j in blocked:
            if j == i:
                continue
            ex, ey = positions[j, 0] - positions[i, 0], positions[j, 1] - positions[i, 1]
            if math.hypot(ex, ey) >= radii[i] + radii[j] + MAKE_WAY_GAP:
                continue
            if ex * pref[i, 0] + ey * pref[i, 1] <= 0.0 or ex * pref[j, 0] + ey * pref[j, 1] >= 0.0:
                continue  # not each in the other's way
            if row_gate[i] >= 0 and row_gate[j] == row_gate[i] and row_dir[j] == row_dir[i]:
                # the same way through the same gate: converging on its mouth; the one farther out waits
                g = row_gate[i]
                wi = math.hypot(gate_centre[g, 0] - positions[i, 0], gate_centre[g, 1] - positions[i, 1])
                wj = math.hypot(gate_centre[g, 0] - positions[j, 0], gate_centre[g, 1] - positions[j, 1])
                if wi > wj or (wi == wj and i > j):
                    pref[i, 0], pref[i, 1] = 0.0, 0.0
                    aside[i] = True
                    count += 1
                    break
                continue
            if pref[i, 0] * pref[j, 0] + pref[i, 1] * pref[j, 1] >= 0.0:
                continue  # not going opposite ways
            speed = math.hypot(pref[i, 0], pref[i, 1])
            ux, uy = pref[i, 0] / speed * top[i], pref[i, 1] / speed * top[i]
            pref[i, 0], pref[i, 1] = c * ux + s * uy, -s * ux + c * uy
            aside[i] = True
            count += 1
            break
    return count


@njit(cache=True)
def scatter_rows(
    dt: float,
    before: np.ndarray,
    next_position: np.ndarray,
    destination: np.ndarray,
    free: np.ndarray,
    free_speed: np.ndarray,
    free_heading: np.ndarray,
    alpha: float,
    pref: np.ndarray,
    out: np.ndarray,
    moving: np.ndarray,
    on_path: np.ndarray,
    held: np.ndarray,
    aside: np.ndarray,
    last: np.ndarray,
    changed: np.ndarray,
    facing: np.ndarray,
    steered: np.ndarray,
    goal: np.ndarray,
    steer: np.ndarray,
    move_rows: np.ndarray,
    move_targets: np.ndarray,
    aside_way: np.ndarray,
) -> int:
    """The rows' share of the avoidance's answer `out` (`steer_rows` documents the arguments); returns m,
    the path rows to move: move_rows[:m], to move_targets[:m]. A row stepping `AHEAD` of a blocked mover
    (`make_way`) walks its preferred velocity instead: it overlaps the mover it precedes, and the answer to
    an overlap is to push the two apart, into the wall on its other side."""
    n = before.shape[0]
    m = 0
    for i in range(n):
        vx, vy = out[i, 0], out[i, 1]
        if aside[i] and aside_way[i] == AHEAD:
            vx, vy = pref[i, 0], pref[i, 1]
        if moving[i]:
            last[i, 0], last[i, 1] = vx, vy
        else:
            last[i, 0], last[i, 1] = 0.0, 0.0
        # a row a gate holds, or one stepping aside, moves by its answer even when that is its (rewritten)
        # preferred velocity
        changed[i] = moving[i] and (
            held[i] or aside[i] or math.hypot(vx - pref[i, 0], vy - pref[i, 1]) > CHANGED
        )
        steer[i, 0], steer[i, 1] = math.nan, math.nan
        if changed[i] and on_path[i]:  # faces along its filtered avoiding velocity; its agent steps by it
            fresh = not steered[i]
            for d in range(3):
                fresh = fresh or destination[i, d] != goal[i, d]
            fx, fy = vx, vy
            if alpha >= 0.0:
                sx, sy = (pref[i, 0], pref[i, 1]) if fresh else (facing[i, 0], facing[i, 1])
                fx, fy = (fx - sx) * alpha + sx, (fy - sy) * alpha + sy
            facing[i, 0], facing[i, 1] = fx, fy
            steer[i, 0], steer[i, 1] = fx, fy
            steered[i] = True
            move_rows[m] = i
            move_targets[m, 0] = before[i, 0] + vx * dt
            move_targets[m, 1] = before[i, 1] + vy * dt
            move_targets[m, 2] = next_position[i, 2]
            m += 1
        else:
            steered[i] = False
        goal[i, 0], goal[i, 1], goal[i, 2] = destination[i, 0], destination[i, 1], destination[i, 2]
        if changed[i] and free[i] and free_speed[i] > MOVING:
            speed = math.hypot(vx, vy)
            free_speed[i] = speed
            if speed > CRAWL:  # stopped, or crawling: keep the heading it had, or turns to
                free_heading[i] = math.atan2(vy, vx)
    return m


@njit(cache=True)
def stand_by_walls(
    n: int,
    positions: np.ndarray,
    pref: np.ndarray,
    radii: np.ndarray,
    top: np.ndarray,
    parked: np.ndarray,
    aside: np.ndarray,
    path_len: np.ndarray,
    path_corners: np.ndarray,
    params: np.ndarray,
    wall_a: np.ndarray,
    wall_b: np.ndarray,
    wall_z: np.ndarray,
    wall_params: np.ndarray,
    w_shape: np.ndarray,
    w_start: np.ndarray,
    w_items: np.ndarray,
) -> int:
    """Rows parked in a narrow place stand by its nearest wall; returns how many do.

    A parked row that is not stepping aside (`aside` (n,) bool) and is within its radius (and `WALL_GAP`)
    of its path's end (`path_corners`, `path_len`), where there is less room across than `NARROW_BODIES`
    bodies abreast but at least `PASS_BODIES` (`wall_room`, the crowd's walls: the navmesh's boundary,
    which the agents' centres reach; one body abreast leaves no room to pass it anyway), prefers this tick
    to walk to
    that end moved toward its nearest wall, by up to its radius and to `WALL_GAP` from the wall, within
    about `WALL_TIME` (at most its top speed), and is marked in `aside` so it moves by its answer. Movers
    then pass in the middle: two rows parked a body apart across a 3 m corridor stood 1.1 m apart, and a
    body needs 1.6 m there; by the walls they leave 1.9 m (`npc-ai bench crowd` corridor: those bound for
    the deepest slots waited for the others to part, issue layout 54.0 -> 28.1 s). Farther from its end a
    row goes there first: heading for the wall as soon as it was parked (1 m out), it stood where its
    neighbours in the formation did, short of its goal for good (corridor, 60 moved layouts, with an
    earlier `make_way`: all 40 arrived in 51 -> 53 of them). params[3] and wall_params[6]: `avoid_rows`'
    height range [m] and whether the walls have heights."""
    count = 0
    for i in range(n):
        end = path_len[i] - 1
        if not parked[i] or aside[i] or end < 0:
            continue
        ex, ey, ez = path_corners[i, end, 0], path_corners[i, end, 1], path_corners[i, end, 2]
        if math.hypot(ex - positions[i, 0], ey - positions[i, 1]) > radii[i] + WALL_GAP:
            continue  # to its end first
        narrow = NARROW_BODIES * 2.0 * radii[i]
        near, nx, ny, far = wall_room(
            ex, ey, ez, narrow, params[3], wall_params[6] > 0.5, wall_a, wall_b, wall_z, wall_params, w_shape,
            w_start, w_items,
        )  # fmt: skip
        room = near + far
        if room >= narrow or room < PASS_BODIES * 2.0 * radii[i] or near <= WALL_GAP:
            continue
        shift = min(near - WALL_GAP, radii[i])
        tx, ty = ex - shift * nx - positions[i, 0], ey - shift * ny - positions[i, 1]
        dist = math.hypot(tx, ty)
        speed = min(top[i], dist / WALL_TIME) if dist > 1e-9 else 0.0
        pref[i, 0], pref[i, 1] = (tx / dist * speed, ty / dist * speed) if speed > 0.0 else (0.0, 0.0)
        aside[i] = True
        count += 1
    return count


@njit(cache=True)
def steer_rows(
    dt: float,
    feet: np.ndarray,
    body_vel: np.ndarray,
    before: np.ndarray,
    next_position: np.ndarray,
    top_speed: np.ndarray,
    agent_radius: np.ndarray,
    destination: np.ndarray,
    path_rows: np.ndarray,
    free: np.ndarray,
    free_speed: np.ndarray,
    free_heading: np.ndarray,
    yaw: np.ndarray,
    priority: np.ndarray,
    others_feet: np.ndarray,
    others_vel: np.ndarray,
    others_radius: np.ndarray,
    alpha: float,
    params: np.ndarray,
    max_neighbours: int,
    wall_a: np.ndarray,
    wall_b: np.ndarray,
    wall_z: np.ndarray,
    wall_params: np.ndarray,
    w_shape: np.ndarray,
    w_start: np.ndarray,
    w_items: np.ndarray,
    positions: np.ndarray,
    vel: np.ndarray,
    pref: np.ndarray,
    radii: np.ndarray,
    top: np.ndarray,
    prio: np.ndarray,
    z: np.ndarray,
    out: np.ndarray,
    out_neighbours: np.ndarray,
    out_walls: np.ndarray,
    out_fallback: np.ndarray,
    moving: np.ndarray,
    on_path: np.ndarray,
    last: np.ndarray,
    changed: np.ndarray,
    facing: np.ndarray,
    steered: np.ndarray,
    goal: np.ndarray,
    steer: np.ndarray,
    move_rows: np.ndarray,
    move_targets: np.ndarray,
    corridors: np.ndarray,
    corridor_len: np.ndarray,
    poly: np.ndarray,
    gate_centre: np.ndarray,
    gate_axis: np.ndarray,
    gate_half: np.ndarray,
    gate_pairs: np.ndarray,
    gate_owner: np.ndarray,
    gate_green: np.ndarray,
    held: np.ndarray,
    row_gate: np.ndarray,
    row_dir: np.ndarray,
    row_inside: np.ndarray,
    has_path: np.ndarray,
    is_stopped: np.ndarray,
    corner: np.ndarray,
    path_len: np.ndarray,
    path_corners: np.ndarray,
    parked: np.ndarray,
    blocked_s: np.ndarray,
    aside: np.ndarray,
    stuck_aside_s: np.ndarray,
    aside_way: np.ndarray,
) -> int:
    """One crowd tick for the n rows (module docstring); returns m: the path rows to move are
    move_rows[:m], to move_targets[:m] (n, 3) [m].

    Args (n rows, k others, N = n + k): dt [s]; feet (n, 3) [m]; body_vel (n, 3) [m/s]; before (n, 3) the
    agents before this tick's advance [m]; next_position (n, 3) after it [m]; top_speed, agent_radius (n,);
    destination (n, 3) [m]; path_rows (m,) the rows that followed a path; free (n,) bool, free_speed (n,)
    [m/s], free_heading (n,) [rad, NaN: yaw], yaw (n,) [rad]; priority (n,); others_feet (k, 3),
    others_vel (k, 2), others_radius (k,); alpha: the facing filter's gain this tick (0..1; < 0: no filter);
    params, max_neighbours and the wall arrays: `avoid_rows`' (params[7], the contact reach, is set here to
    one tick's reach of the fastest, largest pair).
    Buffers written: positions (N, 3), vel, pref (N, 2), radii, top, prio, z (N,), out (N, 2),
    out_neighbours, out_walls (N,), out_fallback (N,); moving, on_path, changed (n,) bool; last (n, 2) the
    answer kept for the next tick; facing (n, 2) and steered (n,) bool, goal (n, 3): the facing filter's
    state; steer (n, 2) the velocity each steered row faces along (NaN: none); free_speed and free_heading
    of changed walking rows; move_rows (n,), move_targets (n, 3). corridors, corridor_len, poly: the
    agents' path corridors; gate_*: the mesh's one-way gates (`navigation.crowd_gates.Gates`) and their
    state (owner, green), run by `gate_rows` before the avoidance; held (n,) bool: the rows a gate holds
    (with its scratch row_gate, row_dir, row_inside); has_path, is_stopped, corner, path_len, path_corners:
    the agents' paths (`navigation.agent_batch.AgentBatch`); parked (n,) bool written: the path rows
    standing at (or within `PARK_RADIUS` of) their path's end, which yield (`Crowd`); aside (n,) bool
    written: the rows stepping aside: parked rows out of a blocked mover's way, and blocked movers past
    each other (`make_way`, which keeps each row's blocked time in blocked_s (n,) [s], and the time it
    stepped aside without moving, stuck_aside_s (n,) [s], and which way it steps, aside_way (n,) int64), and
    rows parked in a narrow place to its wall (`stand_by_walls`)."""
    n = feet.shape[0]
    cell = gather_rows(
        dt, feet, body_vel, before, next_position, top_speed, agent_radius, path_rows, free, free_speed,
        free_heading, yaw, priority, others_feet, others_vel, others_radius, last, positions, vel, pref,
        radii, top, prio, z, moving, on_path, has_path, is_stopped, corner, path_len, path_corners, parked,
    )  # fmt: skip
    if n + others_feet.shape[0] == 0:
        return 0
    params[7] = cell
    gate_rows(
        dt, positions, pref, radii, top, moving, on_path, corridors, corridor_len, poly, gate_centre,
        gate_axis, gate_half, gate_pairs, gate_owner, gate_green, REACH, HOLD, MAX_GREEN, YIELD_PRIORITY,
        GO_PRIORITY, prio, held, row_gate, row_dir, row_inside, destination,
    )  # fmt: skip
    for i in range(n):  # a parked row yields, near a gate too
        if parked[i]:
            prio[i] = priority[i] * PARKED_SHARE
    make_way(
        n, dt, destination, positions, vel, pref, radii, top, moving, on_path, parked, held, blocked_s, aside,
        body_vel, stuck_aside_s, aside_way, row_gate, row_dir, gate_centre,
    )  # fmt: skip
    stand_by_walls(
        n, positions, pref, radii, top, parked, aside, path_len, path_corners, params, wall_a, wall_b, wall_z,
        wall_params, w_shape, w_start, w_items,
    )  # fmt: skip
    avoid_rows(
        positions, z, vel, pref, radii, top, prio, params, max_neighbours, True, wall_a, wall_b, wall_z,
        wall_params, w_shape, w_start, w_items, out, out_neighbours, out_walls, out_fallback,
    )  # fmt: skip
    return scatter_rows(
        dt, before, next_position, destination, free, free_speed, free_heading, alpha, pref, out, moving,
        on_path, held, aside, last, changed, facing, steered, goal, steer, move_rows, move_targets, aside_way,
    )  # fmt: skip
