"""Carving footprints out of a navmesh: the pieces cover exactly the free space minus the footprints, stay
joined across the edges a footprint cuts, only reach the floors in an obstacle's height range, and give
the exact shortest paths of an independent visibility graph."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from nav_helpers import VisibilityGraph, free_points
from shapely.geometry import Polygon, box

from navigation.carve import BaseIndex, assemble, carve_navmesh, carve_polygons
from navigation.grid_bake import bake_polygons
from navigation.navmesh import NavMesh, build_navmesh
from navigation.obstacles import Box, Cylinder, Footprint, footprint, pose
from navigation.query import NavMeshQuery, QueryStatus
from navigation.settings import CarveSettings

ROOM = [(0.0, 0.0), (24.0, 0.0), (24.0, 16.0), (0.0, 16.0)]
SHELVES = [box(3, 4, 10, 5), box(13, 4, 21, 5), box(3, 10, 10, 11), box(13, 10, 21, 11)]
FREE = Polygon(ROOM).difference(shapely.union_all(SHELVES))
SETTINGS = CarveSettings(agent_radius=0.4, agent_height=1.8)


@pytest.fixture(scope="module")
def base() -> NavMesh:
    return bake_polygons(ROOM, SHELVES)


def _covered(mesh: NavMesh) -> shapely.Geometry:
    return shapely.union_all([Polygon(mesh.polygon_xy(p)) for p in range(mesh.polygon_count)])


def _random_footprints(rng: np.random.Generator, n: int) -> list:
    out = []
    for _ in range(n):
        x, y = rng.uniform(1.0, 23.0), rng.uniform(1.0, 15.0)
        if rng.random() < 0.5:
            half = tuple(rng.uniform(0.2, 1.2, 3).tolist())
            out.append(footprint(Box(half), pose((x, y, half[2]), yaw=rng.uniform(0, np.pi)), SETTINGS))
        else:
            out.append(footprint(Cylinder(rng.uniform(0.2, 0.8), 1.0), pose((x, y, 0.5)), SETTINGS))
    return out


def _convex(mesh: NavMesh) -> bool:
    for p in range(mesh.polygon_count):
        xy = mesh.polygon_xy(p)
        a, b, c = xy, np.roll(xy, -1, axis=0), np.roll(xy, -2, axis=0)
        turn = (b[:, 0] - a[:, 0]) * (c[:, 1] - b[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - b[:, 0])
        if (turn < -1e-9).any():
            return False
    return True


@pytest.mark.parametrize("seed", range(4))
def test_the_pieces_cover_the_free_space_minus_the_footprints(base: NavMesh, seed: int) -> None:
    fps = _random_footprints(np.random.default_rng(seed), 4)
    mesh = carve_navmesh(base, fps, SETTINGS)
    want = FREE.difference(shapely.union_all([f.polygon for f in fps]))
    got = _covered(mesh)
    assert shapely.symmetric_difference(got, want).area < 1e-9
    assert mesh.areas.sum() == pytest.approx(want.area, abs=1e-9)  # and no two pieces overlap
    assert _convex(mesh) and mesh.meta == base.meta


@pytest.mark.parametrize("seed", range(4))
def test_paths_are_the_visibility_graph_lengths(base: NavMesh, seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    fps = _random_footprints(rng, 3)
    mesh = carve_navmesh(base, fps, SETTINGS)
    free = FREE.difference(shapely.union_all([f.polygon for f in fps]))
    graph = VisibilityGraph(free)
    q = NavMeshQuery(mesh)
    pts, _ = q.random_points(rng, 16)
    for s, g in zip(pts[:8, :2], pts[8:, :2], strict=True):
        path = q.find_path(tuple(s), tuple(g))
        exact = graph.length(tuple(s), tuple(g))
        if np.isfinite(exact):
            assert path.status is QueryStatus.SUCCESS
            assert path.length == pytest.approx(exact, abs=1e-4)
        else:  # the footprints cut the two points apart: the mesh says so too
            assert path.status is QueryStatus.PARTIAL


def test_a_footprint_across_a_portal_keeps_the_pieces_joined(base: NavMesh) -> None:
    a, ea, b, _ = (int(v) for v in base.portals[0])
    end0, end1 = base.portal_segment(a, ea)[:, :2]
    mid = 0.5 * (end0 + end1)
    fp = footprint(Cylinder(0.1, 1.0), pose((*mid, 0.5)), CarveSettings(agent_radius=0.0))
    index = BaseIndex(base)
    assert {a, b} <= set(index.touched(fp, 1.8).tolist())
    mesh = carve_navmesh(base, [fp], SETTINGS, index)
    assert len(set(mesh.islands.tolist())) == 1  # the cut edge is still a portal on both sides of it
    graph = VisibilityGraph(FREE.difference(fp.polygon))
    q = NavMeshQuery(mesh)
    ca, cb = Polygon(base.polygon_xy(a)).centroid, Polygon(base.polygon_xy(b)).centroid
    path = q.find_path((ca.x, ca.y), (cb.x, cb.y))
    assert path.ok and path.length == pytest.approx(graph.length((ca.x, ca.y), (cb.x, cb.y)), abs=1e-4)


def test_polygons_no_footprint_reaches_are_kept_and_a_covered_one_goes(base: NavMesh) -> None:
    index = BaseIndex(base)
    whole = Polygon(base.polygon_xy(0)).buffer(0.5)
    pieces = carve_polygons(index, {0: [whole]}, 6)
    assert pieces[0].sizes.size == 0 and pieces[0].corners.size == 0
    mesh, origin, rank = assemble(index, pieces)
    assert 0 not in origin.tolist() and mesh.polygon_count == base.polygon_count - 1
    for k, p in enumerate(origin.tolist()):
        assert rank[k] == 0 and np.array_equal(mesh.polygon_xy(k), base.polygon_xy(p))


def test_an_obstacle_carves_only_the_floors_in_its_height_range() -> None:
    # a floor at z = 0 and a bridge at z = 3 over it (two islands, the same square seen from above)
    v = [(0, 0, 0), (4, 0, 0), (4, 4, 0), (0, 4, 0), (0, 0, 3), (4, 0, 3), (4, 4, 3), (0, 4, 3)]
    mesh = build_navmesh(np.array(v, float), [[0, 1, 2, 3], [4, 5, 6, 7]], planes=[(0, 0, 0), (0, 0, 3)])
    s = CarveSettings(agent_radius=0.2, agent_height=1.8)
    crate = Box((0.5, 0.5, 0.5))
    on_floor = carve_navmesh(mesh, [footprint(crate, pose((2.0, 2.0, 0.5)), s)], s)
    on_bridge = carve_navmesh(mesh, [footprint(crate, pose((2.0, 2.0, 3.5)), s)], s)
    hole = (1.0 + 2 * 0.2) ** 2
    floor_area = [on_floor.areas[on_floor.planes[:, 2] == z].sum() for z in (0.0, 3.0)]
    bridge_area = [on_bridge.areas[on_bridge.planes[:, 2] == z].sum() for z in (0.0, 3.0)]
    assert floor_area[0] == pytest.approx(16.0 - hole, rel=0.01) and floor_area[1] == 16.0
    assert bridge_area[0] == 16.0 and bridge_area[1] == pytest.approx(16.0 - hole, rel=0.01)
    low = carve_navmesh(mesh, [footprint(crate, pose((2.0, 2.0, 2.0)), s)], s)  # 1.5-2.5 m: head height
    assert low.areas[low.planes[:, 2] == 0.0].sum() == pytest.approx(16.0 - hole, rel=0.01)
    above = carve_navmesh(mesh, [footprint(crate, pose((2.0, 2.0, 2.5)), s)], s)  # 2-3 m: agents pass under
    assert above.areas[above.planes[:, 2] == 0.0].sum() == 16.0
    high = carve_navmesh(mesh, [footprint(crate, pose((2.0, 2.0, 6.0)), s)], s)  # 2.5 m over the bridge
    assert high.total_area == 32.0


def test_new_points_on_a_slope_take_the_height_along_its_edge() -> None:
    v = [(0, 0, 0), (4, 0, 0), (4, 4, 2), (0, 4, 2), (8, 0, 0), (8, 4, 2)]
    planes = [(0, 0.5, 0), (0, 0.5, 0)]
    mesh = build_navmesh(np.array(v, float), [[0, 1, 2, 3], [1, 4, 5, 2]], planes=planes)
    s = CarveSettings(agent_radius=0.0)
    carved = carve_navmesh(mesh, [footprint(Cylinder(0.5, 4.0), pose((4.0, 2.0, 1.0)), s)], s)
    new = carved.vertices[len(v) :]
    assert len(new) > 0 and np.allclose(new[:, 2], 0.5 * new[:, 1])
    assert len(set(carved.islands.tolist())) == 1


def test_a_footprint_flush_with_a_wall_keeps_the_portals_beside_it(base: NavMesh) -> None:
    # the footprint's top edge runs along the shelf's (y = 4) and ends in the corridor beside it: the
    # polygon above is not carved, so its edge must still take the new corner or the portal is lost
    fp = Footprint(box(5, 1, 11, 4), -1.0, 3.0)
    mesh = carve_navmesh(base, [fp], SETTINGS)
    free = FREE.difference(fp.polygon)
    graph, query = VisibilityGraph(free), NavMeshQuery(mesh)
    rng = np.random.default_rng(1)
    pts = free_points(rng, 60, free)
    for a, b in zip(pts[::2], pts[1::2], strict=True):
        path = query.find_path(a, b)
        assert path.status is QueryStatus.SUCCESS
        assert path.length == pytest.approx(graph.length(a[:2], b[:2]), abs=1e-4)
