"""`npc-ai bench sim`: simulation throughput (NPC-ticks per second) for growing NPC counts, next to the share
of the wall time spent in PyBullet itself (physics steps, line-of-sight rays, box casts, overlap queries),
timed inside the same run."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from npc_ai.errors import BenchmarkSettingsError
from npc_ai.sim.player import PlayerSettings
from npc_ai.sim.simulation import Simulation, SimulationSettings
from scenes import Scene

_CHUNK = 30  # ticks timed between two progress reports


def _no_progress(stage: str, done: int, total: int | None) -> None:
    pass


@dataclass(frozen=True)
class SimBenchResult:
    """One NPC count.

    Attributes:
        npcs: NPCs simulated. ticks: ticks timed. wall_s: wall time of those ticks [s].
        npc_ticks_per_s: npcs x ticks / wall_s. pybullet_s: wall time inside PyBullet calls [s].
        pybullet_share: pybullet_s / wall_s. phases: wall time per tick phase [s].
        realtime_factor: simulated seconds per wall second. events: events recorded.
    """

    npcs: int
    ticks: int
    wall_s: float
    npc_ticks_per_s: float
    pybullet_s: float
    pybullet_share: float
    phases: dict[str, float]
    realtime_factor: float
    events: int

    def to_json(self) -> dict[str, Any]:
        return {
            "npcs": self.npcs,
            "ticks": self.ticks,
            "wall_s": round(self.wall_s, 4),
            "npc_ticks_per_s": round(self.npc_ticks_per_s, 1),
            "pybullet_s": round(self.pybullet_s, 4),
            "pybullet_share": round(self.pybullet_share, 4),
            "realtime_factor": round(self.realtime_factor, 3),
            "phases": {k: round(v, 4) for k, v in self.phases.items()},
            "events": self.events,
        }


def run_bench_sim(
    scene: Scene,
    sizes: Sequence[int] = (10, 50, 100),
    *,
    seconds: float = 2.0,
    warmup_s: float = 0.25,
    seed: int = 0,
    root_only_animation: bool = True,
    progress: Callable[[str, int, int | None], None] | None = None,
) -> list[SimBenchResult]:
    """Simulate `seconds` (after `warmup_s`) with each NPC count and time it.

    `progress(stage, done, total)`, when given, is told the ticks simulated for each count (stage
    "N NPCs"); it is called between timed chunks of ticks, so it costs the timings nothing.
    """
    if not sizes or any(not isinstance(n, int) or n < 1 for n in sizes):
        raise BenchmarkSettingsError(f"NPC counts must be positive integers, got {list(sizes)!r}")
    if not (seconds > 0):
        raise BenchmarkSettingsError(f"seconds must be positive, got {seconds!r}")
    report = progress if progress is not None else _no_progress
    out = []
    for n in sizes:
        settings = SimulationSettings(
            npcs=n,
            player=PlayerSettings(mode="wander"),
            trail_every=0,
            root_only_animation=root_only_animation,
        )
        stage = f"{n} NPCs"
        report(stage, 0, None)  # building the world and the NPCs
        with Simulation(scene, seed=seed, settings=settings) as sim:
            ticks = max(1, round(seconds / sim.dt))
            warm = round(warmup_s / sim.dt)
            report(stage, 0, warm + ticks)
            sim.run(warmup_s)
            report(stage, warm, warm + ticks)
            before = sim.timings.__dict__.copy()
            events0 = sim.events.recorded
            wall = 0.0
            for done in range(0, ticks, _CHUNK):
                t0 = time.perf_counter()
                for _ in range(min(_CHUNK, ticks - done)):
                    sim.step()
                wall += time.perf_counter() - t0
                report(stage, warm + min(done + _CHUNK, ticks), warm + ticks)
            tm = sim.timings
            phases = {
                k: getattr(tm, k) - before[k]
                for k in ("perceive", "decide", "locomotion", "physics", "record")
            }
            pyb = tm.pybullet - before["pybullet"]
            out.append(
                SimBenchResult(
                    npcs=n,
                    ticks=ticks,
                    wall_s=wall,
                    npc_ticks_per_s=n * ticks / wall,
                    pybullet_s=pyb,
                    pybullet_share=pyb / wall,
                    phases=phases,
                    realtime_factor=ticks * sim.dt / wall,
                    events=sim.events.recorded - events0,
                )
            )
    return out


def format_table(results: Sequence[SimBenchResult]) -> list[str]:
    lines = [
        "  npcs   ticks   wall [s]   npc-ticks/s   realtime x   pybullet [s]   pybullet %   "
        "perceive / decide / locomotion / physics [ms/tick]"
    ]
    for r in results:
        ms = {k: 1e3 * v / r.ticks for k, v in r.phases.items()}
        lines.append(
            f"{r.npcs:>6} {r.ticks:>7} {r.wall_s:>10.2f} {r.npc_ticks_per_s:>13.0f} "
            f"{r.realtime_factor:>12.2f} "
            f"{r.pybullet_s:>14.2f} {100 * r.pybullet_share:>11.1f}   "
            f"{ms['perceive']:.2f} / {ms['decide']:.2f} / {ms['locomotion']:.2f} / {ms['physics']:.2f}"
        )
    return lines
