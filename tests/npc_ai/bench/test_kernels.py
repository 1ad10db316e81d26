"""npc_ai.bench.kernels: the list of compiled modules is complete."""

from __future__ import annotations

import re
from pathlib import Path

from npc_ai.bench.kernels import KERNEL_MODULES


def test_every_compiled_module_is_listed() -> None:
    """`KERNEL_MODULES` (what `compile_all` and the benchmarks' kernel reports count) names every core
    module with a numba kernel; the envs' own kernels need the `rl` extra and stay out."""
    root = Path(__file__).resolve().parents[3]
    found = set()
    for package in ("npc_ai", "navigation", "scenes"):
        for path in (root / package).rglob("*.py"):
            if "envs" in path.parts or not re.search(r"^@njit", path.read_text(), re.MULTILINE):
                continue
            found.add(".".join(path.relative_to(root).with_suffix("").parts))
    assert found == set(KERNEL_MODULES)
