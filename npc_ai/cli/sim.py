"""The simulation commands of the CLI: `npc-ai run`, `npc-ai demo`, `npc-ai bench sim`, `npc-ai bench soak`.

`npc_ai.cli.main` wires these in: `add_*_arguments(parser)` fills a sub-parser, `cmd_*(args) -> int` runs it.
Bad input raises `UsageError` / `SceneError`, which the CLI prints as one line (exit status 2).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from npc_ai.cli import types as cli_types
from npc_ai.cli.types import UsageError

if TYPE_CHECKING:
    from scenes import Scene

TIMELINE_SKIP = ("noise",)  # in the events file, not on the screen
GUI_KEYS = "GUI keys: f follows the next NPC, p the player, l shows the level (the mouse turns and zooms)"


# -- run ----------------------------------------------------------------------------------------------
def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of `npc-ai run`."""
    p.add_argument("scene", help="a built-in scene name, a .toml scene file or a MovingAI .map file")
    p.add_argument("--npcs", type=cli_types.count, help="number of NPCs (default: the scene's spawns)")
    p.add_argument("--seconds", type=cli_types.seconds, default=30.0, help="simulated seconds (default 30)")
    p.add_argument("--seed", type=cli_types.seed, default=0, help="random seed (default 0)")
    p.add_argument("--events", help="write the events as JSON lines to this file")
    p.add_argument("--plot", help="draw a top-down replay to this PNG")
    p.add_argument("--gif", help="write an animated top-down replay (a few seconds) to this .gif file")
    p.add_argument(
        "--player",
        choices=("auto", "route", "wander", "still", "keyboard", "none"),
        default="auto",
        help="the player: its scene route, a navmesh wanderer that hides, standing, keyboard (GUI), none "
        "(default auto: keyboard with --gui, else the route if the scene has one, else wander)",
    )
    p.add_argument("--gui", action="store_true", help="open the PyBullet window, real time (needs a display)")
    p.add_argument("--quiet", action="store_true", help="print only the summary, not the timeline")


def _player_mode(args: argparse.Namespace, scene: Scene, gui: bool) -> str:
    if args.player != "auto":
        if args.player == "keyboard" and not gui:
            raise UsageError("--player keyboard needs --gui and a display")
        return args.player
    if gui:
        return "keyboard"
    return "route" if (scene.player is not None and scene.player.route) else "wander"


def simulate(
    scene: Scene,
    *,
    npcs: int | None,
    seconds: float,
    seed: int,
    player: str,
    gui: bool = False,
    events: Path | None = None,
    plot: Path | None = None,
    gif: Path | None = None,
    quiet: bool = False,
    out: TextIO | None = None,
) -> int:
    """Simulate `scene`, print the timeline and summary, write the outputs (the events are streamed to
    their file as they happen, so memory stays bounded however long the run)."""
    from npc_ai.sim.player import PlayerSettings
    from npc_ai.sim.simulation import Simulation, SimulationSettings

    out = out or sys.stdout
    settings = SimulationSettings(npcs=npcs, player=None if player == "none" else PlayerSettings(mode=player))
    t0 = time.perf_counter()
    with contextlib.ExitStack() as stack:
        sink = None if events is None else stack.enter_context(open(events, "w", encoding="utf-8"))
        sim = stack.enter_context(Simulation(scene, seed=seed, settings=settings, gui=gui))
        if sink is not None:
            sim.events.stream_to(sink)  # the events of the build first, then each one as it is recorded
        build = time.perf_counter() - t0
        if gui:
            print(GUI_KEYS, file=out, flush=True)
        t1 = time.perf_counter()
        sim.run(seconds, realtime=gui)
        wall = time.perf_counter() - t1
        print(
            f"scene {scene.name}: {len(sim.npcs)} NPCs, player {player}, seed {seed}; "
            f"built in {build:.2f} s, {sim.world.time:.1f} s simulated in {wall:.2f} s wall "
            f"({sim.world.time / max(wall, 1e-9):.1f}x)",
            file=out,
        )
        if not quiet:
            log = sim.events
            held = f" (the last {len(log)} of {log.recorded} events)" if log.dropped else ""
            print(f"timeline{held}:", file=out)
            keep = tuple(sorted({e.event for e in sim.events} - set(TIMELINE_SKIP)))
            for line in sim.timeline(keep):
                print(line, file=out)
        print("summary:", file=out)
        for line in sim.summary():
            print("  " + line, file=out)
        if events is not None:
            sim.events.close()  # flushes the file (closed by the stack)
            print(f"wrote {events} ({sim.events.recorded} events)", file=out)
        if plot is not None:
            from npc_ai.viz.replay import plot_replay

            plot_replay(sim, plot)
            print(f"wrote {plot}", file=out)
        if gif is not None:
            from npc_ai.viz.replay_gif import write_replay_gif

            write_replay_gif(sim, gif)
            print(f"wrote {gif} ({gif.stat().st_size / 1e6:.1f} MB)", file=out)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    """`npc-ai run SCENE ...`"""
    events = cli_types.writable_file(args.events, "--events", cli_types.JSONL)
    plot = cli_types.writable_file(args.plot, "--plot", cli_types.FIGURE)
    gif = cli_types.writable_file(args.gif, "--gif", cli_types.GIF)
    gui = bool(args.gui)
    if gui and not cli_types.has_display():
        print("npc-ai: --gui needs a display, and none was found: running headless", file=sys.stderr)
        gui = False
    from npc_ai.levels import load_level

    scene = load_level(args.scene)
    mode = _player_mode(args, scene, gui)
    return simulate(
        scene,
        npcs=args.npcs,
        seconds=args.seconds,
        seed=args.seed,
        player=mode,
        gui=gui,
        events=events,
        plot=plot,
        gif=gif,
        quiet=args.quiet,
    )


# -- demo ---------------------------------------------------------------------------------------------
def add_demo_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of `npc-ai demo`."""
    p.add_argument("--seconds", type=cli_types.seconds, default=40.0, help="simulated seconds (default 40)")
    p.add_argument("--seed", type=cli_types.seed, default=0, help="random seed (default 0)")
    p.add_argument("--npcs", type=cli_types.count, default=4, help="number of NPCs (default 4)")
    p.add_argument("--out", default="npc-ai-demo.png", help="the replay picture (default npc-ai-demo.png)")
    p.add_argument("--events", help="also write the events as JSON lines to this file")
    p.add_argument("--gui", action="store_true", help="open the PyBullet window, real time (needs a display)")


def cmd_demo(args: argparse.Namespace) -> int:
    """`npc-ai demo`: guards in the warehouse and a player that hides, with a replay picture."""
    events = cli_types.writable_file(args.events, "--events", cli_types.JSONL)
    plot = cli_types.writable_file(args.out, "--out", cli_types.FIGURE)
    gui = bool(args.gui) and cli_types.has_display()
    if args.gui and not gui:
        print("npc-ai: --gui needs a display, and none was found: running headless", file=sys.stderr)
    from npc_ai.levels import load_level

    print("npc-ai demo: guards in the warehouse, a scripted player that breaks line of sight")
    return simulate(
        load_level("warehouse"),
        npcs=args.npcs,
        seconds=args.seconds,
        seed=args.seed,
        player="wander",
        gui=gui,
        events=events,
        plot=plot,
    )


# -- bench sim ----------------------------------------------------------------------------------------
def add_bodies_argument(p: argparse.ArgumentParser) -> None:
    """`--bodies dynamic|kinematic` (`SimulationSettings.bodies`)."""
    p.add_argument(
        "--bodies",
        choices=("dynamic", "kinematic"),
        default="dynamic",
        help="NPC bodies: dynamic capsules physics pushes (default) or kinematic ones the navmesh holds",
    )


def add_bench_sim_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of `npc-ai bench sim`."""
    p.add_argument("--scene", default="warehouse", help="scene (default warehouse)")
    p.add_argument(
        "--sizes",
        type=cli_types.positive_int,
        nargs="+",
        default=[10, 100],
        help="NPC counts, any positive numbers the scene can spawn (default 10 100)",
    )
    p.add_argument(
        "--seconds", type=cli_types.seconds, default=5.0, help="simulated seconds per size (default 5)"
    )
    p.add_argument("--seed", type=cli_types.seed, default=0, help="random seed (default 0)")
    p.add_argument("--full-animation", action="store_true", help="sample full skeleton poses every tick")
    p.add_argument(
        "--avoidance", action="store_true", help="with crowd avoidance (default: the capsules only push)"
    )
    add_bodies_argument(p)
    p.add_argument(
        "--json",
        help='write {"scene", "bodies", "seconds", "seed", "results": [{"npcs", "npc_ticks_per_s", '
        '"pybullet_share", "ms_per_tick", "pybullet_calls_per_tick", "rss_mb", ...}]} (.json)',
    )
    p.add_argument(
        "--profile",
        action="store_true",
        help="also print, per size, ms per tick of each phase, its share, and PyBullet calls per tick",
    )
    p.add_argument("--plot", help="draw NPC-ticks/s against NPC count with the real-time line (.png)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def cmd_bench_sim(args: argparse.Namespace) -> int:
    """`npc-ai bench sim`"""
    target = cli_types.writable_file(args.json, "--json", cli_types.JSON)
    plot = cli_types.writable_file(args.plot, "--plot", cli_types.PNG)
    if any(n < 1 for n in args.sizes):
        raise UsageError(f"--sizes must be positive, got {args.sizes}")
    from npc_ai.levels import load_level

    scene = load_level(args.scene)  # a bad scene is refused before the simulation modules load
    from npc_ai.bench.kernels import measure_kernels
    from npc_ai.bench.sim import format_profile, format_table, plot_bench_sim, report_json, run_bench_sim
    from npc_ai.cli.progress import StderrProgress

    t0 = time.perf_counter()
    with (
        StderrProgress(f"simulation benchmark on {scene.name}", quiet=args.quiet) as progress,
        measure_kernels() as kernels,
    ):
        results = run_bench_sim(
            scene,
            args.sizes,
            seconds=args.seconds,
            seed=args.seed,
            root_only_animation=not args.full_animation,
            avoidance=args.avoidance,
            bodies=args.bodies,
            progress=progress,
        )
    anim = "full poses" if args.full_animation else "root motion only"
    anim += ", crowd avoidance" if args.avoidance else ""
    anim += f", {args.bodies} bodies"
    print(
        f"simulation benchmark on {scene.name}: {args.seconds:g} s simulated per size, "
        f"seed {args.seed}, {anim}"
    )
    for line in format_table(results):
        print(line)
    if args.profile:
        print()
        for line in format_profile(results):
            print(line)
    print(f"{kernels[0].describe()} (before the first tick; not in the timings)")
    print(f"ran in {time.perf_counter() - t0:.1f} s")
    if target is not None:
        doc = report_json(results, scene=scene.name, seconds=args.seconds, seed=args.seed, bodies=args.bodies)
        doc["kernels"] = kernels[0].to_json()
        target.write_text(json.dumps(doc, indent=2, sort_keys=True), encoding="utf-8")
        print(f"wrote {target}")
    if plot is not None:
        title = f"bench sim on {scene.name}: {args.seconds:g} s per size, seed {args.seed}, {anim}"
        print(f"wrote {plot_bench_sim(results, plot, title=title)}")
    return 0


# -- bench soak ---------------------------------------------------------------------------------------
def add_bench_soak_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of `npc-ai bench soak`."""
    p.add_argument("--scene", nargs="+", default=["arena"], help="scenes, one run each (default arena)")
    p.add_argument("--npcs", type=cli_types.count, default=30, help="NPCs per run (default 30)")
    p.add_argument(
        "--seconds", type=cli_types.seconds, default=600.0, help="simulated seconds per run (default 600)"
    )
    p.add_argument("--seed", type=cli_types.seed, default=0, help="random seed (default 0)")
    add_bodies_argument(p)
    p.add_argument(
        "--avoidance", action="store_true", help="with crowd avoidance (default: the capsules only push)"
    )
    p.add_argument(
        "--json",
        help='write {"runs": [{"scene", "npcs", "seconds", "exceptions", "nonfinite", "below_floor", '
        '"inside_static", "off_navmesh", "max_off_navmesh_m", "stuck_share", "rss_growth_mb", ...}]} '
        "(.json)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def cmd_bench_soak(args: argparse.Namespace) -> int:
    """`npc-ai bench soak`"""
    target = cli_types.writable_file(args.json, "--json", cli_types.JSON)
    if args.npcs < 1:
        raise UsageError(f"--npcs must be positive, got {args.npcs}")
    from npc_ai.bench.soak import SoakSettings, format_table, run_soak
    from npc_ai.cli.progress import StderrProgress
    from npc_ai.levels import load_level

    scenes = [load_level(name) for name in args.scene]  # every scene is checked before the first run
    settings = SoakSettings(
        npcs=args.npcs, seconds=args.seconds, seed=args.seed, bodies=args.bodies, avoidance=args.avoidance
    )
    t0 = time.perf_counter()
    results = []
    for scene in scenes:
        with StderrProgress(f"soak on {scene.name}", quiet=args.quiet) as progress:
            results.append(run_soak(scene, settings, progress=progress))
    print(
        f"soak benchmark: {args.npcs} {args.bodies} NPCs"
        f"{', crowd avoidance' if args.avoidance else ''}, {args.seconds:g} s simulated per scene, "
        f"seed {args.seed}, "
        f"sampled every {settings.sample_every_s:g} s"
    )
    for line in format_table(results):
        print(line)
    for r in results:
        for message in r.messages:
            print(f"  {r.scene}: exception {message}")
    print(f"ran in {time.perf_counter() - t0:.1f} s")
    if target is not None:
        target.write_text(json.dumps({"runs": [r.to_json() for r in results]}, indent=2), encoding="utf-8")
        print(f"wrote {target}")
    return 0
