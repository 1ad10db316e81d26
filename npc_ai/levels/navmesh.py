"""The navmesh of a scene: bake settings from the scene file, baked from the world, cached on disk.

The cache key is the scene's content hash, what its assets are made of (`asset_fingerprint`: the resolved
path and content of every mesh, URDF and SDF file and of the files those reference), the bake settings,
the navmesh format version and the bake code, so an edited scene, asset or setting re-bakes and nothing
else does. Scenes built in code (no content hash) are never cached.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np

from navigation.areas import AreaVolume, mark_areas
from navigation.cache import cached_bake
from navigation.errors import NavMeshError
from navigation.links import LinkSearch, OffMeshLink, find_links
from navigation.navmesh import NavMesh
from navigation.query import NavMeshQuery
from navigation.ray_bake import BakeProgress, bake_from_rays
from navigation.settings import BakeSettings
from navigation.sizes import AgentSize, bake_sizes
from npc_ai.levels.footprints import footprint_navmesh
from scenes import RayHits, Scene, World, groups
from scenes.model import NavmeshSpec


def bake_settings(spec: NavmeshSpec) -> BakeSettings:
    """The navigation bake settings that a scene's `[navmesh]` table asks for.

    Only the keys the scene sets are passed on; every other setting is BakeSettings' default, the one
    source of defaults. Read the agent's size from here (`bake_settings(scene.navmesh).agent_radius`),
    never from the spec, whose unset fields are None.

    Raises:
        NavSettingsError: a value BakeSettings rejects.
    """
    given = {k: v for k, v in dataclasses.asdict(spec).items() if v is not None and k != "method"}
    return BakeSettings(**given)  # the scene table names BakeSettings fields (and the method)


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
    from navigation import (
        areas,
        bake_kernels,
        carve,
        decompose,
        grid_bake,
        heightfield,
        navmesh,
        outline_simplify,
        ray_bake,
        settings,
    )
    from npc_ai.levels import footprints
    from scenes import build, raycast, world

    h = hashlib.sha256()
    modules = (
        heightfield,
        ray_bake,
        bake_kernels,
        decompose,
        outline_simplify,
        navmesh,
        settings,
        areas,
        carve,
        grid_bake,
        footprints,
    )
    for module in (*modules, build, raycast, world):
        h.update(Path(str(module.__file__)).read_bytes())
    return h.hexdigest()


# What PyBullet's URDF and SDF loaders read besides the file itself: <mesh filename="..."> and <uri>...</uri>
_REFERENCES = re.compile(r"""<mesh\b[^>]*?\bfilename\s*=\s*["']([^"']+)["']|<uri>\s*([^<]*?)\s*</uri>""")
_SCHEMES = ("package://", "model://", "file://")


def _pybullet_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("pybullet")
    except metadata.PackageNotFoundError:  # pragma: no cover - an unusual install
        import pybullet

        return f"api {pybullet.getAPIVersion()}"


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _find_reference(name: str, referrer: Path) -> Path | None:
    """The file a URDF/SDF reference names, searched as PyBullet's loaders search it (UrdfFindMeshFile):
    the scheme (package://, model://) dropped, then the name as given (relative to the working folder),
    then relative to each folder above the referring file, nearest first. None when nothing is found."""
    for scheme in _SCHEMES:
        if name.startswith(scheme):
            name = name[len(scheme) :]
            break
    for candidate in (Path(name), *(folder / name for folder in referrer.parents)):
        if candidate.is_file():
            return candidate.resolve()
    return None


def asset_fingerprint(scene: Scene) -> tuple[object, ...]:
    """What a scene's mesh, URDF and SDF assets are made of, for the navmesh cache key.

    One `(kind, resolved path, sha256 of the content)` triple per asset and per file that a URDF or SDF
    references (`<mesh filename=...>`, `<uri>`, found as PyBullet finds them), in order; a reference that
    cannot be found is keyed by `("missing", name, referring file)`; then `("pybullet", version)` when any
    of these files comes from pybullet_data. So an edited asset, an edited mesh that a URDF uses, or the
    same scene text resolving against another folder gives another key. `()` when there are no assets.
    """
    import pybullet_data

    data = Path(pybullet_data.getDataPath()).resolve()
    parts: list[object] = []
    seen: set[Path] = set()

    def add(kind: str, path: Path) -> None:
        path = path.resolve()
        if path in seen:
            return
        seen.add(path)
        described = path.suffix.lower() in (".urdf", ".sdf")
        try:
            parts.append((kind, str(path), _digest(path)))
            text = path.read_text(encoding="utf-8", errors="replace") if described else ""
        except OSError as exc:  # PyBullet cannot read it either: key it by the error
            parts.append(("unreadable", str(path), exc.strerror or type(exc).__name__))
            return
        for match in _REFERENCES.finditer(text):
            name = (match.group(1) or match.group(2) or "").strip()
            found = _find_reference(name, path) if name else None
            if found is not None:
                add("file", found)
            elif name:
                parts.append(("missing", name, str(path)))

    for asset in scene.assets:
        add(asset.kind, asset.path)
    if any(p.is_relative_to(data) for p in seen):
        parts.append(("pybullet", _pybullet_version()))
    return tuple(parts)


def area_types(scene: Scene) -> dict[str, int]:
    """The scene's area type names -> navmesh area ids (1, 2, ... in order of first appearance)."""
    ids: dict[str, int] = {}
    for area in scene.areas:
        ids.setdefault(area.name, len(ids) + 1)
    return ids


def scene_areas(mesh: NavMesh, scene: Scene) -> NavMesh:
    """`mesh` with the scene's `[[area]]` footprints marked (`navigation.areas.mark_areas`; names in
    `meta["areas"]`), or `mesh` itself when the scene has none."""
    if not scene.areas:
        return mesh
    ids = area_types(scene)
    volumes = [AreaVolume(ids[a.name], a.footprint, a.bottom, a.top) for a in scene.areas]
    return mark_areas(mesh, volumes, ids)


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
        `SceneNavmesh(mesh, from_cache)`. The cache key is the scene's content hash, its assets'
        paths and content (`asset_fingerprint`), the bake settings and method, the navmesh format and
        the bake code's fingerprint.
    """
    s = settings if settings is not None else bake_settings(world.scene.navmesh)
    content = world.scene.content_hash
    baked = False

    def bake() -> NavMesh:
        nonlocal baked
        baked = True
        if settings is None:  # the scene's own size: the mesh `scene_navmeshes` gives as "default"
            base = agent_sizes(world.scene)[0]
            return scene_navmeshes_from(world, (base,), s, progress)[base.name]
        if world.scene.navmesh.method == "footprints":
            return scene_areas(footprint_navmesh(world.scene, s), world.scene)
        return scene_areas(bake_from_rays(StaticLevel(world), s, progress=progress), world.scene)

    if not (use_cache and content):
        return SceneNavmesh(bake(), False)
    folder = cache_dir if cache_dir is not None else default_cache_dir()
    fingerprint = list(asset_fingerprint(world.scene))
    key = ("scene", content, fingerprint, s, world.scene.navmesh.method, bake_code_fingerprint())
    mesh = cached_bake(key, bake, folder)
    return SceneNavmesh(mesh, not baked)


def agent_sizes(scene: Scene) -> tuple[AgentSize, ...]:
    """The scene's agent sizes: "default" (the `[navmesh]` table's), then each `[[agent_size]]`, whose
    unset radius or height is the default's."""
    base = bake_settings(scene.navmesh)
    sizes = [AgentSize("default", base.agent_radius, base.agent_height)]
    for spec in scene.agent_sizes:
        radius = spec.agent_radius if spec.agent_radius is not None else base.agent_radius
        height = spec.agent_height if spec.agent_height is not None else base.agent_height
        sizes.append(AgentSize(spec.name, radius, height))
    return tuple(sizes)


def scene_navmeshes(
    world: World,
    *,
    cache_dir: Path | None = None,
    use_cache: bool = True,
    progress: BakeProgress | None = None,
) -> dict[str, NavMesh]:
    """One navmesh per agent size of `world`'s scene (`agent_sizes`: "default" first), name -> mesh.

    The sizes not in the cache are baked together (`navigation.sizes.bake_sizes`: the level's ray
    sampling runs once per distinct height); each mesh is cached on its own, under the key `scene_navmesh`
    uses for that size (so the "default" mesh is the one `scene_navmesh` gives). Areas are marked on each.
    """
    scene = world.scene
    base = bake_settings(scene.navmesh)
    sizes = agent_sizes(scene)
    baked: dict[str, NavMesh] = {}

    def bake(size: AgentSize) -> NavMesh:
        if not baked:  # the first size the cache lacks: bake every size at once (shared sampling)
            baked.update(scene_navmeshes_from(world, sizes, base, progress))
        return baked[size.name]

    content = scene.content_hash
    if not (use_cache and content):
        return {s.name: bake(s) for s in sizes}
    folder = cache_dir if cache_dir is not None else default_cache_dir()
    fingerprint = list(asset_fingerprint(scene))
    code = bake_code_fingerprint()
    out = {}
    for size in sizes:
        key = ("scene", content, fingerprint, size.settings(base), scene.navmesh.method, code)
        out[size.name] = cached_bake(key, functools.partial(bake, size), folder)
    return out


def scene_navmeshes_from(
    world: World, sizes: tuple[AgentSize, ...], base: BakeSettings, progress: BakeProgress | None
) -> dict[str, NavMesh]:
    """Bake `sizes` of `world`'s level (no cache) with the scene's areas marked: from rays, or from the
    scene's footprints when its `[navmesh]` method says so (`npc_ai.levels.footprints`)."""
    if world.scene.navmesh.method == "footprints":
        return {
            size.name: scene_areas(footprint_navmesh(world.scene, size.settings(base)), world.scene)
            for size in sizes
        }
    meshes = bake_sizes(StaticLevel(world), sizes, base, progress=progress)
    return {name: scene_areas(mesh, world.scene) for name, mesh in meshes.items()}


def scene_links(
    scene: Scene, query: NavMeshQuery | None = None, world: World | None = None
) -> tuple[OffMeshLink, ...]:
    """The scene's `[[link]]` tables as `navigation.OffMeshLink`s (for `navigation.LinkedQuery`), then,
    when its `[links]` table says `find = true`, the jumps and drops `navigation.find_links` finds on
    `query`'s mesh (the scene's navmesh; required then), checked for walls in the way against `world`'s
    static level when given.

    Raises:
        NavMeshError: limits `navigation.links.LinkSearch` refuses, or `find` without a query.
    """
    declared = tuple(
        OffMeshLink(
            link.start,
            link.end,
            bidirectional=link.bidirectional,
            width=link.width,
            cost=link.cost,
            kind=link.kind,
            name=link.name,
        )
        for link in scene.links
    )
    spec = scene.link_search
    if not spec.find:
        return declared
    if query is None:
        raise NavMeshError("the scene's [links] table finds links on its navmesh: pass the navmesh's query")
    given = {k: v for k, v in dataclasses.asdict(spec).items() if k != "find" and v is not None}
    source = None if world is None else StaticLevel(world)
    return declared + find_links(query, LinkSearch(**given), source)
