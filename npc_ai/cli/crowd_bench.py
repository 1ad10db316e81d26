"""`npc-ai bench crowd`: local avoidance on circle, doorway, corridor and chase (`npc_ai.bench.crowd`).

Stdout carries the table, the issue's done-when checks and the JSON path; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from npc_ai.cli import types as cli_types


def add_bench_crowd_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of `npc-ai bench crowd`."""
    from npc_ai.bench.names import CROWD_SCENARIOS as SCENARIOS

    p.add_argument(
        "--scenarios", nargs="+", default=list(SCENARIOS), metavar="NAME",
        help=f"scenarios to run (default: {' '.join(SCENARIOS)})",
    )  # fmt: skip
    p.add_argument("--quick", action="store_true", help="a smaller version of every scenario")
    p.add_argument("--seed", type=cli_types.seed, default=0, help="simulation seed (default 0)")
    p.add_argument("--no-peer", action="store_true", help="do not run pyrvo (RVO2) even when installed")
    from npc_ai.cli.sim import add_bodies_argument

    add_bodies_argument(p)
    p.add_argument(
        "--layouts", type=cli_types.count, default=0, metavar="K",
        help="also run doorway, corridor and chase from K jittered start layouts (default 0)",
    )  # fmt: skip
    p.add_argument(
        "--first-layout", type=cli_types.count, default=0, metavar="N",
        help="number the layouts from N (default 0): --layouts 40 --first-layout 40 is a second set of 40",
    )  # fmt: skip
    p.add_argument(
        "--jitter", type=cli_types.positive_float, default=0.15, metavar="M",
        help="the layouts' start offset, a normal deviation per axis [m] (default 0.15)",
    )  # fmt: skip
    p.add_argument("--json", help='write {"scenarios": {NAME: {...}}} (.json)')
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def cmd_bench_crowd(args: argparse.Namespace) -> int:
    """`npc-ai bench crowd`"""
    target = cli_types.writable_file(args.json, "--json", cli_types.JSON)
    from npc_ai.bench.crowd import CrowdBenchSettings, check_scenarios, run_crowd_benchmark
    from npc_ai.cli.progress import StderrProgress

    names = check_scenarios(args.scenarios)
    peer = not args.no_peer
    more = {"layouts": args.layouts, "jitter_m": args.jitter, "first_layout": args.first_layout}
    settings = (
        CrowdBenchSettings.quick(args.seed, peer, args.bodies, **more)
        if args.quick
        else CrowdBenchSettings(seed=args.seed, peer=peer, bodies=args.bodies, **more)
    )
    t0 = time.perf_counter()
    with StderrProgress("crowd benchmark", quiet=args.quiet) as progress:
        report = run_crowd_benchmark(names, settings, progress=progress)
    print(
        f"crowd benchmark{' (--quick)' if args.quick else ''}: {', '.join(names)}, seed {args.seed}, "
        f"{args.bodies} bodies"
    )
    for line in format_table(report):
        print(line)
    for line in done_when(report):
        print(line)
    print(f"ran in {time.perf_counter() - t0:.1f} s")
    if target is not None:
        doc = report | {"quick": bool(args.quick), "seed": args.seed, "bodies": args.bodies}
        target.write_text(json.dumps(doc, indent=2, sort_keys=True), encoding="utf-8")
        print(f"wrote {target}")
    return 0


def _f(value: Any, fmt: str) -> str:
    """`value` formatted, or a dash as wide as the format's width for None."""
    width = fmt.split(".")[0].rstrip("df") or "0"
    return format(value, fmt) if value is not None else "-".rjust(int(width))


def _row(label: str, e: dict[str, Any]) -> str:
    walls, body = e.get("wall_overlap_ticks"), e.get("overlap_ticks_body_radius")
    return (
        f"{label:<26} {e['agents']:>6} {100 * e['completed_share']:>6.0f}"
        f" {_f(e['time_to_complete_s'], '8.1f')}"
        f" {_f(e.get('ideal_time_s'), '7.1f')} {_f(e['min_separation_m'], '8.3f')} {e['overlap_ticks']:>8}"
        f" {'-' if body is None else body:>8} {e['deadlocked_agents']:>6}"
        f" {e['jitter_deg_per_s']:>8.1f} {e['ms_per_step']:>8.2f}"
        f" {_f(e.get('tick_ms'), '7.2f')} {'-' if walls is None else walls:>6}"
    )


def _layouts_line(name: str, lay: dict[str, Any]) -> str:
    k, first = len(lay["runs"]), lay["first_layout"]

    def ratio(value: float | None) -> str:
        return "not all arrived" if value is None else f"{value:.2f}x"

    return (
        f"{name}: {k} layouts ({first}-{first + k - 1}, starts moved {lay['jitter_m']:g} m): arrive mean"
        f" {100 * lay['completed_share_mean']:.0f} %, least {100 * lay['completed_share_min']:.0f} %,"
        f" all arrived in {lay['all_arrived']} of {k},"
        f" within {lay['ideal_factor']:g}x the ideal time in {lay['within_ideal_factor']} of {k};"
        f" time / ideal: median {ratio(lay['time_ratio_median'])}, p90 {ratio(lay['time_ratio_p90'])}"
    )


def format_table(report: dict[str, Any]) -> list[str]:
    """One row per run: each scenario, then its pyrvo reference or its run without avoidance."""
    head = (
        f"{'scenario':<26} {'agents':>6} {'done%':>6} {'time_s':>8} {'ideal_s':>7} {'min_sep':>8}"
        f" {'overlap':>8} {'body_ovl':>8} {'stuck':>6} {'jit°/s':>8} {'avoid_ms':>8} {'tick_ms':>7}"
        f" {'walls':>6}"
    )
    lines = [head]
    notes = []
    for name, e in report["scenarios"].items():
        lines.append(_row(name, e))
        if name == "circle":
            if e["reference"] is not None:
                lines.append(_row("circle: pyrvo (RVO2)", e["reference"]))
            notes.append(f"circle: {e['where']}; reference: {e['reference_note']}")
        else:
            lines.append(_row(f"{name}: avoidance off", e["without_avoidance"]))
            if "layouts" in e:
                lines.append(_layouts_line(name, e["layouts"]))
            notes.append(f"{name}: {e['where']}; arrival within {e['arrival_radius_m']:g} m")
    lines.append(
        "overlap = ticks with two agents closer than their radii's sum - 1 cm (body_ovl: the capsules' "
        "radii, the agents' unless body_radius says otherwise); stuck = deadlocked agents; "
        "avoid_ms = median ms per tick in the avoidance (Crowd.steer; avoid() for circle); "
        "tick_ms = median whole tick; walls = ticks with a body > 1 cm inside a wall"
    )
    return lines + notes


def _check(ok: bool, text: str) -> str:
    return f"  [{'met' if ok else 'UNMET'}] {text}"


def done_when(report: dict[str, Any]) -> list[str]:
    """Issue 15's done-when lines that this run measures, met or not."""
    from npc_ai.bench.crowd import IDEAL_FACTOR, within_ideal

    out = ["done when (issue 15):"]
    sc: dict[str, Any] = report["scenarios"]
    if "circle" in sc:
        e = sc["circle"]
        ok = e["overlap_ticks"] == 0 and e["completed_share"] == 1.0 and e["deadlocked_agents"] == 0
        out.append(_check(ok, f"circle {e['agents']}: zero overlaps, all arrive, no deadlock"))
        ref = e["reference"]
        if ref is None:
            out.append(f"  [not measured] jitter below pyrvo: {e['reference_note']}")
        else:
            ok = e["jitter_deg_per_s"] < ref["jitter_deg_per_s"]
            text = f"{e['jitter_deg_per_s']:.1f} vs {ref['jitter_deg_per_s']:.1f} deg/s"
            out.append(_check(ok, f"circle jitter below pyrvo's ({text})"))
    for name in ("doorway", "corridor"):
        if name in sc:
            e = sc[name]
            t, ideal = e["time_to_complete_s"], e["ideal_time_s"]
            share = 100 * e["completed_share"]
            text = f"{name}: all arrive ({share:.0f} %), zero overlaps ({e['overlap_ticks']})"
            bar = f"within {IDEAL_FACTOR:g}x ideal ({_f(t, '.1f')} vs {IDEAL_FACTOR:g} x {ideal:.1f} s)"
            out.append(_check(within_ideal(e), f"{text}, {bar}"))
    if "chase" in sc:
        e = sc["chase"]
        ok = e["overlap_ticks"] == 0 and e["wall_overlap_ticks"] == 0
        text = f"{e['overlap_ticks']} ticks with agents overlapping, {e['wall_overlap_ticks']} in walls"
        out.append(_check(ok, f"chase: no overlaps with walls or each other ({text})"))
    return out
