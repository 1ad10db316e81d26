"""The scene data model: immutable descriptions of level geometry, spawns and navmesh settings.

All lengths are metres, angles degrees, the world is Z-up. A `Scene` is plain data: `scenes.loader` builds
one from TOML (validating every key), `scenes.build` turns one into PyBullet bodies.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeAlias

from scenes.errors import SceneError

Vec2 = tuple[float, float]
Vec3 = tuple[float, float, float]
Color = tuple[float, float, float, float]


Scalar: TypeAlias = float | int | bool | str  # a value of an `[archetype.NAME]` table
ArchetypeTable: TypeAlias = tuple[str, tuple[tuple[str, Scalar], ...]]  # (name, ((key, value), ...))


@dataclass(frozen=True)
class Floor:
    """A flat rectangular floor slab whose top surface is at `z`.

    Attributes:
        size: (x, y) extent [m, > 0].
        center: (x, y) centre [m].
        z: height of the walking surface [m].
        thickness: slab thickness below `z` [m, > 0].
    """

    size: Vec2
    center: Vec2 = (0.0, 0.0)
    z: float = 0.0
    thickness: float = 0.5
    color: Color = (0.75, 0.75, 0.72, 1.0)


@dataclass(frozen=True)
class Box:
    """A static box (wall, pillar, crate, shelf).

    Attributes:
        center: centre of the box [m].
        half_extents: half sizes along the box's local x, y, z [m, > 0].
        yaw_deg: rotation about world Z [deg].
    """

    center: Vec3
    half_extents: Vec3
    yaw_deg: float = 0.0
    name: str = ""
    color: Color = (0.55, 0.45, 0.35, 1.0)


@dataclass(frozen=True)
class Ramp:
    """A sloped slab whose top surface runs from `start` to `end` (centre line of the walking surface).

    Attributes:
        start, end: centre of the low and high edge of the top surface [m].
        width: across the slope [m, > 0].
        thickness: slab thickness [m, > 0].
    """

    start: Vec3
    end: Vec3
    width: float
    thickness: float = 0.2
    name: str = ""
    color: Color = (0.6, 0.6, 0.5, 1.0)


@dataclass(frozen=True)
class Stairs:
    """A flight of solid steps (each step a box down to `start` z).

    Attributes:
        start: centre of the front edge of the first step, at its bottom [m].
        direction_deg: yaw of the climbing direction [deg].
        steps: number of steps [>= 1].
        rise: height of one step [m, > 0]. run: depth of one step [m, > 0]. width: [m, > 0].
    """

    start: Vec3
    steps: int
    rise: float
    run: float
    width: float
    direction_deg: float = 0.0
    name: str = ""
    color: Color = (0.6, 0.55, 0.5, 1.0)


@dataclass(frozen=True)
class Platform:
    """A raised walkable slab (a platform or a bridge) with its top surface at `height`.

    Attributes:
        center: (x, y) centre [m]. size: (x, y) extent [m, > 0]. height: top surface z [m].
        thickness: slab thickness [m, > 0]. yaw_deg: rotation about Z [deg].
        legs: add four support columns down to z = 0 at the corners.
    """

    center: Vec2
    size: Vec2
    height: float
    thickness: float = 0.3
    yaw_deg: float = 0.0
    legs: bool = False
    name: str = ""
    color: Color = (0.5, 0.55, 0.6, 1.0)


@dataclass(frozen=True)
class Area:
    """A region of the floor with an area type (`[[area]]`): the navmesh marks the polygons under it, and
    query filters give the type a cost per metre or keep paths out of it (`navigation.filters`).

    Attributes:
        name: the area type ("water", "danger"...; not "ground", the unmarked floor). Types are numbered
            1, 2, ... in order of first appearance in the scene.
        footprint: its outline seen from above, (x, y) corners [m] (at least 3, a simple polygon).
        bottom, top: the heights [m] of the floors it marks (default: any).
    """

    name: str
    footprint: tuple[Vec2, ...]
    bottom: float = -math.inf
    top: float = math.inf


LINK_KINDS = ("jump", "drop", "climb", "door")


@dataclass(frozen=True)
class Link:
    """An off-mesh link (`[[link]]`): a jump, drop, climb or door between two navmesh points
    (`navigation.links.OffMeshLink`; `npc_ai.levels.scene_links`).

    Attributes:
        start, end: its ends [m]. bidirectional: crossed both ways. width: [m, >= 0].
        cost: crossing cost in metres of walking [>= 0]; None: the straight distance.
        kind: one of LINK_KINDS. name: a label.
    """

    start: Vec3
    end: Vec3
    bidirectional: bool = False
    width: float = 0.0
    cost: float | None = None
    kind: str = "jump"
    name: str = ""


@dataclass(frozen=True)
class LinkSearchSpec:
    """`[links]`: find jumps and drops on the baked navmesh besides the `[[link]]`s declared
    (`navigation.find_links`). None: `navigation.links.LinkSearch`'s default.

    Attributes:
        find: search at all. max_gap, max_jump_rise, max_drop, spacing, min_gain, separation: [m], see
            `navigation.links.LinkSearch`.
    """

    find: bool = False
    max_gap: float | None = None
    max_jump_rise: float | None = None
    max_drop: float | None = None
    spacing: float | None = None
    min_gain: float | None = None
    separation: float | None = None


@dataclass(frozen=True)
class AgentSizeSpec:
    """An extra agent size (`[[agent_size]]`): the level gets a navmesh of its own for agents this size
    (`npc_ai.levels.scene_navmeshes`; the `[navmesh]` table's size is "default").

    Attributes:
        name: what agents call the size (not "default"; unique).
        agent_radius: [m, >= 0]; agent_height: [m, > 0]. None: the `[navmesh]` table's (resolved) value.
    """

    name: str
    agent_radius: float | None = None
    agent_height: float | None = None


@dataclass(frozen=True)
class Asset:
    """A mesh (.obj/.stl), URDF or SDF file placed in the level as static geometry.

    Attributes:
        kind: "mesh", "urdf" or "sdf".
        path: resolved absolute path of the file.
        position: [m]. orientation_deg: (roll, pitch, yaw) [deg]. scale: uniform scale [> 0].
    """

    kind: str
    path: Path
    position: Vec3 = (0.0, 0.0, 0.0)
    orientation_deg: Vec3 = (0.0, 0.0, 0.0)
    scale: float = 1.0
    name: str = ""


@dataclass(frozen=True)
class NpcSpawn:
    """Where an NPC starts, facing `yaw_deg`, with an optional patrol route (feet positions) [m]."""

    position: Vec3
    yaw_deg: float = 0.0
    name: str = ""
    archetype: str = "default"
    patrol: tuple[Vec3, ...] = ()


@dataclass(frozen=True)
class PlayerSpawn:
    """Where the player starts, with an optional scripted route (feet positions) [m]."""

    position: Vec3
    yaw_deg: float = 0.0
    route: tuple[Vec3, ...] = ()
    loop: bool = True


@dataclass(frozen=True)
class NavmeshSpec:
    """The navmesh bake settings a scene file's `[navmesh]` table sets (meaning: `navigation.BakeSettings`).

    None means "not set in the scene": the bake then uses BakeSettings' default, the one source of
    defaults (`npc_ai.levels.bake_settings(spec)` resolves a spec into BakeSettings).

    Attributes:
        agent_radius: [m, >= 0]. agent_height: [m, > 0]. max_climb: [m, >= 0].
        max_slope_deg: [deg, 0..90). cell_size: [m, > 0]. cell_height: [m, > 0].
        method: how the mesh is baked: "rays" (None: the default; the ray-sampled heightfield, any level)
            or "footprints" (exact: the floor minus the boxes' footprints, eroded by the agent radius; a
            flat floor with boxes only). Not a BakeSettings field: `npc_ai.levels` reads it.
    """

    agent_radius: float | None = None
    agent_height: float | None = None
    max_climb: float | None = None
    max_slope_deg: float | None = None
    cell_size: float | None = None
    cell_height: float | None = None
    method: str | None = None


@dataclass(frozen=True)
class Scene:
    """A whole level: geometry, spawns, navmesh settings.

    Attributes:
        name: short name. source: the file it came from ("" when built in code).
        archetypes: per-archetype behaviour settings from `[archetype.NAME]` tables, as (name, items)
            pairs of raw scalars (validated by the behaviour layer).
        content_hash: sha256 of the source text (for navmesh caches), "" when built in code.

    Place NPCs and the player in code with `with_npcs` and `with_player`, which return a validated copy.
    """

    name: str
    description: str = ""
    floor: Floor | None = None
    boxes: tuple[Box, ...] = ()
    ramps: tuple[Ramp, ...] = ()
    stairs: tuple[Stairs, ...] = ()
    platforms: tuple[Platform, ...] = ()
    assets: tuple[Asset, ...] = ()
    npcs: tuple[NpcSpawn, ...] = ()
    player: PlayerSpawn | None = None
    navmesh: NavmeshSpec = field(default_factory=NavmeshSpec)
    areas: tuple[Area, ...] = ()
    agent_sizes: tuple[AgentSizeSpec, ...] = ()
    links: tuple[Link, ...] = ()
    link_search: LinkSearchSpec = field(default_factory=LinkSearchSpec)
    gravity: float = -9.81
    archetypes: tuple[ArchetypeTable, ...] = ()
    source: str = ""
    content_hash: str = ""

    def archetype(self, name: str) -> dict[str, float | int | bool | str]:
        """The raw settings of the `[archetype.NAME]` table (empty for an undefined name such as "default").

        The behaviour layer validates the keys; the scene only checks they are TOML scalars.
        """
        return dict(next((items for n, items in self.archetypes if n == name), ()))

    def with_npcs(self, *spawns: NpcSpawn, keep_existing: bool = True) -> Scene:
        """A copy of this scene with more NPC spawns (placing NPCs in code; the scene itself is unchanged).

        Args:
            spawns: the spawns to add, after the scene's own (`NpcSpawn(position=(x, y, z), name=...)`).
            keep_existing: False drops the scene's own spawns, so the new scene has exactly `spawns`.
        Returns:
            The new `Scene`; its content hash is kept (spawns are not baked into the navmesh, so the
            navmesh cache still applies).
        Raises:
            SceneError: a spawn that is not an `NpcSpawn`, a position, yaw or patrol point that is not
                finite, a name used twice, or an archetype without an `[archetype.NAME]` table.
        """
        npcs = (*self.npcs, *spawns) if keep_existing else tuple(spawns)
        known = {name for name, _ in self.archetypes} | {"default"}
        names: set[str] = set()
        for i, spawn in enumerate(npcs):
            key = f"npc[{i}]"
            if not isinstance(spawn, NpcSpawn):
                raise self._fail(key, f"must be a scenes.NpcSpawn, got {type(spawn).__name__}")
            self._check_point(spawn.position, f"{key}.position")
            self._check_number(spawn.yaw_deg, f"{key}.yaw_deg")
            for j, p in enumerate(spawn.patrol):
                self._check_point(p, f"{key}.patrol[{j}]")
            if spawn.archetype not in known:
                raise self._fail(
                    f"{key}.archetype", f"no [archetype.{spawn.archetype}] table; define it or use 'default'"
                )
            if spawn.name:
                if spawn.name in names:
                    raise self._fail(
                        f"{key}.name", f"{spawn.name!r} is used by another NPC; names must be unique"
                    )
                names.add(spawn.name)
        return replace(self, npcs=npcs)

    def with_player(self, spawn: PlayerSpawn | None) -> Scene:
        """A copy of this scene whose player starts at `spawn` (None: the scene has no player spawn).

        Raises:
            SceneError: `spawn` is not a `PlayerSpawn`, or a position, yaw or route point is not finite.
        """
        if spawn is not None:
            if not isinstance(spawn, PlayerSpawn):
                raise self._fail(
                    "player", f"must be a scenes.PlayerSpawn or None, got {type(spawn).__name__}"
                )
            self._check_point(spawn.position, "player.position")
            self._check_number(spawn.yaw_deg, "player.yaw_deg")
            for j, p in enumerate(spawn.route):
                self._check_point(p, f"player.route[{j}]")
        return replace(self, player=spawn)

    def _fail(self, key: str, problem: str) -> SceneError:
        return SceneError(self.source or self.name, key, problem)

    def _check_number(self, value: object, key: str) -> None:
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise self._fail(key, f"must be a finite number, got {value!r}")

    def _check_point(self, value: object, key: str) -> None:
        if not isinstance(value, tuple | list) or len(value) != 3:
            raise self._fail(key, f"must be 3 numbers (x, y, z) in metres, got {value!r}")
        for i, v in enumerate(value):
            self._check_number(v, f"{key}[{i}]")
