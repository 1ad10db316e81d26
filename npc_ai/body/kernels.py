"""The root-motion coupling of many characters, compiled (numba): the per-tick loops of `LocomotionBatch`.

One row per character; the arrays are the batch's and its `AgentBatch`'s own (`npc_ai.body.coupling`
explains the coupling, `navigation.agent_kernels` the path rules these loops call). Positions are the
characters' feet [m], read from the world's pose cache: row i's body centre is `poses[pose_rows[i]]`, its
feet `half_height` [m] lower. Yaw 0 faces +X [rad]. Velocities are in m/s, times in seconds.

No fastmath: the results are bit-identical from run to run, and equal to numpy's to round-off.

These loops call the compiled rules of `navigation.agent_kernels` and `navigation.angles`, whose machine code
numba copies into this module's disk cache without noticing when those files change (numba issue #1833):
`forget_stale_kernels` drops this module's cache when they did, so it compiles again.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from navigation import agent_kernels, angles
from navigation.kernel_cache import forget_stale_kernels

forget_stale_kernels(__file__, ("navigation.agent_kernels", "navigation.angles"))  # compiled into these loops


@njit(cache=True)
def feet(poses: np.ndarray, pose_rows: np.ndarray, half_height: float, out: np.ndarray) -> None:
    """`out` (n, 3): the feet positions [m] of the bodies at `poses[pose_rows]` (their centres)."""
    for i in range(pose_rows.size):
        r = pose_rows[i]
        out[i, 0], out[i, 1], out[i, 2] = poses[r, 0], poses[r, 1], poses[r, 2] - half_height


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
    cosine of the heading error. Free rows turn toward `free_heading` (NaN: keep the facing) and ask for
    `free_speed`. Writes `speed_in` [m/s], the animators' speed inputs; returns how many free rows still
    have a destination (to reset)."""
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


# -- compile once ---------------------------------------------------------------------------------------
def warm_up() -> None:
    """Run every kernel of this module once on tiny inputs with the types `LocomotionBatch` passes (and
    `navigation.agent_kernels.warm_up`), so no tick pays for compiling: the machine code is compiled
    (seconds, once per environment) or loaded from the on-disk cache (well under a second). Idempotent."""
    agent_kernels.warm_up()
    one = np.zeros(1, dtype=np.int64)
    f, f2, f3, yes = np.zeros(1), np.zeros((1, 2)), np.zeros((1, 3)), np.ones(1, dtype=np.bool_)
    feet(f3, one, 0.9, f3.copy())
    find_drift(yes, f3, f3 + 1.0, f + 0.1, 0.9, one.copy(), one.copy(), f3.copy())
    couple(0.1, f3, ~yes, f.copy(), f.copy(), f.copy(), f2.copy(), f2.copy(), ~yes, f.copy(), f3, f3, f + 1,
           f, np.zeros((1, 2, 3)), np.zeros((1, 2)), one + 1, one + 2, yes, ~yes, 0.15, 0.3, 1.5, 0.05, 6.0,
           True)  # fmt: skip
    drive(0.1, f2, f.copy(), f2, f3, one, f2.copy(), f3.copy())
