"""The simulation loop: the world, the navmesh query, the NPCs and the player, ticked in DESIGN.md's order.

- `Simulation` / `SimulationSettings`: build a world from a scene (or use an injected one) and tick it.
- `Player` / `PlayerSettings`: the scripted (or keyboard) player the NPCs hunt.
"""

from npc_ai.sim.player import Player, PlayerSettings, PlayerSettingsError
from npc_ai.sim.simulation import (
    STATE_CODES,
    Simulation,
    SimulationError,
    SimulationSettings,
    Timings,
    Trace,
)

__all__ = [
    "STATE_CODES",
    "Player",
    "PlayerSettings",
    "PlayerSettingsError",
    "Simulation",
    "SimulationError",
    "SimulationSettings",
    "Timings",
    "Trace",
]
