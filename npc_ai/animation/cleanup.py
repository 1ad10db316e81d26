"""Clip cleanup: foot locking with analytic two-bone IK (the standard footskate cleanup).

``lock_feet(clip)`` works on any clip (DeepMimic, BVH) under its own root motion, at the clip's frames.
``clean_clip`` first resamples the clip to the playback rate (``CleanupSettings.fps``, 60 Hz): locked at
a 30 Hz capture's frames, the slerped poses between them bulge and the run's planted ankle slid 15 cm/s
at 60 Hz playback (issue 11).

1. Stance detection, per foot, at the leg chain's ankle (the foot joint, or the toe joint's parent): a
   frame is planted when the ankle is within ``height_threshold_m`` of its lowest height in the clip AND
   its clip-space (world, own root motion) horizontal speed to the next frame is under
   ``speed_threshold_mps``; planted runs shorter than ``min_stance_s`` are dropped. Loops are unrolled
   over three cycles so a stance that crosses the seam is one interval.
2. Lock: each stance's plant point is the mean horizontal ankle position over the stance (Kovar et al.
   2002 use the same mean). The ankle's target is that point (height kept as animated, so heel rise and
   roll-over stay) inside the stance, blending from / back to the animated path over ``blend_s`` before
   and after it with a smoothstep weight (zero slope at both ends). Outside stance +- ``blend_s`` nothing
   changes. The slow ends of those blends (low, and within ``speed_threshold_mps`` * frame time of the
   plant point) are locked as well when the leg reaches the plant point (within ``reach_slack_m``), so the
   foot lands and lifts in one step at least that fast and contact detection on the cleaned clip (same
   thresholds) never calls it down while it still creeps.
3. Analytic two-bone IK on hip-knee-ankle (law of cosines; the knee bends in the plane of the current
   leg, so a revolute knee stays revolute), then the ankle's global rotation is restored so the foot keeps
   its animated orientation. Only the hip, knee and ankle local rotations change: bone lengths, the root
   track (trajectory, root offset, root rotation) and every other joint are untouched.

This repairs plant-time data glitches such as the DeepMimic walk's mirror seam (the swing ankle arrives
9 cm to the side of where the mirrored half-cycle plants it and snaps there in one frame) and any slow
stance drift. It does not touch the swing, so a swing foot that passes low and fast stays as captured.
Units: metres, seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import quat
from .clip import Clip
from .errors import AnimationSettingsError
from .feet import leg_chain
from .skeleton import forward_kinematics


@dataclass(frozen=True)
class CleanupSettings:
    """Foot-locking settings.

    Attributes:
        height_threshold_m: Ankle height above its lowest height under which it may be planted [m, > 0].
        speed_threshold_mps: Clip-space horizontal ankle speed under which it may be planted [m/s, > 0].
        min_stance_s: Shorter planted runs are ignored [s, >= 0].
        blend_s: Blend-in time before and blend-out time after each stance [s, >= 0].
        reach_slack_m: How far beyond the leg's length the plant point may be for a slow end of a blend
            (touch-down, lift-off) to be locked too [m, >= 0]; the IK then holds the leg straight, at
            most this short of the plant point, and never stretches it.
        fps: Rate the clip is resampled to before locking (``clean_clip``) [1/s, > 0]: the playback
            rate, so the feet are locked at every frame the game shows instead of at the capture's
            frames with slerped poses bulging between them; None keeps the clip's own rate.
    """

    height_threshold_m: float = 0.05
    speed_threshold_mps: float = 0.5
    min_stance_s: float = 0.1
    blend_s: float = 0.2
    reach_slack_m: float = 0.008
    fps: float | None = 60.0

    def __post_init__(self) -> None:
        for name in ("height_threshold_m", "speed_threshold_mps"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise AnimationSettingsError(f"{name} must be a positive number, got {value!r}")
        for name, unit in (("min_stance_s", "seconds"), ("blend_s", "seconds"), ("reach_slack_m", "metres")):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise AnimationSettingsError(f"{name} must be a non-negative number of {unit}, got {value!r}")
        fps = self.fps
        if fps is not None and not (isinstance(fps, (int, float)) and math.isfinite(fps) and fps > 0):
            raise AnimationSettingsError(
                f"fps must be a positive number of frames per second (None keeps the clip's), got {fps!r}"
            )


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    padded = np.concatenate([[False], mask, [False]])
    edges = np.flatnonzero(np.diff(padded.astype(int)))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))


def _smoothstep(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)


def _snap_slow_ends(
    seq: np.ndarray,
    hips: np.ndarray,
    reach: float,
    weights: np.ndarray,
    plants: np.ndarray,
    runs: list[tuple[int, int]],
    s: CleanupSettings,
    fps: float,
) -> list[tuple[int, int]]:
    """Extend each stance's full lock over the slow, low ends of its blends (in place on ``weights`` and
    ``plants``); returns the extended runs.

    A blend that eases into (or out of) the plant point moves the foot slower and slower: those frames are
    low and under ``speed_threshold_mps``, so contact detection on the cleaned clip (same thresholds) calls
    them planted while the foot still creeps a few mm per frame. They are locked too, as long as the leg
    reaches the plant point within ``reach_slack_m`` (``hips`` (L, 3) world hip positions, ``reach`` the leg
    length [m]; the IK stops a leg that is too short at its full length, never stretching it), so the foot
    lands and lifts with one step at or above the threshold speed and is still wherever it counts as down.
    The blend windows stay where they are, so the lock cannot creep along the approach.
    """
    max_step = s.speed_threshold_mps / fps
    low = seq[:, 2] - seq[:, 2].min() < s.height_threshold_m
    path = (1 - weights[:, None]) * seq[:, :2] + weights[:, None] * plants
    last = len(seq) - 1
    out = []
    for a, b in runs:
        plant = plants[a].copy()
        ours = (weights == 0) | np.all(plants == plant, axis=1)  # frames no other stance blends
        near = np.linalg.norm(path - plant, axis=1) < max_step
        target = np.column_stack([np.broadcast_to(plant, (len(seq), 2)), seq[:, 2]])
        reachable = np.linalg.norm(target - hips, axis=1) <= reach + s.reach_slack_m
        ok = low & ours & near & reachable & (weights < 1.0)
        hi = min(b, last)
        for step in (-1, 1):
            edge = a if step < 0 else hi  # the lock's first / last frame
            i = edge + step
            while 0 <= i <= last and ok[i]:
                i += step
            # a slow end that runs into another stance's blend is a shuffle between two plants: left as is
            if i == edge + step or (0 <= i <= last and not ours[i]):
                continue
            frames = np.arange(edge + step, i, step)
            weights[frames], plants[frames] = 1.0, plant
            a, hi = (i + 1, hi) if step < 0 else (a, i - 1)
        out.append((a, max(b, hi)))
    return out


def lock_targets(
    clip: Clip, side: int, settings: CleanupSettings | None = None
) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """Ankle lock targets of foot ``side`` over the clip's frames.

    Returns:
        targets (F, 3) world ankle targets [m], weights (F,) lock weights in [0, 1] (0 = animated, 1 =
        locked), and the stance intervals as [start, end) frame indices (for loops, in an unrolled
        sequence starting one cycle before frame 0: subtract the cycle length n = F - 1 for clip frames).
    """
    s = settings or CleanupSettings()
    hip, knee, ankle = leg_chain(clip, side)
    world = clip.world_positions()[:, [hip, ankle]]
    f = clip.n_frames
    if clip.loop:
        n = f - 1
        e = np.arange(-n, 2 * n + 1)
        legs = world[np.mod(e, n)] + np.floor_divide(e, n)[:, None, None] * clip.cycle_displacement
        first = n
    else:
        legs = world
        first = 0
    seq = legs[:, 1]
    height = seq[:, 2] - seq[:, 2].min()
    speed = np.linalg.norm(np.diff(seq[:, :2], axis=0), axis=1) * clip.fps
    planted = (height[:-1] < s.height_threshold_m) & (speed < s.speed_threshold_mps)
    runs = [(a, b) for a, b in _runs(planted) if b - a >= s.min_stance_s * clip.fps]
    weights = np.zeros(len(seq))
    plants = seq[:, :2].copy()
    times = np.arange(len(seq)) / clip.fps
    last = len(seq) - 1
    for a, b in runs:
        hi = min(b, last)  # the frame the last planted step reaches
        before = (times[a] - times) / max(s.blend_s, 1e-9)
        after = (times - times[hi]) / max(s.blend_s, 1e-9)
        dist = np.maximum(np.maximum(before, after), 0.0)
        w = _smoothstep(1.0 - dist) if s.blend_s > 0 else (dist <= 0).astype(float)
        better = w > weights
        weights[better] = w[better]
        plants[better] = seq[a:b, :2].mean(axis=0)
    rest = clip.skeleton.rest_positions()
    reach = float(np.linalg.norm(rest[knee] - rest[hip]) + np.linalg.norm(rest[ankle] - rest[knee]))
    runs = _snap_slow_ends(seq, legs[:, 0], reach, weights, plants, runs, s, clip.fps)
    sl = slice(first, first + f)
    out_w = weights[sl]
    blended = seq[sl].copy()
    blended[:, :2] = (1 - out_w[:, None]) * blended[:, :2] + out_w[:, None] * plants[sl]
    return blended, out_w, runs


def two_bone_ik(
    hip: np.ndarray,
    knee: np.ndarray,
    ankle: np.ndarray,
    target: np.ndarray,
    bend_hint: np.ndarray | None = None,
    eps: float = 1e-4,
) -> tuple[np.ndarray, np.ndarray]:
    """Analytic two-bone IK, vectorised over leading axes: the rotations (..., 4), in the frame the points
    are given in, to apply to the hip and knee global rotations (``hip_global' = r_hip * hip_global``,
    ``knee_global' = r_knee * knee_global``; r_knee includes the hip's) that move the ankle to
    ``target`` (clamped to the reachable shell). ``bend_hint`` (3,) breaks the tie for a straight leg
    (the knee bend axis). Only positions are needed: the bend is done in the current leg plane."""
    lab = np.linalg.norm(knee - hip, axis=-1)
    lcb = np.linalg.norm(ankle - knee, axis=-1)
    lat = np.clip(np.linalg.norm(target - hip, axis=-1), np.abs(lab - lcb) + eps, lab + lcb - eps)

    def unit(v: np.ndarray) -> np.ndarray:
        return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-12)

    def angle(u: np.ndarray, v: np.ndarray) -> np.ndarray:
        return np.arccos(np.clip(np.sum(unit(u) * unit(v), axis=-1), -1.0, 1.0))

    ac_ab_0 = angle(ankle - hip, knee - hip)
    ba_bc_0 = angle(hip - knee, ankle - knee)
    ac_ab_1 = np.arccos(np.clip((lcb**2 - lab**2 - lat**2) / (-2 * lab * lat), -1.0, 1.0))
    ba_bc_1 = np.arccos(np.clip((lat**2 - lab**2 - lcb**2) / (-2 * lab * lcb), -1.0, 1.0))
    hint = np.zeros(3) if bend_hint is None else np.asarray(bend_hint, dtype=float) * 1e-6
    axis0 = unit(np.cross(ankle - hip, knee - hip) + hint)
    # 1. bend in the leg's plane (hip opens, knee folds) so the hip-ankle distance becomes |target - hip|
    r_open = quat.from_axis_angle(axis0, ac_ab_1 - ac_ab_0)
    r_fold = quat.from_axis_angle(axis0, ba_bc_1 - ba_bc_0)
    new_knee = hip + quat.rotate(r_open, knee - hip)
    new_ankle = new_knee + quat.rotate(quat.multiply(r_open, r_fold), ankle - knee)
    # 2. swing the bent leg about the hip so the ankle points at the target
    u, v = new_ankle - hip, target - hip
    axis1 = np.cross(u, v)
    axis1 = np.where(np.linalg.norm(axis1, axis=-1, keepdims=True) > 1e-12, unit(axis1), axis0)
    r_swing = quat.from_axis_angle(axis1, angle(u, v))
    r_hip = quat.multiply(r_swing, r_open)
    r_knee = quat.multiply(r_hip, r_fold)
    return r_hip, r_knee


def lock_feet(clip: Clip, settings: CleanupSettings | None = None, name: str | None = None) -> Clip:
    """The clip with its planted feet locked (see the module docstring); the input is not changed."""
    s = settings or CleanupSettings()
    rots = np.array(clip.rotations, copy=True)
    sk = clip.skeleton
    for side in (0, 1):
        targets_w, weights, _ = lock_targets(clip, side, s)
        frames = np.flatnonzero(weights > 0)
        if clip.loop:
            frames = frames[frames < clip.n_frames - 1]
        if frames.size == 0:
            continue
        h, k, a = leg_chain(clip, side)
        pos, glob = forward_kinematics(sk, clip.root_offsets[frames], rots[frames])
        target = quat.rotate_yaw(-clip.yaw[frames], targets_w[frames] - clip.positions[frames])
        r_hip, r_knee = two_bone_ik(pos[:, h], pos[:, k], pos[:, a], target, bend_hint=np.array([0, -1.0, 0]))
        parent_h = glob[:, sk.parents[h]]
        new_hip_g = quat.multiply(r_hip, glob[:, h])
        new_knee_g = quat.multiply(r_knee, glob[:, k])
        rots[frames, h] = quat.multiply(quat.conjugate(parent_h), new_hip_g)
        rots[frames, k] = quat.multiply(quat.conjugate(new_hip_g), new_knee_g)
        rots[frames, a] = quat.multiply(quat.conjugate(new_knee_g), glob[:, a])  # keep the foot's orientation
    if clip.loop:
        rots[-1] = rots[0]
    return clip.replace(
        rotations=rots, name=name or f"{clip.name}_locked", source=f"{clip.source} (feet locked)"
    )


def clean_clip(clip: Clip, settings: CleanupSettings | None = None) -> Clip:
    """The project's clip cleanup step: the clip resampled to the playback rate ``settings.fps``
    (``Clip.resample``; skipped when None) and then foot locking (``lock_feet``), keeping the clip's name."""
    s = settings or CleanupSettings()
    if s.fps is not None:
        clip = clip.resample(s.fps)
    return lock_feet(clip, s, name=clip.name)
