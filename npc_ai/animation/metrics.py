"""Foot-skate metrics from world-space foot positions (reference notes, section 5).

Definition used here: foot f is in contact at frame t when its height is under ``height_threshold_m``
(5 cm) above that foot's lowest height in the sequence at both t and t + 1; it skates when in contact
and its horizontal speed from t to t + 1 exceeds ``speed_threshold_mps`` (0.5 m/s). The skate ratio is
the fraction of frame steps in which any foot skates. By default the speed is NOT averaged over 5 frames
(``speed_window=1``): the per-step speed is the stricter choice and the one that responds to a root
driven too fast; pass ``speed_window=5`` for the centred 5-frame average some papers also report.

Measured point: ``clip_feet_world(..., contact_points="joint")`` (default, unchanged) scores the clip's
foot joints; ``contact_points="sole"`` scores heel and toe points of each foot (``feet``), each with its own
lowest height. ``clip_skate_metrics`` runs the whole own-root vs scaled-root measurement for a clip.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .clip import Clip, compose_world
from .contacts import contact_mask
from .errors import AnimationSettingsError


@dataclass(frozen=True)
class SkateMetrics:
    """Foot-skate summary.

    Attributes:
        skate_ratio: Fraction of frame steps with a skating foot [0..1].
        contact_speed_mps: Mean horizontal speed of feet in contact [m/s] (nan when no contact).
        contact_fraction: Fraction of (step, foot) pairs in contact [0..1]; 0 means the metric saw no
            contact and the ratio is meaningless.
        n_steps: Number of frame steps scored.
    """

    skate_ratio: float
    contact_speed_mps: float
    contact_fraction: float
    n_steps: int


def _validate(feet: np.ndarray, dt: float, height: float, speed: float, window: int) -> np.ndarray:
    feet = np.asarray(feet, dtype=float)
    if feet.ndim != 3 or feet.shape[-1] != 3 or feet.shape[0] < 2:
        raise AnimationSettingsError(f"foot positions must have shape (T >= 2, n_feet, 3), got {feet.shape}")
    if not np.all(np.isfinite(feet)):
        raise AnimationSettingsError("foot positions must be finite")
    for name, value in (("dt", dt), ("height_threshold_m", height), ("speed_threshold_mps", speed)):
        if not (math.isfinite(value) and value > 0):
            raise AnimationSettingsError(f"{name} must be a positive number, got {value!r}")
    if not (isinstance(window, int) and window >= 1 and window % 2 == 1):
        raise AnimationSettingsError(f"speed_window must be an odd number of frames >= 1, got {window!r}")
    return feet


def skate_metrics(
    foot_positions: np.ndarray,
    dt: float,
    height_threshold_m: float = 0.05,
    speed_threshold_mps: float = 0.5,
    speed_window: int = 1,
) -> SkateMetrics:
    """Foot-skate metrics of world foot positions ``(T, n_feet, 3)`` [m] sampled every ``dt`` [s]."""
    feet = _validate(foot_positions, dt, height_threshold_m, speed_threshold_mps, speed_window)
    mask, speed = contact_mask(feet, dt, height_threshold_m, None)
    if speed_window > 1:
        kernel = np.ones(speed_window) / speed_window
        pad = speed_window // 2
        padded = np.pad(speed, ((pad, pad), (0, 0)), mode="edge")
        speed = np.stack(
            [np.convolve(padded[:, f], kernel, mode="valid") for f in range(speed.shape[1])], axis=1
        )
    skating = mask & (speed > speed_threshold_mps)
    n_contact = int(mask.sum())
    return SkateMetrics(
        skate_ratio=float(np.mean(np.any(skating, axis=1))),
        contact_speed_mps=float(speed[mask].mean()) if n_contact else float("nan"),
        contact_fraction=n_contact / mask.size,
        n_steps=int(mask.shape[0]),
    )


def foot_skate_ratio(
    foot_positions: np.ndarray,
    dt: float,
    height_threshold_m: float = 0.05,
    speed_threshold_mps: float = 0.5,
    speed_window: int = 1,
) -> float:
    """Fraction of frame steps in which any foot skates (see the module docstring)."""
    return skate_metrics(
        foot_positions, dt, height_threshold_m, speed_threshold_mps, speed_window
    ).skate_ratio


def contact_foot_speed(
    foot_positions: np.ndarray, dt: float, height_threshold_m: float = 0.05, speed_window: int = 1
) -> float:
    """Mean horizontal speed of feet in contact [m/s] (multiply by 100 for cm/s); nan without contacts."""
    return skate_metrics(foot_positions, dt, height_threshold_m, 0.5, speed_window).contact_speed_mps


def clip_feet_world(
    clip: Clip, times: np.ndarray, positions: np.ndarray, yaw: np.ndarray, contact_points: str = "joint"
) -> np.ndarray:
    """World foot positions of ``clip`` posed at ``times`` [s] along any root trajectory.

    Args:
        times: (T,) clip times [s]. positions: (T, 3) character frame origins in the world [m].
        yaw: (T,) facing yaw [rad].
        contact_points: 'joint' (default: the clip's foot joints) or 'sole' (heel and toe of each foot,
            see ``feet``).
    Returns:
        (T, 2, 3) world positions of the (left, right) feet [m] for 'joint'; (T, P, 3) points (left
        foot's first) for other models.
    """
    times = np.asarray(times, dtype=float)
    positions = np.asarray(positions, dtype=float)
    yaw = np.asarray(yaw, dtype=float)
    if times.ndim != 1 or positions.shape != times.shape + (3,) or yaw.shape != times.shape:
        raise AnimationSettingsError(
            f"need times (T,), positions (T, 3), yaw (T,); got {times.shape}, {positions.shape}, {yaw.shape}"
        )
    if contact_points != "joint":
        from .feet import contact_points_world

        return contact_points_world(clip, times, positions, yaw, contact_points)
    local = clip.local_positions(times)[:, list(clip.foot_indices)]
    return compose_world(local, positions, yaw)


def clip_root_trajectory(
    clip: Clip, times: np.ndarray, speed_scale: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """The clip's own root trajectory at ``times`` [s], its displacement scaled by ``speed_scale``
    (1.0 = the clip's root motion; 1.5 = a root driven 1.5x too fast)."""
    s = clip.sample(np.asarray(times, dtype=float))
    start = s.positions[0]
    return start + speed_scale * (s.positions - start), s.yaw


def clip_skate_metrics(
    clip: Clip,
    speed_scale: float = 1.0,
    dt: float = 1.0 / 60.0,
    cycles: int = 4,
    contact_points: str = "joint",
    speed_window: int = 1,
    height_threshold_m: float = 0.05,
    speed_threshold_mps: float = 0.5,
) -> SkateMetrics:
    """Skate metrics of ``clip`` sampled every ``dt`` [s] (``cycles`` cycles of a loop, the whole clip
    otherwise) with its root driven at ``speed_scale`` times its own root motion."""
    span = clip.duration * (cycles if clip.loop else 1)
    times = np.arange(0.0, span + 1e-9, dt)
    pos, yaw = clip_root_trajectory(clip, times, speed_scale)
    feet = clip_feet_world(clip, times, pos, yaw, contact_points)
    return skate_metrics(feet, dt, height_threshold_m, speed_threshold_mps, speed_window)
