"""1-D blend space over normalised speed with phase-synchronised looping clips.

Axis: x = clamp(speed / sprint_speed, 0, 1); each sample sits at x_i = its clip speed / sprint speed and
the weights interpolate linearly between the two neighbouring samples. Cycling clips share one
normalised phase (0 = left foot down, via each clip's ``phase_offset``), so clips of different cycle
lengths never cross feet; the blended cycle lasts sum(w_i T_i) / sum(w_i) over cycling clips. Root motion
is the weighted sum of each clip's own root displacement over the phase step. Play rate = speed / blended
clip speed, capped at ``max_play_rate``: 1 at the samples, > 1 beyond the last sample (and slightly between
walk and run, where linear weights under-shoot), so the root moves at the requested speed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .clip import Pose, blend_poses
from .errors import AnimationSettingsError
from .locomotion import LocomotionClip
from .root_motion import root_motion_deltas
from .sliding import clip_planted_mask, planted_at


@dataclass(frozen=True, eq=False)
class BlendResult:
    """One blend-space step.

    Attributes:
        pose: Blended pose (character frame), or None when the step was asked for root motion only.
        delta_local: (3,) root displacement [m] in the character frame. delta_yaw: [rad].
        phase: Phase after the step in [0, 1). play_rate: Applied play rate.
    """

    pose: Pose | None
    delta_local: np.ndarray
    delta_yaw: float
    phase: float
    play_rate: float


class BlendSpace1D:
    """Speed blend space (see the module docstring). Samples must be ordered by increasing speed."""

    def __init__(self, samples: Sequence[LocomotionClip], max_play_rate: float = 3.0) -> None:
        if len(samples) < 1:
            raise AnimationSettingsError("a blend space needs at least one sample")
        speeds = np.array([s.speed for s in samples])
        if np.any(np.diff(speeds) <= 0):
            raise AnimationSettingsError(
                f"blend space samples must have increasing speeds, got {speeds.tolist()}"
            )
        if not (math.isfinite(max_play_rate) and max_play_rate >= 1):
            raise AnimationSettingsError(f"max_play_rate must be a number >= 1, got {max_play_rate!r}")
        self.samples = tuple(samples)
        self.max_speed = float(speeds[-1])
        self.positions = speeds / self.max_speed if self.max_speed > 0 else np.zeros_like(speeds)
        self.max_play_rate = float(max_play_rate)
        self._cycle = np.array([s.cycle for s in samples])
        self._durations = np.array([s.clip.duration for s in samples])
        self._distances = np.array([s.speed * s.clip.duration for s in samples])
        self._planted = tuple(clip_planted_mask(s.clip) for s in samples)

    def weights(self, speed: float) -> np.ndarray:
        """(n,) weights for ``speed`` [m/s]: linear between neighbouring samples on the normalised axis."""
        if not math.isfinite(speed):
            raise AnimationSettingsError(f"speed must be finite, got {speed!r}")
        x = min(max(speed / self.max_speed, 0.0), 1.0) if self.max_speed > 0 else 0.0
        w = np.zeros(len(self.samples))
        k = int(np.searchsorted(self.positions, x, side="right")) - 1
        if k >= len(self.samples) - 1:
            w[-1] = 1.0
        elif k < 0:
            w[0] = 1.0
        else:
            a = (x - self.positions[k]) / (self.positions[k + 1] - self.positions[k])
            w[k], w[k + 1] = 1.0 - a, a
        return w

    def cycle_duration(self, weights: np.ndarray) -> float | None:
        """Blended cycle length [s] of the cycling clips, None when no cycling clip has weight."""
        wc = np.where(self._cycle, weights, 0.0)
        total = wc.sum()
        return float(np.dot(wc, self._durations) / total) if total > 1e-9 else None

    def blended_speed(self, weights: np.ndarray) -> float:
        """Root speed of the blend at play rate 1 [m/s]."""
        duration = self.cycle_duration(weights)
        if duration is None:
            return 0.0
        return float(np.dot(np.where(self._cycle, weights, 0.0), self._distances) / duration)

    def play_rate(self, speed: float, weights: np.ndarray) -> float:
        """speed / blended speed, capped at ``max_play_rate``; 1 when the blend has no root motion."""
        blended = self.blended_speed(weights)
        if blended < 1e-6 or speed <= 0:
            return 1.0
        return min(speed / blended, self.max_play_rate)

    def planted(self, phase: float, weights: np.ndarray, free_time: float = 0.0) -> np.ndarray:
        """(2,) how planted the (left, right) feet are at ``phase`` [0..1]: each sample's own contact
        label (height AND speed under its root motion, minimum duration; `clip_planted_mask`) at its time,
        averaged with the blend ``weights``."""
        out = np.zeros(2)
        total = 0.0
        for s, mask, wi in zip(self.samples, self._planted, weights, strict=True):
            if wi <= 1e-9:
                continue
            t = s.time_at(phase) if s.cycle else free_time
            out += wi * planted_at(mask, s.clip.duration, np.array([float(t)]), loop=s.clip.loop)[0]
            total += wi
        return out / total if total > 0 else out

    def pose_at(self, phase: float, weights: np.ndarray, free_time: float = 0.0) -> Pose:
        """The blended pose at normalised ``phase`` with ``weights`` (non-cycling samples at
        ``free_time`` [s])."""
        poses, used = [], []
        for i, (s, wi) in enumerate(zip(self.samples, weights, strict=True)):
            if wi <= 1e-9:
                continue
            t = s.time_at(phase) if s.cycle else free_time
            poses.append(s.clip.sample(t).pose)
            used.append(i)
        return blend_poses(poses, np.asarray(weights, dtype=float)[used])

    def step(
        self,
        phase: float,
        dt: float,
        speed: float,
        weights: np.ndarray | None = None,
        free_time: float = 0.0,
        with_pose: bool = True,
    ) -> BlendResult:
        """Advance the blend by ``dt`` [s] from ``phase`` at ``speed`` [m/s].

        Args:
            weights: Override of ``weights(speed)`` (the animator passes cross-faded weights).
            free_time: Time [s] at which non-cycling samples (idle) are sampled, after the step.
            with_pose: Also sample the blended pose (root motion alone needs only the root tracks);
                without it ``pose`` is None and ``pose_at`` gives it later.
        """
        if not (math.isfinite(dt) and dt >= 0):
            raise AnimationSettingsError(f"dt must be a non-negative number of seconds, got {dt!r}")
        w = self.weights(speed) if weights is None else np.asarray(weights, dtype=float)
        rate = self.play_rate(speed, w)
        duration = self.cycle_duration(w)
        dphase = rate * dt / duration if duration is not None else 0.0
        delta = np.zeros(3)
        dyaw = 0.0
        for s, wi in zip(self.samples, w, strict=True):
            if wi > 1e-9 and s.cycle:
                d, y = root_motion_deltas(s.clip, s.time_at(phase), s.time_at(phase + dphase))
                delta += wi * d
                dyaw += wi * float(y)
        pose = self.pose_at(phase + dphase, w, free_time) if with_pose else None
        return BlendResult(
            pose=pose, delta_local=delta, delta_yaw=dyaw, phase=float((phase + dphase) % 1.0), play_rate=rate
        )
