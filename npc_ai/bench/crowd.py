"""`npc-ai bench crowd`: local avoidance on the four crowd scenarios of issue 15, with the figures of
`navigation.crowd_metrics` for each.

Scenarios:

- `circle`: N agents on a circle swap to the antipode (RVO2's classic, N = 250), the pure 2-D scenario of
  `navigation.crowd_scenarios` (`run`), and the same scenario through RVO2 (`run_rvo2`, the optional
  `pyrvo` peer) as the reference, in the same run.
- `doorway`: 40 NPCs in the real simulation on the built-in `warehouse`, half on each side of its inner
  wall (y = 8.25 m), each sent through the doorways (x = -12 and x = 10 m, 2 m wide) to a point on the
  other side: the south agent k swaps with the north agent k. No start or goal lies within 2.5 m of a
  doorway's axis: an NPC that arrives in a doorway's mouth stands there and plugs it for everyone (the
  first layout had goals 0.44 m off the west doorway's axis, 0.5 m from the wall: the doorway deadlocked
  on them whatever the avoidance did).
- `corridor`: two groups of 20 NPCs pass each other in a 3 m wide corridor (wall face to wall face). No
  built-in scene has one (the warehouse's aisles are 2.8 m between shelves and open at the cross aisle),
  so the benchmark builds the scene `CORRIDOR_SCENE` in code: a 36 m corridor closed at both ends.
  Its 2.2 m between the eroded walls take three bodies of 0.8 m abreast, and four only staggered. From
  the issue's layout, two mirror images, the groups pass in four staggered files (each inner file 0.3-0.5
  m off the middle, half a rank behind its wall file) at 0.4-0.9 m/s; from starts moved 0.15 m
  (`--layouts`) the mirror breaks, and in the slow runs traced (layouts 5, 10 and 12) an inner agent of
  each group ends up in the middle, head-on with the other's, between the two wall files, and both stand
  there 10 s, until those have passed. The last to arrive then spend 11-23 s on their last 2-6 m, through
  the goal formation that has filled meanwhile (layouts 2, 7, 9, 15 and 44): out of their ranks' order,
  they are bound for slots beyond agents already parked or still arriving.
- `chase`: 10 guards run to a still player standing in a warehouse aisle (go_to the player's feet at
  their run speed), plus the ticks at which some body is inside a wall (`wall_overlap_ticks`). The
  avoidance steers the agents, which lead the bodies (by 0.13 m in the median at run speed, up to the
  drift limit), and lets two agents pass just touching: a body that lags its agent's sidestep runs into
  another's flank at up to 2.9 m/s. The bodies' speculative contacts (`npc_ai.body.speculative`) keep
  them apart: with Bullet's own, made within 2 cm, the contact came a step late, and such bodies went up
  to 3 cm into each other (the issue's layout and moved layouts 0-79: on 16 of 81).

Every simulation scenario runs twice in the same process: with avoidance (`AvoidanceSettings()`) and
with `SimulationSettings.avoidance = None` (the capsules only push each other), reported side by side.
Each NPC is driven by a controller that calls `npc.go_to(goal, speed)` once; its feet are recorded every
tick, and the radii given to `crowd_metrics` are the agents' (`sim.locomotion.agents.radius`).

`overlap_ticks_body_radius` counts the overlaps of the capsules themselves (radius
`sim.locomotion.radius`): the same as `overlap_ticks` with the default capsules, which are the agents'
radius (0.4 m on the warehouse); with smaller capsules, bodies that merely touch count as overlapping
agents.

Timings: `ms_per_step` is the median wall time of `Crowd.steer` per tick [ms] (the avoidance share; the
median `navigation.avoidance.avoid` call for `circle`), `tick_ms` the median whole `Simulation.step`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from navigation.avoidance import AvoidanceSettings
from navigation.crowd_metrics import OVERLAP_TOLERANCE, crowd_metrics, separations
from navigation.crowd_scenarios import PYRVO_MISSING, circle, run, run_rvo2, rvo2_available
from navigation.navmesh import NavMesh
from navigation.query import NavMeshQuery
from npc_ai.bench.names import CROWD_SCENARIOS
from npc_ai.errors import BenchmarkSettingsError
from npc_ai.sim.player import PlayerSettings
from npc_ai.sim.simulation import Simulation, SimulationSettings
from scenes import NpcSpawn, PlayerSpawn, Scene, groups, load_builtin, parse_scene

SCENARIOS = CROWD_SCENARIOS
METRIC_KEYS = (
    "agents",
    "completed_share",
    "time_to_complete_s",
    "min_separation_m",
    "overlap_ticks",
    "deadlocked_agents",
    "jitter_deg_per_s",
    "ms_per_step",
)
WALL_DEPTH = 0.01  # [m] a body deeper than this inside static geometry (not the floor) is in a wall
CHASE_PLAYER = (0.5, -5.5, 0.0)  # [m] the still player: in the cross aisle between two shelf rows
CHASE_ARRIVAL = 2.0  # [m] a guard this close to the player has arrived (ten bodies cannot all touch it)
SIM_ARRIVAL = 0.5  # [m] arrival radius of the doorway and corridor NPCs (agent radius 0.4 + 0.1)
IDEAL_FACTOR = 1.5  # the bar: doorway and corridor done within this factor of the ideal time
DOORWAYS_X = (-12.0, 10.0)  # [m] the axes of the warehouse inner wall's two doorways
DOORWAY_CLEARANCE = 2.5  # [m] no doorway start or goal nearer a doorway's axis than this

CORRIDOR_SCENE = """
[scene]
name = "corridor_3m"
description = "a 36 m corridor, 3 m between the wall faces, closed at both ends (npc-ai bench crowd)"

[floor]
size = [38.0, 6.0]

[navmesh]
agent_radius = 0.4
agent_height = 1.8
max_climb = 0.4
max_slope_deg = 45.0
cell_size = 0.1
cell_height = 0.1

[[box]]
name = "wall_north"
center = [0.0, 1.75, 1.5]
size = [37.0, 0.5, 3.0]

[[box]]
name = "wall_south"
center = [0.0, -1.75, 1.5]
size = [37.0, 0.5, 3.0]

[[box]]
name = "wall_east"
center = [18.25, 0.0, 1.5]
size = [0.5, 4.0, 3.0]

[[box]]
name = "wall_west"
center = [-18.25, 0.0, 1.5]
size = [0.5, 4.0, 3.0]
"""

Progress = Callable[[str, int, int | None], None]


def _no_progress(stage: str, done: int, total: int | None) -> None:
    pass


@dataclass(frozen=True)
class CrowdBenchSettings:
    """Sizes of the scenarios.

    Attributes:
        circle_agents: agents on the circle [>= 2]. circle_radius: its radius [m, > 0].
        doorway_agents: NPCs crossing the warehouse inner wall [even, >= 2, <= 40].
        corridor_per_side: NPCs in each group of the corridor [>= 1, <= 20].
        chase_guards: guards converging on the player [>= 1, <= 10].
        seed: the simulations' seed. peer: run the pyrvo reference when installed.
        bodies: the NPC bodies of the simulated scenarios (`SimulationSettings.bodies`).
        layouts: extra runs of each simulated scenario, with avoidance, from starts each moved by a seeded
            normal offset of `jitter_m` [m] per axis (kept only where it stays on the navmesh) [0..100]:
            how much of the result holds off the one layout. jitter_m: that offset's deviation [m, > 0].
        first_layout: the first layout's number [0..100000]: layout k draws its offsets from the generator
            seeded with (seed, k), k from `first_layout` on (a second set of layouts, not looked at while
            tuning, is `first_layout` = the first set's count).
    """

    circle_agents: int = 250
    circle_radius: float = 50.0
    doorway_agents: int = 40
    corridor_per_side: int = 20
    chase_guards: int = 10
    seed: int = 0
    peer: bool = True
    bodies: str = "dynamic"
    layouts: int = 0
    jitter_m: float = 0.15
    first_layout: int = 0

    def __post_init__(self) -> None:
        checks = (
            ("layouts", self.layouts, 0, 100),
            ("first_layout", self.first_layout, 0, 100_000),
            ("circle_agents", self.circle_agents, 2, 10_000),
            ("doorway_agents", self.doorway_agents, 2, 40),
            ("corridor_per_side", self.corridor_per_side, 1, 20),
            ("chase_guards", self.chase_guards, 1, 10),
        )
        for name, value, low, high in checks:
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise BenchmarkSettingsError(f"{name} must be an integer in {low}..{high}, got {value!r}")
        if self.doorway_agents % 2:
            raise BenchmarkSettingsError(f"doorway_agents must be even, got {self.doorway_agents}")
        r = self.circle_radius
        if isinstance(r, bool) or not isinstance(r, (int, float)) or not (math.isfinite(r) and r > 0):
            raise BenchmarkSettingsError(f"circle_radius must be a finite number > 0 [m], got {r!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise BenchmarkSettingsError(f"seed must be an integer >= 0, got {self.seed!r}")
        j = self.jitter_m
        if isinstance(j, bool) or not isinstance(j, (int, float)) or not (math.isfinite(j) and 0 < j <= 5):
            raise BenchmarkSettingsError(f"jitter_m must be a number in (0, 5] [m], got {j!r}")
        if self.bodies not in ("dynamic", "kinematic"):
            raise BenchmarkSettingsError(f"bodies must be 'dynamic' or 'kinematic', got {self.bodies!r}")

    @classmethod
    def quick(
        cls,
        seed: int = 0,
        peer: bool = True,
        bodies: str = "dynamic",
        layouts: int = 0,
        jitter_m: float = 0.15,
        first_layout: int = 0,
    ) -> CrowdBenchSettings:
        """A smaller version of every scenario (about a minute in all)."""
        return cls(
            circle_agents=60, circle_radius=20.0, doorway_agents=12, corridor_per_side=6, chase_guards=4,
            seed=seed, peer=peer, bodies=bodies, layouts=layouts, jitter_m=jitter_m,
            first_layout=first_layout,
        )  # fmt: skip


def check_scenarios(names: Sequence[str]) -> tuple[str, ...]:
    """The scenarios to run, in the benchmark's order.

    Raises:
        BenchmarkSettingsError: an unknown or repeated name, or none.
    """
    names = list(names)
    if not names:
        raise BenchmarkSettingsError(f"no scenarios: choose from {', '.join(SCENARIOS)}")
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        raise BenchmarkSettingsError(f"unknown scenario {unknown[0]!r}: choose from {', '.join(SCENARIOS)}")
    if len(set(names)) != len(names):
        raise BenchmarkSettingsError(f"a scenario is named twice: {' '.join(names)}")
    return tuple(n for n in SCENARIOS if n in names)


# -- circle --------------------------------------------------------------------------------------------
def run_circle(settings: CrowdBenchSettings, progress: Progress = _no_progress) -> dict[str, Any]:
    """The pure 2-D circle swap with ours, and with RVO2 next to it (`reference`; None when skipped)."""
    scenario = circle(settings.circle_agents, radius=settings.circle_radius)
    progress(f"circle: {scenario.agents} agents (ours)", 0, None)
    ours = run(scenario)
    entry: dict[str, Any] = ours.metrics.to_json() | {"ms_per_step": ours.ms_per_step}
    entry["where"] = f"pure 2-D (navigation.crowd_scenarios), radius {settings.circle_radius:g} m, dt 0.05 s"
    entry["reference"] = None
    entry["reference_note"] = ""
    if not settings.peer:
        entry["reference_note"] = "skipped: the pyrvo reference was not asked for (--no-peer)"
    elif not rvo2_available():
        entry["reference_note"] = f"skipped: pyrvo not installed ({PYRVO_MISSING})"
    else:
        progress(f"circle: {scenario.agents} agents (pyrvo / RVO2)", 0, None)
        ref = run_rvo2(scenario)
        entry["reference"] = ref.metrics.to_json() | {"ms_per_step": ref.ms_per_step}
        entry["reference_note"] = "pyrvo (RVO2), same scenario, same neighbour and horizon settings"
    return entry


# -- the simulation scenarios --------------------------------------------------------------------------
class _GoOnce:
    """A controller that sends its NPC to `goal` at `speed` [m/s] on its first call, then lets it walk."""

    def __init__(self, goal: np.ndarray, speed: float) -> None:
        self.goal = goal
        self.speed = speed
        self.sent = False

    def __call__(self, npc: Any, time: float) -> None:
        if not self.sent:
            npc.go_to(self.goal, self.speed)
            self.sent = True


@dataclass(frozen=True)
class _Plan:
    """One simulation scenario: starts and goals (n, 3) [m], speeds (n,) [m/s]."""

    scene: Scene
    starts: np.ndarray
    goals: np.ndarray
    speed: str  # "walk" or "run": the NPCs' own walk_speed / run_speed
    arrival_radius: float
    player: tuple[float, float, float] | None = None
    fixed_time: bool = False  # run the whole max time (chase: the crowding after arrival counts too)
    walls: bool = False  # count wall overlaps


def _snap(query: Any, points: np.ndarray) -> np.ndarray:
    out = np.array(points, dtype=np.float64)
    for i, p in enumerate(out):
        near = query.nearest_point(p)
        if near.found:
            out[i] = near.point
    return out


def _doorway_points(n: int) -> tuple[np.ndarray, np.ndarray]:
    """n/2 points south of the warehouse's inner wall and n/2 north of it, in two rows each [m], none within
    `DOORWAY_CLEARANCE` of a doorway's axis (an NPC that arrives in a doorway's mouth plugs it)."""
    half = n // 2
    cols = math.ceil(half / 2)
    xs = np.linspace(-16.0, 16.0, cols) if cols > 1 else np.array([0.0])
    for door in DOORWAYS_X:
        near = np.abs(xs - door) < DOORWAY_CLEARANCE
        xs[near] = door + np.where(xs[near] < door, -1.0, 1.0) * DOORWAY_CLEARANCE
    south = [(x, y, 0.0) for y in (7.2, 6.0) for x in xs][:half]
    north = [(x, y, 0.0) for y in (9.4, 14.0) for x in xs][:half]
    return np.array(south), np.array(north)


def _plan(name: str, settings: CrowdBenchSettings) -> _Plan:
    if name == "doorway":
        south, north = _doorway_points(settings.doorway_agents)
        starts = np.concatenate([south, north])
        goals = np.concatenate([north, south])
        return _Plan(load_builtin("warehouse"), starts, goals, "walk", SIM_ARRIVAL)
    if name == "corridor":
        k = settings.corridor_per_side
        ranks = math.ceil(k / 2)
        xs = 6.0 + np.arange(ranks, dtype=np.float64)
        left = np.array([(-x, y, 0.0) for x in xs for y in (0.55, -0.55)])[:k]
        right = -left
        starts = np.concatenate([left, right])
        # the front rank goes farthest, so no one must pass through those already on their goals
        goals = starts.copy()
        goals[:, 0] = -np.sign(starts[:, 0]) * (xs[0] + xs[-1] - np.abs(starts[:, 0]))
        scene = parse_scene(CORRIDOR_SCENE, source="npc_ai.bench.crowd:CORRIDOR_SCENE")
        return _Plan(scene, starts, goals, "walk", SIM_ARRIVAL)
    # chase: guards spread over the warehouse hall, all running to the still player
    spots = [(-17.0, -13.5), (17.5, -13.5), (-17.0, 6.5), (17.5, 6.5), (-10.0, -9.5),
             (10.0, -5.5), (-5.0, 2.5), (5.0, -1.5), (-12.0, 11.0), (10.0, 11.5)]  # fmt: skip
    starts = np.array([(x, y, 0.0) for x, y in spots[: settings.chase_guards]])
    goals = np.tile(np.array(CHASE_PLAYER), (len(starts), 1))
    return _Plan(
        load_builtin("warehouse"), starts, goals, "run", CHASE_ARRIVAL, player=CHASE_PLAYER,
        fixed_time=True, walls=True,
    )  # fmt: skip


def _simulation(plan: _Plan, starts: np.ndarray, goals: np.ndarray, seed: int,
                avoidance: AvoidanceSettings | None, navmesh: NavMesh | None,
                bodies: str = "dynamic") -> Simulation:  # fmt: skip
    spawns = []
    for i, (p, g) in enumerate(zip(starts, goals, strict=True)):
        yaw = math.degrees(math.atan2(g[1] - p[1], g[0] - p[0]))
        spawns.append(
            NpcSpawn(position=(float(p[0]), float(p[1]), float(p[2])), yaw_deg=yaw, name=f"crowd_{i:02d}")
        )
    scene = plan.scene.with_npcs(*spawns, keep_existing=False)
    player = None
    if plan.player is not None:
        scene = scene.with_player(PlayerSpawn(position=plan.player, yaw_deg=180.0))
        player = PlayerSettings(mode="still")
    s = SimulationSettings(
        npcs=len(spawns),
        player=player,
        trail_every=0,
        avoidance=avoidance,
        use_cache=navmesh is None,
        bodies=bodies,
    )
    return Simulation(scene, seed=seed, settings=s, navmesh=navmesh)


def _in_wall(sim: Simulation) -> float:
    """The deepest horizontal penetration of any NPC body into static geometry this tick [m] (the floor,
    whose contact normals are vertical, does not count)."""
    world, lo = sim.world, sim.locomotion
    feet = sim.behaviour.positions().reshape(-1, 3)
    half = np.array([lo.radius, lo.radius, lo.height / 2]) + 0.01
    deepest = 0.0
    for i, body in enumerate(lo.bodies.tolist()):
        centre = feet[i] + (0.0, 0.0, lo.height / 2)
        for other in world.overlap(centre - half, centre + half, mask=groups.STATIC):
            for point in world.client.getClosestPoints(int(body), other, 0.0) or ():
                if abs(float(point[7][2])) < 0.5:
                    deepest = max(deepest, -float(point[8]))
    return deepest


def _run_once(
    plan: _Plan,
    settings: CrowdBenchSettings,
    avoidance: AvoidanceSettings | None,
    navmesh: NavMesh | None,
    stage: str,
    progress: Progress,
) -> tuple[dict[str, Any], NavMesh]:
    """One simulation run of `plan`; returns its entry and the navmesh (reused by the second run)."""
    progress(f"{stage}: building the simulation", 0, None)
    sim = _simulation(plan, plan.starts, plan.goals, settings.seed, avoidance, navmesh, settings.bodies)
    try:
        query = sim.query
        goals = _snap(query, plan.goals)  # reachable points on the navmesh
        if plan.player is not None and sim.player is not None:
            goals[:] = sim.player.position
        starts = sim.behaviour.positions().reshape(-1, 3).copy()
        speeds = np.array([getattr(n.settings, f"{plan.speed}_speed") for n in sim.npcs], dtype=np.float64)
        lengths = np.array([query.find_path(s, g).length for s, g in zip(starts, goals, strict=True)])
        ideal = float((lengths / speeds).max()) if len(lengths) else 0.0
        for i in range(len(sim.npcs)):
            sim.control(i, _GoOnce(goals[i], float(speeds[i])))
        steer_ms = [0.0]
        crowd = sim.locomotion.crowd
        if crowd is not None:
            inner = crowd.steer

            def timed(*args: Any, **kwargs: Any) -> None:
                t = time.perf_counter()
                inner(*args, **kwargs)
                steer_ms[-1] += (time.perf_counter() - t) * 1e3

            setattr(crowd, "steer", timed)  # noqa: B010 - an instance attribute shadows the method
        dt = sim.dt
        max_time = 2.0 * ideal + 3.0 if plan.fixed_time else max(20.0, 3.0 * ideal)
        ticks = math.ceil(max_time / dt)
        traj = [starts[:, :2].copy()]
        tick_ms: list[float] = []
        wall_ticks, wall_depth = 0, 0.0
        reached = np.zeros(len(starts), dtype=bool)
        for k in range(ticks):
            steer_ms.append(0.0)
            t = time.perf_counter()
            sim.step()
            tick_ms.append((time.perf_counter() - t) * 1e3)
            feet = sim.behaviour.positions().reshape(-1, 3)
            traj.append(feet[:, :2].copy())
            if plan.walls:
                depth = _in_wall(sim)
                wall_depth = max(wall_depth, depth)
                wall_ticks += depth > WALL_DEPTH
            reached |= np.hypot(*(feet[:, :2] - goals[:, :2]).T) <= plan.arrival_radius
            if k % 60 == 0:
                progress(stage, k, ticks)
            if reached.all() and not plan.fixed_time:
                break
        radii = np.broadcast_to(sim.locomotion.agents.radius, (len(starts),))
        metrics = crowd_metrics(np.stack(traj), radii, goals[:, :2], dt, arrival_radius=plan.arrival_radius)
        body = separations(np.stack(traj), np.full(len(starts), sim.locomotion.radius))
        entry = metrics.to_json() | {
            "overlap_ticks_body_radius": int((body < -OVERLAP_TOLERANCE).sum()),
            "ms_per_step": float(np.median(steer_ms[1:])) if crowd is not None and tick_ms else 0.0,
            "tick_ms": float(np.median(tick_ms)) if tick_ms else 0.0,
            "ideal_time_s": ideal,
            "arrival_radius_m": plan.arrival_radius,
            "simulated_s": len(tick_ms) * dt,
        }
        if plan.walls:
            entry["wall_overlap_ticks"] = int(wall_ticks)
            entry["max_wall_depth_m"] = wall_depth
        return entry, sim.query.mesh
    finally:
        sim.close()


def run_sim_scenario(
    name: str, settings: CrowdBenchSettings, progress: Progress = _no_progress
) -> dict[str, Any]:
    """`doorway`, `corridor` or `chase` with avoidance on, and (`without_avoidance`) off, same navmesh."""
    plan = _plan(name, settings)
    n = len(plan.starts)
    entry, mesh = _run_once(plan, settings, AvoidanceSettings(), None, f"{name}: {n} NPCs", progress)
    off, _ = _run_once(plan, settings, None, mesh, f"{name}: {n} NPCs, avoidance off", progress)
    where = {
        "doorway": "simulation: built-in warehouse, through the inner wall's two 2 m doorways",
        "corridor": "simulation: generated scene corridor_3m (no built-in scene has a 3 m corridor)",
        "chase": "simulation: built-in warehouse, still player in the cross aisle, guards at run speed",
    }[name]
    entry["where"] = where
    entry["without_avoidance"] = off
    if settings.layouts:
        entry["layouts"] = _layouts(name, plan, settings, mesh, progress)
    return entry


def _layouts(
    name: str, plan: _Plan, settings: CrowdBenchSettings, mesh: NavMesh, progress: Progress
) -> dict[str, Any]:
    """`settings.layouts` runs of `plan` with avoidance from jittered starts (layout k draws from the
    generator seeded with (seed, k), k from `settings.first_layout` on); a start whose offset leaves the
    navmesh keeps its place. Each run's `time_ratio` is its completion time over its ideal time (None when
    not all arrived); the summary's quantiles of it count a run where not all arrived as slower than any."""
    query = NavMeshQuery(mesh)
    runs = []
    first = settings.first_layout
    for k in range(first, first + settings.layouts):
        rng = np.random.default_rng([settings.seed, k])
        starts = plan.starts.copy()
        moved = starts.copy()
        moved[:, :2] += rng.normal(0.0, settings.jitter_m, (len(starts), 2))
        on_mesh = np.array([query.polygon_at(p) >= 0 for p in moved])
        starts[on_mesh] = moved[on_mesh]
        run = replace(plan, starts=starts)
        stage = f"{name}: layout {k - first + 1} of {settings.layouts}"
        e, _ = _run_once(run, settings, AvoidanceSettings(), mesh, stage, progress)
        keep = ("completed_share", "time_to_complete_s", "ideal_time_s", "deadlocked_agents", "overlap_ticks")
        runs.append({key: e[key] for key in keep} | {"layout": k, "time_ratio": time_ratio(e)})
    shares = [r["completed_share"] for r in runs]
    ratios = np.array([math.inf if r["time_ratio"] is None else r["time_ratio"] for r in runs])
    median, p90 = (np.quantile(ratios, q, method="inverted_cdf") for q in (0.5, 0.9))  # layouts >= 1
    return {
        "jitter_m": settings.jitter_m,
        "first_layout": first,
        "runs": runs,
        "time_ratio_median": float(median) if math.isfinite(median) else None,
        "time_ratio_p90": float(p90) if math.isfinite(p90) else None,
        "completed_share_mean": float(np.mean(shares)),
        "completed_share_min": float(np.min(shares)),
        "all_arrived": sum(s == 1.0 for s in shares),
        "within_ideal_factor": sum(within_ideal(r) for r in runs),
        "ideal_factor": IDEAL_FACTOR,
    }


def time_ratio(entry: dict[str, Any]) -> float | None:
    """A run's completion time over its ideal time (`entry`'s `time_to_complete_s`, `ideal_time_s`); None
    when not every agent arrived."""
    t, ideal = entry["time_to_complete_s"], entry["ideal_time_s"]
    if entry["completed_share"] < 1.0 or t is None or not ideal > 0.0:
        return None
    return float(t / ideal)


def within_ideal(entry: dict[str, Any]) -> bool:
    """Whether `entry` (a run's `completed_share`, `overlap_ticks`, `time_to_complete_s`, `ideal_time_s`)
    meets the issue's bar: every agent arrived, none overlapped, within `IDEAL_FACTOR` x the ideal time
    (its `time_ratio`, so the layouts' count and quantiles agree to the last bit)."""
    ratio = time_ratio(entry)
    return ratio is not None and entry["overlap_ticks"] == 0 and ratio <= IDEAL_FACTOR


def run_crowd_benchmark(
    scenarios: Sequence[str] = SCENARIOS,
    settings: CrowdBenchSettings | None = None,
    progress: Progress = _no_progress,
) -> dict[str, Any]:
    """Run the scenarios; returns ``{"scenarios": {NAME: entry}}`` (module docstring, `METRIC_KEYS`).

    Raises:
        BenchmarkSettingsError: unknown scenarios or settings that are not `CrowdBenchSettings`.
    """
    names = check_scenarios(scenarios)
    if settings is None:
        settings = CrowdBenchSettings()
    if not isinstance(settings, CrowdBenchSettings):
        raise BenchmarkSettingsError(f"settings must be CrowdBenchSettings, got {type(settings).__name__}")
    out: dict[str, Any] = {}
    for name in names:
        out[name] = (
            run_circle(settings, progress) if name == "circle" else run_sim_scenario(name, settings, progress)
        )
    return {"scenarios": out}
