"""The root-motion coupling of many characters, compiled (numba): the per-tick loops of `LocomotionBatch`.

One row per character; the arrays are the batch's and its `AgentBatch`'s own (`npc_ai.body.coupling`
explains the coupling, `navigation.agent_kernels` the path rules these loops call). Positions are the
characters' feet [m], read from the world's pose cache: row i's body centre is `poses[pose_rows[i]]`, its
feet `half_height` [m] lower. Yaw 0 faces +X [rad]. Velocities are in m/s, times in seconds.

No fastmath: the results are bit-identical from run to run, and equal to numpy's to round-off.

A tick of `LocomotionBatch` is three calls (`begin`, `couple_and_drive` and, after physics, `settle`): each
runs the rules below (and those of the agents and animators) for every row in one compiled loop, with no
Python between them; only rows with a rare event (a re-plan, a pull, a walk off a polygon) return to Python.

These loops call the compiled rules of `navigation.agent_kernels`, `navigation.angles` and
`npc_ai.animation.kernels`, whose machine code numba copies into this module's disk cache without noticing
when those files change (numba issue #1833): `forget_stale_kernels` drops this module's cache when they did,
so it compiles again.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit

from navigation import agent_kernels, angles
from navigation.arguments import COORDINATE_LIMIT
from navigation.kernel_cache import forget_stale_kernels
from npc_ai.animation import kernels as animation_kernels

forget_stale_kernels(  # compiled into these loops
    __file__, ("navigation.agent_kernels", "navigation.angles", "npc_ai.animation.kernels")
)


STEER_AHEAD_S = 0.5  # [s] a row the crowd steers faces where its agent will be this much later


@njit(cache=True)
def feet(poses: np.ndarray, pose_rows: np.ndarray, half_height: float, out: np.ndarray) -> bool:
    """`out` (n, 3): the feet positions [m] of the bodies at `poses[pose_rows]` (their centres). Returns
    whether every coordinate is a number within COORDINATE_LIMIT (what the agents accept; False for NaN)."""
    ok = True
    for i in range(pose_rows.size):
        r = pose_rows[i]
        out[i, 0], out[i, 1], out[i, 2] = poses[r, 0], poses[r, 1], poses[r, 2] - half_height
        for k in range(3):
            if not abs(out[i, k]) <= COORDINATE_LIMIT:
                ok = False
    return ok


@njit(cache=True)
def find_drift(
    rows_mask: np.ndarray,
    pos: np.ndarray,
    next_position: np.ndarray,
    radius: np.ndarray,
    keep: float,
    pulls: np.ndarray,
    far: np.ndarray,
    targets: np.ndarray,
) -> int:
    """The drift limit (pull_agent): the rows i where `rows_mask[i]` whose agent is horizontally farther than
    `radius[i]` [m] from the body at `pos[i]` [m] are to be pulled back toward it, to `keep` of the radius.
    Writes their rows into `far[:m]` and the agents' targets [m] into `targets[:m]`, counts a pull in
    `pulls[i]`; returns m (the pull itself moves the agent on the mesh: `AgentBatch.set_next_position`)."""
    m = 0
    for i in range(rows_mask.size):
        if not rows_mask[i]:
            continue
        dx, dy = next_position[i, 0] - pos[i, 0], next_position[i, 1] - pos[i, 1]
        dist = math.hypot(dx, dy)
        r = radius[i]
        if dist > r:
            s = keep * r / dist
            far[m] = i
            targets[m, 0], targets[m, 1], targets[m, 2] = pos[i, 0] + dx * s, pos[i, 1] + dy * s, pos[i, 2]
            pulls[i] += 1
            m += 1
    return m


@njit(cache=True)
def couple(
    dt: float,
    pos: np.ndarray,
    free: np.ndarray,
    free_speed: np.ndarray,
    free_heading: np.ndarray,
    yaw: np.ndarray,
    smooth_delta: np.ndarray,
    velocity_request: np.ndarray,
    should_move: np.ndarray,
    speed_in: np.ndarray,
    next_position: np.ndarray,
    agent_velocity: np.ndarray,
    top_speed: np.ndarray,
    stopping_distance: np.ndarray,
    path_corners: np.ndarray,
    tail: np.ndarray,
    corner: np.ndarray,
    path_len: np.ndarray,
    has_path: np.ndarray,
    has_destination: np.ndarray,
    steer: np.ndarray,
    tau: float,
    feedforward_s: float,
    max_speed_factor: float,
    should_move_speed: float,
    turn_rate: float,
    turn_in_place: bool,
) -> int:
    """The coupling before the animators advance, every row (after the agents' update and drift limit).

    Path-following rows (`free` False): the agent's offset from the body at `pos` [m], in the body's frame
    (right, forward), low-pass filtered with `min(1, dt / tau)` (`smooth_delta`); the animator's velocity
    request (`velocity_request`): the agent's velocity plus the filtered offset over `feedforward_s` [s]
    (NaN: the reference loop, filtered offset / dt); `should_move` when the request beats
    `should_move_speed` [m/s] and the body is more than the stopping distance from the path's end; the
    facing turns toward the steering target at `turn_rate` [rad/s]; the forward speed asked of the
    animator is capped at `max_speed_factor` times the top speed and, with `turn_in_place`, scaled by the
    cosine of the heading error. A row whose `steer` (n, 2) is a velocity [m/s] (NaN: none; the crowd's
    avoiding velocity, low-pass filtered) faces its agent's filtered offset (`smooth_delta`) plus
    `STEER_AHEAD_S` of that velocity instead of the steering target: a crowd that sends the agent
    sideways turns the body with it (the raw offset flips with an agent the crowd sends one way, then
    the other, tick after tick, and turned the body about with it). Free rows turn toward
    `free_heading` (NaN: keep the facing) and ask for `free_speed`. Writes `speed_in` [m/s], the animators'
    speed inputs; returns how many free rows still have a destination (to reset)."""
    smooth = min(1.0, dt / tau)
    step = turn_rate * dt
    stale = 0
    for i in range(yaw.size):
        y = yaw[i]
        if free[i]:
            h = free_heading[i]
            if not math.isnan(h):
                yaw[i] = angles.turn(y, h, step)
            speed_in[i] = free_speed[i]
            should_move[i] = free_speed[i] > 0.0
            if has_destination[i]:
                stale += 1
            continue
        px, py = pos[i, 0], pos[i, 1]
        dx, dy = next_position[i, 0] - px, next_position[i, 1] - py
        cs, sn = math.cos(y), math.sin(y)
        sd0 = smooth_delta[i, 0] + smooth * ((sn * dx - cs * dy) - smooth_delta[i, 0])
        sd1 = smooth_delta[i, 1] + smooth * ((cs * dx + sn * dy) - smooth_delta[i, 1])
        smooth_delta[i, 0], smooth_delta[i, 1] = sd0, sd1
        if math.isnan(feedforward_s):  # the reference: the filtered offset per tick is the velocity
            v0, v1 = (sd0 / dt, sd1 / dt) if dt > 1e-5 else (0.0, 0.0)
        else:
            ax, ay = agent_velocity[i, 0], agent_velocity[i, 1]
            v0 = (sn * ax - cs * ay) + sd0 / feedforward_s
            v1 = (cs * ax + sn * ay) + sd1 / feedforward_s
        velocity_request[i, 0], velocity_request[i, 1] = v0, v1
        forward = min(max(0.0, v1), max_speed_factor * top_speed[i])
        k, n = corner[i], path_len[i]
        rem = 0.0
        if has_path[i]:
            rem = agent_kernels.remaining_distance(
                path_corners[i], tail[i], n, k, next_position[i, 0], next_position[i, 1]
            )
        behind = rem + math.hypot(dx, dy)
        moving = math.hypot(v0, v1) > should_move_speed and behind > stopping_distance[i]
        should_move[i] = moving
        if has_path[i] and k < n:  # the steering target
            tx, ty = path_corners[i, k, 0] - px, path_corners[i, k, 1] - py
        else:
            tx, ty = next_position[i, 0] - px, next_position[i, 1] - py
        if not math.isnan(steer[i, 0]):  # the crowd's velocity: face where the agent is going
            ox, oy = sn * sd0 + cs * sd1, sn * sd1 - cs * sd0  # the filtered offset, in the world
            tx, ty = ox + steer[i, 0] * STEER_AHEAD_S, oy + steer[i, 1] * STEER_AHEAD_S
        if moving and math.hypot(tx, ty) > 0.05:
            heading = math.atan2(ty, tx)
            y = angles.turn(y, heading, step)
            yaw[i] = y
            if turn_in_place:  # a sharp turn is taken mostly on the spot
                forward = forward * max(0.0, math.cos(angles.wrap(heading - y)))
        speed_in[i] = forward if moving else 0.0
    return stale


@njit(cache=True)
def drive(
    dt: float,
    delta: np.ndarray,
    yaw: np.ndarray,
    pivot: np.ndarray,
    body_velocity: np.ndarray,
    pose_rows: np.ndarray,
    command: np.ndarray,
    out: np.ndarray,
) -> bool:
    """The bodies' velocities for this tick: each row's root motion `delta` (n, 2) [m] (forward, left in
    the body's frame) turned into the world by `yaw`, plus the `pivot` (n, 2) [m] step, over `dt`. Writes
    `command` (n, 2) [m/s] and `out` (n, 3) [m/s], whose vertical part stays the body's (from
    `body_velocity[pose_rows]`); returns False when a velocity is not finite."""
    ok = True
    for i in range(yaw.size):
        cs, sn = math.cos(yaw[i]), math.sin(yaw[i])
        vx = (cs * delta[i, 0] - sn * delta[i, 1] + pivot[i, 0]) / dt
        vy = (sn * delta[i, 0] + cs * delta[i, 1] + pivot[i, 1]) / dt
        if not (math.isfinite(vx) and math.isfinite(vy)):
            ok = False
        command[i, 0], command[i, 1] = vx, vy
        out[i, 0], out[i, 1], out[i, 2] = vx, vy, body_velocity[pose_rows[i], 2]
    return ok


# -- the tick, fused ------------------------------------------------------------------------------------
@njit(cache=True)
def begin(
    poses: np.ndarray,
    pose_rows: np.ndarray,
    half_height: float,
    free: np.ndarray,
    pos: np.ndarray,
    following: np.ndarray,
    rows: np.ndarray,
    dt: float,
    next_position: np.ndarray,
    agent_velocity: np.ndarray,
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
    speeds: np.ndarray,
    status: np.ndarray,
    pull: bool,
    radius: np.ndarray,
    keep: float,
    pulls: np.ndarray,
    far: np.ndarray,
    targets: np.ndarray,
) -> tuple[int, int, int]:
    """The first half of `LocomotionBatch.before_physics`, up to the coupling: the feet positions into `pos`
    (`feet`), the path-following rows (`free` False) into the mask `following` and into `rows[:m]`, their
    agents' tick (`agent_kernels.advance_rows` for `rows[:m]`, over the `AgentBatch` arrays, writing
    `speeds` and `status`) and, with `pull` and when no agent has a status, the drift limit (`find_drift`
    into `far` and `targets`). Returns (m, how many agents have a status, how many to pull); with agent
    statuses the drift limit is not run (0): their rare events come first, in Python."""
    feet(poses, pose_rows, half_height, pos)
    m = 0
    for i in range(free.size):
        following[i] = not free[i]
        if following[i]:
            rows[m] = i
            m += 1
    if m == 0:
        return 0, 0, 0
    count = agent_kernels.advance_rows(
        rows[:m],
        dt,
        next_position,
        agent_velocity,
        corner,
        poly,
        poly_id,
        path_corners,
        tail,
        path_len,
        has_path,
        is_stopped,
        top_speed,
        acceleration,
        stopping_distance,
        auto_braking,
        corridor_tolerance,
        corridors,
        corridor_len,
        edges,
        planes,
        speeds,
        status,
    )
    if count or not pull:
        return m, count, 0
    return m, 0, find_drift(following, pos, next_position, radius, keep, pulls, far, targets)


@njit(cache=True)
def animate_and_drive(
    dt: float,
    filter_speed: float,
    filter_gait: float,
    animator_rows: np.ndarray,
    animator_state: tuple,
    ups: np.ndarray,
    downs: np.ndarray,
    fades: np.ndarray,
    blend: tuple,
    delta: np.ndarray,
    dyaw: np.ndarray,
    old: np.ndarray,
    new: np.ndarray,
    yaw: np.ndarray,
    pivot: np.ndarray,
    body_velocity: np.ndarray,
    pose_rows: np.ndarray,
    command: np.ndarray,
    out: np.ndarray,
) -> bool:
    """Every animator's tick (`animation_kernels.locomotion_tick` of `AnimatorBatch`, its arguments from
    `dt` to `new`: root motion into `delta`), then the bodies' velocities from it (`drive`, its arguments
    from `yaw` on). Returns False when a velocity is not finite."""
    animation_kernels.locomotion_tick(
        animator_rows, dt, filter_speed, filter_gait, animator_state, ups, downs, fades, blend, delta, dyaw,
        old, new,
    )  # fmt: skip
    return drive(dt, delta, yaw, pivot, body_velocity, pose_rows, command, out)


@njit(cache=True)
def couple_and_drive(
    dt: float,
    pos: np.ndarray,
    free: np.ndarray,
    free_speed: np.ndarray,
    free_heading: np.ndarray,
    yaw: np.ndarray,
    smooth_delta: np.ndarray,
    velocity_request: np.ndarray,
    should_move: np.ndarray,
    next_position: np.ndarray,
    agent_velocity: np.ndarray,
    top_speed: np.ndarray,
    stopping_distance: np.ndarray,
    path_corners: np.ndarray,
    tail: np.ndarray,
    corner: np.ndarray,
    path_len: np.ndarray,
    has_path: np.ndarray,
    has_destination: np.ndarray,
    steer: np.ndarray,
    tau: float,
    feedforward_s: float,
    max_speed_factor: float,
    should_move_speed: float,
    turn_rate: float,
    turn_in_place: bool,
    filter_speed: float,
    filter_gait: float,
    animator_rows: np.ndarray,
    animator_state: tuple,
    ups: np.ndarray,
    downs: np.ndarray,
    fades: np.ndarray,
    blend: tuple,
    delta: np.ndarray,
    dyaw: np.ndarray,
    old: np.ndarray,
    new: np.ndarray,
    pivot: np.ndarray,
    body_velocity: np.ndarray,
    pose_rows: np.ndarray,
    command: np.ndarray,
    out: np.ndarray,
) -> int:
    """The second half of `LocomotionBatch.before_physics` without pivot turns: `couple` (its arguments from
    `dt` to `turn_in_place`, the animators' speed inputs written into `animator_state[0]`), then
    `animate_and_drive` (its arguments from `filter_speed` on). Returns `couple`'s count of free rows
    with a destination, or -1 when a velocity is not finite."""
    stale = couple(
        dt, pos, free, free_speed, free_heading, yaw, smooth_delta, velocity_request, should_move,
        animator_state[0], next_position, agent_velocity, top_speed, stopping_distance, path_corners, tail,
        corner, path_len, has_path, has_destination, steer, tau, feedforward_s, max_speed_factor,
        should_move_speed, turn_rate, turn_in_place,
    )  # fmt: skip
    ok = animate_and_drive(
        dt, filter_speed, filter_gait, animator_rows, animator_state, ups, downs, fades, blend, delta, dyaw,
        old, new, yaw, pivot, body_velocity, pose_rows, command, out,
    )  # fmt: skip
    return stale if ok else -1


@njit(cache=True)
def settle(
    poses: np.ndarray,
    pose_rows: np.ndarray,
    half_height: float,
    pos: np.ndarray,
    rows: np.ndarray,
    next_position: np.ndarray,
    has_path: np.ndarray,
    poly_id: np.ndarray,
    edges: np.ndarray,
    planes: np.ndarray,
    status: np.ndarray,
    pull: bool,
    radius: np.ndarray,
    keep: float,
    pulls: np.ndarray,
    far: np.ndarray,
    targets: np.ndarray,
) -> tuple[bool, int, int]:
    """`LocomotionBatch.after_physics` without its rare events: the feet positions into `pos` (`feet`),
    agents without a path following them (`agent_kernels.follow_rows` for every row, `rows` being 0..n-1)
    and, with `pull`, the drift limit of the agents with a path (`find_drift`). The two touch disjoint rows
    (with and without a path), so the rare events of the first (in Python) may come after the second.
    Returns (whether the feet are valid agent positions: if not, nothing else ran; how many agents have a
    follow status; how many to pull)."""
    if not feet(poses, pose_rows, half_height, pos):
        return False, 0, 0
    followed = agent_kernels.follow_rows(rows, pos, next_position, has_path, poly_id, edges, planes, status)
    m = find_drift(has_path, pos, next_position, radius, keep, pulls, far, targets) if pull else 0
    return True, followed, m


# -- compile once ---------------------------------------------------------------------------------------
@functools.cache  # once per process: a later call costs nothing (an env reset builds a new world)
def warm_up() -> None:
    """Run every kernel of this module once on tiny inputs with the types `LocomotionBatch` passes (and the
    `warm_up` of `navigation.agent_kernels` and `npc_ai.animation.kernels`), so no tick pays for compiling:
    the machine code is compiled (seconds, once per environment) or loaded from the on-disk cache (well
    under a second). Idempotent."""
    agent_kernels.warm_up()
    animation_kernels.warm_up()
    one = np.zeros(1, dtype=np.int64)
    f, f2, f3, yes = np.zeros(1), np.zeros((1, 2)), np.zeros((1, 3)), np.ones(1, dtype=np.bool_)
    feet(f3, one, 0.9, f3.copy())
    find_drift(yes, f3, f3 + 1.0, f + 0.1, 0.9, one.copy(), one.copy(), f3.copy())
    couple(0.1, f3, ~yes, f.copy(), f.copy(), f.copy(), f2.copy(), f2.copy(), ~yes, f.copy(), f3, f3, f + 1,
           f, np.zeros((1, 2, 3)), np.zeros((1, 2)), one + 1, one + 2, yes, ~yes, f2 + np.nan, 0.15, 0.3, 1.5,
           0.05, 6.0, True)  # fmt: skip
    drive(0.1, f2, f.copy(), f2, f3, one, f2.copy(), f3.copy())
    pts, tail, edges, planes = np.zeros((1, 2, 3)), np.zeros((1, 2)), np.zeros((6, 1, 3)), np.zeros((1, 3))
    corridors = np.zeros((1, 2), dtype=np.int64)
    begin(f3, one, 0.9, ~yes, f3.copy(), yes.copy(), one.copy(), 0.1, f3.copy(), f3.copy(), one + 1,
          one.copy(), one.copy(), pts, tail, one + 2, yes.copy(), ~yes, f + 1, f + 1, f.copy(), yes.copy(),
          f + 1, corridors, one + 2, edges, planes, f.copy(), one.copy(), True, f + 0.1, 0.9, one.copy(),
          one.copy(), f3.copy())  # fmt: skip
    # locomotion_tick's inputs: rows, dt, filters, state, ups, downs, fades, blend, delta, dyaw, old, new
    rows, _, _, _, state, ups, downs, fades, blend, delta, dyaw, old, new = animation_kernels.tick_inputs()
    animator = (rows, state, ups, downs, fades, blend, delta, dyaw, old, new)
    animate_and_drive(0.1, 0.5, 0.5, *animator, f.copy(), f2, f3, one, f2.copy(), f3.copy())
    couple_and_drive(0.1, f3, ~yes, f.copy(), f.copy(), f.copy(), f2.copy(), f2.copy(), ~yes, f3, f3, f + 1,
                     f, pts, tail, one + 1, one + 2, yes, ~yes, f2 + np.nan, 0.15, 0.3, 1.5, 0.05, 6.0, True,
                     0.5, 0.5,
                     *animator, f2, f3, one, f2.copy(), f3.copy())  # fmt: skip
    settle(f3, one, 0.9, f3.copy(), one.copy(), f3.copy(), ~yes, one.copy(), edges, planes, one.copy(), True,
           f + 0.1, 0.9, one.copy(), one.copy(), f3.copy())  # fmt: skip
