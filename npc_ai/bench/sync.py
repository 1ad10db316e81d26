"""The navigation / animation sync benchmark: the same seeded routes driven under each coupling mode.

For every mode, each route gets a fresh world (same scene, same seed), one NPC at the route's start and
a destination at its end; the run stops on arrival or at the time limit. Per mode it reports foot skating
(reference.md section 5), agent-character drift, path length over the shortest, success rate, time to
goal and wall contacts. A tau sweep of the `root_motion` mode shows the low-pass filter's trade-off.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import multiprocessing as mp
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

import numpy as np

from navigation.agent import AgentSettings
from navigation.navmesh import NavMesh
from navigation.query import NavMeshQuery, QueryStatus
from npc_ai.animation import skate_metrics
from npc_ai.bench.sync_metrics import RouteMetrics, RouteTrace, aggregate, paired_difference, route_metrics
from npc_ai.body.coupling import MODES, CouplingSettings
from npc_ai.body.locomotor import Locomotor
from npc_ai.errors import BenchmarkSettingsError
from npc_ai.levels.navmesh import bake_settings
from scenes import Scene, World

ROUTE_SPEEDS = (1.2, 2.5, 3.5)  # agent top speeds cycled over routes: walk, jog, run [m/s]


DEFAULT_SCENES = (("arena", 24), ("warehouse", 12), ("compound", 6))  # (scene, routes): issue 11's set
QUICK_SCENES = (("arena", 3),)  # --quick: a smoke run


@dataclass(frozen=True)
class SyncSettings:
    """What the benchmark runs.

    Attributes:
        routes: number of seeded routes per scene when one scene is given [>= 1].
        min_route_m: shortest route accepted [m, > 0].
        timeout_s: time limit per route [s, > 0], raised for a long route to twice its walking time at
            its speed (a 37 m route at 1.2 m/s cannot end in 30 s). seed: route and world seed [>= 0].
        settle_s: recording goes on this long after arrival, so a stop that slides is counted [s, >= 0].
        modes: coupling modes to compare (names from `npc_ai.body.coupling.MODES`).
        taus: filter time constants swept for `root_motion` on the first scene [s, > 0]; empty to skip.
        bootstrap: resamples of the paired bootstrap [>= 100].
        shove_every: every this many routes, the NPC is shoved sideways mid-route (another body bumping
            it: 1.5 m/s for 0.25 s, 2 s after the start), so drift limits have something to limit
            [>= 1; 0 for never].
        workers: processes driving routes in parallel [>= 1]; None: one per core. Results do not depend
            on it (every route runs in its own seeded world).
    """

    routes: int = 6
    min_route_m: float = 8.0
    timeout_s: float = 30.0
    seed: int = 0
    settle_s: float = 1.0
    modes: tuple[str, ...] = tuple(MODES)
    taus: tuple[float, ...] = (0.05, 0.15, 0.3, 0.6)
    bootstrap: int = 2000
    shove_every: int = 3
    workers: int | None = None

    def __post_init__(self) -> None:
        if not (isinstance(self.routes, int) and self.routes >= 1):
            raise BenchmarkSettingsError(f"routes must be a positive integer, got {self.routes!r}")
        if not (math.isfinite(self.min_route_m) and self.min_route_m > 0):
            raise BenchmarkSettingsError(
                f"min_route_m must be a positive number of metres, got {self.min_route_m!r}"
            )
        if not (math.isfinite(self.timeout_s) and self.timeout_s > 0):
            raise BenchmarkSettingsError(
                f"timeout_s must be a positive number of seconds, got {self.timeout_s!r}"
            )
        if not (math.isfinite(self.settle_s) and self.settle_s >= 0):
            raise BenchmarkSettingsError(f"settle_s must be a number of seconds >= 0, got {self.settle_s!r}")
        unknown = [m for m in self.modes if m not in MODES]
        if unknown or not self.modes:
            raise BenchmarkSettingsError(f"unknown coupling modes {unknown}; choose from {', '.join(MODES)}")
        if any(not (math.isfinite(t) and t > 0) for t in self.taus):
            raise BenchmarkSettingsError(f"taus must be positive numbers of seconds, got {self.taus!r}")
        if not (isinstance(self.shove_every, int) and self.shove_every >= 0):
            raise BenchmarkSettingsError(f"shove_every must be an integer >= 0, got {self.shove_every!r}")
        if self.workers is not None and not (isinstance(self.workers, int) and self.workers >= 1):
            raise BenchmarkSettingsError(f"workers must be None or an integer >= 1, got {self.workers!r}")
        if not (isinstance(self.bootstrap, int) and self.bootstrap >= 100):
            raise BenchmarkSettingsError(f"bootstrap must be an integer >= 100, got {self.bootstrap!r}")


@dataclass(frozen=True)
class Route:
    """A start and goal on the navmesh [m], the horizontal length of the shortest path between them [m] (the
    body's travelled distance is measured horizontally too, so ramps do not bias the path ratio), a top
    speed [m/s]."""

    start: np.ndarray
    goal: np.ndarray
    shortest_m: float
    speed: float

    @property
    def reachable_m(self) -> float:
        """The shortest path to the stopping point, `STOPPING_DISTANCE` short of the goal [m]."""
        return max(self.shortest_m - STOPPING_DISTANCE, 1e-6)


@dataclass
class RouteRun:
    """What one NPC did on one route under one mode."""

    trace: RouteTrace  # every tick, until `settle_s` after arrival (or the time limit)
    drift: np.ndarray  # (T,) agent-character horizontal distance [m]
    reached: bool
    seconds: float  # time to arrival (the time limit when not reached) [s]
    travelled_m: float  # horizontal path the body walked until arrival (shove ticks left out) [m]
    wall_contacts: int
    pulls: int
    gait_changes: int
    shoved: bool = False

    @property
    def feet(self) -> np.ndarray:
        """(T, 2, 3) shown world foot positions [m]."""
        return self.trace.feet

    @functools.cached_property
    def metrics(self) -> RouteMetrics:
        return route_metrics(self.trace)


@dataclass
class ModeReport:
    """Aggregated results of one mode over all routes (see `to_json` for units)."""

    mode: str
    runs: list[RouteRun] = field(default_factory=list)
    routes: list[Route] = field(default_factory=list)
    radius: float = 0.4
    dt: float = 1 / 60

    def per_route(self, key: str = "cm_per_m") -> np.ndarray:
        """(routes,) one metric per route (a `RouteMetrics` attribute)."""
        return np.array([float(getattr(r.metrics, key)) for r in self.runs])

    def to_json(self) -> dict[str, float]:
        feet_metrics = [skate_metrics(r.feet, self.dt) for r in self.runs if len(r.feet) > 2]
        steps = np.array([m.n_steps for m in feet_metrics], dtype=float)
        skate = float(np.average([m.skate_ratio for m in feet_metrics], weights=steps)) if len(steps) else 0.0
        speeds = [m.contact_speed_mps for m in feet_metrics if math.isfinite(m.contact_speed_mps)]
        drift = np.concatenate([r.drift for r in self.runs]) if self.runs else np.zeros(1)
        ok = [(r, route) for r, route in zip(self.runs, self.routes, strict=True) if r.reached]
        spl = [
            (route.reachable_m / max(route.reachable_m, r.travelled_m)) if r.reached else 0.0
            for r, route in zip(self.runs, self.routes, strict=True)
        ]
        return {
            "foot_skate_ratio": skate,
            "contact_foot_speed_mps": float(np.mean(speeds)) if speeds else float("nan"),
            "drift_mean_m": float(drift.mean()),
            "drift_max_m": float(drift.max()),
            "drift_over_radius_frac": float(np.mean(drift > self.radius)),
            "drift_max_unshoved_m": max(
                (float(r.drift.max()) for r in self.runs if not r.shoved), default=0.0
            ),
            "path_ratio": float(np.mean([r.travelled_m / route.reachable_m for r, route in ok]))
            if ok
            else math.nan,
            "path_ratio_unshoved": float(
                np.mean([r.travelled_m / route.reachable_m for r, route in ok if not r.shoved])
            )
            if any(not r.shoved for r, _ in ok)
            else math.nan,
            "time_to_goal_s": float(np.mean([r.seconds for r, _ in ok])) if ok else math.nan,
            "success_rate": len(ok) / max(1, len(self.runs)),
            "spl": float(np.mean(spl)) if spl else 0.0,
            "wall_contacts": int(sum(r.wall_contacts for r in self.runs)),
            "drift_pulls": int(sum(r.pulls for r in self.runs)),
            "gait_changes": float(np.mean([r.gait_changes for r in self.runs])) if self.runs else 0.0,
            **aggregate([r.metrics for r in self.runs]),
        }


def make_routes(query: NavMeshQuery, rng: np.random.Generator, n: int, min_length: float) -> list[Route]:
    """`n` routes between area-weighted random points of the main island, each at least `min_length` long."""
    routes: list[Route] = []
    main = query.mesh.main_island
    for _ in range(200 * n):
        if len(routes) == n:
            break
        (a, _), (b, _) = query.random_point(rng, islands=main), query.random_point(rng, islands=main)
        path = query.find_path(a, b)
        if path.status is QueryStatus.SUCCESS and path.length >= min_length:
            flat = float(np.hypot(*np.diff(path.points[:, :2], axis=0).T).sum())
            routes.append(Route(a, b, flat, ROUTE_SPEEDS[len(routes) % len(ROUTE_SPEEDS)]))
    if len(routes) < n:
        raise BenchmarkSettingsError(
            f"could only find {len(routes)} routes of at least {min_length} m on this navmesh"
        )
    return routes


def _wall_contacts(world: World, body: int) -> int:
    """1 if the body touches static geometry (distance <= 5 mm) with a normal far from vertical, else 0."""
    for c in world.client.getContactPoints(bodyA=body):
        if c[2] in world.static_bodies and c[8] <= 0.005 and abs(c[7][2]) < 0.7:
            return 1
    return 0


STOPPING_DISTANCE = 0.3  # [m] where NPCs stop short of their destination in the benchmark
SHOVE_AT, SHOVE_S, SHOVE_SPEED = 2.0, 0.25, 1.5  # a mid-route shove: start [s], length [s], speed [m/s]


def run_route(
    scene: Scene,
    query: NavMeshQuery,
    route: Route,
    coupling: CouplingSettings,
    *,
    seed: int,
    timeout_s: float,
    settle_s: float = 1.0,
    shove: bool = False,
) -> RouteRun:
    """Drive one NPC along one route under one coupling mode, in a fresh world; keep recording
    `settle_s` after arrival. `shove`: push the body sideways mid-route (`SyncSettings.shove_every`)."""
    with World(scene, seed=seed) as world:
        dt = world.dt
        radius = max(bake_settings(scene.navmesh).agent_radius, 0.05)
        yaw = math.atan2(*(route.goal - route.start)[1::-1])
        agent = AgentSettings(radius=radius, speed=route.speed, stopping_distance=STOPPING_DISTANCE)
        legs = Locomotor(world, query, route.start, yaw=yaw, agent=agent, coupling=coupling)
        world.step()
        legs.set_destination(route.goal)
        rec = _Recorder(legs)
        drift: list[float] = []
        travelled, walls = 0.0, 0
        limit = round(timeout_s / dt)
        settle = round(settle_s / dt)
        reached, arrival, used = False, None, 0
        while used < limit + settle:
            used += 1
            before = legs.position
            legs.before_physics(dt)
            shoving = shove and SHOVE_AT <= used * dt < SHOVE_AT + SHOVE_S
            rec.shoved.append(shoving)
            if shoving:
                side = legs.character.right * SHOVE_SPEED
                v = world.poses.velocities[world.poses.index(legs.character.body)]
                world.set_velocity(legs.character.body, (side[0], side[1], v[2]))
            world.step()
            legs.after_physics()
            rec.tick(legs)
            after = legs.position
            if arrival is None:
                if not shoving:  # the path the body walked, not where the shove carried it
                    travelled += float(np.hypot(*(after - before)[:2]))
                walls += _wall_contacts(world, legs.character.body)
            drift.append(legs.coupling.drift)
            if arrival is None and legs.arrived:
                arrival = used
                reached = float(np.hypot(*(after - route.goal)[:2])) <= STOPPING_DISTANCE + 0.05
            if arrival is not None and used >= arrival + settle:
                break
            if arrival is None and used >= limit:
                break
        gaits = sum(1 for tr in legs.animator.transitions if tr.kind == "gait")
        return RouteRun(
            trace=rec.trace(dt, arrival),
            drift=np.array(drift),
            reached=reached,
            seconds=(arrival if arrival is not None else used) * dt,
            travelled_m=travelled,
            wall_contacts=walls,
            pulls=legs.coupling.state.pulls,
            gait_changes=gaits,
            shoved=shove,
        )


class _Recorder:
    """Collects a `RouteTrace` tick by tick."""

    def __init__(self, legs: Locomotor) -> None:
        self.position = [legs.position]
        self.yaw = [legs.yaw]
        self.local = [legs.animator.foot_positions()]
        self.feet = [legs.feet_world()]
        self.planted = [legs.animator.planted()]
        self.leg_m = legs.leg_length
        self.stretch = [0.0]
        self.clamp = [0.0]
        self.error = [0.0]
        self.root: list[np.ndarray] = []
        self.root_yaw: list[float] = []
        self.command: list[np.ndarray] = []
        self.shoved: list[bool] = []

    def tick(self, legs: Locomotor) -> None:
        st = legs.coupling.state
        rm = st.root_motion
        self.root.append(rm.delta_local if rm is not None else np.zeros(3))
        self.root_yaw.append(rm.delta_yaw if rm is not None else 0.0)
        self.command.append(st.command.copy())
        self.position.append(legs.position)
        self.yaw.append(legs.yaw)
        self.local.append(legs.animator.foot_positions())
        self.feet.append(legs.feet_world())
        self.planted.append(legs.animator.planted())
        lock, legs_m = legs.foot_lock_result, self.leg_m
        over = float(np.max(lock.extension)) - 1.0 if lock is not None else 0.0
        self.stretch.append(max(0.0, over) * legs_m)  # the solved leg beyond its length
        self.clamp.append(float(np.max(lock.stretch_m)) if lock is not None else 0.0)
        self.error.append(float(np.max(lock.pose_error_m)) if lock is not None else 0.0)

    def trace(self, dt: float, arrival: int | None) -> RouteTrace:
        return RouteTrace(
            dt=dt,
            position=np.array(self.position),
            yaw=np.unwrap(np.array(self.yaw)),
            local_feet=np.array(self.local),
            feet=np.array(self.feet),
            planted=np.array(self.planted),
            root_motion=np.array(self.root).reshape(-1, 3),
            root_yaw=np.array(self.root_yaw),
            command=np.array(self.command).reshape(-1, 2),
            arrival=arrival,
            stretch=np.array(self.stretch),
            clamp=np.array(self.clamp),
            pose_error=np.array(self.error),
            shoved=np.array(self.shoved, dtype=bool),
        )


@dataclass(frozen=True)
class _RouteTask:
    """One route under one mode, as sent to a worker process (the navmesh query is rebuilt there)."""

    scene: Scene
    mesh: NavMesh
    route: Route
    coupling: CouplingSettings
    settings: SyncSettings
    index: int

    def run(self) -> RouteRun:
        s = self.settings
        return run_route(
            self.scene,
            _query(self.scene.name, self.mesh),
            self.route,
            self.coupling,
            seed=s.seed + self.index,
            timeout_s=max(s.timeout_s, 2.0 * self.route.shortest_m / self.route.speed),
            settle_s=s.settle_s,
            shove=s.shove_every > 0 and self.index % s.shove_every == s.shove_every - 1,
        )


_QUERIES: dict[str, tuple[NavMesh, NavMeshQuery]] = {}


def _query(scene: str, mesh: NavMesh) -> NavMeshQuery:
    """One query object per scene's navmesh and process (a worker gets the mesh with every task)."""
    held = _QUERIES.get(scene)
    same = held is not None and np.array_equal(held[0].vertices, mesh.vertices)
    if held is None or not same or not np.array_equal(held[0].poly_verts, mesh.poly_verts):
        held = _QUERIES[scene] = (mesh, NavMeshQuery(mesh))
    return held[1]


@dataclass
class SceneReport:
    """One scene's per-mode reports and tau sweep."""

    scene: str
    modes: dict[str, ModeReport]
    taus: dict[float, ModeReport]
    routes: list[Route]

    def to_json(self, rng: np.random.Generator, resamples: int) -> dict:
        return {
            "routes": len(self.routes),
            "modes": {name: rep.to_json() for name, rep in self.modes.items()},
            "tau_sweep": [{"tau": tau, **rep.to_json()} for tau, rep in self.taus.items()],
            "paired": paired(self.modes, rng, resamples),
        }


def paired(modes: dict[str, ModeReport], rng: np.random.Generator, resamples: int) -> dict:
    """root_motion minus agent_drives per route (cm/m and cm/s of planted sliding), when both ran."""
    if "root_motion" not in modes or "agent_drives" not in modes:
        return {}
    rm, ad = modes["root_motion"], modes["agent_drives"]
    return {
        key: paired_difference(rm.per_route(attr), ad.per_route(attr), rng, resamples)
        for key, attr in (("planted_slide_cm_per_m", "cm_per_m"), ("planted_slide_cm", "slide_cm"))
    }


@dataclass
class SyncReport:
    """Per-scene reports, modes pooled over scenes, timings."""

    scenes: list[SceneReport]
    seconds: float
    bake_seconds: float
    seed: int = 0
    bootstrap: int = 2000

    @property
    def scene(self) -> str:
        return "+".join(s.scene for s in self.scenes)

    @property
    def routes(self) -> list[Route]:
        return [r for s in self.scenes for r in s.routes]

    @property
    def modes(self) -> dict[str, ModeReport]:
        """Each mode pooled over every scene's routes."""
        out: dict[str, ModeReport] = {}
        for s in self.scenes:
            for name, rep in s.modes.items():
                pooled = out.setdefault(name, ModeReport(mode=name, radius=rep.radius, dt=rep.dt))
                pooled.runs += rep.runs
                pooled.routes += rep.routes
        return out

    @property
    def taus(self) -> dict[float, ModeReport]:
        return self.scenes[0].taus if self.scenes else {}

    def to_json(self) -> dict:
        rng = np.random.default_rng(self.seed)
        modes = self.modes
        return {
            "scene": self.scene,
            "routes": len(self.routes),
            "modes": {name: rep.to_json() for name, rep in modes.items()},
            "paired": paired(modes, rng, self.bootstrap),
            "scenes": {s.scene: s.to_json(rng, self.bootstrap) for s in self.scenes},
            "tau_sweep": [{"tau": tau, **rep.to_json()} for tau, rep in self.taus.items()],
            "wall_seconds": self.seconds,
        }


def run_sync_benchmark(
    scenes: list[tuple[Scene, NavMesh, int]],
    settings: SyncSettings,
    *,
    progress: bool | Callable[[str, int, int | None], None] = False,
    bake_seconds: float = 0.0,
) -> SyncReport:
    """Run every mode over each scene's seeded routes, and the tau sweep on the first scene.

    Args:
        scenes: (scene, its navmesh, number of routes) per scene.
        progress: a callable `progress(stage, done, total)` told the routes driven (stage "driving
            routes"), or True for a tqdm bar on stderr.
    """
    t0 = time.perf_counter()
    plans = []
    for k, (scene, mesh, n) in enumerate(scenes):
        query = NavMeshQuery(mesh)
        routes = make_routes(query, np.random.default_rng(settings.seed), n, settings.min_route_m)
        jobs: list[tuple[str | float, CouplingSettings]] = [(m, MODES[m]) for m in settings.modes]
        if k == 0:  # the tau sweep; the root_motion mode's own tau is that mode's run
            shared = MODES["root_motion"].tau if "root_motion" in settings.modes else None
            jobs += [
                (tau, dataclasses.replace(MODES["root_motion"], tau=tau))
                for tau in settings.taus
                if tau != shared
            ]
        plans.append((scene, query, routes, jobs))
    total = sum(len(routes) * len(jobs) for _, _, routes, jobs in plans)
    bar = None
    if progress is True:
        from tqdm import tqdm

        bar = tqdm(total=total, desc="sync benchmark", unit="route", leave=False)
    report = progress if callable(progress) else None
    if report is not None:
        report("driving routes", 0, total)
    tasks = [
        (k, key, i, _RouteTask(scene, mesh, route, coupling, settings, i))
        for k, ((scene, mesh, _), (_, _, routes, jobs)) in enumerate(zip(scenes, plans, strict=True))
        for key, coupling in jobs
        for i, route in enumerate(routes)
    ]
    runs: dict[tuple[int, str | float, int], RouteRun] = {}
    workers = settings.workers if settings.workers is not None else (os.cpu_count() or 1)

    def done(n: int) -> None:
        if bar is not None:
            bar.update()
        if report is not None:
            report("driving routes", n, total)

    if workers <= 1:
        for n, (k, key, i, task) in enumerate(tasks, 1):
            runs[(k, key, i)] = task.run()
            done(n)
    else:
        with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn")) as pool:
            futures = {pool.submit(_RouteTask.run, task): (k, key, i) for k, key, i, task in tasks}
            for n, future in enumerate(as_completed(futures), 1):
                runs[futures[future]] = future.result()
                done(n)
    out = []
    for k, (scene, _, routes, jobs) in enumerate(plans):
        radius = max(bake_settings(scene.navmesh).agent_radius, 0.05)
        reports: dict[str | float, ModeReport] = {}
        for key, _ in jobs:
            rep = ModeReport(mode=str(key), radius=radius)
            rep.runs = [runs[(k, key, i)] for i in range(len(routes))]
            rep.routes = list(routes)
            reports[key] = rep
        if k == 0 and "root_motion" in reports and MODES["root_motion"].tau in settings.taus:
            reports[float(MODES["root_motion"].tau)] = reports["root_motion"]
        out.append(
            SceneReport(
                scene=scene.name,
                modes={str(k): v for k, v in reports.items() if isinstance(k, str)},
                taus={float(k): v for k, v in reports.items() if not isinstance(k, str)},
                routes=routes,
            )
        )
    if bar is not None:
        bar.close()
    return SyncReport(
        scenes=out,
        seconds=time.perf_counter() - t0,
        bake_seconds=bake_seconds,
        seed=settings.seed,
        bootstrap=settings.bootstrap,
    )


def drive_routes(
    scene: Scene,
    mesh: NavMesh,
    routes: list[Route],
    coupling: CouplingSettings,
    settings: SyncSettings,
    *,
    name: str = "root_motion",
) -> ModeReport:
    """Every route under one coupling, one after the other in this process, exactly as
    `run_sync_benchmark` drives them (route i in a world seeded `settings.seed + i`, the same time limits
    and shoves): one trial of the sweep runner's `sync` task (`npc_ai.sweep.tasks`)."""
    report = ModeReport(mode=name, radius=max(bake_settings(scene.navmesh).agent_radius, 0.05))
    report.runs = [_RouteTask(scene, mesh, r, coupling, settings, i).run() for i, r in enumerate(routes)]
    report.routes = list(routes)
    return report
