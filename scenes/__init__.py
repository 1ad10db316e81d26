"""Scene files (TOML) and the PyBullet worlds built from them. Knows nothing of AI.

Typical use::

    from scenes import World, load_scene
    with World(load_scene("arena"), seed=1) as world:
        world.step(60)
"""

from scenes import groups
from scenes.boxcast import BoxCastHit
from scenes.errors import SceneError, SettingsError, WorldError
from scenes.events import Event, EventLog
from scenes.loader import (
    BUILTIN_SCENES,
    load_builtin,
    load_scene,
    load_scene_file,
    parse_scene,
    scene_from_dict,
)
from scenes.model import Asset, Box, Floor, NavmeshSpec, NpcSpawn, Platform, PlayerSpawn, Ramp, Scene, Stairs
from scenes.movingai import scene_from_grid, scene_from_map_file
from scenes.world import PoseCache, World, WorldSettings

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
    "Scene",
    "SceneError",
    "SettingsError",
    "Stairs",
    "World",
    "WorldError",
    "WorldSettings",
    "groups",
    "load_builtin",
    "load_scene",
    "load_scene_file",
    "parse_scene",
    "scene_from_dict",
    "scene_from_grid",
    "scene_from_map_file",
]
