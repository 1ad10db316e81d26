"""Locomotion animation for many characters at once: the speed-blended, phase-synchronised locomotion
state of `Animator` with its state in arrays (one row per character).

Each row is what an `Animator` in its locomotion state holds: the speed input and its two low-pass filters
(the blend follows ``smoothed_speed``, the gait is chosen from ``gait_speed``), the gait with hysteresis,
the gait cross-fade of the blend weights, the shared normalised phase and the play rate. ``advance`` moves
the rows it is given by one tick, all in numpy, and returns their root motion; poses stay lazy (``pose``
samples one row's skeleton when somebody looks). `Animator` runs its locomotion state on a batch of one
row, so there is one implementation of the rules.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import kernels
from .blend_space import BlendSpace1D
from .clip import Pose
from .errors import AnimationSettingsError
from .locomotion import GAITS, LocomotionSet, default_locomotion_set, gait_thresholds

Rows = np.ndarray | slice


@dataclass(frozen=True)
class GaitChanges:
    """The rows whose gait changed in one tick, with the old and new levels (`GAITS` order)."""

    rows: np.ndarray
    old: np.ndarray
    new: np.ndarray


_NO_CHANGES = GaitChanges(
    np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
)
_ALL = slice(None)


def filter_factor(dt: float, tau: float) -> float:
    """The factor of one tick ``dt`` [s] of a first-order low-pass filter with time constant ``tau`` [s]:
    value += factor * (target - value); 1 (no filter) when tau <= 0."""
    return 1.0 if tau <= 0 else min(1.0, dt / tau)


class AnimatorBatch:
    """The locomotion animation of ``n`` characters (see the module docstring).

    Args:
        n: rows (characters) [>= 0].
        locomotion: the clips (default: the built-in DeepMimic set, shared by all rows).
        settings: an `AnimatorSettings` (fades, filters, play-rate cap, gait thresholds).
    Attributes (one entry per row):
        speed: requested speed [m/s]. smoothed_speed: the blend's speed input [m/s]. gait_speed: the
        speed the gait is chosen from [m/s]. gait: gait level (`GAITS` order). phase: normalised phase
        in [0, 1) (0 = left foot down). weights: (n, samples) blend weights. play_rate: last play rate.
        free_time: time non-cycling samples (idle) are sampled at [s].
    """

    def __init__(
        self, n: int, locomotion: LocomotionSet | None = None, settings: object | None = None
    ) -> None:
        from .animator import AnimatorSettings  # the animator imports this module

        if not (isinstance(n, int) and n >= 0):
            raise AnimationSettingsError(f"n must be an integer >= 0, got {n!r}")
        s = settings if settings is not None else AnimatorSettings()
        if not isinstance(s, AnimatorSettings):
            raise AnimationSettingsError(f"settings must be AnimatorSettings, got {type(s).__name__}")
        self.settings = s
        self.locomotion_set = locomotion if locomotion is not None else default_locomotion_set()
        self.blend = BlendSpace1D(self.locomotion_set.samples, s.max_play_rate)
        self._fades = np.array([[s.gait_fade(a, b) for b in GAITS] for a in GAITS])
        samples = len(self.blend.samples)
        self.n = n
        self.speed = np.zeros(n)
        self.smoothed_speed = np.zeros(n)
        self.gait_speed = np.zeros(n)
        self.gait = np.zeros(n, dtype=np.int64)
        self.phase = np.zeros(n)
        self.weights = np.tile(self.blend.weights(0.0), (n, 1))
        self.play_rate = np.ones(n)
        self.free_time = np.zeros(n)
        self._fade_from = np.zeros((n, samples))
        self._fading = np.zeros(n, dtype=bool)
        self._fade_time = np.zeros(n)
        self._fade_elapsed = np.zeros(n)
        self._all = np.arange(n, dtype=np.int64)
        self._ups, self._downs = gait_thresholds(s.gait)
        self.kernel_state = (
            self.speed,
            self.smoothed_speed,
            self.gait_speed,
            self.gait,
            self.weights,
            self._fade_from,
            self._fading,
            self._fade_time,
            self._fade_elapsed,
            self.free_time,
            self.phase,
            self.play_rate,
        )
        """The row arrays as `kernels.locomotion_tick` takes them (the same arrays, updated in place)."""
        self.kernel_inputs = (
            self._all,
            self.kernel_state,
            self._ups,
            self._downs,
            self._fades,
            self.blend.kernel_data,
        )
        """What `kernels.locomotion_tick` takes to tick every row, besides the tick's numbers and the output
        buffers: (rows, state, ups, downs, fades, blend), in its order."""
        self._old = np.empty(n, dtype=np.int64)  # gait levels before and after a whole-batch tick
        self._new = np.empty(n, dtype=np.int64)
        self._filters = (-1.0, (1.0, 1.0))  # (dt [s], `filters(dt)`) of the last tick

    # -- inputs ----------------------------------------------------------------------------------------
    def set_speeds(self, rows: Rows, speeds: np.ndarray) -> None:
        """Requested ground speeds [m/s, >= 0] of ``rows``."""
        v = np.asarray(speeds, dtype=np.float64)
        if not (np.isfinite(v).all() and (v >= 0).all()):
            raise AnimationSettingsError(f"speeds must be non-negative numbers of m/s, got {v!r}")
        self.speed[rows] = v

    # -- the tick --------------------------------------------------------------------------------------
    def advance(self, dt: float, rows: Rows | None = None) -> tuple[np.ndarray, np.ndarray, GaitChanges]:
        """Filter the speed inputs of ``rows`` (default all) and advance their locomotion by ``dt`` [s].

        Returns:
            delta_local (m, 3) [m] in each character frame (x forward, y left, z up), delta_yaw (m,) [rad]
            and the gait changes.
        """
        return self._run(dt, rows, *self.filters(dt))

    def filters(self, dt: float) -> tuple[float, float]:
        """The factors of one tick ``dt`` [s] of the speed filter and of the gait-speed filter
        (`filter_factor`; the last tick's are kept, as dt seldom changes)."""
        last, factors = self._filters
        if dt != last:
            s = self.settings
            factors = (filter_factor(dt, s.speed_smoothing_s), filter_factor(dt, s.gait_smoothing_s))
            self._filters = (dt, factors)
        return factors

    def tick(self, dt: float, rows: Rows) -> tuple[np.ndarray, np.ndarray, GaitChanges]:
        """Advance the locomotion of ``rows`` by ``dt`` [s] from their filtered speeds (no filtering):
        gait choice, gait cross-fade, phase and root motion."""
        return self._run(dt, rows, -1.0, -1.0)

    def _run(
        self, dt: float, rows: Rows | None, filter_speed: float, filter_gait: float
    ) -> tuple[np.ndarray, np.ndarray, GaitChanges]:
        if not (math.isfinite(dt) and dt >= 0):
            raise AnimationSettingsError(f"dt must be a non-negative number of seconds, got {dt!r}")
        whole = rows is None or (isinstance(rows, slice) and rows == _ALL)
        index = self._all if whole else self._all[rows]
        m = len(index)
        delta, dyaw = np.empty((m, 3)), np.empty(m)  # returned: new arrays
        # the gait levels only show through copies (GaitChanges), so a whole-batch tick reuses buffers
        old, new = (
            (self._old, self._new) if whole else (np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64))
        )
        changes = kernels.locomotion_tick(
            index, float(dt), filter_speed, filter_gait, self.kernel_state, self._ups, self._downs,
            self._fades, self.blend.kernel_data, delta, dyaw, old, new,
        )  # fmt: skip
        if changes == 0:
            return delta, dyaw, _NO_CHANGES
        changed = old != new
        return delta, dyaw, GaitChanges(index[changed], old[changed], new[changed])

    # -- outputs ---------------------------------------------------------------------------------------
    def planted(self, rows: Rows | None = None) -> np.ndarray:
        """(m, 2) how planted the (left, right) feet of ``rows`` are [0..1] (`BlendSpace1D.planted`)."""
        r = slice(None) if rows is None else rows
        return self.blend.planted_of(self.phase[r], self.weights[r], self.free_time[r])

    def pose(self, row: int) -> Pose:
        """The blended skeleton pose of one row (character frame), sampled now."""
        return self.blend.pose_at(
            float(self.phase[row]), self.weights[row].copy(), float(self.free_time[row])
        )

    def gait_name(self, row: int) -> str:
        return GAITS[int(self.gait[row])].value

    def reset(self, rows: Rows) -> None:
        """Put ``rows`` back to standing idle at phase 0."""
        for a in (self.speed, self.smoothed_speed, self.gait_speed, self.phase, self.free_time):
            a[rows] = 0.0
        self.gait[rows] = 0
        self.weights[rows] = self.blend.weights(0.0)
        self.play_rate[rows] = 1.0
        self._fading[rows] = False
