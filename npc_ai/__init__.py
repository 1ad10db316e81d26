"""npc-ai: simulated enemies in a PyBullet world.

Wander / Aim / Chase behaviour with view-cone raycasts and obstacle box casts, on a navmesh pathfinder whose
agent follows root-motion animation from real motion capture. See README.md and docs/api.md.

The main types are exported here and load on first use (PEP 562), so `import npc_ai.animation` stays free
of PyBullet, `scenes` and `navigation`::

    import npc_ai

    sim = npc_ai.Simulation(npc_ai.load_level("warehouse"), seed=3)
    sim.run(10.0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from npc_ai._lazy import lazy_exports

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    # errors
    "NpcAiError": "npc_ai.errors",
    "LevelError": "npc_ai.errors",
    "BenchmarkSettingsError": "npc_ai.errors",
    "SceneError": "scenes.errors",
    "NavigationError": "navigation.errors",
    # levels and their navmeshes
    "Scene": "scenes.model",
    "World": "scenes.world",
    "WorldSettings": "scenes.settings",
    "load_level": "npc_ai.levels.loading",
    "scene_navmesh": "npc_ai.levels.navmesh",
    "SceneNavmesh": "npc_ai.levels.navmesh",
    "NavMesh": "navigation.navmesh",
    "NavMeshQuery": "navigation.query",
    "QueryStatus": "navigation.query",
    "PathResult": "navigation.query",
    "BakeSettings": "navigation.settings",
    "AgentSettings": "navigation.agent",
    # simulation
    "Simulation": "npc_ai.sim.simulation",
    "SimulationSettings": "npc_ai.sim.simulation",
    "SimulationError": "npc_ai.sim.simulation",
    "Player": "npc_ai.sim.player",
    "PlayerController": "npc_ai.sim.player",
    "PlayerSettings": "npc_ai.sim.player",
    "BehaviourSettings": "npc_ai.behaviour.settings",
    "Npc": "npc_ai.behaviour.brain",
    # body and animation
    "Locomotor": "npc_ai.body.locomotor",
    "CouplingSettings": "npc_ai.body.coupling",
    "COUPLING_MODES": "npc_ai.body.coupling",
    "Animator": "npc_ai.animation.animator",
    "AnimatorSettings": "npc_ai.animation.animator",
    "load_clip": "npc_ai.animation.library",
}
_RENAMED = {"COUPLING_MODES": "MODES"}

__all__ = ["__version__", *sorted(_EXPORTS)]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, _RENAMED)


if TYPE_CHECKING:  # static type checkers see the real names
    from navigation.agent import AgentSettings
    from navigation.errors import NavigationError
    from navigation.navmesh import NavMesh
    from navigation.query import NavMeshQuery, PathResult, QueryStatus
    from navigation.settings import BakeSettings
    from npc_ai.animation.animator import Animator, AnimatorSettings
    from npc_ai.animation.library import load_clip
    from npc_ai.behaviour.brain import Npc
    from npc_ai.behaviour.settings import BehaviourSettings
    from npc_ai.body.coupling import MODES as COUPLING_MODES
    from npc_ai.body.coupling import CouplingSettings
    from npc_ai.body.locomotor import Locomotor
    from npc_ai.errors import BenchmarkSettingsError, LevelError, NpcAiError
    from npc_ai.levels.loading import load_level
    from npc_ai.levels.navmesh import SceneNavmesh, scene_navmesh
    from npc_ai.sim.player import Player, PlayerController, PlayerSettings
    from npc_ai.sim.simulation import Simulation, SimulationError, SimulationSettings
    from scenes.errors import SceneError
    from scenes.model import Scene
    from scenes.settings import WorldSettings
    from scenes.world import World
