"""NavMeshQuery: statuses, bad input, snapping, raycast, random points, walls, islands."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from shapely.geometry import LineString, Point, Polygon

from navigation.errors import NavMeshError
from navigation.grid_bake import bake_grid, bake_polygons, grid_free_geometry
from navigation.movingai import GridMap, parse_map
from navigation.query import NavMeshQuery, PathStatus

# two rooms joined by a door in column 4; an island room on the right (columns 8-9)
ROOMS = parse_map(
    "type octile\nheight 5\nwidth 10\nmap\n....@...@.\n....@...@.\n........@.\n....@...@.\n....@...@.\n"
)


@pytest.fixture(scope="module")
def rooms() -> NavMeshQuery:
    return NavMeshQuery(bake_grid(ROOMS))


def test_complete_path_goes_through_the_door(rooms: NavMeshQuery) -> None:
    res = rooms.find_path((0.5, 0.5), (7.5, 0.5))
    assert res.status is PathStatus.COMPLETE and res.exact
    np.testing.assert_allclose(res.points[[0, -1], :2], [[0.5, 0.5], [7.5, 0.5]])
    assert res.points.shape[1] == 3
    assert any(np.allclose(p[:2], (4.0, 2.0)) for p in res.points)  # bends at the door's corner
    assert res.length == pytest.approx(math.hypot(3.5, 1.5) + 1.0 + math.hypot(2.5, 1.5))  # along the jamb
    assert res.corridor[0] == rooms.polygon_at((0.5, 0.5)) and res.corridor[-1] == rooms.polygon_at(
        (7.5, 0.5)
    )


def test_unreachable_goal_gives_partial_path_to_nearest_reachable_point(rooms: NavMeshQuery) -> None:
    res = rooms.find_path((0.5, 2.5), (9.5, 2.5))
    assert res.status is PathStatus.PARTIAL
    np.testing.assert_allclose(res.points[-1, :2], (8.0, 2.5))  # the wall facing the island
    assert res.length == pytest.approx(7.5)
    off_mesh = rooms.find_path((0.5, 2.5), (8.5, 4.5))  # goal inside a blocked cell
    assert off_mesh.status is PathStatus.PARTIAL
    np.testing.assert_allclose(off_mesh.points[-1, :2], (8.0, 4.5))


@pytest.mark.parametrize("start", [(4.5, 0.5), (-3.0, 1.0), (100.0, 100.0)])
def test_start_off_mesh_is_invalid(rooms: NavMeshQuery, start: tuple[float, float]) -> None:
    res = rooms.find_path(start, (0.5, 0.5))
    assert res.status is PathStatus.INVALID and res.corridor == () and res.length == 0.0


@pytest.mark.parametrize(
    "point, message",
    [
        ((float("nan"), 1.0), "finite"),
        ((1.0, 2.0, 3.0, 4.0), "shape"),
        ([[1.0, 2.0]], "shape"),
        ((1.0, float("inf")), "finite"),
    ],
)
def test_bad_points_raise(rooms: NavMeshQuery, point: tuple, message: str) -> None:
    with pytest.raises(NavMeshError, match=message):
        rooms.find_path(point, (0.5, 0.5))
    with pytest.raises(NavMeshError, match=message):
        rooms.nearest_point(point)


def test_budget_falls_back_to_a_corridor_path(rooms: NavMeshQuery) -> None:
    res = rooms.find_path((0.5, 0.5), (7.5, 4.5), max_nodes=1)
    assert res.status is PathStatus.COMPLETE and not res.exact
    exact = rooms.find_path((0.5, 0.5), (7.5, 4.5))
    assert res.length >= exact.length - 1e-9


def test_nearest_point(rooms: NavMeshQuery) -> None:
    inside = rooms.nearest_point((1.2, 1.3))
    assert inside.found and inside.distance == 0 and rooms.polygon_at(inside.point) == inside.polygon
    snapped = rooms.nearest_point((4.5, 0.5))  # in the wall cell
    assert snapped.found and snapped.distance == pytest.approx(0.5)
    far = rooms.nearest_point((50.0, 50.0), max_distance=2.0)
    assert not far.found and far.polygon == -1


def test_raycast(rooms: NavMeshQuery) -> None:
    clear = rooms.raycast((0.5, 2.5), (7.5, 2.5))
    assert clear.valid and clear.walkable and clear.fraction == 1.0
    hit = rooms.raycast((0.5, 0.5), (7.5, 0.5))
    assert hit.valid and not hit.walkable
    assert hit.fraction == pytest.approx(3.5 / 7.0)
    np.testing.assert_allclose(hit.point[:2], (4.0, 0.5))
    np.testing.assert_allclose(hit.normal, (-1.0, 0.0, 0.0))
    assert not rooms.raycast((4.5, 0.5), (0.5, 0.5)).valid


def test_distance_to_wall(rooms: NavMeshQuery) -> None:
    w = rooms.distance_to_wall((2.0, 2.5))
    assert w.distance == pytest.approx(2.0)  # outer wall x=0 and door jamb at x=4 (y=2) both ~2
    assert rooms.distance_to_wall((6.0, 2.5)).distance == pytest.approx(math.hypot(1.0, 0.5))  # jamb corner
    with pytest.raises(NavMeshError, match="not on the navmesh"):
        rooms.distance_to_wall((4.5, 0.5))


def test_random_points_are_area_weighted_and_deterministic(rooms: NavMeshQuery) -> None:
    pts, polys = rooms.random_points(np.random.default_rng(7), 4000)
    again, _ = rooms.random_points(np.random.default_rng(7), 4000)
    np.testing.assert_array_equal(pts, again)
    for p, q in zip(pts[:200], polys[:200], strict=True):
        assert Polygon(rooms.mesh.polygon_xy(int(q))).buffer(1e-9).covers(Point(p[:2]))
    island = pts[:, 0] > 8.0
    assert island.mean() == pytest.approx(5 / ROMS_AREA, abs=0.02)
    with pytest.raises(NavMeshError, match="Generator"):
        rooms.random_points(np.random.RandomState(0), 1)  # type: ignore[arg-type]


ROMS_AREA = float((~ROOMS.blocked).sum())


def test_islands(rooms: NavMeshQuery) -> None:
    isl = rooms.islands()
    assert len(isl) == 2
    assert sum(rooms.mesh.areas[list(isl[1])]) == pytest.approx(5.0)
    assert (rooms.mesh.islands[list(isl[1])] == 1).all()


def test_multi_level_lookup_uses_height() -> None:
    from navigation.navmesh import build_navmesh

    v = np.array(
        [[0, 0, 0], [4, 0, 0], [4, 4, 0], [0, 4, 0], [0, 0, 3], [4, 0, 3], [4, 4, 3], [0, 4, 3]], float
    )
    mesh = build_navmesh(v, [[0, 1, 2, 3], [4, 5, 6, 7]])
    q = NavMeshQuery(mesh, height_tolerance=0.5)
    assert (
        q.polygon_at((2, 2, 0.1)) == 0 and q.polygon_at((2, 2, 2.9)) == 1 and q.polygon_at((2, 2, 1.5)) == -1
    )
    res = q.find_path((1, 1, 3.0), (3, 3, 0.0))
    assert res.status is PathStatus.PARTIAL  # the levels are not connected
    assert res.points[-1, 2] == pytest.approx(3.0)


@settings(max_examples=30, deadline=None)
@given(
    arrays(bool, st.tuples(st.integers(2, 8), st.integers(2, 8)), elements=st.booleans()),
    st.integers(0, 2**32 - 1),
)
def test_random_grids_paths_snaps_and_points(blocked: np.ndarray, seed: int) -> None:
    if blocked.all():
        return
    grid = GridMap(blocked)
    q = NavMeshQuery(bake_grid(grid))
    free = grid_free_geometry(grid)
    cover = free.buffer(1e-7)
    rng = np.random.default_rng(seed)
    pts, polys = q.random_points(rng, 6)
    for p, poly in zip(pts, polys, strict=True):
        assert Polygon(q.mesh.polygon_xy(int(poly))).buffer(1e-9).covers(Point(p[:2]))
    for a, b in itertools.pairwise(pts):
        res = q.find_path(a, b)
        assert res.status in (PathStatus.COMPLETE, PathStatus.PARTIAL)
        assert cover.covers(LineString(res.points[:, :2]))
        if res.status is PathStatus.COMPLETE:
            assert res.length >= np.hypot(*(a[:2] - b[:2])) - 1e-9
    probe = rng.uniform(-1, max(blocked.shape) + 1, size=2)
    snap = q.nearest_point(probe)
    assert snap.found and q.polygon_at(snap.point) >= 0
    assert snap.distance == pytest.approx(shapely.distance(free, Point(probe)), abs=1e-9)


def test_polygon_mesh_queries() -> None:
    mesh = bake_polygons(
        [(0, 0), (10, 0), (10, 6), (0, 6)], [[(4, 2), (6, 2), (6, 6), (4, 6)]], agent_radius=0.5
    )
    q = NavMeshQuery(mesh)
    res = q.find_path((1, 5), (9, 5))
    assert res.ok
    assert res.length > 8.0  # goes under the obstacle
    assert (res.points[:, 1] <= 5.0 + 1e-9).all()
