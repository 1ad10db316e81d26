"""Foot contacts and phase markers detected from a clip.

A foot is down at frame t when its height is within ``height_threshold_m`` of that foot's lowest height
in the clip at t and t + 1 and its horizontal speed (world, under the clip's own root motion) is under
``speed_threshold_mps`` (the foot-skate definition of the metrics, applied per clip so a skeleton whose
foot joint rides above the floor still gets contacts). Heights in metres, times in seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .clip import Clip
from .errors import AnimationSettingsError


@dataclass(frozen=True)
class ContactSettings:
    """Contact detection thresholds.

    Attributes:
        height_threshold_m: Height above the foot's lowest height in the clip under which it may be
            down [m, > 0].
        speed_threshold_mps: Horizontal foot speed under which it may be down [m/s, > 0].
        min_duration_s: Shorter contact intervals are dropped as noise [s, >= 0].
    """

    height_threshold_m: float = 0.05
    speed_threshold_mps: float = 0.5
    min_duration_s: float = 0.05

    def __post_init__(self) -> None:
        for name in ("height_threshold_m", "speed_threshold_mps"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise AnimationSettingsError(f"{name} must be a positive number, got {value!r}")
        if not (math.isfinite(self.min_duration_s) and self.min_duration_s >= 0):
            raise AnimationSettingsError(
                f"min_duration_s must be a non-negative number of seconds, got {self.min_duration_s!r}"
            )


@dataclass(frozen=True, eq=False)
class FootContacts:
    """Contacts of the (left, right) feet.

    Attributes:
        mask: (F, 2) bool, foot down at each frame.
        intervals: Per foot, a tuple of (start_s, end_s) contact intervals; for loops an interval that
            crosses the seam has end_s > duration.
        duration: Clip duration [s].
    """

    mask: np.ndarray
    intervals: tuple[tuple[tuple[float, float], ...], tuple[tuple[float, float], ...]]
    duration: float

    def down_times(self, foot: int) -> np.ndarray:
        """Times [s] at which ``foot`` (0 left, 1 right) touches down."""
        return np.array([start for start, _ in self.intervals[foot]])

    def down_phases(self, foot: int) -> np.ndarray:
        """Normalised phases in [0, 1) at which ``foot`` touches down."""
        return np.mod(self.down_times(foot) / self.duration, 1.0)

    def sequence(self) -> list[str]:
        """'L' / 'R' foot-down events in time order."""
        events = [(t, "L") for t in self.down_times(0)] + [(t, "R") for t in self.down_times(1)]
        return [side for _, side in sorted(events)]

    def to_json(self) -> dict:
        """JSON-serialisable summary: per foot, intervals [[start_s, end_s], ...] and the count."""
        out = {}
        for side, ivs in zip(("left", "right"), self.intervals, strict=True):
            out[side] = {"intervals": [[round(a, 4), round(b, 4)] for a, b in ivs], "count": len(ivs)}
        return out


def contact_mask(
    feet: np.ndarray, dt: float, height_threshold_m: float, speed_threshold_mps: float | None
) -> tuple[np.ndarray, np.ndarray]:
    """Per-frame contact mask and horizontal speed of world foot positions.

    Args:
        feet: (T, n, 3) world foot positions [m]. dt: frame step [s].
    Returns:
        mask (T - 1, n): height under threshold (above each foot's lowest height) at t and t + 1 and, if
        ``speed_threshold_mps`` is not None, speed under it; speed (T - 1, n) [m/s] from t to t + 1.
    """
    feet = np.asarray(feet, dtype=float)
    h = feet[..., 2] - feet[..., 2].min(axis=0)
    low = h < height_threshold_m
    mask = low[:-1] & low[1:]
    speed = np.linalg.norm(np.diff(feet[..., :2], axis=0), axis=-1) / dt
    if speed_threshold_mps is not None:
        mask &= speed < speed_threshold_mps
    return mask, speed


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) index runs of True."""
    padded = np.concatenate([[False], mask, [False]])
    edges = np.flatnonzero(np.diff(padded.astype(int)))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))


def detect_contacts(clip: Clip, settings: ContactSettings | None = None) -> FootContacts:
    """Foot contacts of ``clip`` under its own root motion (see the module docstring)."""
    settings = settings or ContactSettings()
    feet = clip.world_positions()[:, list(clip.foot_indices)]
    mask, _ = contact_mask(feet, 1.0 / clip.fps, settings.height_threshold_m, settings.speed_threshold_mps)
    full = np.zeros((clip.n_frames, 2), dtype=bool)
    full[:-1] = mask
    if clip.loop:
        full[-1] = full[0]
    min_frames = settings.min_duration_s * clip.fps
    intervals = []
    n = clip.n_frames - 1  # frames per cycle for loops
    for foot in range(2):
        runs = _runs(full[:-1, foot]) if clip.loop else _runs(full[:, foot])
        if clip.loop and len(runs) > 1 and runs[0][0] == 0 and runs[-1][1] == n:
            first = runs.pop(0)
            last = runs.pop()
            runs.append((last[0], n + first[1]))
        elif clip.loop and len(runs) == 1 and runs[0] == (0, n):
            runs = [(0, n)]
        kept = [(a / clip.fps, b / clip.fps) for a, b in runs if b - a >= min_frames]
        intervals.append(tuple(kept))
    return FootContacts(mask=full, intervals=(intervals[0], intervals[1]), duration=clip.duration)
