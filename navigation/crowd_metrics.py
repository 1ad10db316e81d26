"""Crowd metrics from trajectories alone (the `npc-ai bench crowd` figures), for any runner.

Input: agent centres per tick, trajectories (T, N, 2) [m] (tick t at time t * dt), radii (N,) [m], goals
(N, 2) [m], the tick dt [s] and an arrival radius [m]. Velocities are finite differences of positions,
``v_t = (x_{t+1} - x_t) / dt``. Definitions:

- agents: N.
- completed_share: share of agents that came within `arrival_radius` of their goal at some tick.
- time_to_complete_s: time of the first tick by which every agent had arrived [s]; None when some never did.
- min_separation_m: the minimum over ticks and pairs of (centre distance - sum of the two radii) [m];
  negative is an overlap. None for fewer than two agents.
- overlap_ticks: ticks at which some pair is closer than the sum of its radii minus `OVERLAP_TOLERANCE`
  (1 cm).
- deadlocked_agents: agents that never arrived and whose distance to their goal shrank by less than
  `deadlock_progress_m` over the last `deadlock_window_s` of the run (over the whole run when it is
  shorter): stuck, not merely slow.
- jitter_deg_per_s: the mean, over every agent and pair of consecutive velocity samples at which the
  agent moves faster than `moving_speed` in both, of |heading change| / dt [deg/s], the change wrapped to
  [-180, 180] deg. Steady turning counts too: a circle of radius r at speed v scores v / r rad/s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.spatial import cKDTree

from navigation.errors import CrowdError

OVERLAP_TOLERANCE = 0.01  # [m] a pair overlaps when closer than the sum of its radii minus this


@dataclass(frozen=True)
class CrowdMetrics:
    """The crowd figures of one run (see the module docstring for each definition).

    Attributes:
        agents: number of agents. completed_share: [0, 1]. time_to_complete_s: [s] or None.
        min_separation_m: [m] or None. overlap_ticks: ticks with an overlap.
        deadlocked_agents: agents stuck short of their goal. jitter_deg_per_s: [deg/s].
    """

    agents: int
    completed_share: float
    time_to_complete_s: float | None
    min_separation_m: float | None
    overlap_ticks: int
    deadlocked_agents: int
    jitter_deg_per_s: float

    def to_json(self) -> dict[str, Any]:
        """The issue's JSON keys (without ms_per_step, which the runner adds)."""
        return {
            "agents": self.agents,
            "completed_share": self.completed_share,
            "time_to_complete_s": self.time_to_complete_s,
            "min_separation_m": self.min_separation_m,
            "overlap_ticks": self.overlap_ticks,
            "deadlocked_agents": self.deadlocked_agents,
            "jitter_deg_per_s": self.jitter_deg_per_s,
        }


def _check(trajectories: Any, radii: Any, goals: Any, dt: float) -> tuple[np.ndarray, ...]:
    traj = np.asarray(trajectories, dtype=np.float64)
    if traj.ndim != 3 or traj.shape[2] != 2 or traj.shape[0] < 1:
        raise CrowdError(f"trajectories must have shape (T >= 1, N, 2) [m], got {traj.shape}")
    n = traj.shape[1]
    rad = np.asarray(radii, dtype=np.float64)
    goal = np.asarray(goals, dtype=np.float64)
    if rad.shape != (n,) or goal.shape != (n, 2):
        raise CrowdError(
            f"radii must be (N,) and goals (N, 2) with N = {n}, got {rad.shape} and {goal.shape}"
        )
    if not (
        np.isfinite(traj).all() and np.isfinite(goal).all() and np.isfinite(rad).all() and (rad >= 0).all()
    ):
        raise CrowdError("trajectories, goals and radii must be finite, radii >= 0 [m]")
    if not (isinstance(dt, (int, float)) and math.isfinite(dt) and dt > 0):
        raise CrowdError(f"dt must be a finite number > 0 [s], got {dt!r}")
    return traj, rad, goal


def separations(trajectories: Any, radii: Any) -> np.ndarray:
    """(T,) per tick, the minimum over pairs of centre distance minus the sum of the radii [m] (inf for
    fewer than two agents). Exact: a k-d tree's nearest neighbours bound which pairs can be the closest."""
    traj = np.asarray(trajectories, dtype=np.float64)
    rad = np.asarray(radii, dtype=np.float64)
    t_count, n = traj.shape[0], traj.shape[1]
    out = np.full(t_count, np.inf)
    if n < 2:
        return out
    r_min, r_max = float(rad.min()), float(rad.max())
    for t in range(t_count):
        tree = cKDTree(traj[t])
        nearest, _ = tree.query(traj[t], k=2)
        # the best pair's separation is at most min(nearest) - 2 r_min, so its distance is at most:
        reach = float(nearest[:, 1].min()) + 2.0 * (r_max - r_min)
        pairs = tree.query_pairs(reach * (1 + 1e-12) + 1e-12, output_type="ndarray")
        if len(pairs):
            d = np.linalg.norm(traj[t, pairs[:, 0]] - traj[t, pairs[:, 1]], axis=1)
            out[t] = float((d - rad[pairs[:, 0]] - rad[pairs[:, 1]]).min())
    return out


def arrival_ticks(trajectories: Any, goals: Any, arrival_radius: float) -> np.ndarray:
    """(N,) the first tick at which each agent is within `arrival_radius` [m] of its goal; -1 if never."""
    traj = np.asarray(trajectories, dtype=np.float64)
    dist = np.linalg.norm(traj - np.asarray(goals, dtype=np.float64)[None], axis=2)
    inside = dist <= arrival_radius
    return np.where(inside.any(axis=0), np.argmax(inside, axis=0), -1)


def jitter(trajectories: Any, dt: float, moving_speed: float) -> float:
    """Mean |heading change| per second while moving [deg/s] (module docstring); 0 when nothing moves."""
    traj = np.asarray(trajectories, dtype=np.float64)
    if traj.shape[0] < 3:
        return 0.0
    v = np.diff(traj, axis=0) / dt
    speed = np.linalg.norm(v, axis=2)
    heading = np.arctan2(v[..., 1], v[..., 0])
    turn = np.abs((np.diff(heading, axis=0) + math.pi) % (2 * math.pi) - math.pi)
    moving = (speed[1:] > moving_speed) & (speed[:-1] > moving_speed)
    if not moving.any():
        return 0.0
    return float(np.degrees(turn[moving].mean()) / dt)


def crowd_metrics(
    trajectories: Any,
    radii: Any,
    goals: Any,
    dt: float,
    *,
    arrival_radius: float,
    moving_speed: float = 0.1,
    deadlock_window_s: float = 5.0,
    deadlock_progress_m: float = 0.25,
) -> CrowdMetrics:
    """The crowd figures of one run (module docstring).

    Args:
        trajectories: (T, N, 2) agent centres per tick [m]. radii: (N,) [m]. goals: (N, 2) [m].
        dt: tick [s]. arrival_radius: an agent this close to its goal has arrived [m, >= 0].
        moving_speed: slower than this an agent's heading is not counted in the jitter [m/s, >= 0].
        deadlock_window_s: the window of the deadlock test [s, > 0].
        deadlock_progress_m: least progress toward the goal over the window of an agent not stuck [m, >= 0].

    Raises:
        CrowdError: inconsistent shapes, non-finite values or out-of-range parameters.
    """
    traj, rad, goal = _check(trajectories, radii, goals, dt)
    for name, value in (
        ("arrival_radius", arrival_radius),
        ("moving_speed", moving_speed),
        ("deadlock_progress_m", deadlock_progress_m),
    ):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
            raise CrowdError(f"{name} must be a finite number >= 0, got {value!r}")
    if not (
        isinstance(deadlock_window_s, (int, float))
        and math.isfinite(deadlock_window_s)
        and deadlock_window_s > 0
    ):
        raise CrowdError(f"deadlock_window_s must be a finite number > 0 [s], got {deadlock_window_s!r}")
    t_count, n = traj.shape[0], traj.shape[1]
    arrived = arrival_ticks(traj, goal, arrival_radius)
    done = arrived >= 0
    complete = float(arrived.max() * dt) if n and done.all() else None
    sep = separations(traj, rad)
    window = min(t_count - 1, max(1, round(deadlock_window_s / dt)))
    dist = np.linalg.norm(traj - goal[None], axis=2)
    progress = dist[t_count - 1 - window] - dist[t_count - 1]
    stuck = ~done & (progress < deadlock_progress_m)
    return CrowdMetrics(
        agents=n,
        completed_share=float(done.mean()) if n else 1.0,
        time_to_complete_s=complete if n else 0.0,
        min_separation_m=float(sep.min()) if n >= 2 else None,
        overlap_ticks=int((sep < -OVERLAP_TOLERANCE).sum()),
        deadlocked_agents=int(stuck.sum()),
        jitter_deg_per_s=jitter(traj, dt, moving_speed),
    )
