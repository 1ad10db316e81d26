"""Read scene files (TOML) into `Scene` objects, validating every key.

Every defect raises `SceneError(source, key_path, problem)`: unknown keys, wrong types, non-finite numbers,
zero or negative sizes, asset files that do not exist. See docs/scene-format.md for the format.
"""

from __future__ import annotations

import hashlib
import math
import sys
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from scenes._bullet import DATA_PATH
from scenes.errors import SceneError
from scenes.model import (
    LINK_KINDS,
    AgentSizeSpec,
    ArchetypeTable,
    Area,
    Asset,
    Box,
    Floor,
    Link,
    LinkSearchSpec,
    NavmeshSpec,
    NpcSpawn,
    Platform,
    PlayerSpawn,
    Ramp,
    Scalar,
    Scene,
    Stairs,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

BUILTIN_SCENES: tuple[str, ...] = ("arena", "warehouse", "compound", "monastery")
PYBULLET_DATA_PREFIX = "pybullet_data:"
MAX_MAGNITUDE = 1e5  # every number of a scene file lies within +-this: a level is at most 100 km across
MAX_STEPS = 1000  # stairs with more steps are almost surely a typo (each step is a box)
GRAVITY_RANGE = (-100.0, 0.0)  # [m/s^2] z gravity: pointing down (Earth -9.81), at most 10 g


class _Reader:
    """Typed field readers that name the offending key path in every error."""

    def __init__(self, source: str, base_dir: Path | None) -> None:
        self.source = source
        self.base_dir = base_dir

    def fail(self, key: str, problem: str) -> SceneError:
        return SceneError(self.source, key, problem)

    def table(self, value: Any, key: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(key, f"must be a table, got {type(value).__name__}")
        return value

    def number(self, value: Any, key: str, *, low: float | None = None, positive: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(key, f"must be a number, got {type(value).__name__} {value!r}")
        x = float(value)
        if not math.isfinite(x):
            raise self.fail(key, f"must be a finite number, got {value!r}")
        if abs(x) > MAX_MAGNITUDE:
            raise self.fail(key, f"must lie within +-{MAX_MAGNITUDE:g} (metres, degrees), got {x:.6g}")
        if positive and not x > 0:
            raise self.fail(key, f"must be greater than 0, got {value!r}")
        if low is not None and x < low:
            raise self.fail(key, f"must be at least {low}, got {value!r}")
        return x

    def integer(self, value: Any, key: str, *, low: int, high: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"must be an integer, got {type(value).__name__} {value!r}")
        if value < low:
            raise self.fail(key, f"must be at least {low}, got {value}")
        if high is not None and value > high:
            raise self.fail(key, f"must be at most {high}, got {value:.6g}")
        return int(value)

    def vector(self, value: Any, key: str, n: int, *, positive: bool = False) -> tuple[float, ...]:
        if not isinstance(value, list) or len(value) != n:
            raise self.fail(key, f"must be a list of {n} numbers, got {value!r}")
        return tuple(self.number(v, f"{key}[{i}]", positive=positive) for i, v in enumerate(value))

    def vec2(self, value: Any, key: str, *, positive: bool = False) -> tuple[float, float]:
        x, y = self.vector(value, key, 2, positive=positive)
        return (x, y)

    def vec3(self, value: Any, key: str, *, positive: bool = False) -> tuple[float, float, float]:
        x, y, z = self.vector(value, key, 3, positive=positive)
        return (x, y, z)

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str):
            raise self.fail(key, f"must be a string, got {type(value).__name__} {value!r}")
        return value

    def boolean(self, value: Any, key: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, got {value!r}")
        return value

    def color(self, value: Any, key: str) -> tuple[float, float, float, float]:
        if not isinstance(value, list) or len(value) not in (3, 4):
            raise self.fail(key, f"must be [r, g, b] or [r, g, b, a] in 0..1, got {value!r}")
        rgba = [self.number(v, f"{key}[{i}]", low=0.0) for i, v in enumerate(value)]
        if any(c > 1.0 for c in rgba):
            raise self.fail(key, f"colour components must lie in 0..1, got {value!r}")
        return (rgba[0], rgba[1], rgba[2], rgba[3] if len(rgba) == 4 else 1.0)

    def points(self, value: Any, key: str) -> tuple[tuple[float, float, float], ...]:
        if not isinstance(value, list):
            raise self.fail(key, f"must be a list of [x, y, z] points, got {value!r}")
        return tuple(self.vec3(p, f"{key}[{i}]") for i, p in enumerate(value))

    def asset_path(self, value: Any, key: str) -> Path:
        text = self.string(value, key)
        if not text:
            raise self.fail(key, "must name a file")
        if text.startswith(PYBULLET_DATA_PREFIX):
            path = Path(DATA_PATH) / text[len(PYBULLET_DATA_PREFIX) :]
        else:
            path = Path(text)
            if not path.is_absolute():
                if self.base_dir is None:
                    raise self.fail(key, f"relative path {text!r} needs a scene file to be relative to")
                path = self.base_dir / path
        if not path.is_file():
            raise self.fail(key, f"file does not exist: {path}")
        return path.resolve()


def _check_keys(
    r: _Reader, table: Mapping[str, Any], key: str, allowed: set[str], required: set[str]
) -> None:
    for k in table:
        if k not in allowed:
            raise r.fail(f"{key}.{k}" if key else k, f"unknown key; expected one of {sorted(allowed)}")
    for k in sorted(required):
        if k not in table:
            raise r.fail(f"{key}.{k}" if key else k, "is required but missing")


def _opt(
    table: Mapping[str, Any], name: str, reader: Callable[[Any, str], Any], key: str, default: Any
) -> Any:
    return reader(table[name], f"{key}.{name}") if name in table else default


def _floor(r: _Reader, t: Mapping[str, Any], key: str) -> Floor:
    _check_keys(r, t, key, {"size", "center", "z", "thickness", "color"}, {"size"})
    return Floor(
        size=r.vec2(t["size"], f"{key}.size", positive=True),
        center=_opt(t, "center", lambda v, k: r.vector(v, k, 2), key, (0.0, 0.0)),
        z=_opt(t, "z", r.number, key, 0.0),
        thickness=_opt(t, "thickness", lambda v, k: r.number(v, k, positive=True), key, 0.5),
        color=_opt(t, "color", r.color, key, Floor.color),
    )


def _box(r: _Reader, t: Mapping[str, Any], key: str) -> Box:
    _check_keys(r, t, key, {"center", "half_extents", "size", "yaw_deg", "name", "color"}, {"center"})
    if ("half_extents" in t) == ("size" in t):
        raise r.fail(key, "give exactly one of 'half_extents' or 'size'")
    if "size" in t:
        sx, sy, sz = r.vec3(t["size"], f"{key}.size", positive=True)
        half = (sx / 2, sy / 2, sz / 2)
    else:
        half = r.vec3(t["half_extents"], f"{key}.half_extents", positive=True)
    return Box(
        center=r.vec3(t["center"], f"{key}.center"),
        half_extents=half,
        yaw_deg=_opt(t, "yaw_deg", r.number, key, 0.0),
        name=_opt(t, "name", r.string, key, ""),
        color=_opt(t, "color", r.color, key, Box.color),
    )


def _ramp(r: _Reader, t: Mapping[str, Any], key: str) -> Ramp:
    _check_keys(r, t, key, {"start", "end", "width", "thickness", "name", "color"}, {"start", "end", "width"})
    start, end = r.vec3(t["start"], f"{key}.start"), r.vec3(t["end"], f"{key}.end")
    if math.hypot(end[0] - start[0], end[1] - start[1]) <= 1e-6:
        raise r.fail(key, "start and end must differ horizontally (a ramp cannot be vertical)")
    return Ramp(
        start=start,
        end=end,
        width=r.number(t["width"], f"{key}.width", positive=True),
        thickness=_opt(t, "thickness", lambda v, k: r.number(v, k, positive=True), key, 0.2),
        name=_opt(t, "name", r.string, key, ""),
        color=_opt(t, "color", r.color, key, Ramp.color),
    )


def _stairs(r: _Reader, t: Mapping[str, Any], key: str) -> Stairs:
    allowed = {"start", "steps", "rise", "run", "width", "direction_deg", "name", "color"}
    _check_keys(r, t, key, allowed, {"start", "steps", "rise", "run", "width"})
    return Stairs(
        start=r.vec3(t["start"], f"{key}.start"),
        steps=r.integer(t["steps"], f"{key}.steps", low=1, high=MAX_STEPS),
        rise=r.number(t["rise"], f"{key}.rise", positive=True),
        run=r.number(t["run"], f"{key}.run", positive=True),
        width=r.number(t["width"], f"{key}.width", positive=True),
        direction_deg=_opt(t, "direction_deg", r.number, key, 0.0),
        name=_opt(t, "name", r.string, key, ""),
        color=_opt(t, "color", r.color, key, Stairs.color),
    )


def _platform(r: _Reader, t: Mapping[str, Any], key: str) -> Platform:
    allowed = {"center", "size", "height", "thickness", "yaw_deg", "legs", "name", "color"}
    _check_keys(r, t, key, allowed, {"center", "size", "height"})
    return Platform(
        center=r.vec2(t["center"], f"{key}.center"),
        size=r.vec2(t["size"], f"{key}.size", positive=True),
        height=r.number(t["height"], f"{key}.height"),
        thickness=_opt(t, "thickness", lambda v, k: r.number(v, k, positive=True), key, 0.3),
        yaw_deg=_opt(t, "yaw_deg", r.number, key, 0.0),
        legs=_opt(t, "legs", r.boolean, key, False),
        name=_opt(t, "name", r.string, key, ""),
        color=_opt(t, "color", r.color, key, Platform.color),
    )


def _area(r: _Reader, t: Mapping[str, Any], key: str) -> Area:
    _check_keys(r, t, key, {"name", "footprint", "bottom", "top"}, {"name", "footprint"})
    name = r.string(t["name"], f"{key}.name")
    if not name.strip() or name == "ground":
        raise r.fail(
            f"{key}.name", f"must name an area type other than 'ground' (the unmarked floor), got {name!r}"
        )
    corners = t["footprint"]
    if not isinstance(corners, list) or len(corners) < 3:
        raise r.fail(f"{key}.footprint", f"must be a list of at least 3 [x, y] corners, got {corners!r}")
    footprint = tuple(r.vec2(c, f"{key}.footprint[{i}]") for i, c in enumerate(corners))
    if not _simple_polygon(footprint):
        raise r.fail(f"{key}.footprint", "must be a simple polygon with a non-zero area (no crossing edges)")
    bottom = _opt(t, "bottom", r.number, key, -math.inf)
    top = _opt(t, "top", r.number, key, math.inf)
    if bottom > top:
        raise r.fail(f"{key}.top", f"must not be below bottom ({bottom:g} m), got {top:g}")
    return Area(name=name, footprint=footprint, bottom=bottom, top=top)


def _simple_polygon(corners: tuple[tuple[float, float], ...]) -> bool:
    """A non-zero area and no two edges crossing or touching, except neighbours at their shared corner."""
    n = len(corners)
    twice_area = sum(
        corners[i][0] * corners[(i + 1) % n][1] - corners[(i + 1) % n][0] * corners[i][1] for i in range(n)
    )
    if twice_area == 0.0:
        return False

    def side(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    def on(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]) -> bool:
        return min(a[0], b[0]) <= c[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= c[1] <= max(a[1], b[1])

    for i in range(n):
        a, b = corners[i], corners[(i + 1) % n]
        if a == b:
            return False
        for j in range(i + 1, n):
            if j == i + 1 or (i == 0 and j == n - 1):
                continue  # neighbours share a corner
            c, d = corners[j], corners[(j + 1) % n]
            d1, d2, d3, d4 = side(c, d, a), side(c, d, b), side(a, b, c), side(a, b, d)
            if d1 * d2 < 0 and d3 * d4 < 0:
                return False
            if (d1 == 0 and on(c, d, a)) or (d2 == 0 and on(c, d, b)) or (d3 == 0 and on(a, b, c)):
                return False
            if d4 == 0 and on(a, b, d):
                return False
    return True


def _link(r: _Reader, t: Mapping[str, Any], key: str) -> Link:
    allowed = {"start", "end", "bidirectional", "width", "cost", "kind", "name"}
    _check_keys(r, t, key, allowed, {"start", "end"})
    start, end = r.vec3(t["start"], f"{key}.start"), r.vec3(t["end"], f"{key}.end")
    if start == end:
        raise r.fail(f"{key}.end", "must differ from start")
    kind = _opt(t, "kind", r.string, key, "jump")
    if kind not in LINK_KINDS:
        raise r.fail(f"{key}.kind", f"must be one of {', '.join(LINK_KINDS)}, got {kind!r}")
    return Link(
        start=start,
        end=end,
        bidirectional=_opt(t, "bidirectional", r.boolean, key, False),
        width=_opt(t, "width", lambda v, k: r.number(v, k, low=0.0), key, 0.0),
        cost=_opt(t, "cost", lambda v, k: r.number(v, k, low=0.0), key, None),
        kind=kind,
        name=_opt(t, "name", r.string, key, ""),
    )


def _link_search(r: _Reader, t: Mapping[str, Any], key: str) -> LinkSearchSpec:
    lengths = ("max_gap", "max_jump_rise", "max_drop", "spacing", "min_gain", "separation")
    _check_keys(r, t, key, {"find", *lengths}, set())

    def length(name: str) -> float | None:
        if name not in t:
            return None
        if name in ("max_gap", "spacing"):  # the others may be 0
            return r.number(t[name], f"{key}.{name}", positive=True)
        return r.number(t[name], f"{key}.{name}", low=0.0)

    return LinkSearchSpec(find=_opt(t, "find", r.boolean, key, False), **{n: length(n) for n in lengths})


def _agent_size(r: _Reader, t: Mapping[str, Any], key: str) -> AgentSizeSpec:
    _check_keys(r, t, key, {"name", "agent_radius", "agent_height"}, {"name"})
    name = r.string(t["name"], f"{key}.name")
    if not name.strip() or name == "default":
        raise r.fail(
            f"{key}.name", f"must name the size, and not 'default' (the [navmesh] size), got {name!r}"
        )
    return AgentSizeSpec(
        name=name,
        agent_radius=_opt(t, "agent_radius", lambda v, k: r.number(v, k, low=0.0), key, None),
        agent_height=_opt(t, "agent_height", lambda v, k: r.number(v, k, positive=True), key, None),
    )


def _agent_sizes(r: _Reader, doc: Mapping[str, Any]) -> tuple[AgentSizeSpec, ...]:
    sizes = _array(r, doc, "agent_size", _agent_size)
    seen: dict[str, int] = {}
    for i, size in enumerate(sizes):
        if size.name in seen:
            raise r.fail(
                f"agent_size[{i}].name", f"{size.name!r} is already agent_size[{seen[size.name]}]'s name"
            )
        seen[size.name] = i
    return sizes


def _asset(r: _Reader, t: Mapping[str, Any], key: str, kind: str) -> Asset:
    _check_keys(r, t, key, {"path", "position", "orientation_deg", "scale", "name"}, {"path"})
    path = r.asset_path(t["path"], f"{key}.path")
    suffixes = {"mesh": (".obj", ".stl"), "urdf": (".urdf",), "sdf": (".sdf",)}[kind]
    if path.suffix.lower() not in suffixes:
        raise r.fail(f"{key}.path", f"a {kind} must be a {' or '.join(suffixes)} file, got {path.name!r}")
    return Asset(
        kind=kind,
        path=path,
        position=_opt(t, "position", lambda v, k: r.vector(v, k, 3), key, (0.0, 0.0, 0.0)),
        orientation_deg=_opt(t, "orientation_deg", lambda v, k: r.vector(v, k, 3), key, (0.0, 0.0, 0.0)),
        scale=_opt(t, "scale", lambda v, k: r.number(v, k, positive=True), key, 1.0),
        name=_opt(t, "name", r.string, key, ""),
    )


def _npc(r: _Reader, t: Mapping[str, Any], key: str) -> NpcSpawn:
    _check_keys(r, t, key, {"position", "yaw_deg", "name", "archetype", "patrol"}, {"position"})
    return NpcSpawn(
        position=r.vec3(t["position"], f"{key}.position"),
        yaw_deg=_opt(t, "yaw_deg", r.number, key, 0.0),
        name=_opt(t, "name", r.string, key, ""),
        archetype=_opt(t, "archetype", r.string, key, "default"),
        patrol=_opt(t, "patrol", r.points, key, ()),
    )


def _player(r: _Reader, t: Mapping[str, Any], key: str) -> PlayerSpawn:
    _check_keys(r, t, key, {"position", "yaw_deg", "route", "loop"}, {"position"})
    return PlayerSpawn(
        position=r.vec3(t["position"], f"{key}.position"),
        yaw_deg=_opt(t, "yaw_deg", r.number, key, 0.0),
        route=_opt(t, "route", r.points, key, ()),
        loop=_opt(t, "loop", r.boolean, key, True),
    )


def _navmesh(r: _Reader, t: Mapping[str, Any], key: str) -> NavmeshSpec:
    names = {"agent_radius", "agent_height", "max_climb", "max_slope_deg", "cell_size", "cell_height"}
    _check_keys(r, t, key, names | {"method"}, set())
    method = _opt(t, "method", lambda v, k: r.string(v, k), key, None)
    if method is not None and method not in NAVMESH_METHODS:
        known = ", ".join(map(repr, NAVMESH_METHODS))
        raise r.fail(f"{key}.method", f"must be one of {known}, got {method!r}")
    # a key the table does not set stays None: navigation.BakeSettings' default applies
    slope = _opt(t, "max_slope_deg", lambda v, k: r.number(v, k, low=0.0), key, None)
    if slope is not None and slope >= 90.0:
        raise r.fail(f"{key}.max_slope_deg", f"must be below 90 degrees, got {slope}")
    return NavmeshSpec(
        agent_radius=_opt(t, "agent_radius", lambda v, k: r.number(v, k, low=0.0), key, None),
        agent_height=_opt(t, "agent_height", lambda v, k: r.number(v, k, positive=True), key, None),
        max_climb=_opt(t, "max_climb", lambda v, k: r.number(v, k, low=0.0), key, None),
        max_slope_deg=slope,
        cell_size=_opt(t, "cell_size", lambda v, k: r.number(v, k, positive=True), key, None),
        cell_height=_opt(t, "cell_height", lambda v, k: r.number(v, k, positive=True), key, None),
        method=method,
    )


def _array(
    r: _Reader, doc: Mapping[str, Any], name: str, parse: Callable[..., Any], *extra: Any
) -> tuple[Any, ...]:
    if name not in doc:
        return ()
    items = doc[name]
    if not isinstance(items, list):
        raise r.fail(name, f"must be an array of tables ([[{name}]]), got {type(items).__name__}")
    return tuple(
        parse(r, r.table(item, f"{name}[{i}]"), f"{name}[{i}]", *extra) for i, item in enumerate(items)
    )


_TOP_KEYS = {
    "scene",
    "floor",
    "box",
    "ramp",
    "stairs",
    "platform",
    "mesh",
    "urdf",
    "sdf",
    "npc",
    "player",
    "navmesh",
    "archetype",
    "area",
    "agent_size",
    "link",
    "links",
}
MAX_AREA_TYPES = 63  # the navmesh's area ids 1..63
NAVMESH_METHODS = ("rays", "footprints")  # [navmesh] method: how npc_ai.levels bakes the scene's mesh


def _archetypes(r: _Reader, doc: Mapping[str, Any]) -> tuple[ArchetypeTable, ...]:
    """`[archetype.NAME]` tables as (name, ((key, scalar), ...)) pairs; the keys are the behaviour's."""
    if "archetype" not in doc:
        return ()
    table = r.table(doc["archetype"], "archetype")
    out: list[ArchetypeTable] = []
    for name, items in table.items():
        key = f"archetype.{name}"
        settings = r.table(items, key)
        values: list[tuple[str, Scalar]] = []
        for k, v in settings.items():
            if isinstance(v, float) and not math.isfinite(v):
                raise r.fail(f"{key}.{k}", f"must be a finite number, got {v!r}")
            if not isinstance(v, bool | int | float | str):
                raise r.fail(
                    f"{key}.{k}", f"must be a number, true/false or a string, got {type(v).__name__}"
                )
            values.append((str(k), v))
        out.append((str(name), tuple(values)))
    return tuple(out)


def scene_from_dict(doc: Mapping[str, Any], *, source: str = "", base_dir: Path | None = None) -> Scene:
    """Validate a parsed scene document (the TOML tables as a dict) and build a `Scene`."""
    r = _Reader(source, base_dir)
    _check_keys(r, doc, "", _TOP_KEYS, {"scene"})
    head = r.table(doc["scene"], "scene")
    _check_keys(r, head, "scene", {"name", "description", "gravity"}, {"name"})
    name = r.string(head["name"], "scene.name")
    if not name.strip():
        raise r.fail("scene.name", "must not be empty")
    archetypes = _archetypes(r, doc)
    known = {name for name, _ in archetypes} | {"default"}
    npcs = _array(r, doc, "npc", _npc)
    named: dict[str, int] = {}
    for i, npc in enumerate(npcs):
        if npc.name and npc.name in named:
            raise r.fail(
                f"npc[{i}].name",
                f"{npc.name!r} is already npc[{named[npc.name]}]'s name; names must be unique",
            )
        named.setdefault(npc.name, i)
        if npc.archetype not in known:
            raise r.fail(
                f"npc[{i}].archetype", f"no [archetype.{npc.archetype}] table; define it or use 'default'"
            )
    assets = (
        _array(r, doc, "mesh", _asset, "mesh")
        + _array(r, doc, "urdf", _asset, "urdf")
        + _array(r, doc, "sdf", _asset, "sdf")
    )
    return Scene(
        name=name,
        description=_opt(head, "description", r.string, "scene", ""),
        gravity=_opt(head, "gravity", _gravity(r), "scene", -9.81),
        floor=_floor(r, r.table(doc["floor"], "floor"), "floor") if "floor" in doc else None,
        boxes=_array(r, doc, "box", _box),
        ramps=_array(r, doc, "ramp", _ramp),
        stairs=_array(r, doc, "stairs", _stairs),
        platforms=_array(r, doc, "platform", _platform),
        assets=assets,
        npcs=npcs,
        player=_player(r, r.table(doc["player"], "player"), "player") if "player" in doc else None,
        navmesh=_navmesh(r, r.table(doc["navmesh"], "navmesh"), "navmesh")
        if "navmesh" in doc
        else NavmeshSpec(),
        areas=_areas(r, doc),
        agent_sizes=_agent_sizes(r, doc),
        links=_array(r, doc, "link", _link),
        link_search=_link_search(r, r.table(doc["links"], "links"), "links")
        if "links" in doc
        else LinkSearchSpec(),
        archetypes=archetypes,
        source=source,
    )


def _areas(r: _Reader, doc: Mapping[str, Any]) -> tuple[Area, ...]:
    areas = _array(r, doc, "area", _area)
    names = {a.name for a in areas}
    if len(names) > MAX_AREA_TYPES:
        raise r.fail("area", f"at most {MAX_AREA_TYPES} area types (names), got {len(names)}")
    return areas


def _gravity(r: _Reader) -> Callable[[Any, str], float]:
    def read(value: Any, key: str) -> float:
        g = r.number(value, key)
        lo, hi = GRAVITY_RANGE
        if not lo <= g <= hi:
            raise r.fail(
                key, f"must lie in [{lo:g}, {hi:g}] m/s^2 (negative is down; Earth is -9.81), got {g:g}"
            )
        return g

    return read


def parse_scene(text: str, *, source: str = "<string>", base_dir: Path | None = None) -> Scene:
    """Parse scene TOML text; relative asset paths resolve against `base_dir`."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SceneError(source, "", f"malformed TOML: {exc}") from None
    scene = scene_from_dict(doc, source=source, base_dir=base_dir)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return _with(scene, content_hash=digest)


def _with(scene: Scene, **changes: Any) -> Scene:
    from dataclasses import replace

    return replace(scene, **changes)


def load_scene_file(path: str | Path) -> Scene:
    """Load a scene from a `.toml` scene file.

    MovingAI `.map` grids are not scene files: `npc_ai.load_level` reads them (it joins the map reader of
    `navigation` with `scenes`, which know nothing of each other).
    """
    p = Path(path)
    if p.suffix.lower() == ".map":
        raise SceneError(str(p), "", "a MovingAI map, not a scene file: load it with npc_ai.load_level()")
    if not p.is_file():
        raise SceneError(str(p), "", "no such scene file")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SceneError(str(p), "", f"cannot read the file: {exc}") from None
    return parse_scene(text, source=str(p), base_dir=p.resolve().parent)


def builtin_scene_text(name: str) -> str:
    """The TOML text of a built-in scene."""
    if name not in BUILTIN_SCENES:
        raise SceneError(name, "", f"unknown built-in scene; choose one of {', '.join(BUILTIN_SCENES)}")
    return resources.files("scenes.builtin").joinpath(f"{name}.toml").read_text(encoding="utf-8")


def load_builtin(name: str) -> Scene:
    """Load a built-in scene by name (see `BUILTIN_SCENES`)."""
    return parse_scene(builtin_scene_text(name), source=f"builtin:{name}", base_dir=None)


def load_scene(name_or_path: str | Path) -> Scene:
    """Load a built-in scene by name, or a scene file (.toml) by path."""
    text = str(name_or_path)
    if text in BUILTIN_SCENES:
        return load_builtin(text)
    p = Path(text)
    if p.suffix.lower() in (".toml", ".map") or p.exists():
        return load_scene_file(p)
    raise SceneError(
        text, "", f"not a built-in scene ({', '.join(BUILTIN_SCENES)}) nor an existing .toml file"
    )
