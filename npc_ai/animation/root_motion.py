"""Root motion: the displacement a clip's trajectory makes between two times, in the character frame.

Character frame: x forward (the facing), y left, z up, at the start of the interval. Yaw is radians,
counter-clockwise seen from above. Loops wrap and carry the cycle displacement (see ``Clip.sample``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import kernels, quat
from .clip import Clip
from .errors import AnimationSettingsError


@dataclass(frozen=True, eq=False)
class RootMotion:
    """One tick of root motion.

    Attributes:
        delta_local: (3,) displacement in the character frame at the tick's start [m].
        delta_yaw: Change of facing [rad].
        dt: Tick length [s].
        phase: Normalised locomotion phase after the tick, in [0, 1) (0 = left foot down), or None.
        play_rate: Play rate applied this tick.
        state: Name of the animator state that produced the motion ('' for a bare clip).
        gait: Gait name ('' when not applicable).
        weights: Blend weights per locomotion sample (empty when not applicable).
    """

    delta_local: np.ndarray
    delta_yaw: float
    dt: float
    phase: float | None = None
    play_rate: float = 1.0
    state: str = ""
    gait: str = ""
    weights: tuple[float, ...] = ()

    @property
    def velocity_local(self) -> np.ndarray:
        """(3,) velocity in the character frame [m/s] (zero for dt = 0)."""
        return self.delta_local / self.dt if self.dt > 0 else np.zeros(3)

    def delta_world(self, yaw: float) -> np.ndarray:
        """(3,) displacement in the world for a character facing ``yaw`` [rad]."""
        return quat.rotate_yaw(yaw, self.delta_local)


def root_motion_deltas(
    clip: Clip, t0: float | np.ndarray, t1: float | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised root motion from times ``t0`` to ``t1`` [s] (any shape, broadcast).

    Returns:
        delta_local (..., 3) [m] in the character frame at t0, and delta_yaw (...) [rad].
    """
    if np.ndim(t0) == 0 and np.ndim(t1) == 0:  # one tick of one character: scalar maths
        pa, ya = clip.sample_root(float(t0))
        pb, yb = clip.sample_root(float(t1))
        d = pb - pa
        c, s = math.cos(-ya), math.sin(-ya)
        return np.array([c * d[0] - s * d[1], s * d[0] + c * d[1], d[2]]), yb - ya
    a, b = np.broadcast_arrays(np.asarray(t0, dtype=float), np.asarray(t1, dtype=float))
    p, y = clip.sample_root(np.stack([a, b]))  # both ends in one sampling pass
    return quat.rotate_yaw(-y[0], p[1] - p[0]), y[1] - y[0]


def extract_root_motion(clip: Clip, t0: float, t1: float) -> RootMotion:
    """Root motion of ``clip`` between two times [s] (t1 may pass the loop seam)."""
    if not (math.isfinite(t0) and math.isfinite(t1)):
        raise AnimationSettingsError(f"root motion times must be finite, got {t0!r}, {t1!r}")
    d, y = root_motion_deltas(clip, t0, t1)
    return RootMotion(delta_local=d, delta_yaw=float(y), dt=float(t1 - t0))


def has_root_motion(clip: Clip, min_speed_mps: float = 0.1) -> bool:
    """Whether the clip's trajectory moves: mean horizontal speed >= ``min_speed_mps`` [m/s]. Callers fall
    back to code-driven velocity for clips without root motion."""
    if not (math.isfinite(min_speed_mps) and min_speed_mps >= 0):
        raise AnimationSettingsError(f"min_speed_mps must be a non-negative number, got {min_speed_mps!r}")
    return clip.root_speed() >= min_speed_mps


def integrate_root_motion(
    delta_local: np.ndarray, delta_yaw: np.ndarray, start_position: np.ndarray, start_yaw: float
) -> tuple[np.ndarray, np.ndarray]:
    """Accumulate per-tick deltas into a world trajectory.

    Args:
        delta_local: (T, 3) per-tick displacements in the character frame [m].
        delta_yaw: (T,) per-tick yaw changes [rad].
        start_position: (3,) world position before the first tick [m]. start_yaw: its yaw [rad].
    Returns:
        positions (T + 1, 3) [m] and yaws (T + 1,) [rad], starting with the start pose.
    """
    delta_local = np.asarray(delta_local, dtype=float).reshape(-1, 3)
    delta_yaw = np.asarray(delta_yaw, dtype=float).reshape(-1)
    yaws = start_yaw + np.concatenate([[0.0], np.cumsum(delta_yaw)])
    world = quat.rotate_yaw(yaws[:-1], delta_local)
    positions = np.asarray(start_position, dtype=float) + np.concatenate(
        [np.zeros((1, 3)), np.cumsum(world, axis=0)]
    )
    return positions, yaws


class RootTracks:
    """The root trajectories of several clips stacked in arrays, sampled all at once: what a blend space
    needs to move many characters by the root motion of each of its clips in one pass.

    Args:
        clips: the clips (loops wrap and carry their cycle displacement, as in ``Clip.sample_root``).
    """

    def __init__(self, clips: tuple[Clip, ...]) -> None:
        if not clips:
            raise AnimationSettingsError("root tracks need at least one clip")
        self.clips = clips
        counts = np.array([c.n_frames for c in clips], dtype=np.int64)
        self.kernel_data = (
            np.ascontiguousarray(np.concatenate([c.positions for c in clips]), dtype=np.float64),
            np.ascontiguousarray(np.concatenate([c.yaw for c in clips]), dtype=np.float64),
            np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64),  # first row of each clip
            counts,
            np.array([c.duration for c in clips], dtype=np.float64),
            np.array([c.fps for c in clips], dtype=np.float64),
            np.array([c.loop for c in clips], dtype=np.bool_),
            np.array([c.cycle_displacement if c.loop else np.zeros(3) for c in clips], dtype=np.float64),
            np.array([float(c.yaw[-1] - c.yaw[0]) if c.loop else 0.0 for c in clips], dtype=np.float64),
        )
        """The stacked tracks as `kernels.root_delta` takes them: positions (F, 3), yaw (F,), first row,
        frames, duration, fps and loop of each clip, cycle displacement (C, 3) and cycle yaw (C,)."""

    def deltas(self, t0: np.ndarray, t1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Root motion of every clip from times ``t0`` to ``t1`` (C, N) [s]: delta_local (C, N, 3) [m] in the
        character frame at t0 and delta_yaw (C, N) [rad] (``root_motion_deltas`` for all clips at once)."""
        a = np.ascontiguousarray(t0, dtype=np.float64)
        b = np.ascontiguousarray(t1, dtype=np.float64)
        if a.shape != b.shape or a.ndim != 2 or a.shape[0] != len(self.clips):
            raise AnimationSettingsError(
                f"times must be (clips, N) arrays of one shape, got {a.shape} and {b.shape}"
            )
        if not (np.isfinite(a).all() and np.isfinite(b).all()):
            raise AnimationSettingsError("sample times must be finite")
        return kernels.root_deltas_flat(*self.kernel_data, a, b)
