"""Where `scenes` and `navigation` meet: levels from any source, and the navmesh baked from a level's world.

- `load_level`: a built-in scene, a `.toml` scene file or a MovingAI `.map` grid, as a `Scene`.
- `scene_from_grid` / `scene_from_map_file`: MovingAI grids as scenes (walls on a floor).
- `scene_navmesh`: bake (or load from the cache) the navmesh of a world's scene.
- `scene_links`: the scene's `[[link]]` off-mesh links, for `navigation.LinkedQuery`.
- `scene_navmeshes` / `agent_sizes`: one navmesh per agent size of the scene (`[[agent_size]]`), baked
  together.
- `BodyObstacles`: PyBullet bodies (crates physics pushes) tracked as obstacles of a dynamic navmesh.
- `find_ledges` / `guard_ledges`: the navmesh's edges with a drop beyond them, and guards on them that
  stop dynamic NPC bodies.

The names load on first use (PEP 562): `load_level` does not pay for the navmesh modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from npc_ai._lazy import lazy_exports

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "BodyObstacles": "npc_ai.levels.obstacles",
    "Ledges": "npc_ai.levels.ledges",
    "find_ledges": "npc_ai.levels.ledges",
    "guard_ledges": "npc_ai.levels.ledges",
    "SceneNavmesh": "npc_ai.levels.navmesh",
    "StaticLevel": "npc_ai.levels.navmesh",
    "agent_sizes": "npc_ai.levels.navmesh",
    "bake_settings": "npc_ai.levels.navmesh",
    "blocked_rectangles": "npc_ai.levels.grid_maps",
    "default_cache_dir": "npc_ai.levels.navmesh",
    "footprint_navmesh": "npc_ai.levels.footprints",
    "load_level": "npc_ai.levels.loading",
    "scene_from_grid": "npc_ai.levels.grid_maps",
    "scene_from_map_file": "npc_ai.levels.grid_maps",
    "scene_navmesh": "npc_ai.levels.navmesh",
    "scene_links": "npc_ai.levels.navmesh",
    "scene_navmeshes": "npc_ai.levels.navmesh",
}

__all__ = [
    "BodyObstacles",
    "Ledges",
    "SceneNavmesh",
    "StaticLevel",
    "agent_sizes",
    "bake_settings",
    "blocked_rectangles",
    "default_cache_dir",
    "find_ledges",
    "footprint_navmesh",
    "guard_ledges",
    "load_level",
    "scene_from_grid",
    "scene_from_map_file",
    "scene_links",
    "scene_navmesh",
    "scene_navmeshes",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # static type checkers see the real names
    from npc_ai.levels.footprints import footprint_navmesh
    from npc_ai.levels.grid_maps import blocked_rectangles, scene_from_grid, scene_from_map_file
    from npc_ai.levels.ledges import Ledges, find_ledges, guard_ledges
    from npc_ai.levels.loading import load_level
    from npc_ai.levels.navmesh import (
        SceneNavmesh,
        StaticLevel,
        agent_sizes,
        bake_settings,
        default_cache_dir,
        scene_links,
        scene_navmesh,
        scene_navmeshes,
    )
    from npc_ai.levels.obstacles import BodyObstacles
