"""`npc-ai bench nav`: exact path queries on the MovingAI maps next to pynavmesh (`npc_ai.bench.nav`)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

from npc_ai.cli import types as cli_types
from npc_ai.cli.types import UsageError

if TYPE_CHECKING:
    from navigation.navmesh import NavMesh


def add_bench_nav_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of `npc-ai bench nav`."""
    from npc_ai.bench.names import MAPS

    p.add_argument("--maps", nargs="+", default=list(MAPS), help=f"maps to run (default: {' '.join(MAPS)})")
    p.add_argument("--data", help="folder of the .map and .map.scen files (default ../shared/data/movingai)")
    p.add_argument(
        "--repeat", type=cli_types.positive_int, default=3, help="timed passes per map (default 3)"
    )
    p.add_argument(
        "--peer-sample",
        type=cli_types.positive_int,
        default=200,
        help="scenarios per map for pynavmesh, evenly spaced (default 200)",
    )
    p.add_argument("--no-peer", action="store_true", help="do not run pynavmesh even when installed")
    p.add_argument("--json", help='write {"maps": [...], "kernels": {...}, "first_query_s"} (.json)')
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def cmd_bench_nav(args: argparse.Namespace) -> int:
    """`npc-ai bench nav`"""
    target = cli_types.writable_file(args.json, "--json", cli_types.JSON)
    from npc_ai.bench.kernels import measure_kernels
    from npc_ai.bench.nav import (
        PEER,
        check_maps,
        default_data_dir,
        format_table,
        peer_available,
        report_json,
        run_nav_benchmark,
    )
    from npc_ai.cli.progress import StderrProgress

    data = Path(args.data) if args.data else default_data_dir()
    if not data.is_dir():
        raise UsageError(f"--data {data}: no such folder (pass the folder of the MovingAI maps)")
    check_maps(args.maps, data)
    t0 = time.perf_counter()
    from navigation.grid_bake import bake_grid
    from navigation.movingai import read_map

    mesh = bake_grid(read_map(data / f"{args.maps[0]}.map"))  # the bake's own kernels: not counted
    with measure_kernels() as cold:  # the first query object of the process: kernels compiled or loaded
        first = _first_query(mesh)
    with StderrProgress("navigation benchmark", quiet=args.quiet) as progress:
        results = run_nav_benchmark(
            args.maps, data, repeat=args.repeat, peer=not args.no_peer, peer_sample=args.peer_sample,
            progress=progress,
        )  # fmt: skip
    if args.no_peer:
        note = f"{PEER}: not run (--no-peer)"
    elif not peer_available():
        note = f"{PEER}: not installed, skipped (pip install 'npc-ai[peers]' or pip install pynavmesh)"
    else:
        note = (
            f"{PEER}: same polygons (triangulated), same points, {args.peer_sample} evenly spaced "
            "scenarios per map at most"
        )
    print(f"navigation benchmark: find_path on {len(results)} MovingAI maps, {args.repeat} passes")
    for line in format_table(results, peer_note=note):
        print(line)
    fallbacks = sum(r.fallbacks for r in results)
    print(f"fallback (A* + funnel, node budget exceeded): {fallbacks} paths on {len(results)} maps")
    print(
        f"first run: {cold[0].describe()}; first query object and path {first * 1e3:.1f} ms "
        "(not in the timings)"
    )
    print(f"ran in {time.perf_counter() - t0:.1f} s")
    if target is not None:
        doc = report_json(results)
        doc["kernels"] = cold[0].to_json()
        doc["first_query_s"] = first
        target.write_text(json.dumps(doc, indent=2, sort_keys=True), encoding="utf-8")
        print(f"wrote {target}")
    return 0


def _first_query(mesh: NavMesh) -> float:
    """Seconds to make a query object on `mesh` and find one path (kernels compiled or loaded on first
    use)."""
    from navigation.query import NavMeshQuery

    t = time.perf_counter()
    q = NavMeshQuery(mesh)
    x, y, _ = mesh.vertices.mean(axis=0).tolist()
    q.find_path((x, y), (x, y))
    return time.perf_counter() - t
