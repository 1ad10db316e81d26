"""The root of npc_ai's errors, and the errors that belong to no single sub-package.

Every error npc_ai raises on bad input is an `NpcAiError`; each sub-package adds typed subclasses
(`AnimationError`, `CouplingError`, `PerceptionError`, `BehaviourSettingsError`, `SimulationError`, ...).
The sibling packages have their own roots: `scenes.SceneError` and `navigation.NavigationError`.
"""

from __future__ import annotations


class NpcAiError(Exception):
    """Base class of npc_ai's errors on bad input."""


class LevelError(NpcAiError, ValueError):
    """A level could not be made into a scene (a MovingAI map with no walkable cell, a bad cell size)."""


class BenchmarkSettingsError(NpcAiError, ValueError):
    """A benchmark was asked for something out of range (NPC counts, routes, durations, coupling modes)."""


class BenchmarkError(NpcAiError, RuntimeError):
    """A benchmark could not measure what it promised (a timing re-run diverged from the measured run)."""
