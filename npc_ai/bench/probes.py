"""What the obstacle probes of the perceive phase cost per tick: one `probe_obstacles` call per due NPC (the
navmesh edge gap by one `NavMeshQuery.raycast` per heading, as `Simulation._mesh_gap` does) against one
`probe_obstacles_many` call for all of them (`navmesh_edge_gaps`: one `raycast_many` per batch of headings).

Both run on the same due NPCs of the same ticks of a real simulation (the NPCs that want a probe, picked
from outside as the perceive phase picks them), and their answers are checked to be equal. The per-NPC way
reads each NPC's view, as the per-NPC perceive phase did; the batched call gets arrays, as the batched
simulation holds them (their gathering here is not timed). Run::

    python -m npc_ai.bench.probes --npcs 100 --ticks 600 --runs 5

Times are the CPU time of the calling thread (`time.thread_time`: PyBullet's DIRECT client works in it, and
other processes on a shared machine do not count), as means per tick (every tick counted, also those with no
NPC due), medians per tick, and means per tick grouped by how many NPCs were due; the two ways alternate
which goes first.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import scenes
from navigation.query import NavMeshQuery
from npc_ai.behaviour.probes import (
    ObstacleProbe,
    ObstacleProbes,
    navmesh_edge_gaps,
    probe_obstacles,
    probe_obstacles_many,
)


@dataclass(frozen=True)
class ProbeTiming:
    """One run: `ticks` ticks, `due` probes in all; per tick CPU times [ms] and PyBullet calls.

    Attributes:
        old_mean_ms, new_mean_ms: mean CPU time per tick [ms] of the per-NPC calls / the batched call.
        old_median_ms, new_median_ms: median CPU time per tick [ms].
        old_calls, new_calls: PyBullet calls per tick, by kind.
        sizes: (due NPCs, per-NPC [s], batched [s]) of every tick with at least one NPC due.
    """

    ticks: int
    due: int
    old_mean_ms: float
    new_mean_ms: float
    old_median_ms: float
    new_median_ms: float
    old_calls: dict[str, float]
    new_calls: dict[str, float]
    sizes: tuple[tuple[int, float, float], ...]


def mesh_gap(query: NavMeshQuery, here: np.ndarray, reach: float) -> Callable[[float], float]:
    """`Simulation._mesh_gap`'s rule, per heading: the distance [m] to the navmesh edge, inf when the mesh
    goes on (or the start is off it)."""

    def gap(yaw: float) -> float:
        hit = query.raycast(here, here + reach * np.array([math.cos(yaw), math.sin(yaw), 0.0]))
        return math.inf if (not hit.valid or hit.walkable) else hit.fraction * reach

    return gap


def _old(sim: Any, due: list[Any]) -> list[ObstacleProbe]:
    world, t = sim.world, sim.world.time
    out = []
    for npc in due:
        s, ch = npc.settings, npc.locomotor.character
        out.append(
            probe_obstacles(
                world,
                body=npc.body,
                feet=npc.position,
                yaw=npc.yaw,
                body_radius=ch.radius,
                height=ch.height,
                skin=s.probe_skin,
                reach=s.probe_range,
                obstacle_range=s.obstacle_range,
                time=t,
                edge_gap=mesh_gap(sim.query, npc.position, s.probe_range),
            )
        )
    return out


def _arrays(sim: Any, due: list[Any]) -> dict[str, Any]:
    """The batched call's inputs: arrays the batched simulation holds already (gathered here from the NPC
    views, untimed)."""
    ch = [npc.locomotor.character for npc in due]
    return {
        "bodies": np.array([npc.body for npc in due], dtype=np.int64),
        "feet": np.array([npc.position for npc in due]).reshape(-1, 3),
        "yaws": np.array([npc.yaw for npc in due], dtype=np.float64),
        "body_radius": np.array([c.radius for c in ch]),
        "height": np.array([c.height for c in ch]),
        "skin": np.array([npc.settings.probe_skin for npc in due]),
        "reach": np.array([npc.settings.probe_range for npc in due]),
        "obstacle_range": np.array([npc.settings.obstacle_range for npc in due]),
        "time": sim.world.time,
    }


def _new(sim: Any, inputs: dict[str, Any] | None, edge_gaps: Any) -> ObstacleProbes | None:
    """The batched call (not made when no NPC is due, as the perceive phase would not make it)."""
    if inputs is None:
        return None
    return probe_obstacles_many(sim.world, **inputs, edge_gaps=edge_gaps)


def run_once(npcs: int, ticks: int, warmup: int, seed: int, scene: str) -> ProbeTiming:
    """Simulate `warmup` ticks, then time both ways on the due NPCs of each of `ticks` ticks."""
    from npc_ai.sim.simulation import Simulation, SimulationSettings

    sim = Simulation(scenes.load_scene(scene), seed=seed, settings=SimulationSettings(npcs=npcs))
    try:
        for _ in range(warmup):
            sim.step()
        edge_gaps = navmesh_edge_gaps(sim.query)
        calls = sim.world.pybullet_calls
        old_t: list[float] = []
        new_t: list[float] = []
        old_c, new_c, due_n = Counter[str](), Counter[str](), 0
        sizes: list[tuple[int, float, float]] = []
        clock = time.thread_time
        for k in range(ticks):
            controlled = getattr(sim, "_controllers", {})
            due = [n for n in sim.npcs if n.index not in controlled and n.wants_probe()]
            due_n += len(due)
            reference: list[ObstacleProbe] = []
            batched: ObstacleProbes | None = None
            inputs = _arrays(sim, due) if due else None
            for way in (0, 1) if k % 2 == 0 else (1, 0):  # alternate which goes first
                before = calls.copy()
                t0 = clock()
                if way == 0:
                    reference = _old(sim, due)
                else:
                    batched = _new(sim, inputs, edge_gaps)
                spent = clock() - t0
                (old_t if way == 0 else new_t).append(spent)
                (old_c if way == 0 else new_c).update(calls - before)
            if due:
                sizes.append((len(due), old_t[-1], new_t[-1]))
            rows = [] if batched is None else [batched.probe(i) for i in range(len(batched))]
            if rows != reference:
                raise RuntimeError(f"tick {k}: the batched probes differ from the per-NPC ones")
            sim.step()
    finally:
        sim.close()
    per = {key: v / ticks for key, v in sorted(old_c.items())}
    per_new = {key: v / ticks for key, v in sorted(new_c.items())}
    return ProbeTiming(
        ticks,
        due_n,
        1e3 * statistics.fmean(old_t),
        1e3 * statistics.fmean(new_t),
        1e3 * statistics.median(old_t),
        1e3 * statistics.median(new_t),
        per,
        per_new,
        tuple(sizes),
    )


BUCKETS = ((1, 1), (2, 4), (5, 12), (13, 10**9))
"""Due-NPC counts the report groups ticks by."""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--npcs", type=int, default=100)
    parser.add_argument("--ticks", type=int, default=600, help="timed ticks per run")
    parser.add_argument("--warmup", type=int, default=120, help="untimed ticks first")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scene", default="warehouse")
    a = parser.parse_args(argv)
    runs = [run_once(a.npcs, a.ticks, a.warmup, a.seed + r, a.scene) for r in range(a.runs)]
    print(
        f"{a.scene}, {a.npcs} NPCs, {a.runs} runs of {a.ticks} ticks (seeds {a.seed}..{a.seed + a.runs - 1})"
    )
    print("run  due/tick  per-NPC mean  batched mean  per-NPC median  batched median  [ms per tick]")
    for r, t in enumerate(runs):
        print(
            f"{r:3d}  {t.due / t.ticks:8.2f}  {t.old_mean_ms:12.3f}  {t.new_mean_ms:12.3f}  "
            f"{t.old_median_ms:14.3f}  {t.new_median_ms:14.3f}"
        )
    old = statistics.median(t.old_mean_ms for t in runs)
    new = statistics.median(t.new_mean_ms for t in runs)
    print(
        f"median of the runs' means: per-NPC {old:.3f} ms, batched {new:.3f} ms per tick ({old / new:.1f}x)"
    )
    print("due NPCs  ticks  per-NPC mean  batched mean  [ms per tick, all runs]")
    for lo, hi in BUCKETS:
        rows = [(o, n) for t in runs for k, o, n in t.sizes if lo <= k <= hi]
        if rows:
            label = f"{lo}" if lo == hi else (f"{lo}+" if hi > 1000 else f"{lo}-{hi}")
            old_ms = 1e3 * statistics.fmean(o for o, _ in rows)
            new_ms = 1e3 * statistics.fmean(n for _, n in rows)
            print(f"{label:>8}  {len(rows):5d}  {old_ms:12.3f}  {new_ms:12.3f}")
    for name, calls in (("per-NPC", runs[0].old_calls), ("batched", runs[0].new_calls)):
        shown = ", ".join(f"{k} {v:.1f}" for k, v in calls.items())
        print(f"PyBullet calls per tick, {name} (run 0): {shown}")


if __name__ == "__main__":
    main()
