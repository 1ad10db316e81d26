"""Pure 2-D crowd scenarios for `navigation.avoidance`: builders, a kinematic runner (x += v dt at a fixed
dt) and the same scenario run through RVO2 (the optional `pyrvo` bindings) as the reference.

`circle`: RVO2's classic. N agents evenly spaced on a circle of radius R each walk to the antipode, so
they all meet in the middle. Both runners give every agent the same preferred velocity each tick: toward
its goal at its max speed, slowing to ``distance / 1 s`` inside the last `max_speed` metres (RVO2's
example normalises the goal vector beyond 1 m the same way), and the same kinematic integration.
"""

from __future__ import annotations

import importlib
import math
import time
from dataclasses import dataclass

import numpy as np

from navigation.avoidance import AvoidanceSettings, Walls, avoid
from navigation.crowd_metrics import CrowdMetrics, arrival_ticks, crowd_metrics
from navigation.errors import CrowdError

PYRVO_MISSING = "pyrvo (RVO2's Python bindings) is not installed: the RVO2 reference run is skipped"


@dataclass(frozen=True)
class CrowdScenario:
    """Agents and their goals.

    Attributes:
        name: scenario name. positions: (N, 2) starts [m]. goals: (N, 2) [m]. radii: (N,) [m].
        max_speeds: (N,) [m/s]. arrival_radius: an agent this close to its goal has arrived [m].
        walls: static walls (`run` uses them; `run_rvo2` refuses a scenario with walls), or None.
    """

    name: str
    positions: np.ndarray
    goals: np.ndarray
    radii: np.ndarray
    max_speeds: np.ndarray
    arrival_radius: float
    walls: Walls | None = None

    @property
    def agents(self) -> int:
        return int(self.positions.shape[0])


@dataclass(frozen=True)
class CrowdRun:
    """One run of a scenario.

    Attributes:
        scenario: what was run. runner: "ours" or "rvo2". dt: tick [s].
        trajectories: (T, N, 2) centres per tick [m], the start included.
        step_ms: (T - 1,) wall time of each tick's avoidance call [ms].
        fallback_share: share of agent-ticks whose half-planes could not all be met (ours; 0 for rvo2).
        metrics: `crowd_metrics` of the trajectories.
    """

    scenario: CrowdScenario
    runner: str
    dt: float
    trajectories: np.ndarray
    step_ms: np.ndarray
    fallback_share: float
    metrics: CrowdMetrics

    @property
    def ms_per_step(self) -> float:
        """Median wall time of one tick's avoidance call [ms]."""
        return float(np.median(self.step_ms)) if self.step_ms.size else 0.0


def circle(
    n: int = 250, *, radius: float = 50.0, agent_radius: float = 0.4, max_speed: float = 1.4
) -> CrowdScenario:
    """N agents evenly spaced on a circle of `radius` [m], each going to the antipode.

    Raises:
        CrowdError: n < 1, a non-positive radius or speed, or agents that overlap at the start.
    """
    if not (isinstance(n, int) and n >= 1):
        raise CrowdError(f"n must be an integer >= 1, got {n!r}")
    for name, value in (("radius", radius), ("agent_radius", agent_radius), ("max_speed", max_speed)):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise CrowdError(f"{name} must be a finite number > 0, got {value!r}")
    if n > 1 and 2 * radius * math.sin(math.pi / n) <= 2 * agent_radius:
        raise CrowdError(f"{n} agents of radius {agent_radius} m overlap on a circle of radius {radius} m")
    angle = 2 * math.pi * np.arange(n) / n
    start = radius * np.stack([np.cos(angle), np.sin(angle)], axis=1)
    return CrowdScenario(
        name="circle",
        positions=start,
        goals=-start,
        radii=np.full(n, float(agent_radius)),
        max_speeds=np.full(n, float(max_speed)),
        arrival_radius=float(agent_radius),
    )


def corridor(
    per_side: int = 20,
    *,
    width: float = 3.0,
    rows: int = 4,
    agent_radius: float = 0.25,
    max_speed: float = 1.4,
    length: float = 60.0,
) -> CrowdScenario:
    """Two groups of `per_side` agents, `rows` abreast, 1 m between ranks, start 6 m either side of the
    middle of a straight corridor `width` [m] wide and `length` [m] long (two wall segments) and swap
    sides in the same formation, each keeping its row: the two groups must pass each other. The front rank
    goes to the far rank of the formation on the other side (no one passes through agents already on
    their goals).

    Raises:
        CrowdError: counts < 1, non-positive sizes, or rows that do not fit across the corridor.
    """
    if not (isinstance(per_side, int) and per_side >= 1 and isinstance(rows, int) and rows >= 1):
        raise CrowdError(f"per_side and rows must be integers >= 1, got {per_side!r}, {rows!r}")
    for name, value in (("width", width), ("agent_radius", agent_radius), ("max_speed", max_speed)):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise CrowdError(f"{name} must be a finite number > 0, got {value!r}")
    spacing = (width - 2 * agent_radius) / rows
    if spacing <= 2 * agent_radius:
        raise CrowdError(f"{rows} agents of radius {agent_radius} m do not fit abreast in {width} m")
    ys = (np.arange(rows) - (rows - 1) / 2) * spacing
    xs = 6.0 + np.arange(math.ceil(per_side / rows))
    left = np.array([[-x, y] for x in xs for y in ys])[:per_side]
    right = -left
    half = max(length / 2, float(xs[-1]) + 2.0)
    walls = Walls.from_segments(
        [[-half, -width / 2], [-half, width / 2]], [[half, -width / 2], [half, width / 2]], cell_size=1.0
    )
    starts = np.concatenate([left, right])
    # the front rank goes farthest, so no one has to pass through ranks already standing on their goals
    goals = np.stack([-np.sign(starts[:, 0]) * (xs[0] + xs[-1] - np.abs(starts[:, 0])), starts[:, 1]], axis=1)
    return CrowdScenario(
        name="corridor",
        positions=starts,
        goals=goals,
        radii=np.full(len(starts), float(agent_radius)),
        max_speeds=np.full(len(starts), float(max_speed)),
        arrival_radius=float(agent_radius),
        walls=walls,
    )


def preferred_velocities(positions: np.ndarray, goals: np.ndarray, max_speeds: np.ndarray) -> np.ndarray:
    """(N, 2) toward the goal at max speed, or at distance / 1 s when closer than max speed [m/s]."""
    to_goal = goals - positions
    dist = np.linalg.norm(to_goal, axis=1)
    scale = np.where(dist > max_speeds, max_speeds / np.maximum(dist, 1e-12), 1.0)
    out: np.ndarray = to_goal * scale[:, None]
    return out


def _max_ticks(scenario: CrowdScenario, dt: float, max_time_s: float | None) -> int:
    if max_time_s is None:  # three times the longest straight walk, and at least a minute
        ideal = np.linalg.norm(scenario.goals - scenario.positions, axis=1) / scenario.max_speeds
        max_time_s = max(60.0, 3.0 * float(ideal.max()))
    if not (math.isfinite(dt) and dt > 0 and math.isfinite(max_time_s) and max_time_s > 0):
        raise CrowdError(f"dt and max_time_s must be finite and > 0 [s], got {dt!r}, {max_time_s!r}")
    return max(1, math.ceil(max_time_s / dt))


def _finish(
    scenario: CrowdScenario, runner: str, dt: float, traj: list[np.ndarray], ms: list[float], fb: float
) -> CrowdRun:
    stacked = np.stack(traj)
    metrics = crowd_metrics(
        stacked, scenario.radii, scenario.goals, dt, arrival_radius=scenario.arrival_radius
    )
    return CrowdRun(scenario, runner, dt, stacked, np.array(ms), fb, metrics)


def _all_arrived(scenario: CrowdScenario, traj: list[np.ndarray]) -> bool:
    return bool((arrival_ticks(np.stack(traj[-1:]), scenario.goals, scenario.arrival_radius) >= 0).all())


def run(
    scenario: CrowdScenario,
    *,
    dt: float = 0.05,
    settings: AvoidanceSettings | None = None,
    max_time_s: float | None = None,
) -> CrowdRun:
    """Run `scenario` with `navigation.avoidance.avoid` until every agent has arrived (or `max_time_s`
    [s], default three times the longest straight walk): each tick, the preferred velocities, one `avoid`
    call (timed), then x += v dt.

    Raises:
        CrowdError: a non-positive dt or max_time_s.
    """
    ticks = _max_ticks(scenario, dt, max_time_s)
    pos = scenario.positions.astype(np.float64, copy=True)
    vel = np.zeros_like(pos)
    traj, ms = [pos.copy()], []
    reached = np.zeros(scenario.agents, bool)
    fallbacks = 0
    for _ in range(ticks):
        pref = preferred_velocities(pos, scenario.goals, scenario.max_speeds)
        t0 = time.perf_counter()
        result = avoid(
            pos,
            vel,
            pref,
            scenario.radii,
            scenario.max_speeds,
            dt=dt,
            walls=scenario.walls,
            settings=settings,
        )
        ms.append((time.perf_counter() - t0) * 1e3)
        fallbacks += int(result.fallback.sum())
        vel = result.velocities
        pos = pos + vel * dt
        traj.append(pos.copy())
        reached |= np.linalg.norm(pos - scenario.goals, axis=1) <= scenario.arrival_radius
        if reached.all():
            break
    return _finish(scenario, "ours", dt, traj, ms, fallbacks / max(1, len(ms) * scenario.agents))


def rvo2_available() -> bool:
    """True when the `pyrvo` RVO2 bindings can be imported."""
    try:
        importlib.import_module("pyrvo")
    except ImportError:
        return False
    return True


def run_rvo2(
    scenario: CrowdScenario,
    *,
    dt: float = 0.05,
    settings: AvoidanceSettings | None = None,
    max_time_s: float | None = None,
) -> CrowdRun:
    """The same run through RVO2 (`pyrvo.RVOSimulator`, float32 C++) with the same neighbour distance,
    neighbour count and time horizons: the reference `run` is compared with. The timing is `do_step`'s.

    Raises:
        CrowdError: pyrvo is not installed (`PYRVO_MISSING`), the scenario has walls (RVO2 takes obstacle
            polygons, not segments), or a non-positive dt or max_time_s.
    """
    if scenario.walls is not None:
        raise CrowdError("run_rvo2 runs scenarios without walls only (RVO2 takes obstacle polygons)")
    try:
        pyrvo = importlib.import_module("pyrvo")
    except ImportError as error:
        raise CrowdError(PYRVO_MISSING) from error
    s = AvoidanceSettings() if settings is None else settings
    ticks = _max_ticks(scenario, dt, max_time_s)
    sim = pyrvo.RVOSimulator()
    sim.set_time_step(dt)
    for p, r, v in zip(scenario.positions, scenario.radii, scenario.max_speeds, strict=True):
        sim.add_agent(
            (float(p[0]), float(p[1])), s.neighbour_distance, s.max_neighbours, s.time_horizon,
            s.time_horizon_walls, float(r), float(v), (0.0, 0.0),
        )  # fmt: skip
    n = scenario.agents
    pos = scenario.positions.astype(np.float64, copy=True)
    traj, ms = [pos.copy()], []
    reached = np.zeros(n, bool)
    for _ in range(ticks):
        pref = preferred_velocities(pos, scenario.goals, scenario.max_speeds)
        for i in range(n):
            sim.set_agent_pref_velocity(i, (float(pref[i, 0]), float(pref[i, 1])))
        t0 = time.perf_counter()
        sim.do_step()
        ms.append((time.perf_counter() - t0) * 1e3)
        pos = np.array([sim.get_agent_position(i).to_tuple() for i in range(n)], dtype=np.float64)
        traj.append(pos)
        reached |= np.linalg.norm(pos - scenario.goals, axis=1) <= scenario.arrival_radius
        if reached.all():
            break
    return _finish(scenario, "rvo2", dt, traj, ms, 0.0)
