"""NavMeshQuery: statuses, bad input, snapping, raycast, random points, walls, islands, the main island."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
import shapely
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from shapely.geometry import LineString, Point, Polygon

from navigation.errors import NavMeshError
from navigation.grid_bake import bake_grid, bake_polygons, grid_free_geometry
from navigation.movingai import GridMap, parse_map
from navigation.navmesh import NavMesh, build_navmesh
from navigation.query import NavMeshQuery, QueryReason, QueryStatus
from tests.navigation.nav_helpers import big_polygon_small_island

# two rooms joined by a door in column 4; an island room on the right (columns 8-9)
ROOMS = parse_map(
    "type octile\nheight 5\nwidth 10\nmap\n....@...@.\n....@...@.\n........@.\n....@...@.\n....@...@.\n"
)


@pytest.fixture(scope="module")
def rooms() -> NavMeshQuery:
    return NavMeshQuery(bake_grid(ROOMS))


def test_complete_path_goes_through_the_door(rooms: NavMeshQuery) -> None:
    res = rooms.find_path((0.5, 0.5), (7.5, 0.5))
    assert res.status is QueryStatus.SUCCESS and res.exact and res.reason is QueryReason.NONE and res.ok
    np.testing.assert_allclose(res.points[[0, -1], :2], [[0.5, 0.5], [7.5, 0.5]])
    assert res.points.shape[1] == 3
    assert any(np.allclose(p[:2], (4.0, 2.0)) for p in res.points)  # bends at the door's corner
    assert res.length == pytest.approx(math.hypot(3.5, 1.5) + 1.0 + math.hypot(2.5, 1.5))  # along the jamb
    assert res.corridor[0] == rooms.polygon_at((0.5, 0.5)) and res.corridor[-1] == rooms.polygon_at(
        (7.5, 0.5)
    )


def test_unreachable_goal_gives_partial_path_to_nearest_reachable_point(rooms: NavMeshQuery) -> None:
    res = rooms.find_path((0.5, 2.5), (9.5, 2.5))
    assert res.status is QueryStatus.PARTIAL and res.reason is QueryReason.GOAL_UNREACHABLE and not res.ok
    np.testing.assert_allclose(res.points[-1, :2], (8.0, 2.5))  # the wall facing the island
    assert res.length == pytest.approx(7.5)
    off_mesh = rooms.find_path((0.5, 2.5), (8.5, 4.5))  # goal inside a blocked cell
    assert off_mesh.status is QueryStatus.PARTIAL
    np.testing.assert_allclose(off_mesh.points[-1, :2], (8.0, 4.5))


@pytest.mark.parametrize("start", [(4.5, 0.5), (-3.0, 1.0), (100.0, 100.0)])
def test_start_off_mesh_is_invalid(rooms: NavMeshQuery, start: tuple[float, float]) -> None:
    res = rooms.find_path(start, (0.5, 0.5))
    assert res.status is QueryStatus.INVALID and res.corridor == () and res.length == 0.0
    assert res.reason is QueryReason.START_OFF_MESH


@pytest.mark.parametrize(
    "point, message",
    [
        ((float("nan"), 1.0), "finite"),
        ((1.0, 2.0, 3.0, 4.0), "2 or 3 finite numbers"),
        ([[1.0, 2.0]], "2 or 3 finite numbers"),
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
    assert res.status is QueryStatus.SUCCESS and not res.exact and res.reason is QueryReason.BUDGET_EXCEEDED
    exact = rooms.find_path((0.5, 0.5), (7.5, 4.5))
    assert exact.exact and res.length >= exact.length - 1e-9
    both = rooms.find_path((0.5, 0.5), (9.5, 2.5), max_nodes=1)  # unreachable and over budget
    assert both.status is QueryStatus.PARTIAL
    assert both.reason == QueryReason.GOAL_UNREACHABLE | QueryReason.BUDGET_EXCEEDED
    with pytest.raises(NavMeshError, match="max_nodes"):
        rooms.find_path((0.5, 0.5), (7.5, 4.5), max_nodes=0)


def test_nearest_point(rooms: NavMeshQuery) -> None:
    inside = rooms.nearest_point((1.2, 1.3))
    assert inside.found and inside.distance == 0 and rooms.polygon_at(inside.point) == inside.polygon
    snapped = rooms.nearest_point((4.5, 0.5))  # in the wall cell
    assert snapped.found and snapped.distance == pytest.approx(0.5)
    assert inside.status is QueryStatus.SUCCESS and inside.reason is QueryReason.NONE
    far = rooms.nearest_point((50.0, 50.0), max_distance=2.0)
    assert not far.found and far.polygon == -1 and far.distance == math.inf
    assert far.status is QueryStatus.INVALID and far.reason is QueryReason.OUT_OF_RANGE


@settings(max_examples=150, deadline=None)
@given(st.floats(-3.0, 13.0), st.floats(-3.0, 8.0), st.sampled_from([math.nan, 0.0, 0.3]))
@example(4.5, 0.5, 0.0).via("the wall cell of test_nearest_point")
def test_nearest_point_is_the_nearest_point_of_the_mesh(
    rooms: NavMeshQuery, x: float, y: float, z: float
) -> None:
    """Cross-checked with shapely: the distance to the union of the polygons (the flat mesh at z = 0; a
    point above it at height z is z away inside, sqrt(d^2 + z^2) outside)."""
    mesh = rooms.mesh
    union = shapely.union_all([Polygon(mesh.polygon_xy(q)) for q in range(mesh.polygon_count)])
    d = union.distance(Point(x, y))
    near = rooms.nearest_point((x, y, z))
    assert near.found
    # the query counts points within a length epsilon of an edge as inside (1.2e-9 m outside: 0)
    assert near.distance == pytest.approx(math.hypot(d, 0.0 if math.isnan(z) else z), abs=1e-6)
    assert union.buffer(1e-6).covers(Point(near.point[:2])) and near.point[2] == 0.0
    if d == 0.0:
        assert near.point[:2].tolist() == [x, y]


def test_raycast(rooms: NavMeshQuery) -> None:
    clear = rooms.raycast((0.5, 2.5), (7.5, 2.5))
    assert clear.valid and clear.walkable and clear.fraction == 1.0
    assert clear.status is QueryStatus.SUCCESS and clear.reason is QueryReason.NONE
    hit = rooms.raycast((0.5, 0.5), (7.5, 0.5))
    assert hit.valid and not hit.walkable
    assert hit.status is QueryStatus.PARTIAL and hit.reason is QueryReason.WALL_HIT
    assert hit.fraction == pytest.approx(3.5 / 7.0)
    np.testing.assert_allclose(hit.point[:2], (4.0, 0.5))
    np.testing.assert_allclose(hit.normal, (-1.0, 0.0, 0.0))
    off = rooms.raycast((4.5, 0.5), (0.5, 0.5))
    assert not off.valid and off.status is QueryStatus.INVALID and off.reason is QueryReason.START_OFF_MESH


def test_distance_to_wall(rooms: NavMeshQuery) -> None:
    w = rooms.distance_to_wall((2.0, 2.5))
    assert w.distance == pytest.approx(2.0)  # outer wall x=0 and door jamb at x=4 (y=2) both ~2
    assert w.status is QueryStatus.SUCCESS and w.reason is QueryReason.NONE
    assert rooms.distance_to_wall((6.0, 2.5)).distance == pytest.approx(math.hypot(1.0, 0.5))  # jamb corner
    off = rooms.distance_to_wall((4.5, 0.5))  # in a wall cell: an answer, not an error
    assert off.status is QueryStatus.INVALID and off.reason is QueryReason.START_OFF_MESH
    assert off.distance == math.inf and np.isnan(off.point).all()
    near = rooms.distance_to_wall((2.0, 2.5), max_distance=1.5)
    assert near.status is QueryStatus.INVALID and near.reason is QueryReason.OUT_OF_RANGE
    assert rooms.distance_to_wall((2.0, 2.5), max_distance=2.5).ok
    with pytest.raises(NavMeshError, match="max_distance"):
        rooms.distance_to_wall((2.0, 2.5), max_distance=-1.0)


def test_every_query_speaks_one_status_vocabulary(rooms: NavMeshQuery) -> None:
    results = [
        rooms.find_path((0.5, 0.5), (7.5, 0.5)),
        rooms.nearest_point((1.2, 1.3)),
        rooms.raycast((0.5, 2.5), (7.5, 2.5)),
        rooms.distance_to_wall((2.0, 2.5)),
    ]
    for res in results:
        assert type(res.status) is QueryStatus and type(res.reason) is QueryReason
        assert res.status is QueryStatus.SUCCESS and res.ok and res.reason is QueryReason.NONE
    assert {s.value for s in QueryStatus} == {"success", "partial", "invalid"}


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
    assert res.status is QueryStatus.PARTIAL  # the levels are not connected
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
        assert res.status in (QueryStatus.SUCCESS, QueryStatus.PARTIAL)
        assert cover.covers(LineString(res.points[:, :2]))
        if res.status is QueryStatus.SUCCESS:
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


# --- islands: one main island, random points on the islands asked for ----------------------------------
def test_random_points_sample_only_the_islands_asked_for(rooms: NavMeshQuery) -> None:
    rng = np.random.default_rng(3)
    assert rooms.mesh.main_island == 0
    pts, polys = rooms.random_points(rng, 2000, islands=1)
    assert (rooms.mesh.islands[polys] == 1).all() and (pts[:, 0] >= 9.0 - 1e-9).all()
    pts, polys = rooms.random_points(rng, 2000, islands=[rooms.mesh.main_island])
    assert (rooms.mesh.islands[polys] == 0).all() and (pts[:, 0] <= 8.0 + 1e-9).all()
    # area-weighted within the chosen island: the left room is 20 of the main island's 36 m^2
    assert np.mean(pts[:, 0] < 4.0) == pytest.approx(20 / 36, abs=0.03)
    every, _ = rooms.random_points(np.random.default_rng(7), 100, islands=(0, 1))
    default, _ = rooms.random_points(np.random.default_rng(7), 100)
    np.testing.assert_array_equal(every, default)  # all islands is the default
    p, poly = rooms.random_point(rng, islands=np.int64(1))
    assert rooms.mesh.islands[poly] == 1 and p[0] >= 9.0 - 1e-9


@pytest.mark.parametrize(
    "islands, message",
    [
        (2, r"labels in 0\.\.1, got 2"),
        (-1, r"labels in 0\.\.1, got -1"),
        ([0, 7], r"labels in 0\.\.1, got 7"),
        ([True], r"labels in 0\.\.1, got True"),
        ([], "empty"),
        (1.0, "integers"),
        (True, "integers"),
        ("0", "integers"),
    ],
)
def test_bad_islands_raise(rooms: NavMeshQuery, islands: object, message: str) -> None:
    with pytest.raises(NavMeshError, match=message):
        rooms.random_points(np.random.default_rng(0), 3, islands=islands)  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None)
@given(
    arrays(bool, st.tuples(st.integers(2, 7), st.integers(2, 7)), elements=st.booleans()),
    st.integers(0, 2**32 - 1),
    st.data(),
)
def test_random_points_never_leave_the_chosen_islands(
    blocked: np.ndarray, seed: int, data: st.DataObject
) -> None:
    if blocked.all():
        return
    q = NavMeshQuery(bake_grid(GridMap(blocked)))
    labels = sorted(set(q.mesh.islands.tolist()))
    chosen = data.draw(st.lists(st.sampled_from(labels), min_size=1, max_size=3, unique=True))
    pts, polys = q.random_points(np.random.default_rng(seed), 64, islands=chosen)
    assert np.isin(q.mesh.islands[polys], chosen).all()
    for p, poly in zip(pts[:8], polys[:8], strict=True):
        assert Polygon(q.mesh.polygon_xy(int(poly))).buffer(1e-9).covers(Point(p[:2]))


def test_main_island_is_the_largest_by_area_not_the_one_with_the_largest_polygon() -> None:
    built = big_polygon_small_island()
    assert int(np.argmax(built.areas)) == 0 and built.areas[0] == pytest.approx(36.0)
    relabelled = dataclasses.replace(built, islands=1 - built.islands)  # labels not sorted by area
    for mesh in (built, relabelled):
        b = int(mesh.islands[1])  # polygon 1 lies in island B
        assert mesh.main_island == b != int(mesh.islands[0])
        np.testing.assert_allclose(mesh.island_areas[[b, 1 - b]], [45.0, 36.0])
        q = NavMeshQuery(mesh)
        assert q.islands()[0] == frozenset(range(1, 6))
        _, polys = q.random_points(np.random.default_rng(1), 500, islands=mesh.main_island)
        assert (polys >= 1).all()


def test_main_island_ties_unused_labels_and_bad_labels() -> None:
    v = np.array([(0, 0), (2, 0), (2, 2), (0, 2), (5, 0), (7, 0), (7, 2), (5, 2)], dtype=float)
    mesh = build_navmesh(v, [[0, 1, 2, 3], [4, 5, 6, 7]])
    assert mesh.main_island == 0  # equal areas: the lowest label
    assert dataclasses.replace(mesh, islands=np.array([1, 0])).main_island == 0
    gaps = dataclasses.replace(mesh, islands=np.array([3, 2]))
    assert gaps.main_island == 2 and gaps.island_areas.tolist() == [0.0, 0.0, 4.0, 4.0]
    with pytest.raises(NavMeshError, match=r"islands \[0\] have no polygons"):
        NavMeshQuery(gaps).random_points(np.random.default_rng(0), 1, islands=0)
    with pytest.raises(NavMeshError, match="labels >= 0"):
        dataclasses.replace(mesh, islands=np.array([0, -1]))
    assert build_navmesh(np.zeros((0, 3)), []).main_island == -1


# --- heights come from the corridor --------------------------------------------------------------------
def _step() -> NavMesh:
    """Two 4 x 4 m floors side by side, z = 0 (x 0..4) and z = 0.3 (x 4..8): a 0.3 m step at x = 4."""
    v = [(0, 0, 0), (4, 0, 0), (4, 4, 0), (0, 4, 0), (8, 0, 0.3), (8, 4, 0.3)]
    return build_navmesh(
        np.array(v, dtype=float), [[0, 1, 2, 3], [1, 4, 5, 2]], planes=np.array([(0, 0, 0), (0, 0, 0.3)])
    )


@pytest.mark.parametrize("budget", [None, 1])
def test_a_path_over_a_step_climbs_it_where_it_crosses_the_portal(budget: int | None) -> None:
    """Each height comes from the polygon the path is in: flat, a vertical step at the portal, flat (the
    heights used to be averaged at the portal, which made the whole path one slope)."""
    q = NavMeshQuery(_step())
    res = q.find_path((1.0, 2.0, 0.0), (7.0, 2.0, 0.3), max_nodes=budget)
    np.testing.assert_allclose(res.points, [[1, 2, 0], [4, 2, 0], [4, 2, 0.3], [7, 2, 0.3]], atol=1e-12)
    assert res.corridor == (0, 1)


def test_corridor_index_is_the_first_polygon_from_start_that_holds_the_point() -> None:
    q = NavMeshQuery(_step())
    assert q.corridor_index((0, 1), (2.0, 2.0)) == 0
    assert q.corridor_index((0, 1), (4.0, 2.0, 5.0)) == 0  # on the portal: both hold it; z is not read
    assert q.corridor_index((0, 1), (4.0, 2.0), start=1) == 1
    assert q.corridor_index((0, 1), (2.0, 2.0), start=1) == -1
    assert q.corridor_index([1], (9.0, 2.0)) == -1
    assert q.corridor_index((), (2.0, 2.0)) == -1


# --- paths carry no redundant points ----------------------------------------------------------------------
def _ramp_strip() -> NavMesh:
    """A 4 m wide strip along x: floor z=0 (x 0..10, five polygons), a ramp up to z=2 (x 10..14, two
    polygons), an upper floor z=2 (x 14..20, three polygons). Neighbouring polygons of one surface get
    planes that differ by 1e-13 m, as fitted planes do: the path gets a point at each of their portals."""
    xs = [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20]
    z = [0.0] * 6 + [1.0, 2.0, 2.0, 2.0, 2.0]
    v = [(x, 0.0, h) for x, h in zip(xs, z, strict=True)] + [(x, 4.0, h) for x, h in zip(xs, z, strict=True)]
    n = len(xs)
    polys = [[i, i + 1, n + i + 1, n + i] for i in range(n - 1)]
    planes = []
    for i in range(n - 1):
        noise = 1e-13 * (i % 2)
        if 5 <= i < 7:  # the ramp: z = 0.5 (x - 10)
            planes.append((0.5, 0.0, -5.0 + noise))
        else:
            planes.append((0.0, 0.0, (0.0 if i < 5 else 2.0) + noise))
    return build_navmesh(np.array(v), polys, planes=np.array(planes))


def _interior_deviation(points: np.ndarray) -> np.ndarray:
    """Distance of each interior point from the segment joining its neighbours [m]."""
    a, b, c = points[:-2], points[1:-1], points[2:]
    ac = c - a
    t = np.clip(np.einsum("ij,ij->i", b - a, ac) / np.einsum("ij,ij->i", ac, ac), 0.0, 1.0)
    return np.linalg.norm(a + t[:, None] * ac - b, axis=1)


@example(seed=554166)  # starts 0.6 mm before the slope change at x = 10
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_paths_keep_slope_changes_and_drop_collinear_points(seed: int) -> None:
    from unittest import mock

    from navigation.funnel import COLLINEAR_TOLERANCE

    q = NavMeshQuery(_ramp_strip())
    (a, b), _ = q.random_points(np.random.default_rng(seed), 2)
    res = q.find_path(a, b)
    assert res.ok
    p = res.points
    assert (_interior_deviation(p) > COLLINEAR_TOLERANCE).all()
    # the strip is convex: straight from above, so the only points are the ends and the slope changes
    # (a bend within a few mm of an end is within the tolerance of the straight line: it may go)
    lo, hi = min(a[0], b[0]), max(a[0], b[0])
    bends = [x for x in (10.0, 14.0) if lo + 0.05 < x < hi - 0.05]
    maybe = [x for x in (10.0, 14.0) if lo < x < hi]
    assert 2 + len(bends) <= len(p) <= 2 + len(maybe)
    for x in bends:
        assert np.isclose(p[:, 0], x, atol=1e-9).any()
    # every dropped point lay on the path: the same length as the path with all of them
    with mock.patch("navigation.paths.drop_collinear", side_effect=lambda pts: pts):
        raw = q.find_path(a, b)
    assert len(raw.points) >= len(p)
    # a slope change within the height tolerance of an end may go: the length then moves by less than that
    assert res.length == pytest.approx(raw.length, abs=1e-9 if bends == maybe else COLLINEAR_TOLERANCE)
    if not maybe:
        assert res.length == pytest.approx(float(np.linalg.norm(b - a)), abs=1e-9)


@example(  # a path turning by 0.7 mm at an obstacle corner
    blocked=np.array([[0, 1, 1, 0, 0, 0], [0, 1, 0, 0, 0, 1], [0, 0, 0, 1, 0, 0]], dtype=bool), seed=17
)
@settings(max_examples=30, deadline=None)
@given(
    arrays(bool, st.tuples(st.integers(2, 8), st.integers(2, 8)), elements=st.booleans()),
    st.integers(0, 2**32 - 1),
)
def test_flat_paths_have_no_collinear_points(blocked: np.ndarray, seed: int) -> None:
    """On a flat floor a kept interior point is a real turn: off its neighbours' line horizontally. A
    turn can be tiny (0.7 mm past an obstacle corner in one case): it stays, or the path cuts the corner."""
    from navigation.funnel import HORIZONTAL_TOLERANCE

    if blocked.all():
        return
    mesh = bake_grid(GridMap(blocked))
    # fitted planes of one flat floor differ in the last bits (the arena's do): no point for that
    noise = np.zeros_like(mesh.planes)
    noise[::2, 2] = 1e-13
    q = NavMeshQuery(dataclasses.replace(mesh, planes=mesh.planes + noise))
    pts, _ = q.random_points(np.random.default_rng(seed), 6, islands=q.mesh.main_island)
    for a, b in itertools.pairwise(pts):
        for budget in (None, 1):  # the exact search and the corridor fallback
            p = q.find_path(a, b, max_nodes=budget).points
            assert (_interior_deviation(p[:, :2]) > HORIZONTAL_TOLERANCE).all()


def test_path_segments_never_cut_a_rounded_corner_off_the_mesh() -> None:
    """Erosion rounds a wall's corners into many slight bends: a path that hugs one keeps every bend (one
    dropped within a millimetre would cut the corner and leave the mesh)."""
    from navigation import bake_polygons

    wall = [(8.0, 0.0), (9.0, 0.0), (9.0, 7.0), (8.0, 7.0)]
    q = NavMeshQuery(bake_polygons([(0, 0), (20, 0), (20, 10), (0, 10)], [wall], agent_radius=0.4))
    rng = np.random.default_rng(11)
    pairs = [(np.array([1.0, 1.0, 0.0]), np.array([14.375, 3.875, 0.0]))]  # cut 0.09 mm off with 1 mm
    pairs += [tuple(q.random_points(rng, 2)[0]) for _ in range(60)]
    hugging = 0
    for k, (a, b) in enumerate(pairs):
        if (a[0] - 8.5) * (b[0] - 8.5) > 0:
            continue  # same side of the wall: no corner to hug
        p = q.find_path(q.nearest_point(a).point, q.nearest_point(b).point).points
        hugging += 1
        for s, e in itertools.pairwise(p):
            for t in np.linspace(0.0, 1.0, 1001 if k == 0 else 41):
                assert q.nearest_point(s + t * (e - s)).distance <= 1e-9
    assert hugging > 15
