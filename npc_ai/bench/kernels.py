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
    "navigation.bake_kernels",
    "navigation.funnel",
    "navigation.mesh_kernels",
    "navigation.paths",
    "navigation.polyanya",
    "npc_ai.animation.kernels",
    "npc_ai.behaviour.kernels",
    "npc_ai.body.kernels",
)
"""The modules holding the package's compiled kernels."""


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
