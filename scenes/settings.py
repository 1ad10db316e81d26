"""How a world steps: `WorldSettings` (validated on construction)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from scenes.errors import WorldSettingsError


@dataclass(frozen=True)
class WorldSettings:
    """How a world steps.

    Attributes:
        dt: fixed tick length [s, 0 < dt <= 0.1]; 1/60 by default.
        substeps: physics steps per tick [1..32]; each is dt / substeps long.
        ray_threads: PyBullet ray-test threads (0 = all cores) [>= 0]; results do not depend on it.
        visuals: create visual shapes (needed for GUI and rendered frames); None = only with GUI.
        max_penetration: how deep [m, >= 0] a capsule (`add_capsule`) may be inside static geometry
            after a tick: capsules deeper than half of it (a crowd pushing a body into a wall) are moved
            out to half of it and lose the inward part of their velocity (`scenes.depenetration`);
            None: never moved.
        contact_threshold: Bullet's contact breaking threshold [m, 0 < x <= 1]; Bullet's own 0.02 by
            default. Bodies closer than this get contact points, and the solver lets two dynamic ones
            close no more than their gap within a physics step (speculative contacts); two that close
            faster than this per physics step (dt / substeps) go into each other before their contact
            comes (two NPCs running head-on close 11.9 cm a tick at 60 Hz). The NPC capsules do not need
            it: `npc_ai.body.speculative` keeps them apart before the step, for less than a threshold
            that covers them costs (every AABB grows by it: 0.15 took stepping 1,000 NPCs on the
            compound from 9.7 to 24.1 ms a tick). Fast props or a fast player may. It does not change
            how far a capsule driven into static geometry gets in (`max_penetration` bounds that).
    """

    dt: float = 1.0 / 60.0
    substeps: int = 1
    ray_threads: int = 1
    visuals: bool | None = None
    max_penetration: float | None = 0.02
    contact_threshold: float = 0.02

    def __post_init__(self) -> None:
        if not (isinstance(self.dt, int | float) and math.isfinite(self.dt) and 0 < self.dt <= 0.1):
            raise WorldSettingsError(f"dt must be a tick length in (0, 0.1] seconds, got {self.dt!r}")
        if not (isinstance(self.substeps, int) and 1 <= self.substeps <= 32):
            raise WorldSettingsError(f"substeps must be an integer in 1..32, got {self.substeps!r}")
        if not (isinstance(self.ray_threads, int) and self.ray_threads >= 0):
            raise WorldSettingsError(f"ray_threads must be an integer >= 0, got {self.ray_threads!r}")
        m = self.max_penetration
        if m is not None and not (isinstance(m, int | float) and math.isfinite(m) and m >= 0):
            raise WorldSettingsError(f"max_penetration must be None or a number of metres >= 0, got {m!r}")
        c = self.contact_threshold
        if isinstance(c, bool) or not (isinstance(c, int | float) and math.isfinite(c) and 0 < c <= 1):
            raise WorldSettingsError(f"contact_threshold must be a number of metres in (0, 1], got {c!r}")

    def engine_parameters(self) -> dict[str, Any]:
        """The keyword arguments of PyBullet's `setPhysicsEngineParameter` for these settings (a world's
        step length, substeps and contact threshold; overlapping pairs in a deterministic order)."""
        return {
            "fixedTimeStep": self.dt,
            "numSubSteps": self.substeps,
            "deterministicOverlappingPairs": 1,
            "contactBreakingThreshold": self.contact_threshold,
        }
