"""The `npc-ai` command line.

Every error caused by the user's input (an unknown scene, a malformed file, a bad number) prints one line on
stderr and exits with status 2; no traceback. Output paths are checked first, before any work (see
`npc_ai.cli.types.writable_file`), so a long run never fails at the end on a bad path.

Stdout carries results only; progress of long work (baking a navmesh, benchmarks) goes to stderr (see
`npc_ai.cli.progress`): bars on a terminal, one line per stage otherwise, nothing with `--quiet`.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

from npc_ai import __version__
from npc_ai.bench.names import COUPLING_MODES
from npc_ai.cli import carve_bench as carve_bench_cli
from npc_ai.cli import crowd_bench as crowd_bench_cli
from npc_ai.cli import nav_bench as nav_bench_cli
from npc_ai.cli import sim as sim_cli
from npc_ai.cli import sweep as sweep_cli
from npc_ai.cli import types as cli_types
from npc_ai.cli.progress import StderrProgress
from npc_ai.cli.types import UsageError
from npc_ai.errors import NpcAiError

if TYPE_CHECKING:
    import numpy as np

    from navigation.query import NavMeshQuery, PathResult

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")


def _cmd_scenes(args: argparse.Namespace) -> int:
    from scenes import BUILTIN_SCENES, load_builtin

    for name in BUILTIN_SCENES:
        scene = load_builtin(name)
        print(f"{name:<10} {len(scene.npcs)} NPCs  {scene.description}")
    return 0


def _cmd_clip_info(args: argparse.Namespace) -> int:
    import json

    from npc_ai.animation import clip_info, load_clip

    info = clip_info(load_clip(args.file, clean=args.clean))
    if args.json:
        print(json.dumps(info, sort_keys=True))
        return 0
    print(f"{info['name']}  ({info['source']})")
    print(
        f"  frames {info['frames']} at {info['fps']:g} fps = {info['duration_s']:.3f} s, loop {info['loop']}"
    )
    motion = "yes" if info["has_root_motion"] else "no (use code-driven velocity)"
    speed, dist = info["root_speed_mps"], info["root_distance_m"]
    print(f"  root speed {speed:.3f} m/s, distance {dist:.3f} m, root motion {motion}")
    for foot, data in info["contacts"].items():
        spans = ", ".join(f"{a:.2f}-{b:.2f}" for a, b in data["intervals"])
        print(f"  {foot} foot: {data['count']} contacts [s]: {spans}")
    return 0


def _cmd_clip_plot(args: argparse.Namespace) -> int:
    cli_types.writable_file(args.out, "--out", cli_types.FIGURE)
    from npc_ai.animation import load_clip, plot_clip

    out = plot_clip(load_clip(args.file, clean=args.clean), args.out)
    print(f"wrote {out}")
    return 0


def _cmd_clip_render(args: argparse.Namespace) -> int:
    cli_types.writable_file(args.out, "--out", cli_types.PNG)
    from npc_ai.animation import load_clip
    from npc_ai.viz.humanoid import render_filmstrip

    out = render_filmstrip(load_clip(args.file, clean=args.clean), args.out, frames=args.frames)
    print(f"wrote {out}")
    return 0


def _cmd_nav_scen(args: argparse.Namespace) -> int:
    cli_types.writable_file(args.out, "--out", cli_types.CSV)
    import csv

    import numpy as np

    from navigation.benchmark import ROW_FIELDS, solve_scenarios
    from navigation.movingai import read_map, read_scenarios
    from navigation.query import QueryStatus

    grid = read_map(args.map)
    scenarios = read_scenarios(args.scen)
    if not scenarios:
        raise UsageError(f"{args.scen}: no scenarios in the file")
    total = len(scenarios)
    solved = 0

    def on_row(_row: object) -> None:
        nonlocal solved
        solved += 1
        progress("solving scenarios", solved, total)

    with StderrProgress(f"map {grid.name}", quiet=args.quiet or total < 200) as progress:
        report = solve_scenarios(grid, scenarios, on_row=on_row)
    if args.out is not None:
        with open(args.out, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(ROW_FIELDS)
            for row in report.rows:
                w.writerow([_csv_value(v) for v in row.as_tuple()])
    micros = np.array([r.micros for r in report.rows])
    status = {s.value: sum(r.status == s.value for r in report.rows) for s in QueryStatus}
    print(f"map {grid.name}: {grid.width} x {grid.height}, {len(scenarios)} scenarios")
    print(f"bake {report.bake_seconds * 1e3:.1f} ms, {report.polygon_count} polygons")
    print(f"query time median {np.median(micros):.0f} us, p95 {np.percentile(micros, 95):.0f} us")
    print("status " + ", ".join(f"{k} {v}" for k, v in status.items()))
    if args.out is not None:
        print(f"wrote {args.out}")
    return 0


def _csv_value(v: object) -> object:
    return f"{v:.6f}" if isinstance(v, float) else v


def _cmd_nav_bake(args: argparse.Namespace) -> int:
    cli_types.writable_file(args.plot, "--plot", cli_types.FIGURE)
    cli_types.writable_file(args.save, "--save", cli_types.NPZ)
    import time

    from npc_ai.levels import load_level

    scene = load_level(args.scene)  # a bad scene is refused before the navmesh modules load
    import numpy as np

    from navigation.query import NavMeshQuery
    from npc_ai.levels.navmesh import scene_navmesh
    from scenes import World

    t0 = time.perf_counter()
    with (
        World(scene, seed=args.seed) as world,
        StderrProgress(f"baking the navmesh of {scene.name}", quiet=args.quiet) as progress,
    ):
        mesh, cached = scene_navmesh(world, use_cache=not args.no_cache, progress=progress)
    seconds = time.perf_counter() - t0
    islands = int(mesh.islands.max()) + 1 if mesh.polygon_count else 0
    how = "loaded from the cache" if cached else "baked"
    print(f"scene {scene.name}: navmesh {how} in {seconds:.2f} s")
    print(f"{mesh.polygon_count} polygons, {mesh.total_area:.1f} m^2 walkable, {islands} islands")
    if args.plot is not None:
        from navigation.plot import plot_navmesh

        query = NavMeshQuery(mesh)
        rng = np.random.default_rng(args.seed)
        path = _sample_path(query, rng)
        plot_navmesh(mesh, path, out=args.plot, title=f"{scene.name}: {mesh.polygon_count} polygons")
        print(f"wrote {args.plot}" + (f" (sample path {path.length:.1f} m)" if path is not None else ""))
    if args.save is not None:
        print(f"wrote {mesh.save(args.save)}")  # the path save() wrote, never a name it was given
    return 0


def _sample_path(query: NavMeshQuery, rng: np.random.Generator) -> PathResult | None:
    """A long complete path between random points of the main island (None if there is none)."""
    best = None
    main = query.mesh.main_island
    for _ in range(40):
        (a, _), (b, _) = query.random_point(rng, islands=main), query.random_point(rng, islands=main)
        path = query.find_path(a, b)
        if path.ok and (best is None or path.length > best.length):
            best = path
    return best


def _cmd_bench_sync(args: argparse.Namespace) -> int:
    cli_types.writable_file(args.json, "--json", cli_types.JSON)
    cli_types.writable_folder(args.out, "--out")
    import json
    import time
    from pathlib import Path

    from npc_ai.bench.sync import DEFAULT_SCENES, QUICK_SCENES, SyncSettings, run_sync_benchmark
    from npc_ai.bench.sync_output import format_table, write_outputs
    from npc_ai.levels import load_level
    from npc_ai.levels.navmesh import scene_navmesh
    from scenes import World

    plan: tuple[tuple[str, int], ...] = QUICK_SCENES if args.quick else DEFAULT_SCENES
    if args.scene:
        counts = dict(plan)
        plan = tuple((name, args.routes or counts.get(name, 6)) for name in args.scene)
    elif args.routes:
        plan = tuple((name, args.routes) for name, _ in plan)
    default = SyncSettings()
    settings = SyncSettings(
        seed=args.seed,
        modes=tuple(args.modes) if args.modes else default.modes,
        taus=tuple(args.tau) if args.tau is not None else ((0.15, 0.6) if args.quick else default.taus),
    )
    t0 = time.perf_counter()
    with StderrProgress("sync benchmark", quiet=args.quiet) as progress:
        scenes = []
        for name, routes in plan:
            scene = load_level(name)
            with World(scene, seed=args.seed) as world:
                mesh, _ = scene_navmesh(world, progress=progress)
            scenes.append((scene, mesh, routes))
        bake = time.perf_counter() - t0
        report = run_sync_benchmark(scenes, settings, progress=progress, bake_seconds=bake)
    print(f"sync benchmark: {', '.join(f'{n} ({k} routes)' for n, k in plan)}, seed {args.seed}")
    print(format_table(report))
    data = report.to_json()
    pair = data["paired"].get("planted_slide_cm_per_m")
    if pair:
        print(
            f"root_motion / agent_drives planted sliding: {pair['ratio']:.2f}x "
            f"(95 % CI {pair['ratio_ci_low']:.2f}-{pair['ratio_ci_high']:.2f}; paired difference "
            f"{pair['mean']:+.2f} cm/m, CI [{pair['ci_low']:+.2f}, {pair['ci_high']:+.2f}])"
        )
    if report.taus:
        print("root_motion tau sweep:  tau [s]  cm/m  drift mean [m]  drift max [m]")
        for tau, rep in sorted(report.taus.items()):
            j = rep.to_json()
            cm, mean, peak = j["planted_slide_cm_per_m"], j["drift_mean_m"], j["drift_max_m"]
            print(f"{tau:>24.3f}{cm:>6.2f}{mean:>16.3f}{peak:>15.3f}")
    print(f"ran in {report.seconds:.1f} s (navmesh {bake:.2f} s)")
    if args.out is not None:
        for path in write_outputs(report, Path(args.out)):
            print(f"wrote {path}")
    if args.json is not None:
        keep = {k: data[k] for k in ("modes", "paired", "scenes")}
        Path(args.json).write_text(json.dumps(keep, indent=2, sort_keys=True), encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `npc-ai` (exposed for tests and docs)."""
    p = _Parser(prog="npc-ai", description="Simulated enemies in a PyBullet world.")
    p.add_argument("--version", action="version", version=f"npc-ai {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser("scenes", help="list the built-in scenes")
    s.set_defaults(func=_cmd_scenes)

    r = sub.add_parser("run", help="simulate a scene headless: enemies wander, spot, aim, chase, search")
    sim_cli.add_run_arguments(r)
    r.set_defaults(func=sim_cli.cmd_run)

    d = sub.add_parser("demo", help="enemies in the warehouse: timeline and a replay picture")
    sim_cli.add_demo_arguments(d)
    d.set_defaults(func=sim_cli.cmd_demo)

    nav = sub.add_parser("nav", help="navigation meshes: bake scenes, solve MovingAI benchmarks")
    nav_sub = nav.add_subparsers(dest="nav_command", required=True, parser_class=_Parser)
    ns = nav_sub.add_parser("scen", help="solve every scenario of a MovingAI map/scenario pair")
    ns.add_argument("map", help="a MovingAI .map file")
    ns.add_argument("scen", help="its .map.scen scenario file")
    ns.add_argument("--out", help="write one CSV row per scenario to this .csv file")
    ns.add_argument("--quiet", action="store_true", help="no progress on stderr")
    ns.set_defaults(func=_cmd_nav_scen)
    nb = nav_sub.add_parser("bake", help="bake a scene's navmesh and report it")
    nb.add_argument("scene", help="a built-in scene name, a .toml scene file or a MovingAI .map file")
    nb.add_argument("--plot", help="draw polygons by height, portals and a sample path (.png, .svg, .pdf)")
    nb.add_argument("--save", help="write the navmesh to this .npz file")
    nb.add_argument("--seed", type=cli_types.seed, default=0, help="seed of the sample path (default 0)")
    nb.add_argument("--no-cache", action="store_true", help="bake even if a cached navmesh exists")
    nb.add_argument("--quiet", action="store_true", help="no progress on stderr while baking")
    nb.set_defaults(func=_cmd_nav_bake)

    bench = sub.add_parser("bench", help="benchmarks")
    bench_sub = bench.add_subparsers(dest="bench_command", required=True, parser_class=_Parser)
    bs = bench_sub.add_parser("sync", help="navigation/animation sync: coupling modes on the same routes")
    bs.add_argument(
        "--scene", nargs="+", help="scenes to drive in (default arena, warehouse, compound: 24, 12, 6 routes)"
    )
    bs.add_argument(
        "--routes", type=cli_types.positive_int, help="seeded routes per scene (default: 24 / 12 / 6, else 6)"
    )
    bs.add_argument("--quick", action="store_true", help="a smoke run: 3 arena routes, 2 taus")
    bs.add_argument("--modes", nargs="+", choices=COUPLING_MODES, help="coupling modes (default: all)")
    bs.add_argument(
        "--tau", nargs="*", type=cli_types.positive_float, help="root_motion filter taus to sweep [s]"
    )
    bs.add_argument("--seed", type=cli_types.seed, default=0, help="route seed (default 0)")
    bs.add_argument("--out", help="folder for CSV, JSON and the tau-sweep plot (created if missing)")
    bs.add_argument(
        "--json", help="write {modes: {MODE: metrics}, paired: {...}, scenes: {...}} to this .json file"
    )
    bs.add_argument("--quiet", action="store_true", help="no progress on stderr")
    bs.set_defaults(func=_cmd_bench_sync)
    bm = bench_sub.add_parser("sim", help="simulation throughput: NPC-ticks per second for 10, 50, 100 NPCs")
    sim_cli.add_bench_sim_arguments(bm)
    bm.set_defaults(func=sim_cli.cmd_bench_sim)
    bn = bench_sub.add_parser(
        "nav", help="exact path queries on the MovingAI maps, next to pynavmesh when it is installed"
    )
    nav_bench_cli.add_bench_nav_arguments(bn)
    bn.set_defaults(func=nav_bench_cli.cmd_bench_nav)
    bk = bench_sub.add_parser(
        "soak", help="long runs: exceptions, NaNs, bodies below the floor or in walls, stuck NPCs, memory"
    )
    sim_cli.add_bench_soak_arguments(bk)
    bk.set_defaults(func=sim_cli.cmd_bench_soak)
    bc = bench_sub.add_parser(
        "crowd", help="local avoidance: circle (next to pyrvo), doorway, corridor and chase, on and off"
    )
    crowd_bench_cli.add_bench_crowd_arguments(bc)
    bc.set_defaults(func=crowd_bench_cli.cmd_bench_crowd)
    bv = bench_sub.add_parser(
        "carve", help="dynamic obstacles: local navmesh rebuilds timed and checked against the full rebuild"
    )
    carve_bench_cli.add_bench_carve_arguments(bv)
    bv.set_defaults(func=carve_bench_cli.cmd_bench_carve)

    sw = sub.add_parser(
        "sweep", help="a task over a grid of parameters and seeds, on every core or on Ray (docs/sweeps.md)"
    )
    sweep_cli.add_sweep_arguments(sw)
    sw.set_defaults(func=sweep_cli.cmd_sweep)

    clip = sub.add_parser("clip", help="inspect motion clips (built-in names or .bvh / DeepMimic .txt files)")
    clip_sub = clip.add_subparsers(dest="clip_command", required=True, parser_class=_Parser)
    ci = clip_sub.add_parser("info", help="frames, frame rate, duration, root speed, foot contacts")
    ci.add_argument("file", help="a .bvh or DeepMimic .txt file, or a built-in clip: walk, run, idle, ...")
    ci.add_argument("--json", action="store_true", help="print one JSON object")
    ci.add_argument("--clean", action="store_true", help="apply foot-locking cleanup first")
    ci.set_defaults(func=_cmd_clip_info)
    cp = clip_sub.add_parser("plot", help="draw the root path and the foot heights over time")
    cp.add_argument("file", help="a .bvh or DeepMimic .txt file, or a built-in clip")
    cp.add_argument("--out", required=True, help="the figure to write (.png, .svg, .pdf)")
    cp.add_argument("--clean", action="store_true", help="apply foot-locking cleanup first")
    cp.set_defaults(func=_cmd_clip_plot)
    cr = clip_sub.add_parser("render", help="pose humanoid.urdf along the clip and render a filmstrip PNG")
    cr.add_argument("file", help="a DeepMimic .txt file or a built-in clip (the humanoid skeleton)")
    cr.add_argument("--out", required=True, help="the .png file to write")
    cr.add_argument(
        "--frames", type=cli_types.positive_int, default=8, help="frames in the strip (default 8)"
    )
    cr.add_argument("--clean", action="store_true", help="apply foot-locking cleanup first")
    cr.set_defaults(func=_cmd_clip_render)
    return p


def _user_errors() -> tuple[type[BaseException], ...]:
    """The error roots of the packages loaded so far: everything bad input can raise. A package that was
    never imported raised nothing, and importing `navigation` or `scenes` only to name their roots would
    cost a usage error two seconds of numba and PyBullet start-up."""
    roots: list[type[BaseException]] = [NpcAiError]
    for module, root in (("scenes.errors", "SceneError"), ("navigation.errors", "NavigationError")):
        if module in sys.modules:
            roots.append(getattr(sys.modules[module], root))
    return tuple(roots)


def _warning_line(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: object = None,
    line: object = None,
) -> None:
    """A warning (an unusable navmesh cache, ...) is one line on stderr, like an error: no source lines."""
    print(f"npc-ai: warning: {' '.join(str(message).split())}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit status."""
    args = build_parser().parse_args(argv)
    warnings.showwarning = _warning_line
    try:
        return int(args.func(args))
    except _user_errors() as exc:
        message = " ".join(str(exc).split())
        print(f"npc-ai: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("npc-ai: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`npc-ai scenes | head -1`): not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
