"""Scene files (TOML) and the PyBullet worlds built from them. Knows nothing of AI.

Typical use::

    from scenes import World, load_scene
    with World(load_scene("arena"), seed=1) as world:
        world.step(60)

`new_client()` opens a PyBullet client of your own (headless by default) to hand to `World(..., client=)`.
"""

from scenes import groups
from scenes._bullet import new_client
from scenes.boxcast import BoxCastHit
from scenes.errors import SceneError, WorldError, WorldSettingsError
from scenes.events import Event, EventLog
from scenes.ledge_guards import add_ledge_guards
from scenes.loader import (
    BUILTIN_SCENES,
    load_builtin,
    load_scene,
    load_scene_file,
    parse_scene,
    scene_from_dict,
)
from scenes.model import Asset, Box, Floor, NavmeshSpec, NpcSpawn, Platform, PlayerSpawn, Ramp, Scene, Stairs
from scenes.poses import PoseCache
from scenes.raycast import RayHits
from scenes.settings import WorldSettings
from scenes.world import World

__all__ = [
    "BUILTIN_SCENES",
    "Asset",
    "Box",
    "BoxCastHit",
    "Event",
    "EventLog",
    "Floor",
    "NavmeshSpec",
    "NpcSpawn",
    "Platform",
    "PlayerSpawn",
    "PoseCache",
    "Ramp",
    "RayHits",
    "Scene",
    "SceneError",
    "Stairs",
    "World",
    "WorldError",
    "WorldSettings",
    "WorldSettingsError",
    "add_ledge_guards",
    "groups",
    "load_builtin",
    "load_scene",
    "load_scene_file",
    "new_client",
    "parse_scene",
    "scene_from_dict",
]
