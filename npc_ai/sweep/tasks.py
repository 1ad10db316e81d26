"""The tasks a sweep can run: each builds its own world from the scene name (a PyBullet client cannot cross
processes), runs one benchmark or rollout under one parameter combination and one seed, and returns one
flat row of metrics.

| task       | what one trial runs                                           | the seed                      |
|------------|---------------------------------------------------------------|-------------------------------|
| `sync`     | `bench sync` for one scene and one coupling mode (and tau)    | routes and worlds             |
| `sim`      | `bench sim` for one NPC count                                 | the simulation                |
| `crowd`    | `bench crowd` for one scenario, avoidance on and off          | the simulations               |
| `nav-scen` | `nav scen`: every scenario of a MovingAI map/scenario pair    | unused (deterministic)        |
| `run`      | `npc-ai run`: a headless simulation, and a GIF when asked     | the simulation                |
| `env`      | rollouts of `npc_ai/Stealth-v0` or `npc_ai/Guard-v0`          | episodes and random actions   |

`TASKS` (names and parameters) imports nothing heavy, so a spec is checked in a fraction of a second; the
runners import the simulation when a trial starts. Metrics that are wall-clock times are listed in each
task's `timing_metrics`: they go to timings.csv, never to results.csv (which must not depend on the
machine). Parameters and metrics are documented in docs/sweeps.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from npc_ai.bench.names import COUPLING_MODES, CROWD_SCENARIOS
from npc_ai.sweep.errors import SpecError
from npc_ai.sweep.params import Param, TaskInfo

Metrics = dict[str, Any]
Runner = Callable[[Mapping[str, Any], int, Path | None], Metrics]
"""`runner(params, seed, artifacts)`: every parameter resolved; `artifacts` a folder for files a trial
writes (GIFs), None when it should write none."""

ENV_IDS = ("npc_ai/Stealth-v0", "npc_ai/Guard-v0")
SCENE_DOC = "a built-in scene name, a .toml scene file or a MovingAI .map file"

TASKS: dict[str, TaskInfo] = {
    t.name: t
    for t in (
        TaskInfo(
            "sync",
            "navigation/animation sync: seeded routes under one coupling mode (npc-ai bench sync)",
            (
                Param("scene", str, "arena", SCENE_DOC),
                Param("mode", str, "root_motion", "coupling mode", choices=COUPLING_MODES),
                Param("tau", float, None, "low-pass filter time constant [s]; none: the mode's own",
                      low=0.001, high=10.0, optional=True),
                Param("routes", int, 6, "seeded routes driven [count]", low=1, high=1000),
                Param("min_route_m", float, 8.0, "shortest route accepted [m]", low=0.5, high=1000.0),
                Param("timeout_s", float, 30.0, "time limit per route [s]", low=1.0, high=3600.0),
                Param("settle_s", float, 1.0, "recording after arrival [s]", low=0.0, high=60.0),
                Param("shove_every", int, 3, "every this many routes the NPC is shoved [count; 0 never]",
                      low=0, high=1000),
            ),
        ),
        TaskInfo(
            "sim",
            "simulation throughput for one NPC count (npc-ai bench sim)",
            (
                Param("scene", str, "warehouse", SCENE_DOC),
                Param("npcs", int, 10, "NPCs simulated [count]", low=1, high=10_000),
                Param("seconds", float, 2.0, "simulated seconds timed [s]", low=0.05, high=3600.0),
                Param("avoidance", bool, False, "crowd avoidance on"),
                Param("bodies", str, "dynamic", "NPC bodies", choices=("dynamic", "kinematic")),
                Param("full_animation", bool, False, "sample full skeleton poses every tick"),
            ),
            timing_metrics=(
                "wall_s", "npc_ticks_per_s", "real_time_factor", "tick_ms", "pybullet_s", "pybullet_share",
                "build_s", "rss_mb", "crowd_ms_per_tick",
            ),
        ),
        TaskInfo(
            "crowd",
            "local avoidance on one crowd scenario, with and without avoidance (npc-ai bench crowd)",
            (
                Param("scenario", str, "corridor", "crowd scenario", choices=CROWD_SCENARIOS),
                Param("crowd", int, None, "agents: circle agents, doorway agents (even), corridor agents "
                      "per side or chase guards [count]; none: the benchmark's", low=1, high=10_000,
                      optional=True),
                Param("circle_radius", float, 50.0, "radius of the circle scenario [m]",
                      low=1.0, high=1000.0),
                Param("bodies", str, "dynamic", "NPC bodies", choices=("dynamic", "kinematic")),
            ),
            timing_metrics=("ms_per_step", "tick_ms", "off_ms_per_step", "off_tick_ms"),
        ),
        TaskInfo(
            "nav-scen",
            "exact path queries on every scenario of a MovingAI map (npc-ai nav scen)",
            (
                Param("map", str, None, "a MovingAI .map file (a path, relative to the current folder)",
                      required=True),
                Param("scen", str, None, "its .map.scen file; none: the map's path + .scen", optional=True),
            ),
            seeded=False,
            timing_metrics=("bake_s", "query_us_median", "query_us_p95"),
        ),
        TaskInfo(
            "run",
            "a headless simulation: enemies wander, spot, aim, chase, search (npc-ai run)",
            (
                Param("scene", str, "arena", SCENE_DOC),
                Param("npcs", int, None, "NPCs [count]; none: the scene's spawns", low=0, high=10_000,
                      optional=True),
                Param("seconds", float, 30.0, "simulated seconds [s]", low=0.05, high=86_400.0),
                Param("player", str, "auto", "the player (auto: its route if the scene has one, else wander)",
                      choices=("auto", "route", "wander", "still", "none")),
                Param("gif", bool, False, "write an animated replay, DIR/artifacts/<trial>/replay.gif"),
            ),
        ),
        TaskInfo(
            "env",
            "episodes of a research env with a scripted or seeded random policy (npc_ai.envs)",
            (
                Param("env", str, "npc_ai/Stealth-v0", "environment id", choices=ENV_IDS),
                Param("policy", str, "scripted", "the policy (random: seeded by the trial's seed)",
                      choices=("scripted", "random")),
                Param("episodes", int, 2, "episodes, seeded seed, seed + 1, ... [count]", low=1, high=10_000),
                Param("scene", str, "arena", SCENE_DOC),
                Param("guards", int, 3, "guards [count]", low=0, high=8),
                Param("difficulty", str, "normal", "scripted guards' difficulty",
                      choices=("easy", "normal", "hard")),
                Param("time_limit_s", float, 60.0, "episode time limit [s]", low=1.0, high=3600.0),
            ),
        ),
    )
}  # fmt: skip
"""The tasks, by name (the `task` key of a spec)."""


def task_info(name: object) -> TaskInfo:
    """The task called `name`, or `SpecError` listing the tasks."""
    if not isinstance(name, str) or name not in TASKS:
        raise SpecError(f"sweep.task: unknown task {name!r}; choose from {', '.join(TASKS)}")
    return TASKS[name]


# -- the runners ---------------------------------------------------------------------------------------
def run_sync(p: Mapping[str, Any], seed: int, artifacts: Path | None) -> Metrics:
    import numpy as np

    from navigation.query import NavMeshQuery
    from npc_ai.bench.sync import SyncSettings, drive_routes, make_routes
    from npc_ai.body.coupling import MODES
    from npc_ai.levels import load_level, scene_navmesh
    from scenes import World

    scene = load_level(p["scene"])
    with World(scene, seed=seed) as world:
        mesh, _ = scene_navmesh(world)
    settings = SyncSettings(
        routes=p["routes"],
        min_route_m=p["min_route_m"],
        timeout_s=p["timeout_s"],
        settle_s=p["settle_s"],
        shove_every=p["shove_every"],
        seed=seed,
        modes=(p["mode"],),
        taus=(),
    )
    routes = make_routes(NavMeshQuery(mesh), np.random.default_rng(seed), p["routes"], p["min_route_m"])
    coupling = MODES[p["mode"]]
    if p["tau"] is not None:
        coupling = dataclasses.replace(coupling, tau=p["tau"])
    report = drive_routes(scene, mesh, routes, coupling, settings, name=p["mode"])
    return report.to_json()


def run_sim(p: Mapping[str, Any], seed: int, artifacts: Path | None) -> Metrics:
    from npc_ai.bench.sim import run_bench_sim
    from npc_ai.levels import load_level

    (r,) = run_bench_sim(
        load_level(p["scene"]),
        [p["npcs"]],
        seconds=p["seconds"],
        seed=seed,
        root_only_animation=not p["full_animation"],
        avoidance=p["avoidance"],
        bodies=p["bodies"],
    )
    calls = sum(r.pybullet_calls.values()) / max(r.ticks, 1)
    return {
        "ticks": r.ticks,
        "events": r.events,
        "pybullet_calls_per_tick": calls,
        "wall_s": r.wall_s,
        "npc_ticks_per_s": r.npc_ticks_per_s,
        "real_time_factor": r.realtime_factor,
        "tick_ms": r.tick_ms,
        "pybullet_s": r.pybullet_s,
        "pybullet_share": r.pybullet_share,
        "build_s": r.build_s,
        "rss_mb": r.rss_mb,
        "crowd_ms_per_tick": r.crowd_ms_per_tick,
    }


def run_crowd(p: Mapping[str, Any], seed: int, artifacts: Path | None) -> Metrics:
    from npc_ai.bench.crowd import CrowdBenchSettings, run_circle, run_sim_scenario

    name, n = p["scenario"], p["crowd"]
    sizes = {"circle": "circle_agents", "doorway": "doorway_agents", "corridor": "corridor_per_side"}
    field = sizes.get(name, "chase_guards")
    extra = {} if n is None else {field: n}
    try:
        settings = CrowdBenchSettings(
            seed=seed, peer=False, bodies=p["bodies"], circle_radius=p["circle_radius"], **extra
        )
    except ValueError as exc:
        raise SpecError(f"crowd {name}: {exc}") from None
    entry = run_circle(settings) if name == "circle" else run_sim_scenario(name, settings)
    out = _flat({k: v for k, v in entry.items() if k not in ("where", "without_avoidance", "reference")})
    off = entry.get("without_avoidance")
    if off is not None:
        out |= {f"off_{k}": v for k, v in _flat(off).items()}
    return out


def _flat(entry: Mapping[str, Any], prefix: str = "") -> Metrics:
    """Nested dicts as one level (`a.b` -> `a_b`); lists and notes (strings) left out."""
    out: Metrics = {}
    for k, v in entry.items():
        if isinstance(v, Mapping):
            out |= _flat(v, f"{prefix}{k}_")
        elif isinstance(v, bool | int | float) and not k.endswith("_note"):
            out[f"{prefix}{k}"] = v
    return out


def run_nav_scen(p: Mapping[str, Any], seed: int, artifacts: Path | None) -> Metrics:
    import numpy as np

    from navigation.benchmark import solve_scenarios
    from navigation.movingai import read_map, read_scenarios

    map_path = Path(p["map"])
    scen = Path(p["scen"]) if p["scen"] is not None else map_path.with_name(map_path.name + ".scen")
    grid = read_map(map_path)
    scenarios = read_scenarios(scen)
    if not scenarios:
        raise SpecError(f"{scen}: no scenarios in the file")
    report = solve_scenarios(grid, scenarios)
    rows = report.rows
    ok = [r for r in rows if r.status == "success"]
    micros = np.array([r.micros for r in rows])
    ratio = [r.length / r.octile_length for r in ok if r.octile_length > 0]
    return {
        "scenarios": len(rows),
        "success_rate": len(ok) / len(rows),
        "polygons": report.polygon_count,
        "length_over_octile_mean": float(np.mean(ratio)) if ratio else float("nan"),
        "length_over_octile_min": float(np.min(ratio)) if ratio else float("nan"),
        "fallbacks": report.fallbacks,
        "bake_s": report.bake_seconds,
        "query_us_median": float(np.median(micros)),
        "query_us_p95": float(np.percentile(micros, 95)),
    }


def run_run(p: Mapping[str, Any], seed: int, artifacts: Path | None) -> Metrics:
    from npc_ai.behaviour.table import STATE_NAMES
    from npc_ai.levels import load_level
    from npc_ai.sim.player import PlayerSettings
    from npc_ai.sim.simulation import Simulation, SimulationSettings

    scene = load_level(p["scene"])
    mode = p["player"]
    if mode == "auto":
        mode = "route" if (scene.player is not None and scene.player.route) else "wander"
    player = None if mode == "none" else PlayerSettings(mode=mode)
    settings = SimulationSettings(npcs=p["npcs"], player=player)
    out: Metrics = {}
    with Simulation(scene, seed=seed, settings=settings) as sim:
        sim.run(p["seconds"])
        npcs = sim.npcs
        out["npc_count"] = len(npcs)
        for key in ("spotted", "shots", "hits"):
            out[key] = int(sum(getattr(n, key) for n in npcs))
        counts = sim._counts
        for event in ("chase", "search", "heard"):
            out[f"{event}_events"] = int(sum(counts[(n.name, event)] for n in npcs))
        out["events"] = sim.events.recorded
        total = sum(sum(n.state_time.values()) for n in npcs) or 1.0
        for s in STATE_NAMES:
            out[f"share_{s}"] = sum(n.state_time.get(s, 0.0) for n in npcs) / total
        if p["gif"] and artifacts is not None:
            from npc_ai.viz.replay_gif import write_replay_gif

            artifacts.mkdir(parents=True, exist_ok=True)
            write_replay_gif(sim, artifacts / "replay.gif")
    return out


def run_env(p: Mapping[str, Any], seed: int, artifacts: Path | None) -> Metrics:
    import gymnasium as gym

    import npc_ai.envs  # noqa: F401 - registers the ids
    from npc_ai.envs.baselines import rollout, scripted_guard, scripted_player

    scripted = scripted_player if p["env"] == "npc_ai/Stealth-v0" else scripted_guard
    env = gym.make(
        p["env"],
        scene=p["scene"],
        guards=p["guards"],
        difficulty=p["difficulty"],
        time_limit_s=p["time_limit_s"],
    )
    env.action_space.seed(seed)
    ret, success, steps = rollout(env, None if p["policy"] == "random" else scripted, p["episodes"], seed)
    return {"return_mean": ret, "success_rate": success, "steps_mean": steps}


RUNNERS: dict[str, Runner] = {
    "sync": run_sync,
    "sim": run_sim,
    "crowd": run_crowd,
    "nav-scen": run_nav_scen,
    "run": run_run,
    "env": run_env,
}
"""The function that runs one trial of each task (`TASKS` has the same keys; a test keeps them equal)."""
