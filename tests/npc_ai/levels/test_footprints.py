"""npc_ai.levels.footprints: the exact navmesh of a flat level of boxes ([navmesh] method = "footprints")."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import Point, Polygon, box

from navigation import NavMeshQuery
from npc_ai.errors import LevelError
from npc_ai.levels import bake_settings, scene_navmesh, scene_navmeshes
from npc_ai.levels.footprints import footprint_navmesh, footprints
from scenes import SceneError, World, load_scene, parse_scene

SAG = 0.4 * (1.0 - math.cos(math.radians(11.25)))  # a round join's chord sag at 0.4 m (quad_segs 4) [m]


def _scene(boxes: str, navmesh: str = 'method = "footprints"', extra: str = "") -> str:
    return (
        '[scene]\nname = "flat"\n[floor]\nsize = [20.0, 12.0]\ncenter = [1.0, -1.0]\nz = 0.25\n'
        f"[navmesh]\nagent_radius = 0.4\nagent_height = 1.8\nmax_climb = 0.4\n{navmesh}\n{boxes}{extra}"
    )


def _box(x: float, y: float, sx: float, sy: float, yaw: float = 0.0, z: float = 1.25, h: float = 2.5) -> str:
    return f"[[box]]\ncenter = [{x}, {y}, {z}]\nsize = [{sx}, {sy}, {h}]\nyaw_deg = {yaw}\n"


def _mesh_polygons(mesh) -> list[Polygon]:  # type: ignore[no-untyped-def]
    off, verts, v = mesh.poly_offsets, mesh.poly_verts, mesh.vertices
    return [Polygon(v[verts[off[p] : off[p + 1]], :2]) for p in range(mesh.polygon_count)]


def test_warehouse_doorways_are_the_physical_gap_minus_two_radii_and_edges_keep_the_radius() -> None:
    scene = load_scene("warehouse")
    mesh = footprint_navmesh(scene, bake_settings(scene.navmesh))
    q = NavMeshQuery(mesh)
    for door in (-12.0, 10.0):  # the inner wall's 2 m doorways at y = 8.25 (faces 8.0 and 8.5)
        xs = np.arange(door - 1.5, door + 1.5, 0.005)
        inside = xs[[q.polygon_at(np.array([x, 8.25, 0.0])) >= 0 for x in xs]]
        assert inside.max() - inside.min() == pytest.approx(1.2, abs=0.011)
    _, obstacles, z = footprints(scene, bake_settings(scene.navmesh))
    assert z == 0.0 and len(obstacles) == len(scene.boxes)
    walls = obstacles[0]
    for o in obstacles[1:]:
        walls = walls.union(o)
    for p in mesh.vertices[:, :2]:  # no vertex nearer a box than the radius, minus a chord's sag
        assert walls.distance(Point(p)) >= 0.4 - SAG - 1e-9
    assert mesh.meta["source"] == "footprints" and np.all(mesh.vertices[:, 2] == 0.0)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(-7.0, 9.0), st.floats(-6.0, 4.0), st.floats(0.3, 4.0), st.floats(0.3, 4.0),
            st.floats(0.0, 90.0),
        ),
        min_size=1,
        max_size=6,
    )
)  # fmt: skip
def test_the_mesh_is_the_floor_minus_the_boxes_grown_by_the_radius(boxes) -> None:  # type: ignore[no-untyped-def]
    """Cross-check against plain polygon geometry (a finer offset): the mesh keeps the radius from the
    floor's edge, and from every box up to a round join's chord sag, and its area is that of the points
    that keep the radius (plus the sag's slivers along its edge)."""
    scene = parse_scene(_scene("".join(_box(*b) for b in boxes)))
    s = bake_settings(scene.navmesh)
    floor = box(-9.0, -7.0, 11.0, 5.0)
    rects = [
        affinity.translate(affinity.rotate(box(-sx / 2, -sy / 2, sx / 2, sy / 2), yaw, origin=(0, 0)), x, y)
        for x, y, sx, sy, yaw in boxes
    ]
    solid = rects[0]
    for r in rects[1:]:
        solid = solid.union(r)
    exact = floor.buffer(-0.4).difference(solid.buffer(0.4, quad_segs=64))
    try:
        mesh = footprint_navmesh(scene, s)
    except Exception as error:  # the boxes leave no room: the navmesh error says so
        assert exact.area < 0.05 and "no walkable area" in str(error)
        return
    polygons = _mesh_polygons(mesh)
    area = sum(p.area for p in polygons)
    # the round joins' chords cut inside the arcs: the mesh is the exact region plus slivers of the sag
    assert exact.area - 1e-6 <= area <= exact.area + SAG * exact.length + 1e-6
    for p in mesh.vertices[:, :2]:
        assert floor.exterior.distance(Point(p)) >= 0.4 - 1e-9
    assert min(solid.distance(p) for p in polygons) >= 0.4 - SAG - 1e-9  # to the chords' sag
    assert np.all(mesh.vertices[:, 2] == 0.25)  # the floor's height


def test_boxes_overhead_or_sunk_are_left_out_and_each_agent_size_gets_its_erosion() -> None:
    boxes = _box(0.0, 0.0, 2.0, 2.0) + _box(5.0, 0.0, 2.0, 2.0, z=3.5, h=1.0)  # a beam 3 m up
    boxes += _box(-5.0, 0.0, 2.0, 2.0, z=-0.5, h=1.0)  # below the floor's top (0.25 m)
    extra = '[[agent_size]]\nname = "big"\nagent_radius = 0.8\n'
    scene = parse_scene(_scene(boxes, extra=extra))
    _, obstacles, _ = footprints(scene, bake_settings(scene.navmesh))
    assert len(obstacles) == 1 and obstacles[0].bounds == (-1.0, -1.0, 1.0, 1.0)
    with World(scene) as world:
        meshes = scene_navmeshes(world, use_cache=False)
        default = scene_navmesh(world, use_cache=False).mesh
    for name, radius in (("default", 0.4), ("big", 0.8)):
        q = NavMeshQuery(meshes[name])
        assert q.polygon_at(np.array([1.0 + radius + 0.01, 0.0, 0.25])) >= 0  # beside the pillar
        assert q.polygon_at(np.array([1.0 + radius - 0.01, 0.0, 0.25])) < 0
        assert q.polygon_at(np.array([5.0, 0.0, 0.25])) >= 0  # under the beam, over the sunk box
        assert q.polygon_at(np.array([-5.0, 0.0, 0.25])) >= 0
    np.testing.assert_array_equal(default.vertices, meshes["default"].vertices)


@pytest.mark.parametrize(
    "boxes, extra, message",
    [
        (_box(0.0, 0.0, 1.0, 1.0, z=0.4, h=0.3), "", "a step within max_climb"),  # top at 0.55 m
        ("", "[[ramp]]\nstart = [0, 0, 0.25]\nend = [4, 0, 1.25]\nwidth = 2\nthickness = 0.2\n", "1 ramp"),
    ],
)
def test_what_the_flat_form_cannot_hold_is_refused_with_the_way_out(boxes, extra, message) -> None:
    scene = parse_scene(_scene(boxes, extra=extra))
    with pytest.raises(LevelError, match=message) as info:
        footprints(scene, bake_settings(scene.navmesh))
    assert 'method = "rays"' in str(info.value)


def test_without_a_floor_the_footprints_bake_is_refused() -> None:
    scene = dataclasses.replace(parse_scene(_scene(_box(0.0, 0.0, 1.0, 1.0))), floor=None)
    with pytest.raises(LevelError, match=r"needs a \[floor\]"):
        footprints(scene, bake_settings(scene.navmesh))


@pytest.mark.parametrize("value", ['"exact"', "1", "true"])
def test_an_unknown_method_is_a_scene_error(value: str) -> None:
    with pytest.raises(SceneError, match=r"navmesh\.method"):
        parse_scene(_scene("", navmesh=f"method = {value}"))


def test_the_method_is_not_a_bake_setting_and_rays_is_the_default() -> None:
    rays = parse_scene(_scene(_box(0.0, 0.0, 1.0, 1.0), navmesh=""))
    assert rays.navmesh.method is None
    exact = parse_scene(_scene(_box(0.0, 0.0, 1.0, 1.0)))
    assert bake_settings(exact.navmesh) == bake_settings(rays.navmesh)  # method is read by npc_ai.levels
    with World(rays) as world:
        assert scene_navmesh(world, use_cache=False).mesh.meta["source"] == "rays"


def test_the_warehouse_doorways_on_its_exact_mesh_are_one_way_gates_at_the_default_width() -> None:
    """The exact doorways are a hair narrower than 1.2 m (the jambs' round joins), so the crowd's default
    gate width still takes them, and only them."""
    from navigation import AvoidanceSettings
    from navigation.crowd_gates import find_gates

    with World(load_scene("warehouse")) as world:
        mesh = scene_navmesh(world, use_cache=False).mesh
    assert mesh.meta["source"] == "footprints"
    gates = find_gates(mesh, AvoidanceSettings().gate_width)
    np.testing.assert_allclose(gates.centre, [(-12.0, 8.25), (10.0, 8.25)], atol=0.05)


def test_the_cache_keeps_the_two_methods_apart(tmp_path) -> None:  # type: ignore[no-untyped-def]
    exact = load_scene("warehouse")
    rays = dataclasses.replace(exact, navmesh=dataclasses.replace(exact.navmesh, method="rays"))
    assert rays.content_hash == exact.content_hash  # same file, other method
    with World(exact) as world:
        first = scene_navmesh(world, cache_dir=tmp_path)
    with World(rays) as world:
        second = scene_navmesh(world, cache_dir=tmp_path)
    assert not first.from_cache and not second.from_cache
    assert (first.mesh.meta["source"], second.mesh.meta["source"]) == ("footprints", "rays")


def test_a_flat_bake_at_no_finite_height_is_a_settings_error() -> None:
    from navigation import NavSettingsError
    from navigation.grid_bake import bake_polygons

    with pytest.raises(NavSettingsError, match="height must be a finite number"):
        bake_polygons([(0, 0), (4, 0), (4, 4), (0, 4)], [], agent_radius=0.4, height=float("nan"))
