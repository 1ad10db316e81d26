"""`npc-ai bench carve`: dynamic obstacles carved by local rebuilds, checked against the full rebuild
(`npc_ai.bench.carve`). Stdout carries the report and the JSON path; progress goes to stderr."""

from __future__ import annotations

import argparse
import json
import time

from npc_ai.cli import types as cli_types


def add_bench_carve_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of `npc-ai bench carve`."""
    p.add_argument(
        "--scene", default="warehouse", help="a built-in scene or a .toml file (default warehouse)"
    )
    p.add_argument("--seed", type=cli_types.seed, default=0, help="seed of the change sequence (default 0)")
    p.add_argument(
        "--updates", type=cli_types.positive_int, default=200, help="changes, one update each (default 200)"
    )
    p.add_argument(
        "--paths", type=cli_types.positive_int, default=8, help="path pairs compared per update (default 8)"
    )
    p.add_argument(
        "--raster",
        type=cli_types.count,
        default=0,
        help="also re-bake K worlds with crates as real PyBullet boxes and compare paths (default 0: off)",
    )
    p.add_argument(
        "--json",
        help='write {"updates", "rebuild_ms_median", "rebuild_ms_p95", "paths_compared", '
        '"paths_equal_to_full_rebake", ...} (.json)',
    )
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def cmd_bench_carve(args: argparse.Namespace) -> int:
    """`npc-ai bench carve`"""
    target = cli_types.writable_file(args.json, "--json", cli_types.JSON)
    from npc_ai.levels import load_level

    scene = load_level(args.scene)  # a bad scene is refused before the navmesh modules load
    from navigation.settings import CarveSettings
    from npc_ai.bench.carve import (
        CarveBenchSettings,
        format_raster,
        format_report,
        raster_comparison,
        run_carve_benchmark,
    )
    from npc_ai.cli.progress import StderrProgress
    from npc_ai.levels.navmesh import bake_settings, scene_navmesh
    from scenes import World

    settings = CarveBenchSettings(updates=args.updates, paths_per_update=args.paths, seed=args.seed)
    bake = bake_settings(scene.navmesh)
    carve = CarveSettings(agent_radius=bake.agent_radius, agent_height=bake.agent_height)
    t0 = time.perf_counter()
    with StderrProgress("carve benchmark", quiet=args.quiet) as progress:
        with World(scene, seed=args.seed) as world:
            base, _ = scene_navmesh(world, progress=progress)
        report = run_carve_benchmark(base, carve, settings, progress=progress)
        if args.raster:
            report["raster"] = raster_comparison(
                scene, base, carve, args.raster, args.paths, args.seed, progress=progress
            )
    for line in format_report(report, scene.name):
        print(line)
    if args.raster:
        for line in format_raster(report["raster"]):
            print(line)
    print(f"ran in {time.perf_counter() - t0:.1f} s")
    if target is not None:
        doc = report | {"scene": scene.name}
        target.write_text(json.dumps(doc, indent=2, sort_keys=True), encoding="utf-8")
        print(f"wrote {target}")
    return 0
