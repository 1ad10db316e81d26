"""The simulation loop: the world, the navmesh query, the NPCs and the player, ticked in DESIGN.md's order.

- `Simulation` / `SimulationSettings`: build a world from a scene (or use an injected one) and tick it.
- `Player` / `PlayerSettings`: the scripted (or keyboard) player the NPCs hunt.
- `PlayerController`: the protocol of your own player (a callable that steers it every tick).
- `NpcController`: the protocol of your own control of one NPC (`Simulation.control`).
"""

from npc_ai.sim.control import NpcController
from npc_ai.sim.player import Player, PlayerController, PlayerSettings, PlayerSettingsError
from npc_ai.sim.simulation import Simulation, SimulationError, SimulationSettings
from npc_ai.sim.spawning import SpawnError, spread_spawns, stream
from npc_ai.sim.trace import Timings, Trace

__all__ = [
    "NpcController",
    "Player",
    "PlayerController",
    "PlayerSettings",
    "PlayerSettingsError",
    "Simulation",
    "SimulationError",
    "SimulationSettings",
    "SpawnError",
    "Timings",
    "Trace",
    "spread_spawns",
    "stream",
]
