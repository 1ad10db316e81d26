"""The glue between scenes and navigation: a world is a ray source, and a scene's navmesh is cached."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import shapely
from shapely.geometry import Polygon, box

from navigation import RayHitsLike, RaySource, SolidProbe
from npc_ai.levels import SceneNavmesh, bake_settings, scene_navmesh
from npc_ai.levels.navmesh import StaticLevel
from scenes import RayHits, World, load_scene


def test_the_world_satisfies_navigations_protocols_without_importing_it() -> None:
    with World(load_scene("arena")) as world:
        level = StaticLevel(world)
        assert isinstance(level, RaySource) and isinstance(level, SolidProbe)
        capsule = world.add_capsule((5.0, 5.0, 0.0))  # not static: the bake must not see it
        starts, ends = np.array([[5.0, 5.0, 5.0]]), np.array([[5.0, 5.0, -1.0]])
        hits = level.ray_test(starts, ends)
        assert isinstance(hits, RayHits) and isinstance(hits, RayHitsLike)
        assert world.ray_test(starts, ends).body[0] == capsule
        assert hits.body[0] in world.static_bodies and abs(hits.point[0, 2]) < 1e-9


def test_scene_navmesh_says_where_the_mesh_came_from(tmp_path: Path) -> None:
    with World(load_scene("arena")) as world:
        first = scene_navmesh(world, cache_dir=tmp_path)
        second = scene_navmesh(world, cache_dir=tmp_path)
        uncached = scene_navmesh(world, use_cache=False)
    assert isinstance(first, SceneNavmesh)
    assert (first.from_cache, second.from_cache, uncached.from_cache) == (False, True, False)
    assert second.mesh.polygon_count == first.mesh.polygon_count > 0
    np.testing.assert_array_equal(second.mesh.vertices, first.mesh.vertices)


CUBE_OBJ = "".join(
    [f"v {x} {y} {z}\n" for x, y, z in [(-2, -2, 0), (2, -2, 0), (2, 2, 0), (-2, 2, 0)]]
    + [f"v {x} {y} {z}\n" for x, y, z in [(-2, -2, 2), (2, -2, 2), (2, 2, 2), (-2, 2, 2)]]
    + [
        f"f {a} {b} {c}\n"
        for a, b, c in [(1, 3, 2), (1, 4, 3), (5, 6, 7), (5, 7, 8), (1, 2, 6), (1, 6, 5)]
        + [(2, 3, 7), (2, 7, 6), (3, 4, 8), (3, 8, 7), (4, 1, 5), (4, 5, 8)]
    ]
)


def test_the_inside_of_a_closed_mesh_solid_is_not_walkable(tmp_path: Path) -> None:
    from navigation import NavMeshQuery
    from npc_ai.levels import load_level

    (tmp_path / "cube.obj").write_text(CUBE_OBJ)  # a closed 4 x 4 x 2 m block on the floor
    (tmp_path / "s.toml").write_text(
        '[scene]\nname = "cube"\n[floor]\nsize = [20, 20]\n[[mesh]]\npath = "cube.obj"\n'
        "[navmesh]\nagent_radius = 0.3\nagent_height = 1.5\ncell_size = 0.2\n"
    )
    with World(load_level(tmp_path / "s.toml")) as world:
        inside = world.inside_trimeshes(np.array([[0, 0, 1], [1.9, -1.9, 0.1], [3, 3, 1], [0, 0, 2.5]]))
        np.testing.assert_array_equal(inside, [True, True, False, False])
        mesh = scene_navmesh(world, use_cache=False).mesh
    q = NavMeshQuery(mesh)
    for x, y in [(0.0, 0.0), (1.5, -1.5), (-1.0, 1.2)]:
        assert q.polygon_at((x, y, 0.0), height_tolerance=0.3) < 0  # the floor under the block
        assert q.polygon_at((x, y, 2.0), height_tolerance=0.3) >= 0  # its top is walkable
    assert q.polygon_at((6.0, 6.0, 0.0), height_tolerance=0.3) >= 0


ERODED = [
    (
        '[scene]\nname = "small"\n[floor]\nsize = [0.6, 0.6]\n[navmesh]\ncell_size = 0.1\n',
        0.5,
        "0.25 m",
        "0.15 m",
    ),
    (
        '[scene]\nname = "wide"\n[floor]\nsize = [20, 20]\n[navmesh]\nagent_radius = 50\n',
        50.0,
        "9.87 m",
        "9.62 m",
    ),
]


@pytest.mark.parametrize(
    ("text", "radius", "clearance", "advice"), ERODED, ids=["0.6 m floor", "agent_radius 50"]
)
def test_a_navmesh_eroded_to_nothing_is_a_navmesh_error(
    text: str, radius: float, clearance: str, advice: str
) -> None:
    """Issue 10: a 0.6 m floor or agent_radius = 50 crashed in the ray bake with `ValueError: zip()
    argument 2 is longer than argument 1`. Nothing walkable is bad input (the scene or its [navmesh]
    table), so the error is typed and says why and what to change. The advice is a cell less than the
    clearance: a kept cell must be wholly the radius clear of the wall (`navigation.ray_bake._erode`)."""
    from navigation import NavMeshError
    from scenes import parse_scene

    with World(parse_scene(text)) as world:
        with pytest.raises(NavMeshError) as err:
            scene_navmesh(world, use_cache=False)
        message = str(err.value)
        assert f"agent_radius {radius:g} m erodes away every walkable region" in message
        assert f"no point of it is more than {clearance} from an edge or a wall" in message
        assert f"lower agent_radius to {advice} or less" in message
        advised = dataclasses.replace(bake_settings(world.scene.navmesh), agent_radius=float(advice[:-2]))
        assert scene_navmesh(world, settings=advised, use_cache=False).mesh.polygon_count > 0  # advice works


def test_an_npc_ai_cache_that_is_a_file_bakes_and_warns_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 10: NPC_AI_CACHE naming a file raised FileExistsError from the cache's mkdir."""
    import warnings

    from navigation import CacheWarning

    (tmp_path / "notes.txt").write_text("a file\n")
    monkeypatch.setenv("NPC_AI_CACHE", str(tmp_path / "notes.txt"))
    with World(load_scene("arena")) as world, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first, second = scene_navmesh(world), scene_navmesh(world)
        true = scene_navmesh(world, use_cache=False)
    assert (first.from_cache, second.from_cache) == (False, False)
    assert first.mesh.polygon_count == second.mesh.polygon_count == true.mesh.polygon_count > 0
    assert [w.category for w in caught] == [CacheWarning]
    assert str(tmp_path / "notes.txt") in str(caught[0].message)


STRIP_SCENE = """
[scene]
name = "strip"

[floor]
size = [20.0, 10.0]

[[area]]
name = "water"
footprint = [[-2.0, -6.0], [2.0, -6.0], [2.0, 3.0], [-2.0, 3.0]]

[[area]]
name = "danger"
footprint = [[6.0, 2.0], [8.0, 2.0], [8.0, 4.0]]

[navmesh]
agent_radius = 0.3
cell_size = 0.1
"""


def test_scene_areas_are_marked_on_the_baked_mesh_and_filters_read_their_names(tmp_path: Path) -> None:
    from navigation import NavMeshQuery, QueryFilter
    from scenes import parse_scene

    path = tmp_path / "strip.toml"
    path.write_text(STRIP_SCENE)
    with World(load_scene(path)) as world:
        mesh, cached = scene_navmesh(world, cache_dir=tmp_path / "cache")
        again, from_cache = scene_navmesh(world, cache_dir=tmp_path / "cache")
    assert not cached and from_cache and (again.area_ids == mesh.area_ids).all()
    assert mesh.meta["areas"] == {"water": 1, "danger": 2}
    wet = sum(mesh.areas[p] for p in np.flatnonzero(mesh.area_ids == 1))
    floor = shapely.union_all([Polygon(mesh.polygon_xy(p)) for p in range(mesh.polygon_count)])
    assert wet == pytest.approx(floor.intersection(box(-2.0, -6.0, 2.0, 3.0)).area, rel=1e-9)
    q = NavMeshQuery(mesh)
    a, b = (-6.0, -2.0, 0.0), (6.0, -2.0, 0.0)
    assert q.find_path(a, b, filter=QueryFilter(costs={"water": 1.5})).cost == pytest.approx(14.0, rel=1e-5)
    around = q.find_path(a, b, filter=QueryFilter(exclude=frozenset({"water"})))
    assert around.ok and around.length > 16.0
    assert parse_scene(STRIP_SCENE).areas[1].name == "danger"


DOORS_SCENE = """
[scene]
name = "doors"

[floor]
size = [20.0, 12.0]

[[box]]
center = [0.0, -2.5, 1.5]
size = [0.4, 7.0, 3.0]

[[box]]
center = [0.0, 4.5, 1.5]
size = [0.4, 1.0, 3.0]

[navmesh]
agent_radius = 0.3
cell_size = 0.1

[[agent_size]]
name = "large"
agent_radius = 0.7
"""
NARROW_DOOR = box(-0.2, 5.0, 0.2, 6.0)  # 1 m wide: a 0.6 m agent fits, a 1.4 m one does not


class _Counting:
    """A ray source that counts the rays cast through it."""

    def __init__(self, source: StaticLevel) -> None:
        self.source, self.rays = source, 0

    def ray_test(self, starts: np.ndarray, ends: np.ndarray) -> RayHits:
        self.rays += len(starts)
        return self.source.ray_test(starts, ends)

    def static_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return self.source.static_bounds()

    def boxes_overlap(self, centres: np.ndarray, half: np.ndarray) -> np.ndarray:
        return self.source.boxes_overlap(centres, half)


def test_two_agent_sizes_the_large_one_never_enters_a_passage_narrower_than_it(tmp_path: Path) -> None:
    from navigation import NavAgent, NavMeshQuery
    from npc_ai.levels import scene_navmeshes

    path = tmp_path / "doors.toml"
    path.write_text(DOORS_SCENE)
    with World(load_scene(path)) as world:
        meshes = scene_navmeshes(world, cache_dir=tmp_path / "cache")
        assert list(meshes) == ["default", "large"]
        assert meshes["large"].meta["agent_size"] == {"name": "large", "radius": 0.7, "height": 2.0}
        default, _ = scene_navmesh(world, cache_dir=tmp_path / "cache")  # the "default" size's cache entry
        assert default.meta["content_hash"] == meshes["default"].meta["content_hash"]
        assert (default.vertices == meshes["default"].vertices).all()
    small_q, large_q = NavMeshQuery(meshes["default"]), NavMeshQuery(meshes["large"])
    covered = shapely.union_all(
        [Polygon(meshes["large"].polygon_xy(p)) for p in range(meshes["large"].polygon_count)]
    )
    assert covered.intersection(NARROW_DOOR).area == 0.0  # no polygon of the large mesh in the narrow door
    a, b = (-5.0, 5.0, 0.0), (5.0, 5.0, 0.0)
    small, large = small_q.find_path(a, b), large_q.find_path(a, b)
    assert small.ok and shapely.LineString(small.points[:, :2]).intersects(NARROW_DOOR)  # through the door
    assert large.ok and not shapely.LineString(large.points[:, :2]).intersects(
        NARROW_DOOR
    )  # round by the wide gap
    assert large.length > small.length + 0.5  # the detour: 10.68 m against 10.03 m
    agent = NavAgent(large_q, a)  # and a large agent walking it stays out of the door the whole way
    agent.set_destination(b)
    for _ in range(2000):
        agent.update(1 / 60)
        assert not NARROW_DOOR.contains(shapely.Point(agent.next_position[:2]))
    assert np.hypot(*(agent.next_position[:2] - np.array(b[:2]))) < 0.5


def test_sizes_of_one_height_share_the_ray_sampling(tmp_path: Path) -> None:
    from navigation import bake_from_rays
    from navigation.sizes import AgentSize, bake_sizes

    path = tmp_path / "doors.toml"
    path.write_text(DOORS_SCENE)
    with World(load_scene(path)) as world:
        base = bake_settings(world.scene.navmesh)
        one = _Counting(StaticLevel(world))
        bake_from_rays(one, base)
        two = _Counting(StaticLevel(world))
        meshes = bake_sizes(two, [AgentSize("a", 0.3, 2.0), AgentSize("b", 0.7, 2.0)], base)
        three = _Counting(StaticLevel(world))
        bake_sizes(three, [AgentSize("a", 0.3, 2.0), AgentSize("tall", 0.3, 2.5)], base)
    assert two.rays == one.rays  # two radii, one sampling
    assert three.rays > one.rays  # a second height samples again
    assert meshes["b"].total_area < meshes["a"].total_area
