"""The per-tick rules of locomotion animation, compiled: where a time falls in a clip, gait selection with
hysteresis, speed blend weights, the blend's cycle length and play rate, a clip's root motion between two
times, and one tick of a character's locomotion state.

Each rule is written once, as a scalar function compiled by numba (``cache=True``: the machine code is
kept on disk next to this file, so only the first run in a fresh environment pays the compile, about
10 s). The numpy-facing functions of the package (`frame_coords`, `select_gait_levels`,
`BlendSpace1D.weights_of`, `RootTracks.deltas`, `AnimatorBatch.tick`, ...) are thin shells that loop
these rules over their arrays, so one character and a thousand run the same code. Nothing here uses
fast-math: results are IEEE and deterministic.

Units: seconds, metres, radians, m/s. Arrays are float64 unless named otherwise.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit

# -- sampling a clip ---------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def frame_coord(t: float, duration: float, fps: float, n_frames: int, loop: bool) -> tuple[int, float, float]:
    """Where time ``t`` [s] falls in a clip: frame index i, fraction a in [0, 1] toward frame i + 1 and
    cycle count k (loops wrap and count cycles; one-shot clips clamp, k = 0)."""
    if loop:
        k = np.floor(t / duration)
        u = t - k * duration
    else:
        k = 0.0
        u = min(max(t, 0.0), duration)
    x = u * fps
    i = int(min(max(np.floor(x), 0.0), n_frames - 2))
    a = min(max(x - i, 0.0), 1.0)
    return i, a, k


@njit(cache=True)
def frame_coords_flat(
    t: np.ndarray, duration: np.ndarray, fps: np.ndarray, n_frames: np.ndarray, loop: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`frame_coord` over 1-D arrays of equal length."""
    m = t.shape[0]
    i = np.empty(m, dtype=np.int64)
    a = np.empty(m)
    k = np.empty(m)
    for j in range(m):
        i[j], a[j], k[j] = frame_coord(t[j], duration[j], fps[j], n_frames[j], loop[j])
    return i, a, k


@njit(cache=True, inline="always")
def root_delta(
    positions: np.ndarray,
    yaw: np.ndarray,
    start: np.ndarray,
    frames: np.ndarray,
    duration: np.ndarray,
    fps: np.ndarray,
    loop: np.ndarray,
    cycle: np.ndarray,
    yaw_cycle: np.ndarray,
    c: int,
    t0: float,
    t1: float,
) -> tuple[float, float, float, float]:
    """Root motion of stacked clip ``c`` from ``t0`` to ``t1`` [s]: (x, y, z) [m] in the character frame
    at t0 and the change of yaw [rad]. The tracks are those of `RootTracks` (all clips' frames stacked in
    ``positions`` (F, 3) and ``yaw`` (F,), clip c starting at row ``start[c]``)."""
    i0, a0, k0 = frame_coord(t0, duration[c], fps[c], frames[c], loop[c])
    i1, a1, k1 = frame_coord(t1, duration[c], fps[c], frames[c], loop[c])
    r0 = start[c] + i0
    r1 = start[c] + i1
    p0x = (1 - a0) * positions[r0, 0] + a0 * positions[r0 + 1, 0] + k0 * cycle[c, 0]
    p0y = (1 - a0) * positions[r0, 1] + a0 * positions[r0 + 1, 1] + k0 * cycle[c, 1]
    p0z = (1 - a0) * positions[r0, 2] + a0 * positions[r0 + 1, 2] + k0 * cycle[c, 2]
    p1x = (1 - a1) * positions[r1, 0] + a1 * positions[r1 + 1, 0] + k1 * cycle[c, 0]
    p1y = (1 - a1) * positions[r1, 1] + a1 * positions[r1 + 1, 1] + k1 * cycle[c, 1]
    p1z = (1 - a1) * positions[r1, 2] + a1 * positions[r1 + 1, 2] + k1 * cycle[c, 2]
    dx, dy = p1x - p0x, p1y - p0y
    y0 = (1 - a0) * yaw[r0] + a0 * yaw[r0 + 1] + k0 * yaw_cycle[c]
    y1 = (1 - a1) * yaw[r1] + a1 * yaw[r1 + 1] + k1 * yaw_cycle[c]
    cs, sn = math.cos(-y0), math.sin(-y0)
    return cs * dx - sn * dy, sn * dx + cs * dy, p1z - p0z, y1 - y0


@njit(cache=True)
def root_deltas_flat(
    positions: np.ndarray,
    yaw: np.ndarray,
    start: np.ndarray,
    frames: np.ndarray,
    duration: np.ndarray,
    fps: np.ndarray,
    loop: np.ndarray,
    cycle: np.ndarray,
    yaw_cycle: np.ndarray,
    t0: np.ndarray,
    t1: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """`root_delta` of every clip c for times (C, N) [s]: (C, N, 3) [m] and (C, N) [rad]."""
    n_clips, m = t0.shape
    out = np.empty((n_clips, m, 3))
    dyaw = np.empty((n_clips, m))
    for c in range(n_clips):
        for j in range(m):
            x, y, z, w = root_delta(
                positions, yaw, start, frames, duration, fps, loop, cycle, yaw_cycle, c, t0[c, j], t1[c, j]
            )
            out[c, j, 0], out[c, j, 1], out[c, j, 2], dyaw[c, j] = x, y, z, w
    return out, dyaw


# -- gaits and blends ---------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def gait_level(speed: float, level: int, ups: np.ndarray, downs: np.ndarray) -> int:
    """The gait level for ``speed`` [m/s] given the current ``level``: up a level above ``ups[level]``,
    down below ``downs[level]`` (hysteresis; levels 0 idle .. 3 sprint, ``ups[3]`` = inf, ``downs[0]`` =
    -inf)."""
    for _ in range(3):
        if speed > ups[level]:
            level += 1
    for _ in range(3):
        if speed < downs[level]:
            level -= 1
    return level


@njit(cache=True)
def gait_levels_flat(
    speeds: np.ndarray, levels: np.ndarray, ups: np.ndarray, downs: np.ndarray
) -> np.ndarray:
    """`gait_level` over 1-D arrays."""
    out = np.empty(speeds.shape[0], dtype=np.int64)
    for j in range(speeds.shape[0]):
        out[j] = gait_level(speeds[j], levels[j], ups, downs)
    return out


@njit(cache=True, inline="always")
def blend_weights(speed: float, max_speed: float, positions: np.ndarray, out: np.ndarray) -> None:
    """Write the blend weights for ``speed`` [m/s] into ``out`` (n,): linear between the two samples around
    x = clamp(speed / max_speed, 0, 1) on the samples' normalised ``positions`` (increasing)."""
    n = positions.shape[0]
    out[:] = 0.0
    if max_speed <= 0 or n == 1:
        out[0] = 1.0
        return
    x = min(max(speed / max_speed, 0.0), 1.0)
    k = -1
    for j in range(n):  # the last sample at or below x
        if positions[j] <= x:
            k = j
    if k >= n - 1:
        out[n - 1] = 1.0
        return
    k = min(max(k, 0), n - 2)
    a = (x - positions[k]) / (positions[k + 1] - positions[k])
    out[k] = 1.0 - a
    out[k + 1] = a


@njit(cache=True)
def blend_weights_flat(speeds: np.ndarray, max_speed: float, positions: np.ndarray) -> np.ndarray:
    """`blend_weights` for N speeds: (N, n)."""
    out = np.empty((speeds.shape[0], positions.shape[0]))
    for j in range(speeds.shape[0]):
        blend_weights(speeds[j], max_speed, positions, out[j])
    return out


@njit(cache=True, inline="always")
def blend_rate(
    weights: np.ndarray,
    cycle: np.ndarray,
    durations: np.ndarray,
    distances: np.ndarray,
    speed: float,
    max_rate: float,
) -> tuple[float, float, float]:
    """For one blend: the blended cycle length [s] of its cycling samples (NaN when none has weight), the
    blend's root speed at play rate 1 [m/s] (0 without a cycling sample) and the play rate for ``speed``
    [m/s] (speed / root speed, capped at ``max_rate``; 1 when either is ~0)."""
    total = 0.0
    timed = 0.0
    dist = 0.0
    for j in range(weights.shape[0]):
        if cycle[j]:
            total += weights[j]
            timed += weights[j] * durations[j]
            dist += weights[j] * distances[j]
    if total > 1e-9:
        length = timed / total
        blended = dist / length
    else:
        length = np.nan
        blended = 0.0
    rate = min(speed / blended, max_rate) if (blended >= 1e-6 and speed > 0) else 1.0
    return length, blended, rate


@njit(cache=True)
def blend_rates_flat(
    weights: np.ndarray,
    cycle: np.ndarray,
    durations: np.ndarray,
    distances: np.ndarray,
    speeds: np.ndarray,
    max_rate: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`blend_rate` for (N, n) weights and N speeds: three (N,) arrays."""
    m = weights.shape[0]
    length, blended, rate = np.empty(m), np.empty(m), np.empty(m)
    for j in range(m):
        length[j], blended[j], rate[j] = blend_rate(
            weights[j], cycle, durations, distances, speeds[j], max_rate
        )
    return length, blended, rate


@njit(cache=True, inline="always")
def blend_advance(
    phase: float,
    dt: float,
    speed: float,
    weights: np.ndarray,
    blend: tuple,
    out: np.ndarray,
) -> tuple[float, float, float]:
    """Advance one blend by ``dt`` [s] from ``phase`` at ``speed`` [m/s] with ``weights``: writes the root
    displacement (3,) [m, character frame] into ``out`` and returns (delta yaw [rad], new phase in [0, 1),
    play rate). ``blend`` is `BlendSpace1D.kernel_data`: root motion is the weighted sum of each cycling
    sample's own root displacement over the phase step."""
    (_, _, cycle, durations, distances, max_rate, cycling, offsets, lengths, tracks) = blend
    length, _, rate = blend_rate(weights, cycle, durations, distances, speed, max_rate)
    dphase = rate * dt / length if not math.isnan(length) else 0.0
    out[0] = 0.0
    out[1] = 0.0
    out[2] = 0.0
    dyaw = 0.0
    positions, yaw, start, frames, duration, fps, loop, cyc, yaw_cycle = tracks
    for c in range(cycling.shape[0]):
        w = weights[cycling[c]]
        if w <= 1e-9:  # samples without weight add nothing
            continue
        t0 = (phase + offsets[c]) * lengths[c]
        t1 = (phase + dphase + offsets[c]) * lengths[c]
        x, y, z, turn = root_delta(
            positions, yaw, start, frames, duration, fps, loop, cyc, yaw_cycle, c, t0, t1
        )
        out[0] += w * x
        out[1] += w * y
        out[2] += w * z
        dyaw += w * turn
    return dyaw, (phase + dphase) % 1.0, rate


@njit(cache=True)
def blend_advance_flat(
    phase: np.ndarray, dt: float, speeds: np.ndarray, weights: np.ndarray, blend: tuple
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`blend_advance` for N blends: deltas (N, 3), delta yaws, new phases and play rates (N,)."""
    m = phase.shape[0]
    delta = np.empty((m, 3))
    dyaw, new_phase, rates = np.empty(m), np.empty(m), np.empty(m)
    for j in range(m):
        dyaw[j], new_phase[j], rates[j] = blend_advance(phase[j], dt, speeds[j], weights[j], blend, delta[j])
    return delta, dyaw, new_phase, rates


# -- one tick of locomotion ---------------------------------------------------------------------------


@njit(cache=True)
def locomotion_tick(
    rows: np.ndarray,
    dt: float,
    filter_speed: float,
    filter_gait: float,
    state: tuple,
    ups: np.ndarray,
    downs: np.ndarray,
    fades: np.ndarray,
    blend: tuple,
    delta: np.ndarray,
    dyaw: np.ndarray,
    old: np.ndarray,
    new: np.ndarray,
) -> int:
    """One tick of the locomotion state of ``rows`` (`AnimatorBatch`'s rules): filter the speed inputs
    (first-order low-pass with factors ``filter_speed`` and ``filter_gait`` in [0, 1]; negative = no
    filtering), choose the gait with hysteresis, start a gait cross-fade on a change (``fades[old, new]``
    [s]), blend the weights toward those of the smoothed speed, advance the phase and write the root
    motion of row ``rows[j]`` into ``delta[j]`` (3,) [m, character frame] and ``dyaw[j]`` [rad]; the gait
    levels before and after into ``old[j]`` and ``new[j]``. ``state`` is `AnimatorBatch.kernel_state`.
    Returns how many rows changed gait."""
    (
        speed,
        smoothed,
        gait_speed,
        gait,
        weights,
        fade_from,
        fading,
        fade_time,
        fade_elapsed,
        free_time,
        phase,
        play_rate,
    ) = state
    max_speed, positions = blend[0], blend[1]
    target = np.empty(weights.shape[1])
    changes = 0
    for j in range(rows.shape[0]):
        r = rows[j]
        if filter_speed >= 0:
            smoothed[r] = smoothed[r] + filter_speed * (speed[r] - smoothed[r])
            gait_speed[r] = gait_speed[r] + filter_gait * (smoothed[r] - gait_speed[r])
        before = gait[r]
        after = gait_level(gait_speed[r], before, ups, downs)
        old[j], new[j] = before, after
        if after != before:
            changes += 1
            fade_from[r, :] = weights[r, :]
            fade_time[r] = fades[before, after]
            fade_elapsed[r] = 0.0
            fading[r] = True
        blend_weights(smoothed[r], max_speed, positions, target)
        if fading[r]:
            fade_elapsed[r] += dt
            a = 1.0 if fade_time[r] <= 0 else min(1.0, fade_elapsed[r] / fade_time[r])
            for k in range(target.shape[0]):
                target[k] = (1.0 - a) * fade_from[r, k] + a * target[k]
            fading[r] = a < 1.0
        dyaw[j], phase[r], play_rate[r] = blend_advance(phase[r], dt, smoothed[r], target, blend, delta[j])
        gait[r] = after
        weights[r, :] = target
        free_time[r] += dt
    return changes


# -- compile once ---------------------------------------------------------------------------------------


def tick_inputs() -> tuple:
    """Tiny inputs of `locomotion_tick` for one row, with the types `AnimatorBatch` passes (for warming up
    this kernel and the ones that call it): (rows, dt, filter_speed, filter_gait, state, ups, downs, fades,
    blend, delta, dyaw, old, new)."""
    f = np.zeros(1)
    n = np.zeros(1, dtype=np.int64)
    yes = np.ones(1, dtype=np.bool_)
    f2 = np.zeros((1, 2))
    tracks = (np.zeros((2, 3)), np.zeros(2), n, np.full(1, 2, dtype=np.int64), np.ones(1), np.ones(1), yes,
              np.zeros((1, 3)), np.zeros(1))  # fmt: skip
    blend = (1.0, np.array([0.0, 1.0]), np.array([False, True]), np.ones(2), np.ones(2), 3.0,
             np.ones(1, dtype=np.int64), np.zeros(1), np.ones(1), tracks)  # fmt: skip
    state = (f.copy(), f.copy(), f.copy(), n.copy(), f2.copy(), f2.copy(), ~yes, f.copy(), f.copy(), f.copy(),
             f.copy(), f.copy())  # fmt: skip
    ups, downs = np.array([0.1, 3.3, 5.5, np.inf]), np.array([-np.inf, 0.05, 3.0, 5.2])
    return (n, 0.1, 0.5, 0.5, state, ups, downs, np.zeros((4, 4)), blend, np.zeros((1, 3)), f.copy(),
            n.copy(), n.copy())  # fmt: skip


@functools.cache  # once per process: a later call costs nothing (an env reset builds a new world)
def warm_up() -> None:
    """Run every kernel of this module once on tiny inputs with the types the package passes, so the first
    tick pays nothing: the machine code is compiled (about 10 s in a fresh environment) or loaded from the
    on-disk cache (well under a second). Idempotent."""
    f = np.zeros(1)
    n = np.zeros(1, dtype=np.int64)
    yes = np.ones(1, dtype=np.bool_)
    f2 = np.zeros((1, 2))
    inputs = tick_inputs()
    locomotion_tick(*inputs)
    ups, downs, blend = inputs[5], inputs[6], inputs[8]
    blend_advance_flat(f, 0.1, f, f2, blend)
    blend_weights_flat(f, 1.0, blend[1])
    blend_rates_flat(f2, blend[2], blend[3], blend[4], f, 3.0)
    gait_levels_flat(f, n, ups, downs)
    frame_coords_flat(f, np.ones(1), np.ones(1), n + 2, yes)
    root_deltas_flat(*(*blend[9], np.zeros((1, 1)), np.zeros((1, 1))))  # the tracks of `blend`, times
    frame_coord(0.0, 1.0, 1.0, 2, True)
