"""The character body and how it follows navigation: the capsule, the coupling modes, the locomotor.

- `Character`: the dynamic capsule in the world (velocity in, pose out).
- `Coupling` / `CouplingSettings` / `MODES`: how the nav agent's simulated position and the animation's
  root motion are reconciled (agent drives, root motion, pull character, pull agent, feed-forward).
- `Locomotor`: one character's agent + animator + coupling, stepped before and after physics.
- `LocomotionBatch` / `LocomotorView`: the same for many characters at once, state in arrays (the
  simulation's NPCs); a view gives one row the `Locomotor` interface.
"""

from npc_ai.body.batch import LocomotionBatch, LocomotorView
from npc_ai.body.character import Character
from npc_ai.body.coupling import MODES, Coupling, CouplingError, CouplingSettings
from npc_ai.body.locomotor import Locomotor

__all__ = [
    "MODES",
    "Character",
    "Coupling",
    "CouplingError",
    "CouplingSettings",
    "LocomotionBatch",
    "Locomotor",
    "LocomotorView",
]
