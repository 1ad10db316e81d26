"""One entry point for every kind of level: a built-in scene name, a scene file (.toml) or a MovingAI map.

`scenes` reads scene files and `navigation` reads MovingAI maps; neither knows the other, so the function
that accepts both lives here.
"""

from __future__ import annotations

from pathlib import Path

from npc_ai.levels.grid_maps import scene_from_map_file
from scenes import Scene, load_scene


def load_level(name_or_path: str | Path, *, cell_size: float = 1.0) -> Scene:
    """Load a level as a `Scene`.

    Args:
        name_or_path: a built-in scene name (`scenes.BUILTIN_SCENES`), a `.toml` scene file, or a MovingAI
            `.map` file.
        cell_size: edge of one map cell [m, > 0]; used for `.map` files only.
    Raises:
        scenes.SceneError: unknown name, or a missing or malformed scene file.
        navigation.MapFormatError: a missing or malformed `.map` file.
        npc_ai.LevelError: a map with no walkable cell, or a bad `cell_size`.
    """
    if Path(str(name_or_path)).suffix.lower() == ".map":
        return scene_from_map_file(name_or_path, cell_size=cell_size)
    return load_scene(name_or_path)
