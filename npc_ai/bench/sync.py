"""The navigation / animation sync benchmark: the same seeded routes driven under each coupling mode.

For every mode, each route gets a fresh world (same scene, same seed), one NPC at the route's start and
a destination at its end; the run stops on arrival or at the time limit. Per mode it reports foot skating
(reference.md section 5), agent-character drift, path length over the shortest, success rate, time to
goal and wall contacts. A tau sweep of the `root_motion` mode shows the low-pass filter's trade-off.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from navigation.agent import AgentSettings
from navigation.navmesh import NavMesh
from navigation.query import NavMeshQuery, QueryStatus
from npc_ai.animation import skate_metrics
from npc_ai.body.coupling import MODES, CouplingSettings
from npc_ai.body.locomotor import Locomotor
from npc_ai.errors import BenchmarkSettingsError
from npc_ai.levels.navmesh import bake_settings
from scenes import Scene, World

ROUTE_SPEEDS = (1.2, 2.5, 3.5)  # agent top speeds cycled over routes: walk, jog, run [m/s]


@dataclass(frozen=True)
class SyncSettings:
    """What the benchmark runs.

    Attributes:
        routes: number of seeded routes [>= 1]. min_route_m: shortest route accepted [m, > 0].
        timeout_s: time limit per route [s, > 0]. seed: route and world seed [>= 0].
        modes: coupling modes to compare (names from `npc_ai.body.coupling.MODES`).
        taus: filter time constants swept for `root_motion` [s, > 0]; empty to skip the sweep.
    """

    routes: int = 6
    min_route_m: float = 8.0
    timeout_s: float = 30.0
    seed: int = 0
    modes: tuple[str, ...] = tuple(MODES)
    taus: tuple[float, ...] = (0.05, 0.15, 0.3, 0.6)

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
        unknown = [m for m in self.modes if m not in MODES]
        if unknown or not self.modes:
            raise BenchmarkSettingsError(f"unknown coupling modes {unknown}; choose from {', '.join(MODES)}")
        if any(not (math.isfinite(t) and t > 0) for t in self.taus):
            raise BenchmarkSettingsError(f"taus must be positive numbers of seconds, got {self.taus!r}")


@dataclass(frozen=True)
class Route:
    """A start and goal on the navmesh [m], the shortest path length between them [m], a top speed [m/s]."""

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

    feet: np.ndarray  # (T, 2, 3) world foot positions [m]
    drift: np.ndarray  # (T,) agent-character horizontal distance [m]
    reached: bool
    seconds: float
    travelled_m: float
    wall_contacts: int
    pulls: int


@dataclass
class ModeReport:
    """Aggregated results of one mode over all routes (see `to_json` for units)."""

    mode: str
    runs: list[RouteRun] = field(default_factory=list)
    routes: list[Route] = field(default_factory=list)
    radius: float = 0.4
    dt: float = 1 / 60

    def to_json(self) -> dict[str, float]:
        feet_metrics = [skate_metrics(r.feet, self.dt) for r in self.runs if len(r.feet) > 2]
        steps = np.array([m.n_steps for m in feet_metrics], dtype=float)
        skate = float(np.average([m.skate_ratio for m in feet_metrics], weights=steps)) if len(steps) else 0.0
        speeds = [m.contact_speed_mps for m in feet_metrics if math.isfinite(m.contact_speed_mps)]
        drift = np.concatenate([r.drift for r in self.runs]) if self.runs else np.zeros(1)
        ok = [(r, route) for r, route in zip(self.runs, self.routes, strict=True) if r.reached]
        return {
            "foot_skate_ratio": skate,
            "contact_foot_speed_mps": float(np.mean(speeds)) if speeds else float("nan"),
            "drift_mean_m": float(drift.mean()),
            "drift_max_m": float(drift.max()),
            "drift_over_radius_frac": float(np.mean(drift > self.radius)),
            "path_ratio": float(np.mean([r.travelled_m / route.reachable_m for r, route in ok]))
            if ok
            else math.nan,
            "time_to_goal_s": float(np.mean([r.seconds for r, _ in ok])) if ok else math.nan,
            "success_rate": len(ok) / max(1, len(self.runs)),
            "spl": float(
                np.mean(
                    [
                        (route.reachable_m / max(route.reachable_m, r.travelled_m)) if r.reached else 0.0
                        for r, route in zip(self.runs, self.routes, strict=True)
                    ]
                )
            )
            if self.runs
            else 0.0,
            "wall_contacts": int(sum(r.wall_contacts for r in self.runs)),
            "drift_pulls": int(sum(r.pulls for r in self.runs)),
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
            routes.append(Route(a, b, path.length, ROUTE_SPEEDS[len(routes) % len(ROUTE_SPEEDS)]))
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


def run_route(
    scene: Scene,
    query: NavMeshQuery,
    route: Route,
    coupling: CouplingSettings,
    *,
    seed: int,
    timeout_s: float,
) -> RouteRun:
    """Drive one NPC along one route under one coupling mode, in a fresh world."""
    with World(scene, seed=seed) as world:
        radius = max(bake_settings(scene.navmesh).agent_radius, 0.05)
        yaw = math.atan2(*(route.goal - route.start)[1::-1])
        agent = AgentSettings(radius=radius, speed=route.speed, stopping_distance=STOPPING_DISTANCE)
        legs = Locomotor(world, query, route.start, yaw=yaw, agent=agent, coupling=coupling)
        world.step()
        legs.set_destination(route.goal)
        feet, drift = [], []
        travelled, walls = 0.0, 0
        ticks = round(timeout_s / world.dt)
        reached, used = False, 0
        while used < ticks:
            used += 1
            before = legs.position
            legs.before_physics(world.dt)
            world.step()
            legs.after_physics()
            after = legs.position
            travelled += float(np.hypot(*(after - before)[:2]))
            walls += _wall_contacts(world, legs.character.body)
            feet.append(legs.feet_world())
            drift.append(legs.coupling.drift)
            if legs.arrived:
                reached = float(np.hypot(*(after - route.goal)[:2])) <= STOPPING_DISTANCE + 0.05
                break
        return RouteRun(
            feet=np.array(feet),
            drift=np.array(drift),
            reached=reached,
            seconds=used * world.dt,
            travelled_m=travelled,
            wall_contacts=walls,
            pulls=legs.coupling.state.pulls,
        )


@dataclass
class SyncReport:
    """Per-mode reports, the tau sweep and timings."""

    scene: str
    modes: dict[str, ModeReport]
    taus: dict[float, ModeReport]
    routes: list[Route]
    seconds: float
    bake_seconds: float

    def to_json(self) -> dict:
        return {
            "scene": self.scene,
            "routes": len(self.routes),
            "modes": {name: rep.to_json() for name, rep in self.modes.items()},
            "tau_sweep": [{"tau": tau, **rep.to_json()} for tau, rep in self.taus.items()],
            "wall_seconds": self.seconds,
        }


def run_sync_benchmark(
    scene: Scene,
    mesh: NavMesh,
    settings: SyncSettings,
    *,
    progress: bool | Callable[[str, int, int | None], None] = False,
    bake_seconds: float = 0.0,
) -> SyncReport:
    """Run every mode (and the tau sweep) over the same seeded routes.

    `progress`: a callable `progress(stage, done, total)` told the routes driven (stage "driving routes"),
    or True for a tqdm bar on stderr.
    """
    t0 = time.perf_counter()
    query = NavMeshQuery(mesh)
    routes = make_routes(query, np.random.default_rng(settings.seed), settings.routes, settings.min_route_m)
    jobs: list[tuple[str | float, CouplingSettings]] = [(m, MODES[m]) for m in settings.modes]
    jobs += [(tau, CouplingSettings(mode="root_motion", tau=tau)) for tau in settings.taus]
    reports: dict[str | float, ModeReport] = {}
    bar = None
    total, driven = len(jobs) * len(routes), 0
    if progress is True:
        from tqdm import tqdm

        bar = tqdm(total=total, desc="sync benchmark", unit="route", leave=False)
    report = progress if callable(progress) else None
    if report is not None:
        report("driving routes", 0, total)
    for key, coupling in jobs:
        rep = ModeReport(mode=str(key), radius=max(bake_settings(scene.navmesh).agent_radius, 0.05))
        for i, route in enumerate(routes):
            rep.runs.append(
                run_route(scene, query, route, coupling, seed=settings.seed + i, timeout_s=settings.timeout_s)
            )
            rep.routes.append(route)
            driven += 1
            if bar is not None:
                bar.update()
            if report is not None:
                report("driving routes", driven, total)
        reports[key] = rep
    if bar is not None:
        bar.close()
    return SyncReport(
        scene=scene.name,
        modes={str(k): v for k, v in reports.items() if isinstance(k, str)},
        taus={float(k): v for k, v in reports.items() if not isinstance(k, str)},
        routes=routes,
        seconds=time.perf_counter() - t0,
        bake_seconds=bake_seconds,
    )


def format_table(report: SyncReport) -> str:
    """A fixed-width table of the per-mode results."""
    head = (
        f"{'mode':<28}{'skate%':>8}{'foot cm/s':>10}{'drift mean':>11}{'drift max':>10}{'>radius%':>9}"
        f"{'path x':>8}{'success':>8}{'SPL':>6}{'t goal s':>9}{'walls':>7}"
    )
    lines = [head, "-" * len(head)]
    for name, rep in report.modes.items():
        j = rep.to_json()
        lines.append(
            f"{name:<28}{100 * j['foot_skate_ratio']:>8.2f}{100 * j['contact_foot_speed_mps']:>10.1f}"
            f"{j['drift_mean_m']:>11.3f}{j['drift_max_m']:>10.3f}{100 * j['drift_over_radius_frac']:>9.2f}"
            f"{j['path_ratio']:>8.3f}{j['success_rate']:>8.2f}{j['spl']:>6.2f}{j['time_to_goal_s']:>9.2f}"
            f"{j['wall_contacts']:>7d}"
        )
    return "\n".join(lines)


def write_outputs(report: SyncReport, out_dir: Path) -> list[Path]:
    """Write sync_modes.csv, sync_tau.csv, sync.json and tau_sweep.png into `out_dir`; return the paths."""
    import csv
    import json

    out_dir.mkdir(parents=True, exist_ok=True)
    data = report.to_json()
    written = []
    modes_csv = out_dir / "sync_modes.csv"
    with modes_csv.open("w", newline="", encoding="utf-8") as f:
        keys = list(next(iter(data["modes"].values())).keys())
        w = csv.writer(f)
        w.writerow(["mode", *keys])
        for name, row in data["modes"].items():
            w.writerow([name, *(row[k] for k in keys)])
    written.append(modes_csv)
    if data["tau_sweep"]:
        tau_csv = out_dir / "sync_tau.csv"
        with tau_csv.open("w", newline="", encoding="utf-8") as f:
            keys = list(data["tau_sweep"][0].keys())
            w = csv.writer(f)
            w.writerow(keys)
            for row in data["tau_sweep"]:
                w.writerow([row[k] for k in keys])
        written.append(tau_csv)
        written.append(plot_tau_sweep(report, out_dir / "tau_sweep.png"))
    js = out_dir / "sync.json"
    js.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
    written.append(js)
    return written


def plot_tau_sweep(report: SyncReport, out: Path) -> Path:
    """Foot skate against mean drift for each tau of the root_motion low-pass filter."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    taus = sorted(report.taus)
    rows = [report.taus[t].to_json() for t in taus]
    fig, ax = plt.subplots(figsize=(6, 4.5))
    x = [r["drift_mean_m"] for r in rows]
    y = [100 * r["foot_skate_ratio"] for r in rows]
    ax.plot(x, y, "o-", color="tab:blue")
    for t, xi, yi in zip(taus, x, y, strict=True):
        ax.annotate(f"tau {t:g} s", (xi, yi), textcoords="offset points", xytext=(6, 4), fontsize=8)
    ax.set_xlabel("mean agent-character drift [m]")
    ax.set_ylabel("foot skate ratio [%]")
    ax.set_title(f"root_motion tau sweep on {report.scene} ({len(report.routes)} routes)")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
