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

from . import kernels
from .clip import Pose, blend_poses
from .errors import AnimationSettingsError
from .locomotion import LocomotionClip
from .root_motion import RootTracks
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


_NO_TRACKS = (
    np.zeros((0, 3)),
    np.zeros(0),
    np.zeros(0, dtype=np.int64),
    np.zeros(0, dtype=np.int64),
    np.zeros(0),
    np.zeros(0),
    np.zeros(0, dtype=np.bool_),
    np.zeros((0, 3)),
    np.zeros(0),
)  # `RootTracks.kernel_data` of a blend space without cycling samples


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
        self._cycling = np.flatnonzero(self._cycle).astype(np.int64)  # samples with root motion, in order
        cycling = [self.samples[i] for i in self._cycling]
        tracks = RootTracks(tuple(s.clip for s in cycling)).kernel_data if cycling else _NO_TRACKS
        self.kernel_data = (
            self.max_speed,
            np.ascontiguousarray(self.positions, dtype=np.float64),
            self._cycle.astype(np.bool_),
            self._durations.astype(np.float64),
            self._distances.astype(np.float64),
            self.max_play_rate,
            self._cycling,
            np.array([s.phase_offset for s in cycling], dtype=np.float64),
            np.array([s.clip.duration for s in cycling], dtype=np.float64),
            tracks,
        )
        """What `kernels.blend_advance` takes: max speed [m/s], sample positions on the normalised axis,
        which samples cycle, their durations [s] and cycle distances [m], the play-rate cap, the cycling
        samples' indices, phase offsets and durations [s], and their stacked `RootTracks`."""

    def weights(self, speed: float) -> np.ndarray:
        """(n,) weights for ``speed`` [m/s]: linear between neighbouring samples on the normalised axis."""
        if not math.isfinite(speed):
            raise AnimationSettingsError(f"speed must be finite, got {speed!r}")
        return self.weights_of(np.array([float(speed)]))[0]

    def weights_of(self, speeds: np.ndarray) -> np.ndarray:
        """(N, n) weights for N speeds [m/s] at once (see `weights`)."""
        v = np.ascontiguousarray(speeds, dtype=np.float64).reshape(-1)
        return kernels.blend_weights_flat(v, self.max_speed, self.kernel_data[1])

    def cycle_duration(self, weights: np.ndarray) -> float | None:
        """Blended cycle length [s] of the cycling clips, None when no cycling clip has weight."""
        d = float(self.cycle_durations(np.asarray(weights, dtype=np.float64)[None])[0])
        return None if math.isnan(d) else d

    def cycle_durations(self, weights: np.ndarray) -> np.ndarray:
        """(N,) blended cycle lengths [s] for (N, n) weights; NaN where no cycling clip has weight."""
        return self._rates(weights, np.zeros(len(weights)))[0]

    def _rates(self, weights: np.ndarray, speeds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`kernels.blend_rate` of N blends: cycle lengths [s], root speeds [m/s] and play rates."""
        _, _, cycle, durations, distances, max_rate = self.kernel_data[:6]
        w = np.ascontiguousarray(weights, dtype=np.float64).reshape(-1, len(self.samples))
        v = np.ascontiguousarray(speeds, dtype=np.float64).reshape(-1)
        return kernels.blend_rates_flat(w, cycle, durations, distances, v, max_rate)

    def blended_speed(self, weights: np.ndarray) -> float:
        """Root speed of the blend at play rate 1 [m/s]."""
        return float(self.blended_speeds(np.asarray(weights, dtype=np.float64)[None])[0])

    def blended_speeds(self, weights: np.ndarray) -> np.ndarray:
        """(N,) root speeds of (N, n) blends at play rate 1 [m/s] (0 without a cycling clip)."""
        return self._rates(weights, np.zeros(len(weights)))[1]

    def play_rate(self, speed: float, weights: np.ndarray) -> float:
        """speed / blended speed, capped at ``max_play_rate``; 1 when the blend has no root motion."""
        w = np.asarray(weights, dtype=np.float64)[None]
        return float(self.play_rates(np.array([float(speed)]), w)[0])

    def play_rates(self, speeds: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """(N,) play rates for N speeds [m/s] and (N, n) weights (see `play_rate`)."""
        return self._rates(weights, speeds)[2]

    def planted(self, phase: float, weights: np.ndarray, free_time: float = 0.0) -> np.ndarray:
        """(2,) how planted the (left, right) feet are at ``phase`` [0..1]: each sample's own contact
        label (height AND speed under its root motion, minimum duration; `clip_planted_mask`) at its time,
        averaged with the blend ``weights``."""
        w = np.asarray(weights, dtype=np.float64)[None]
        return self.planted_of(np.array([float(phase)]), w, np.array([float(free_time)]))[0]

    def planted_of(self, phases: np.ndarray, weights: np.ndarray, free_times: np.ndarray) -> np.ndarray:
        """(N, 2) `planted` for N phases, (N, n) weights and N free times [s] at once."""
        out = np.zeros((phases.shape[0], 2))
        total = np.zeros(phases.shape[0])
        for i, (s, mask) in enumerate(zip(self.samples, self._planted, strict=True)):
            wi = np.where(weights[:, i] > 1e-9, weights[:, i], 0.0)
            if not wi.any():
                continue
            t = np.asarray(s.time_at(phases) if s.cycle else free_times, dtype=np.float64)
            out += wi[:, None] * planted_at(mask, s.clip.duration, t, loop=s.clip.loop)
            total += wi
        ok = total > 0
        return np.where(ok[:, None], out / np.where(ok, total, 1.0)[:, None], out)

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

    def advance(
        self, phase: np.ndarray, dt: float, speeds: np.ndarray, weights: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Advance N blends by ``dt`` [s] at once: phases (N,) in [0, 1), speeds (N,) [m/s], weights (N, n).

        Returns:
            delta_local (N, 3) [m] in each character frame, delta_yaw (N,) [rad], the new phases (N,)
            and the play rates (N,) applied. Root motion is the weighted sum of each cycling sample's own
            root displacement over the phase step.
        """
        p = np.ascontiguousarray(phase, dtype=np.float64).reshape(-1)
        v = np.ascontiguousarray(speeds, dtype=np.float64).reshape(-1)
        w = np.ascontiguousarray(weights, dtype=np.float64).reshape(-1, len(self.samples))
        return kernels.blend_advance_flat(p, float(dt), v, w, self.kernel_data)

    def step(
        self,
        phase: float,
        dt: float,
        speed: float,
        weights: np.ndarray | None = None,
        free_time: float = 0.0,
        with_pose: bool = True,
    ) -> BlendResult:
        """Advance the blend by ``dt`` [s] from ``phase`` at ``speed`` [m/s] (one character; `advance`
        does many at once).

        Args:
            weights: Override of ``weights(speed)`` (the animator passes cross-faded weights).
            free_time: Time [s] at which non-cycling samples (idle) are sampled, after the step.
            with_pose: Also sample the blended pose (root motion alone needs only the root tracks);
                without it ``pose`` is None and ``pose_at`` gives it later.
        """
        if not (math.isfinite(dt) and dt >= 0):
            raise AnimationSettingsError(f"dt must be a non-negative number of seconds, got {dt!r}")
        w = self.weights(speed) if weights is None else np.asarray(weights, dtype=float)
        delta, dyaw, phases, rates = self.advance(
            np.array([float(phase)]), dt, np.array([float(speed)]), w[None]
        )
        new_phase = float(phases[0])
        pose = self.pose_at(new_phase, w, free_time) if with_pose else None
        return BlendResult(
            pose=pose,
            delta_local=delta[0],
            delta_yaw=float(dyaw[0]),
            phase=new_phase,
            play_rate=float(rates[0]),
        )
