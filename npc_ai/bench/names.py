"""The names the benchmarks choose from (maps, crowd scenarios, coupling modes), in a module that imports
nothing heavy: the command line builds its parser from them without loading numba, PyBullet or the
animation data (`npc-ai --help` and a usage error answer in a fraction of a second)."""

from __future__ import annotations

MAPS = (
    "arena",
    "den312d",
    "combat",
    "lak303d",
    "hrt201n",
    "16room_000",
    "Aurora",
    "orz100d",
    "battleground",
)
"""The maps of `bench nav`, in the issue's table order (battleground is not in that table)."""

CROWD_SCENARIOS = ("circle", "doorway", "corridor", "chase")
"""The scenarios of `bench crowd`, in run order."""

COUPLING_MODES = (
    "agent_drives",
    "root_motion",
    "root_motion_no_limit",
    "root_motion_pull_character",
    "root_motion_reference",
)
"""The keys of `npc_ai.body.coupling.MODES` (`bench sync --modes`), in its order (a test keeps them equal)."""
