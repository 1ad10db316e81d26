"""Where `scenes` and `navigation` meet: levels from any source, and the navmesh baked from a level's world.

- `load_level`: a built-in scene, a `.toml` scene file or a MovingAI `.map` grid, as a `Scene`.
- `scene_from_grid` / `scene_from_map_file`: MovingAI grids as scenes (walls on a floor).
- `scene_navmesh`: bake (or load from the cache) the navmesh of a world's scene.
"""

from npc_ai.levels.grid_maps import blocked_rectangles, scene_from_grid, scene_from_map_file
from npc_ai.levels.loading import load_level
from npc_ai.levels.navmesh import SceneNavmesh, bake_settings, default_cache_dir, scene_navmesh

__all__ = [
    "SceneNavmesh",
    "bake_settings",
    "blocked_rectangles",
    "default_cache_dir",
    "load_level",
    "scene_from_grid",
    "scene_from_map_file",
    "scene_navmesh",
]
