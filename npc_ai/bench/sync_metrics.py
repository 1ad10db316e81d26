"""What the sync benchmark measures on one driven route (definitions in docs/metrics.md).

A `RouteTrace` holds, for every tick boundary, the body's feet position and facing, the animated feet in
the character frame (before any foot locking), the shown feet in the world (after it) and how planted the
animation says each foot is; and for every tick the root motion the animator produced and the velocity
the coupling gave the body. From it, `route_metrics` computes:

- **planted-foot sliding**: horizontal displacement of the shown feet over steps where the animation has
  the foot planted at both ends (weight >= 0.5), per metre travelled and per second of planted foot time,
  and the share of planted steps slipping faster than 0.2 m/s; split by phase (start: first second;
  stop: from one second before arrival to the end of the recording, which runs on after arrival; turn:
  facing turning faster than 45 deg/s; steady: the rest).
- **coupling excess**: the animated (unlocked) foot step minus the step the animation alone would make on
  the same tick (the body moved exactly by its root motion), split into physics (the body did not move as
  commanded), speed mismatch (the command differs from the root motion) and turning (code turned the
  facing other than the root motion's yaw). Reported as cm/s over planted foot time, over the ticks on
  which nothing outside the coupling pushed the body (a benchmark shove is not the coupling's doing; the
  excess with those ticks is reported too).
- **GMD skating ratio at 20 Hz** on the shown feet, heights taken above the body's ground point.
- the old 60 Hz skate ratio, with the share of its skating steps that are planted steps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from npc_ai.animation import skate_metrics
from npc_ai.animation.sliding import (
    SLIP_THRESHOLD_MPS,
    gmd_skate_ratio,
    planted_share_of_skating,
    planted_slide_steps,
)

TURN_RATE = math.radians(45.0)  # facing turning faster than this makes a step a turn step [rad/s]
PHASE_S = 1.0  # start and stop phases last this long [s]
PHASES = ("start", "steady", "turn", "stop")


@dataclass
class RouteTrace:
    """Per tick boundary (T + 1) and per tick (T) records of one route; world Z-up, metres, radians."""

    dt: float
    position: np.ndarray  # (T+1, 3) body feet position
    yaw: np.ndarray  # (T+1,) facing
    local_feet: np.ndarray  # (T+1, 2, 3) animated feet in the character frame (x forward, y left)
    feet: np.ndarray  # (T+1, 2, 3) shown feet in the world (after foot locking, if any)
    planted: np.ndarray  # (T+1, 2) planted weight of each foot
    root_motion: np.ndarray  # (T, 3) root displacement in the character frame
    root_yaw: np.ndarray  # (T,) root yaw change
    command: np.ndarray  # (T, 2) horizontal world velocity given to the body [m/s]
    arrival: int | None  # tick index of arrival (None: not reached)
    stretch: np.ndarray  # (T+1,) largest leg extension beyond its length after foot locking [m]
    clamp: np.ndarray  # (T+1,) how far foot locking had to pull an IK target in to reach it [m]
    pose_error: np.ndarray  # (T+1,) largest distance of a locked ankle from the animated one [m]
    shoved: np.ndarray | None = None  # (T,) ticks on which something outside the coupling pushed the body


def _rotate(yaw: np.ndarray, local: np.ndarray) -> np.ndarray:
    """Rotate character-frame vectors (..., 3) about z by `yaw` (broadcast over the leading axis)."""
    c, s = np.cos(yaw), np.sin(yaw)
    while c.ndim < local.ndim - 1:
        c, s = c[..., None], s[..., None]
    x, y = local[..., 0], local[..., 1]
    return np.stack([c * x - s * y, s * x + c * y, local[..., 2]], axis=-1)


def phase_of_steps(trace: RouteTrace) -> np.ndarray:
    """(T,) phase index (into `PHASES`) of each tick."""
    n = len(trace.root_yaw)
    t = np.arange(n) * trace.dt
    turn = np.abs(np.angle(np.exp(1j * np.diff(trace.yaw)))) / trace.dt > TURN_RATE
    out = np.where(turn, 2, 1)
    out[t < PHASE_S] = 0
    end = trace.arrival if trace.arrival is not None else n
    out[t >= (end * trace.dt - PHASE_S)] = 3
    return out


@dataclass(frozen=True)
class RouteMetrics:
    """Sums over one route, so modes aggregate by adding (see `aggregate`)."""

    travelled_m: float
    planted_s: float  # planted foot time [s] (a foot planted over a tick adds dt)
    slide_cm: float
    slips: int
    planted_steps: int
    phase_slide_cm: tuple[float, ...]  # per phase of PHASES
    phase_planted_s: tuple[float, ...]
    excess_cm: float
    excess_all_cm: float  # with the shoved ticks
    own_planted_s: float  # planted foot time on unshoved ticks [s]
    excess_physics_cm: float
    excess_speed_cm: float
    excess_turn_cm: float
    intrinsic_cm: float
    gmd20: float
    gmd20_frames: int
    skate60: float
    skate60_planted_share: float
    ik_max_stretch_m: float
    ik_max_clamp_m: float
    ik_max_pose_error_m: float

    @property
    def cm_per_m(self) -> float:
        return self.slide_cm / self.travelled_m if self.travelled_m > 0 else math.nan


def route_metrics(trace: RouteTrace) -> RouteMetrics:
    """Every metric of one route (module docstring)."""
    dt = trace.dt
    pos, yaw = trace.position, trace.yaw
    slide, both = planted_slide_steps(trace.feet, trace.planted, dt)  # (T, 2) [m], planted at both ends
    phase = phase_of_steps(trace)
    # the animated (unlocked) feet, and where the animation alone would have put them
    shown = pos[:, None, :] + _rotate(yaw, trace.local_feet)
    ideal_pos = pos[:-1] + _rotate(yaw[:-1], trace.root_motion)
    ideal_yaw = yaw[:-1] + trace.root_yaw
    ideal = ideal_pos[:, None, :] + _rotate(ideal_yaw, trace.local_feet[1:])
    physics = np.diff(pos, axis=0)
    physics[:, :2] -= trace.command * dt
    speed = np.zeros_like(physics)
    speed[:, :2] = trace.command * dt - _rotate(yaw[:-1], trace.root_motion)[:, :2]
    turn = _rotate(yaw[1:], trace.local_feet[1:]) - _rotate(ideal_yaw, trace.local_feet[1:])

    own = both if trace.shoved is None else both & ~trace.shoved[:, None]  # the coupling's own ticks

    def planted_cm(v: np.ndarray, mask: np.ndarray = own) -> float:
        """Planted-step sum of |v|_xy [cm]; v is per foot (T, 2, 3) or per body (T, 3)."""
        per_foot = np.linalg.norm((v if v.ndim == 3 else v[:, None, :])[..., :2], axis=-1)
        return float(100 * np.where(mask, per_foot, 0.0).sum())

    excess = shown[1:] - ideal
    intrinsic = np.linalg.norm((ideal - shown[:-1])[..., :2], axis=-1)
    ground = pos[:, None, 2]
    above = trace.feet.copy()
    above[..., 2] -= ground
    gmd, frames = gmd_skate_ratio(above, dt) if len(above) * dt >= 0.1 else (math.nan, 0)
    travelled = float(np.linalg.norm(np.diff(pos[:, :2], axis=0), axis=1).sum())
    old = skate_metrics(above, dt) if len(above) > 2 else None
    return RouteMetrics(
        travelled_m=travelled,
        planted_s=float(both.sum() * dt),
        slide_cm=float(100 * slide.sum()),
        slips=int((both & (slide / dt > SLIP_THRESHOLD_MPS)).sum()),
        planted_steps=int(both.sum()),
        phase_slide_cm=tuple(float(100 * slide[phase == k].sum()) for k in range(len(PHASES))),
        phase_planted_s=tuple(float(both[phase == k].sum() * dt) for k in range(len(PHASES))),
        excess_cm=planted_cm(excess),
        excess_all_cm=planted_cm(excess, both),
        own_planted_s=float(own.sum() * dt),
        excess_physics_cm=planted_cm(physics),
        excess_speed_cm=planted_cm(speed),
        excess_turn_cm=planted_cm(turn),
        intrinsic_cm=float(100 * np.where(both, intrinsic, 0.0).sum()),
        gmd20=gmd,
        gmd20_frames=frames,
        skate60=old.skate_ratio if old is not None else math.nan,
        skate60_planted_share=planted_share_of_skating(above, trace.planted, dt),
        ik_max_stretch_m=float(trace.stretch.max(initial=0.0)),
        ik_max_clamp_m=float(trace.clamp.max(initial=0.0)),
        ik_max_pose_error_m=float(trace.pose_error.max(initial=0.0)),
    )


def aggregate(runs: list[RouteMetrics]) -> dict[str, float]:
    """Pooled metrics of a mode (sums over routes, then ratios)."""

    def ratio(a: float, b: float) -> float:
        return a / b if b > 0 else math.nan

    planted = sum(r.planted_s for r in runs)
    own = sum(r.own_planted_s for r in runs)
    frames = sum(r.gmd20_frames for r in runs)
    out = {
        "planted_slide_cm_per_m": ratio(sum(r.slide_cm for r in runs), sum(r.travelled_m for r in runs)),
        "planted_slide_cmps": ratio(sum(r.slide_cm for r in runs), planted),
        "planted_slip_share": ratio(sum(r.slips for r in runs), sum(r.planted_steps for r in runs)),
        "coupling_excess_cmps": ratio(sum(r.excess_cm for r in runs), own),
        "coupling_excess_physics_cmps": ratio(sum(r.excess_physics_cm for r in runs), own),
        "coupling_excess_speed_cmps": ratio(sum(r.excess_speed_cm for r in runs), own),
        "coupling_excess_turn_cmps": ratio(sum(r.excess_turn_cm for r in runs), own),
        "coupling_excess_with_shoves_cmps": ratio(sum(r.excess_all_cm for r in runs), planted),
        "animation_slide_cmps": ratio(sum(r.intrinsic_cm for r in runs), planted),
        "gmd20_skate_ratio": ratio(sum(r.gmd20 * r.gmd20_frames for r in runs if r.gmd20_frames), frames),
        "skate60_planted_share": float(np.nanmean([r.skate60_planted_share for r in runs])),
        "ik_max_stretch_m": max((r.ik_max_stretch_m for r in runs), default=0.0),
        "ik_max_clamp_m": max((r.ik_max_clamp_m for r in runs), default=0.0),
        "ik_max_pose_error_m": max((r.ik_max_pose_error_m for r in runs), default=0.0),
    }
    for k, name in enumerate(PHASES):
        out[f"{name}_slide_cmps"] = ratio(
            sum(r.phase_slide_cm[k] for r in runs), sum(r.phase_planted_s[k] for r in runs)
        )
    return out


def paired_difference(
    a: np.ndarray, b: np.ndarray, rng: np.random.Generator, resamples: int = 2000
) -> dict[str, float]:
    """Per-route paired difference a - b: mean and a percentile bootstrap 95 % interval over routes,
    and the ratio sum(a) / sum(b) with its bootstrap interval. NaN routes are left out."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    if len(a) == 0:
        return {
            "mean": math.nan,
            "ci_low": math.nan,
            "ci_high": math.nan,
            "ratio": math.nan,
            "ratio_ci_low": math.nan,
            "ratio_ci_high": math.nan,
            "routes": 0,
        }
    idx = rng.integers(0, len(a), size=(resamples, len(a)))
    diffs = (a - b)[idx].mean(axis=1)
    ratios = a[idx].sum(axis=1) / np.maximum(b[idx].sum(axis=1), 1e-12)
    return {
        "mean": float((a - b).mean()),
        "ci_low": float(np.percentile(diffs, 2.5)),
        "ci_high": float(np.percentile(diffs, 97.5)),
        "ratio": float(a.sum() / b.sum()) if b.sum() > 0 else math.nan,
        "ratio_ci_low": float(np.percentile(ratios, 2.5)),
        "ratio_ci_high": float(np.percentile(ratios, 97.5)),
        "routes": len(a),
    }
