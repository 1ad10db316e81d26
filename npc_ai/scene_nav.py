"""The navmesh of a scene: bake settings from the scene file, baked from the world, cached on disk.

The cache key is the scene's content hash plus the bake settings and the navmesh format version, so an
edited scene or changed setting re-bakes and nothing else does. Scenes built in code (no content hash)
are never cached.
"""

from __future__ import annotations

import os
from pathlib import Path

from navigation.cache import cached_bake
from navigation.navmesh import NavMesh
from navigation.ray_bake import bake_from_rays
from navigation.settings import BakeSettings
from scenes import World
from scenes.model import NavmeshSpec


def bake_settings(spec: NavmeshSpec) -> BakeSettings:
    """The navigation bake settings that a scene's `[navmesh]` table asks for."""
    return BakeSettings(
        agent_radius=spec.agent_radius,
        agent_height=spec.agent_height,
        max_climb=spec.max_climb,
        max_slope_deg=spec.max_slope_deg,
        cell_size=spec.cell_size,
        cell_height=spec.cell_height,
    )


def default_cache_dir() -> Path:
    """`$NPC_AI_CACHE`, else `$XDG_CACHE_HOME/npc-ai`, else `~/.cache/npc-ai`."""
    if os.environ.get("NPC_AI_CACHE"):
        return Path(os.environ["NPC_AI_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "npc-ai"


def scene_navmesh(
    world: World,
    *,
    settings: BakeSettings | None = None,
    cache_dir: Path | None = None,
    use_cache: bool = True,
) -> tuple[NavMesh, bool]:
    """Bake (or load from the cache) the navmesh of `world`'s scene; return it and whether it came from
    the cache. The key is the scene's content hash plus the bake settings (and the navmesh format)."""
    s = settings if settings is not None else bake_settings(world.scene.navmesh)
    content = world.scene.content_hash
    baked = False

    def bake() -> NavMesh:
        nonlocal baked
        baked = True
        return bake_from_rays(world, s)

    if not (use_cache and content):
        return bake(), False
    folder = cache_dir if cache_dir is not None else default_cache_dir()
    mesh = cached_bake(("scene", content, s), bake, folder)
    return mesh, not baked
