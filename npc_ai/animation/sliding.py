"""Foot-sliding metrics (issue 11; definitions and sources in docs/metrics.md). Pure numpy.

* Planted-foot sliding (primary): the horizontal displacement of a foot over the steps t -> t + 1 at which
  the ANIMATION has it planted at both t and t + 1 (labels from the clips' own contacts, see
  ``clip_planted_mask``, ``planted_at`` and ``blend_planted``), in cm per metre travelled, cm/s of planted
  time and the share of planted steps slipping faster than 0.2 m/s.
* GMD skating ratio at 20 Hz, for comparison with motion-synthesis papers (``gmd_skate_ratio``).
* ``planted_share_of_skating``: which part of the old 60 Hz height-band ratio (``metrics.skate_metrics``)
  happens on planted feet (a diagnostic).

Feet are world positions (T, n_feet, 3) [m], Z up, sampled every ``dt`` [s]; (left, right) for two feet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.ndimage import uniform_filter1d

from .clip import Clip
from .contacts import ContactSettings, FootContacts, contact_mask, detect_contacts
from .errors import AnimationSettingsError

SLIP_THRESHOLD_MPS = 0.2  # Kimodo's slip threshold for planted feet [m/s]


@dataclass(frozen=True)
class SlideMetrics:
    """Planted-foot sliding summary (nan where the denominator is 0).

    Attributes:
        cm_per_m: Total planted sliding per metre travelled [cm/m] (nan without a distance travelled).
        cmps: Mean horizontal speed of planted feet: total sliding / planted foot-time [cm/s].
        slip_share: Share of planted (step, foot) pairs faster than the slip threshold [0..1].
        planted_steps: Number of (step, foot) pairs planted at both ends of the step.
        total_cm: Total horizontal displacement of planted feet [cm].
        planted_time_s: Planted foot-time, planted_steps * dt [s].
    """

    cm_per_m: float
    cmps: float
    slip_share: float
    planted_steps: int
    total_cm: float
    planted_time_s: float

    def __post_init__(self) -> None:
        if not (isinstance(self.planted_steps, int) and self.planted_steps >= 0):
            raise AnimationSettingsError(f"planted_steps must be a count >= 0, got {self.planted_steps!r}")
        if not (math.isfinite(self.total_cm) and self.total_cm >= 0):
            raise AnimationSettingsError(f"total_cm must be a finite number >= 0, got {self.total_cm!r}")
        if not (math.isnan(self.slip_share) or 0.0 <= self.slip_share <= 1.0):
            raise AnimationSettingsError(f"slip_share must be in [0, 1] or nan, got {self.slip_share!r}")


def _positive(name: str, value: float) -> float:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise AnimationSettingsError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def _feet(feet: np.ndarray) -> np.ndarray:
    feet = np.asarray(feet, dtype=float)
    if feet.ndim != 3 or feet.shape[0] < 2 or feet.shape[1] < 1 or feet.shape[2] != 3:
        raise AnimationSettingsError(f"feet must have shape (T >= 2, n_feet, 3) [m], got {feet.shape}")
    if not np.all(np.isfinite(feet)):
        raise AnimationSettingsError("feet must be finite (found NaN or inf)")
    return feet


def _planted(planted: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Bool (T, n) from bool labels or weights in [0, 1] (a weight >= 0.5 counts as planted)."""
    raw = np.asarray(planted)
    if raw.shape != shape:
        raise AnimationSettingsError(f"planted must have shape {shape} to match feet, got {raw.shape}")
    if raw.dtype == bool:
        return raw
    w = raw.astype(float)
    if not (np.all(np.isfinite(w)) and np.all((w >= 0) & (w <= 1))):
        raise AnimationSettingsError("planted weights must be finite and in [0, 1]")
    return w >= 0.5


def planted_slide_steps(
    feet: np.ndarray, planted: np.ndarray, dt: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """Per-step planted sliding, for callers that split steps by phase themselves.

    Args:
        feet: (T, n, 3) world foot positions [m]. planted: (T, n) bool labels or weights in [0, 1].
        dt: Sample step [s] (only validated here; kept for a uniform signature).
    Returns:
        slide (T - 1, n): horizontal displacement |p[t+1] - p[t]|_xy [m] where the foot is planted at t
        and t + 1, 0 elsewhere; both (T - 1, n) bool: planted at t and t + 1.
    """
    feet = _feet(feet)
    _positive("dt", dt)
    down = _planted(planted, feet.shape[:2])
    both = down[:-1] & down[1:]
    step = np.linalg.norm(np.diff(feet[..., :2], axis=0), axis=-1)
    return np.where(both, step, 0.0), both


def planted_sliding(
    feet: np.ndarray,
    planted: np.ndarray,
    dt: float,
    travelled_m: float | None = None,
    steps: np.ndarray | None = None,
    slip_threshold_mps: float = SLIP_THRESHOLD_MPS,
) -> SlideMetrics:
    """Planted-foot sliding of ``feet`` (T, n, 3) [m] sampled every ``dt`` [s].

    Args:
        planted: (T, n) bool labels or weights in [0, 1] (>= 0.5 is planted).
        travelled_m: Horizontal distance the character travelled over the scored steps [m, >= 0];
            ``cm_per_m`` is nan when it is None or 0.
        steps: Optional (T - 1,) bool mask of the steps t -> t + 1 to score (e.g. one phase).
        slip_threshold_mps: Planted speed above which a step slips [m/s, > 0].
    """
    slide, both = planted_slide_steps(feet, planted, dt)
    _positive("slip_threshold_mps", slip_threshold_mps)
    if steps is not None:
        mask = np.asarray(steps)
        if mask.dtype != bool or mask.shape != (slide.shape[0],):
            raise AnimationSettingsError(
                f"steps must be a bool mask of shape ({slide.shape[0]},), got {mask.dtype} {mask.shape}"
            )
        both = both & mask[:, None]
    if travelled_m is not None and not (math.isfinite(travelled_m) and travelled_m >= 0):
        raise AnimationSettingsError(f"travelled_m must be a finite distance >= 0 [m], got {travelled_m!r}")
    n = int(both.sum())
    total_cm = 100.0 * float(slide[both].sum())
    time_s = n * float(dt)
    slips = int(np.count_nonzero(slide[both] > slip_threshold_mps * dt))
    return SlideMetrics(
        cm_per_m=total_cm / travelled_m if travelled_m else float("nan"),
        cmps=total_cm / time_s if n else float("nan"),
        slip_share=slips / n if n else float("nan"),
        planted_steps=n,
        total_cm=total_cm,
        planted_time_s=time_s,
    )


def _interval_mask(contacts: FootContacts, loop: bool) -> np.ndarray:
    """(F, 2) bool frames inside the contact intervals of ``contacts`` (the intervals that passed
    ``min_duration_s``; ``contacts.mask`` keeps the shorter ones). Row f labels the interval [f, f + 1)."""
    n_frames = contacts.mask.shape[0]
    fps = (n_frames - 1) / contacts.duration
    n = n_frames - 1 if loop else n_frames
    frames = np.arange(n)
    out = np.zeros((n_frames, 2), dtype=bool)
    for foot, intervals in enumerate(contacts.intervals):
        for start_s, end_s in intervals:  # a handful per foot
            a, b = round(start_s * fps), round(end_s * fps)
            inside = (frames >= a) & (frames < b)
            if loop:  # an interval across the seam ends past n
                inside |= (frames + n >= a) & (frames + n < b)
            out[:n, foot] |= inside
    if loop:
        out[-1] = out[0]
    return out


def clip_planted_mask(clip: Clip, settings: ContactSettings | None = None) -> np.ndarray:
    """(F, 2) bool planted labels of ``clip``'s frames from its own contacts (``detect_contacts``: height
    AND horizontal speed under its own root motion), keeping only intervals of at least
    ``settings.min_duration_s``. Row f labels the frame interval [f, f + 1); a loop's last row is its first.

    Computed once per clip and settings (clips are immutable) and returned read-only: every animator of a
    simulation builds its blend space from the same clips, and an env reset builds a dozen of them.
    """
    key = ("planted_mask", settings if settings is not None else ContactSettings())
    mask = clip._cache.get(key)
    if mask is None:
        mask = _interval_mask(detect_contacts(clip, settings), clip.loop)
        mask.setflags(write=False)
        clip._cache[key] = mask
    return mask


def planted_at(
    mask_or_contacts: np.ndarray | FootContacts,
    clip_duration: float | None,
    times: np.ndarray,
    loop: bool = True,
) -> np.ndarray:
    """Planted labels (N, n) bool at clip ``times`` (N,) [s].

    Looks up the frame whose interval [f, f + 1) / fps contains t (not the nearest frame), matching the
    step convention of the contact mask (row f describes frame f to f + 1). Loops wrap t modulo the
    duration; other clips clamp t to [0, duration]. ``clip_duration`` may be None for ``FootContacts``.
    """
    if isinstance(mask_or_contacts, FootContacts):
        mask = _interval_mask(mask_or_contacts, loop)
        clip_duration = mask_or_contacts.duration if clip_duration is None else clip_duration
    else:
        mask = np.asarray(mask_or_contacts)
    if mask.ndim != 2 or mask.shape[0] < 2 or mask.dtype != bool:
        raise AnimationSettingsError(
            f"planted mask must be bool (F >= 2, n_feet), got {mask.dtype} {mask.shape}"
        )
    if clip_duration is None:
        raise AnimationSettingsError("clip_duration is required with a plain mask [s]")
    duration = _positive("clip_duration", clip_duration)
    t = np.asarray(times, dtype=float)
    if t.ndim != 1 or not np.all(np.isfinite(t)):
        raise AnimationSettingsError(f"times must be a finite (N,) array [s], got shape {t.shape}")
    intervals = mask.shape[0] - 1
    t = np.mod(t, duration) if loop else np.clip(t, 0.0, duration)
    index = np.floor(t / duration * intervals + 1e-9).astype(int)
    last = intervals - 1 if loop else intervals  # a loop's last row repeats its first
    return mask[np.clip(index, 0, last)]


def blend_planted(
    labels: np.ndarray, weights: np.ndarray, always_planted: np.ndarray | None = None
) -> np.ndarray:
    """Planted weight per foot of K blended clips: the blend-weighted mean of their 0/1 labels.

    Args:
        labels: (..., K, n) bool labels of each clip at its own phase. weights: (..., K) blend weights
            (>= 0, positive sum). always_planted: Optional (K,) bool, clips that count as planted for
            every foot whatever their labels (a non-cycling idle / held pose).
    Returns:
        (..., n) weights in [0, 1]; >= 0.5 counts as planted in ``planted_sliding``.
    """
    lab = np.asarray(labels)
    w = np.asarray(weights, dtype=float)
    if lab.ndim < 2 or lab.dtype != bool or w.shape != lab.shape[:-1]:
        raise AnimationSettingsError(
            f"need bool labels (..., K, n) and weights (..., K); got {lab.dtype} {lab.shape} and {w.shape}"
        )
    if not (np.all(np.isfinite(w)) and np.all(w >= 0)):
        raise AnimationSettingsError("blend weights must be finite and >= 0")
    total = w.sum(axis=-1)
    if not np.all(total > 0):
        raise AnimationSettingsError("blend weights must have a positive sum")
    if always_planted is not None:
        keep = np.asarray(always_planted)
        if keep.dtype != bool or keep.shape != (lab.shape[-2],):
            raise AnimationSettingsError(f"always_planted must be bool ({lab.shape[-2]},), got {keep.shape}")
        lab = lab | keep[:, None]
    return np.einsum("...k,...kf->...f", w, lab.astype(float)) / total[..., None]


def resample_feet(feet: np.ndarray, dt: float, rate_hz: float) -> np.ndarray:
    """``feet`` (T, n, 3) sampled every ``dt`` [s], linearly interpolated in time at ``rate_hz`` [1/s]
    from t = 0 to the last sample's time (the last partial interval is dropped)."""
    feet = _feet(feet)
    dt, rate_hz = _positive("dt", dt), _positive("rate_hz", rate_hz)
    end = (feet.shape[0] - 1) * dt
    count = math.floor(end * rate_hz + 1e-9) + 1
    u = np.arange(count) / rate_hz / dt
    i0 = np.clip(np.floor(u + 1e-9).astype(int), 0, feet.shape[0] - 2)
    frac = (u - i0)[:, None, None]
    return feet[i0] * (1.0 - frac) + feet[i0 + 1] * frac


def gmd_skate_ratio(
    feet: np.ndarray,
    dt: float,
    floor_z: float | np.ndarray = 0.0,
    height_threshold_m: float = 0.05,
    speed_threshold_mps: float = 0.5,
    window: int = 5,
    rate_hz: float = 20.0,
) -> tuple[float, int]:
    """GMD's foot skating ratio of ``feet`` (T, n, 3) [m] sampled every ``dt`` [s], resampled to 20 Hz.
    Returns (ratio [0..1], number of 20 Hz steps scored: the ratio's denominator, for pooling runs).

    As ``calculate_skating_ratio`` in korrawe/guided-motion-diffusion,
    data_loaders/humanml/utils/metrics.py (commit 7bc73c0; Karunratanakul et al., ICCV 2023), used on
    HumanML3D joints 10/11: on the 20 Hz frames, foot f is in contact at step t -> t + 1 when its height
    above ``floor_z`` [m, a number or one per foot; GMD measures against the ground plane, not each
    foot's lowest point] is under 5 cm at t and t + 1; it skates when in contact AND its horizontal speed
    over the step is > 0.5 m/s AND the centred ``window``-step mean of that speed (scipy
    ``uniform_filter1d``, mode='constant': zero padded, so the ends average in zeros) is > 0.5 m/s. The
    ratio is the share of steps in which ANY foot skates (per step, over both feet; not per foot).
    """
    feet20 = resample_feet(feet, dt, rate_hz)
    if feet20.shape[0] < 2:
        raise AnimationSettingsError(f"need at least 2 samples at {rate_hz} Hz, got {feet20.shape[0]}")
    _positive("height_threshold_m", height_threshold_m)
    _positive("speed_threshold_mps", speed_threshold_mps)
    if not (isinstance(window, int) and window >= 1):
        raise AnimationSettingsError(f"window must be a number of frames >= 1, got {window!r}")
    floor = np.asarray(floor_z, dtype=float)
    if not (np.all(np.isfinite(floor)) and floor.shape in ((), (feet20.shape[1],))):
        raise AnimationSettingsError(f"floor_z must be a finite height or one per foot [m], got {floor_z!r}")
    speed = np.linalg.norm(np.diff(feet20[..., :2], axis=0), axis=-1) * rate_hz  # (T20 - 1, n)
    mean = uniform_filter1d(speed, size=window, axis=0, mode="constant", origin=0)
    low = (feet20[..., 2] - floor) < height_threshold_m
    skating = low[:-1] & low[1:] & (speed > speed_threshold_mps) & (mean > speed_threshold_mps)
    return float(np.mean(np.any(skating, axis=1))), int(skating.shape[0])


def planted_share_of_skating(
    feet: np.ndarray,
    planted: np.ndarray,
    dt: float,
    height_threshold_m: float = 0.05,
    speed_threshold_mps: float = 0.5,
) -> float:
    """Share of the old 60 Hz ratio's skating (step, foot) pairs (``metrics.skate_metrics``, per-step speed:
    within ``height_threshold_m`` of the foot's lowest height at t and t + 1 and faster than
    ``speed_threshold_mps``) on which the animation has the foot planted at t and t + 1; nan when
    nothing skates. A low share means the old ratio is counting swing feet."""
    _, both = planted_slide_steps(feet, planted, dt)
    _positive("height_threshold_m", height_threshold_m)
    _positive("speed_threshold_mps", speed_threshold_mps)
    contact, speed = contact_mask(np.asarray(feet, dtype=float), dt, height_threshold_m, None)
    skating = contact & (speed > speed_threshold_mps)
    n = int(skating.sum())
    return float((skating & both).sum()) / n if n else float("nan")
