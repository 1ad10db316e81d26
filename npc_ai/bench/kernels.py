"""What the compiled (numba) kernels cost a benchmark run before its first tick: the seconds numba spent
compiling, and how many kernel signatures were compiled or loaded from the on-disk cache.

Every kernel is compiled with ``cache=True``: a fresh environment compiles each one once (seconds), every
later process loads the machine code from ``__pycache__`` next to the module (a fraction of a second).
Benchmarks report this next to their timings, so a cold first run is never mistaken for the tick's cost.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

KERNEL_MODULES = (
    "navigation.agent_kernels",
    "navigation.angles",
    "navigation.avoidance_kernels",
    "navigation.avoidance_rules",
    "navigation.bake_kernels",
    "navigation.crowd_gates",
    "navigation.funnel",
    "navigation.mesh_kernels",
    "navigation.paths",
    "navigation.polyanya",
    "npc_ai.animation.kernels",
    "npc_ai.behaviour.kernels",
    "npc_ai.behaviour.perception",
    "npc_ai.body.crowd_kernels",
    "npc_ai.body.kernels",
    "npc_ai.body.kinematic",
    "npc_ai.body.speculative",
    "scenes.box_casts",
    "scenes.capsule_casts",
    "scenes.placement",
)
"""The modules holding the package's compiled kernels (`npc_ai.envs.kernels` aside: it needs the `rl`
extra, and the envs report their own)."""


@dataclass(frozen=True)
class KernelReport:
    """Kernels during one measured stretch of a process.

    Attributes:
        compile_s: wall time numba spent compiling [s] (0 when everything came from the disk cache).
        compiled: kernel signatures compiled. loaded: kernel signatures loaded from the disk cache.
    """

    compile_s: float
    compiled: int
    loaded: int

    def to_json(self) -> dict[str, Any]:
        return {"compile_s": self.compile_s, "compiled": self.compiled, "loaded": self.loaded}

    def describe(self) -> str:
        if self.compiled == 0:
            return f"compiled kernels: {self.loaded} loaded from the disk cache, none compiled"
        return (
            f"compiled kernels: {self.compiled} compiled in {self.compile_s:.1f} s (cached on disk for the "
            f"next run), {self.loaded} loaded from the disk cache"
        )


def _dispatchers() -> list[Any]:
    from numba.core.registry import CPUDispatcher

    out = []
    for name in KERNEL_MODULES:
        module = importlib.import_module(name)
        out += [d for d in vars(module).values() if isinstance(d, CPUDispatcher)]
    return out


def _counts(dispatchers: list[Any]) -> tuple[int, int]:
    hits = sum(sum(d.stats.cache_hits.values()) for d in dispatchers)
    misses = sum(sum(d.stats.cache_misses.values()) for d in dispatchers)
    return hits, misses


@contextmanager
def measure_kernels() -> Iterator[list[KernelReport]]:
    """``with measure_kernels() as report: ...``: afterwards ``report[0]`` is the `KernelReport` of the
    block (kernel compiles and cache loads that happened inside it)."""
    from numba.core import event

    dispatchers = _dispatchers()
    hits0, misses0 = _counts(dispatchers)
    timer = event.TimingListener()  # type: ignore[no-untyped-call]
    out: list[KernelReport] = []
    with event.install_listener("numba:compile", timer):
        yield out
    hits, misses = _counts(dispatchers)
    seconds = timer.duration if timer.done else 0.0
    out.append(KernelReport(compile_s=seconds, compiled=misses - misses0, loaded=hits - hits0))


def compile_all() -> KernelReport:
    """Compile every kernel the package runs (or load it from the on-disk cache) now, by running each piece
    once on a small real case: a grid bake, a path query, and simulations of the arena with dynamic and
    kinematic bodies, with and without crowd avoidance. A fresh environment takes about a minute on one
    core; later calls load everything in a second or two. Run it before starting many processes at once
    (the test suite's workers, a sweep): each would otherwise compile the same kernels itself.
    Returns what was compiled and loaded."""
    from navigation.avoidance import AvoidanceSettings
    from navigation.grid_bake import bake_grid
    from navigation.movingai import parse_map
    from navigation.query import NavMeshQuery
    from npc_ai.levels.navmesh import scene_navmesh
    from npc_ai.sim.simulation import Simulation, SimulationSettings
    from scenes import World, load_builtin

    with measure_kernels() as report:
        grid = parse_map("type octile\nheight 3\nwidth 4\nmap\n....\n.@..\n....\n")
        NavMeshQuery(bake_grid(grid)).find_path((0.5, 0.5), (3.5, 2.5))
        scene = load_builtin("arena")
        with World(scene) as world:  # a bake (not the navmesh cache: the bake's kernels are the point)
            mesh = scene_navmesh(world, use_cache=False)[0]
        for bodies in ("dynamic", "kinematic"):
            for avoidance in (None, AvoidanceSettings()):
                settings = SimulationSettings(npcs=3, bodies=bodies, avoidance=avoidance)
                with Simulation(scene, seed=0, settings=settings, navmesh=mesh) as sim:
                    sim.run(0.25)
    return report[0]
