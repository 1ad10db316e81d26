"""Clip cleanup: foot locking with analytic two-bone IK (the standard footskate cleanup).

``lock_feet(clip)`` works on any clip (DeepMimic, BVH) under its own root motion:

1. Stance detection, per foot, at the leg chain's ankle (the foot joint, or the toe joint's parent): a
   frame is planted when the ankle is within ``height_threshold_m`` of its lowest height in the clip AND
   its clip-space (world, own root motion) horizontal speed to the next frame is under
   ``speed_threshold_mps``; planted runs shorter than ``min_stance_s`` are dropped. Loops are unrolled
   over three cycles so a stance that crosses the seam is one interval.
2. Lock: each stance's plant point is the mean horizontal ankle position over the stance (Kovar et al.
   2002 use the same mean). The ankle's target is that point (height kept as animated, so heel rise and
   roll-over stay) inside the stance, blending from / back to the animated path over ``blend_s`` before
   and after it with a smoothstep weight (zero slope at both ends). Outside stance +- ``blend_s`` nothing
   changes.
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
    """

    height_threshold_m: float = 0.05
    speed_threshold_mps: float = 0.5
    min_stance_s: float = 0.1
    blend_s: float = 0.2

    def __post_init__(self) -> None:
        for name in ("height_threshold_m", "speed_threshold_mps"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise AnimationSettingsError(f"{name} must be a positive number, got {value!r}")
        for name in ("min_stance_s", "blend_s"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise AnimationSettingsError(
                    f"{name} must be a non-negative number of seconds, got {value!r}"
                )


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    padded = np.concatenate([[False], mask, [False]])
    edges = np.flatnonzero(np.diff(padded.astype(int)))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))


def _smoothstep(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)


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
    ankle = leg_chain(clip, side)[2]
    world = clip.world_positions()[:, ankle]
    f = clip.n_frames
    if clip.loop:
        n = f - 1
        e = np.arange(-n, 2 * n + 1)
        seq = world[np.mod(e, n)] + np.floor_divide(e, n)[:, None] * clip.cycle_displacement
        first = n
    else:
        seq = world
        first = 0
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
    """The project's clip cleanup step: foot locking (``lock_feet``), keeping the clip's name."""
    return lock_feet(clip, settings, name=clip.name)
