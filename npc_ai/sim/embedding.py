"""Embedding a simulation in a larger program: the checks on an injected world or physics client
(dm_control style: whoever made the thing owns it; see `Simulation`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scenes import Scene, World, WorldSettings

if TYPE_CHECKING:
    from npc_ai.sim.simulation import SimulationSettings


def check_injection(
    world: World | None, client: Any, scene: Scene, seed: int | None, gui: bool, s: SimulationSettings
) -> None:
    """Reject an injected world or client that contradicts the other arguments (SimulationError)."""
    from npc_ai.sim.simulation import SimulationError

    if client is not None and gui:
        raise SimulationError("gui=True opens a new client; with an injected client, open it in GUI mode")
    if world is None:
        return
    if client is not None:
        raise SimulationError("pass either world= or client=, not both (a world already has its client)")
    if not isinstance(world, World):
        raise SimulationError(f"world must be a scenes.World, got {type(world).__name__}")
    if world.scene is not scene and world.scene != scene:
        raise SimulationError(
            f"the injected world holds scene {world.scene.name!r}, not {scene.name!r}: "
            "build the world from this scene"
        )
    if seed is not None and seed != world.seed:
        raise SimulationError(
            f"seed {seed} contradicts the injected world's seed {world.seed}; "
            "leave seed out to use the world's"
        )
    if gui:
        raise SimulationError("gui=True cannot apply to an injected world; build the world with gui=True")
    if s.world != WorldSettings() and s.world != world.settings:
        raise SimulationError(
            "settings.world contradicts the injected world's settings; set them on the World instead"
        )
