"""The navmesh of a scene: bake settings from the scene file, baked from the world, cached on disk.

The cache key is the scene's content hash plus the bake settings and the navmesh format version, so an
edited scene or changed setting re-bakes and nothing else does. Scenes built in code (no content hash)
are never cached.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path
from typing import NamedTuple

import numpy as np

from navigation.cache import cached_bake
from navigation.navmesh import NavMesh
from navigation.ray_bake import BakeProgress, bake_from_rays
from navigation.settings import BakeSettings
from scenes import RayHits, World, groups
from scenes.model import NavmeshSpec


def bake_settings(spec: NavmeshSpec) -> BakeSettings:
    """The navigation bake settings that a scene's `[navmesh]` table asks for.

    Only the keys the scene sets are passed on; every other setting is BakeSettings' default, the one
    source of defaults. Read the agent's size from here (`bake_settings(scene.navmesh).agent_radius`),
    never from the spec, whose unset fields are None.

    Raises:
        NavSettingsError: a value BakeSettings rejects.
    """
    given = {k: v for k, v in dataclasses.asdict(spec).items() if v is not None}
    return BakeSettings(**given)  # the scene table names BakeSettings fields


def default_cache_dir() -> Path:
    """`$NPC_AI_CACHE`, else `$XDG_CACHE_HOME/npc-ai`, else `~/.cache/npc-ai`."""
    if os.environ.get("NPC_AI_CACHE"):
        return Path(os.environ["NPC_AI_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "npc-ai"


class StaticLevel:
    """The world seen as a navmesh bake source: rays and probes against STATIC bodies only, so characters
    or props present at bake time are never baked into the level."""

    def __init__(self, world: World) -> None:
        self.world = world

    def ray_test(self, starts: np.ndarray, ends: np.ndarray, *, mask: int | None = None) -> RayHits:
        return self.world.ray_test(starts, ends, mask=groups.STATIC if mask is None else mask & groups.STATIC)

    def static_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return self.world.static_bounds()

    def boxes_overlap(self, centers: np.ndarray, half_extents: np.ndarray) -> np.ndarray:
        return self.world.boxes_overlap(centers, half_extents, mask=groups.STATIC)


def bake_code_fingerprint() -> str:
    """sha256 of the source of the modules that bake, and of those that build and answer the world the bake
    sees (level geometry, rays, solid probes), so a changed bake never reuses an old cache entry."""
    from navigation import decompose, heightfield, navmesh, ray_bake, settings
    from scenes import build, raycast, world

    h = hashlib.sha256()
    for module in (heightfield, ray_bake, decompose, navmesh, settings, build, raycast, world):
        h.update(Path(str(module.__file__)).read_bytes())
    return h.hexdigest()


class SceneNavmesh(NamedTuple):
    """What `scene_navmesh` returns (a named pair, so `mesh, from_cache = scene_navmesh(world)` works).

    Attributes:
        mesh: the navmesh of the scene's static level.
        from_cache: True when it was loaded from the on-disk cache, False when it was baked just now.
    """

    mesh: NavMesh
    from_cache: bool


def scene_navmesh(
    world: World,
    *,
    settings: BakeSettings | None = None,
    cache_dir: Path | None = None,
    use_cache: bool = True,
    progress: BakeProgress | None = None,
) -> SceneNavmesh:
    """Bake (or load from the cache) the navmesh of `world`'s scene.

    Args:
        world: the world whose STATIC bodies are baked (characters and props are ignored).
        settings: bake settings; default: the scene's `[navmesh]` table.
        cache_dir: cache folder; default `default_cache_dir()`.
        use_cache: False bakes without reading or writing the cache. Scenes built in code (no content
            hash) are never cached.
        progress: `progress(stage, done, total)`, called while baking (see `navigation.ray_bake.BakeProgress`;
            never called when the mesh comes from the cache).
    Returns:
        `SceneNavmesh(mesh, from_cache)`. The cache key is the scene's content hash, the bake settings,
        the navmesh format and the bake code's fingerprint.
    """
    s = settings if settings is not None else bake_settings(world.scene.navmesh)
    content = world.scene.content_hash
    baked = False

    def bake() -> NavMesh:
        nonlocal baked
        baked = True
        return bake_from_rays(StaticLevel(world), s, progress=progress)

    if not (use_cache and content):
        return SceneNavmesh(bake(), False)
    folder = cache_dir if cache_dir is not None else default_cache_dir()
    mesh = cached_bake(("scene", content, s, bake_code_fingerprint()), bake, folder)
    return SceneNavmesh(mesh, not baked)
