"""Query filters: excluded areas are never entered and those paths stay exact (an independent visibility
graph); area costs detour around a costly strip when that is cheaper and cross it otherwise; the cost
search's distance from optimal is measured (an analytic Snell crossing, a search 8x denser)."""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
import shapely
from hypothesis import example, given, settings
from hypothesis import strategies as st
from nav_helpers import VisibilityGraph, free_points
from scipy.optimize import minimize_scalar
from shapely.geometry import Polygon, box

from navigation.areas import AreaVolume, mark_areas
from navigation.errors import NavMeshError
from navigation.filters import QueryFilter
from navigation.grid_bake import bake_polygons
from navigation.navmesh import NavMesh
from navigation.query import NavMeshQuery, QueryReason, QueryStatus

ROOM = [(0.0, 0.0), (24.0, 0.0), (24.0, 16.0), (0.0, 16.0)]
SHELVES = [box(3, 4, 10, 5), box(13, 4, 21, 5), box(3, 10, 10, 11), box(13, 10, 21, 11)]
FREE = Polygon(ROOM).difference(shapely.union_all(SHELVES))
STRIP = box(11.0, -1.0, 13.0, 12.0)  # a strip across the room, leaving a dry passage 12 < y < 16


@pytest.fixture(scope="module")
def mesh() -> NavMesh:
    strip = AreaVolume(1, tuple(STRIP.exterior.coords)[:-1])
    danger = AreaVolume(2, ((16.0, 12.0), (20.0, 12.0), (20.0, 15.0), (16.0, 15.0)))
    return mark_areas(bake_polygons(ROOM, SHELVES), [strip, danger], {"water": 1, "danger": 2})


@pytest.fixture(scope="module")
def query(mesh: NavMesh) -> NavMeshQuery:
    return NavMeshQuery(mesh)


def _areas_entered(mesh: NavMesh, points: np.ndarray) -> set[int]:
    """Area ids of the polygons the path's segments pass over (sampled every 10 cm)."""
    q = NavMeshQuery(mesh)
    seen = set()
    for a, b in itertools.pairwise(points):
        steps = max(2, int(np.hypot(*(b - a)[:2]) / 0.1))
        for t in np.linspace(0.0, 1.0, steps)[1:-1]:
            p = a + (b - a) * t
            found = q.polygons_at((float(p[0]), float(p[1]), float(p[2])))
            seen |= {int(mesh.area_ids[k]) for k in found if _inside(mesh, k, p)}
    return seen


def _inside(mesh: NavMesh, k: int, p: np.ndarray) -> bool:
    return Polygon(mesh.polygon_xy(k)).buffer(-1e-7).contains(shapely.Point(p[0], p[1]))


def test_excluded_areas_are_never_entered_and_paths_stay_exact(mesh: NavMesh, query: NavMeshQuery) -> None:
    f = QueryFilter(exclude=frozenset({"water", "danger"}))
    free = FREE.difference(STRIP).difference(box(16, 12, 20, 15))
    graph = VisibilityGraph(free)
    rng = np.random.default_rng(7)
    starts, goals = free_points(rng, 30, free), free_points(rng, 30, free)
    for a, b in zip(starts, goals, strict=True):
        p = query.find_path(a, b, filter=f)
        assert p.status is QueryStatus.SUCCESS
        assert p.exact and QueryReason.AREA_COSTS not in p.reason
        assert p.length == pytest.approx(graph.length(a[:2], b[:2]), abs=1e-4)
        assert not {1, 2} & {int(mesh.area_ids[c]) for c in p.corridor}
        assert not {1, 2} & _areas_entered(mesh, p.points)


def test_include_keeps_to_the_listed_areas(mesh: NavMesh, query: NavMeshQuery) -> None:
    p = query.find_path((2.0, 2.0, 0.0), (22.0, 2.0, 0.0), filter=QueryFilter(include=frozenset({"ground"})))
    assert p.ok and {int(mesh.area_ids[c]) for c in p.corridor} == {0}
    assert p.length > 20.0 + 1.0  # around the strip, through the dry passage


def test_a_start_in_an_excluded_area_is_off_the_mesh_and_a_goal_there_unreachable(
    query: NavMeshQuery,
) -> None:
    f = QueryFilter(exclude=frozenset({"water"}))
    off = query.find_path((12.0, 2.0, 0.0), (2.0, 2.0, 0.0), filter=f)
    assert off.status is QueryStatus.INVALID and QueryReason.START_OFF_MESH in off.reason
    partial = query.find_path((2.0, 2.0, 0.0), (12.0, 2.0, 0.0), filter=f)
    assert partial.status is QueryStatus.PARTIAL and QueryReason.GOAL_UNREACHABLE in partial.reason
    assert partial.points[-1][0] == pytest.approx(11.0, abs=1e-6)  # the nearest allowed point, the shore


def test_a_costly_strip_is_crossed_when_cheaper_and_avoided_when_not(
    mesh: NavMesh, query: NavMeshQuery
) -> None:
    a, b = (2.0, 2.0, 0.0), (22.0, 2.0, 0.0)
    cheap = query.find_path(a, b, filter=QueryFilter(costs={"water": 1.5}))
    assert cheap.ok and QueryReason.AREA_COSTS in cheap.reason and not cheap.exact
    assert 1 in {int(mesh.area_ids[c]) for c in cheap.corridor}
    assert cheap.cost == pytest.approx(18.0 + 2.0 * 1.5, rel=1e-6)  # straight across
    dear = query.find_path(a, b, filter=QueryFilter(costs={"water": 10.0}))
    assert dear.ok and 1 not in _areas_entered(mesh, dear.points)
    detour = query.find_path(a, b, filter=QueryFilter(exclude=frozenset({"water"})))
    assert dear.cost == pytest.approx(detour.length, rel=1e-6)  # the exact detour, at cost 1 a metre


def test_the_cost_search_crosses_a_boundary_where_snell_says() -> None:
    # two rooms of cost 1 and 3 side by side: the cheapest crossing of x = 10 bends as Snell's law says
    mesh = mark_areas(
        bake_polygons([(0.0, 0.0), (20.0, 0.0), (20.0, 10.0), (0.0, 10.0)], []),
        [AreaVolume(1, ((10.0, -1.0), (21.0, -1.0), (21.0, 11.0), (10.0, 11.0)))],
    )
    a, b = np.array([1.0, 1.0]), np.array([19.0, 9.0])
    best = minimize_scalar(
        lambda y: math.hypot(10.0 - a[0], y - a[1]) + 3.0 * math.hypot(b[0] - 10.0, b[1] - y),
        bounds=(0.0, 10.0), method="bounded", options={"xatol": 1e-12},
    )  # fmt: skip
    p = NavMeshQuery(mesh).find_path((1.0, 1.0, 0.0), (19.0, 9.0, 0.0), filter=QueryFilter(costs={1: 3.0}))
    assert p.cost == pytest.approx(best.fun, rel=1e-6)


def test_the_cost_search_is_within_a_measured_bound_of_a_denser_one(query: NavMeshQuery) -> None:
    rng = np.random.default_rng(11)
    starts, goals = free_points(rng, 25, FREE), free_points(rng, 25, FREE)
    coarse = QueryFilter(costs={"water": 2.0, "danger": 4.0})
    dense = QueryFilter(costs={"water": 2.0, "danger": 4.0}, sample_spacing=coarse.sample_spacing / 8)
    ratios = []
    for a, b in zip(starts, goals, strict=True):
        c, d = query.find_path(a, b, filter=coarse), query.find_path(a, b, filter=dense)
        assert c.status is d.status is QueryStatus.SUCCESS
        assert c.cost is not None and d.cost is not None
        ratios.append(c.cost / d.cost)
    assert max(ratios) <= 1.002  # measured: at most 0.17 % dearer (one pair of 25), the median 1.0
    assert min(ratios) >= 1.0 - 1e-6  # and never cheaper than the denser one by more than round-off


def test_a_filter_without_costs_or_exclusions_gives_the_plain_path(query: NavMeshQuery) -> None:
    a, b = (2.0, 2.0, 0.0), (22.0, 14.0, 0.0)
    plain, filtered = query.find_path(a, b), query.find_path(a, b, filter=QueryFilter())
    assert filtered.exact and filtered.length == pytest.approx(plain.length, abs=1e-12)
    assert filtered.cost == pytest.approx(plain.length)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"costs": {"water": 0.5}}, "1..1e"),
        ({"costs": {"water": math.inf}}, "1..1e"),
        ({"costs": {"water": "high"}}, "number"),
        ({"costs": {"": 2.0}}, "empty"),
        ({"costs": {64: 2.0}}, "0..63"),
        ({"costs": [("water", 2.0)]}, "map areas"),
        ({"exclude": "water"}, "set of areas"),
        ({"include": {1.5}}, "name or an id"),
        ({"sample_spacing": 0.0}, "sample_spacing"),
        ({"sample_spacing": math.nan}, "sample_spacing"),
    ],
)
def test_bad_filters_are_refused(kwargs: dict, words: str) -> None:
    with pytest.raises(NavMeshError, match=words):
        QueryFilter(**kwargs)


def test_an_unknown_area_name_or_filter_type_is_refused_and_the_query_goes_on(query: NavMeshQuery) -> None:
    with pytest.raises(NavMeshError, match="unknown area 'lava'"):
        query.find_path((2.0, 2.0, 0.0), (22.0, 2.0, 0.0), filter=QueryFilter(costs={"lava": 2.0}))
    with pytest.raises(NavMeshError, match="QueryFilter"):
        query.find_path((2.0, 2.0, 0.0), (22.0, 2.0, 0.0), filter={"water": 2.0})  # type: ignore[arg-type]
    assert query.find_path((2.0, 2.0, 0.0), (22.0, 2.0, 0.0)).ok


def test_a_fast_path_result_equals_the_plain_dataclass(query: NavMeshQuery) -> None:
    from navigation.results import PathResult, found_path

    p = query.find_path((2.0, 2.0), (22.0, 14.0))
    made = PathResult(p.status, p.corridor, p.points, p.reason)
    assert vars(p).keys() == vars(made).keys() and p.cost is None
    assert found_path(p.corridor, p.points).__dict__.keys() == made.__dict__.keys()


@functools.cache
def _strip_query() -> NavMeshQuery:
    strip = AreaVolume(1, tuple(STRIP.exterior.coords)[:-1])
    danger = AreaVolume(2, ((16.0, 12.0), (20.0, 12.0), (20.0, 15.0), (16.0, 15.0)))
    return NavMeshQuery(mark_areas(bake_polygons(ROOM, SHELVES), [strip, danger], {"water": 1, "danger": 2}))


@settings(max_examples=25, deadline=None)
@given(cost=st.floats(1.0, 20.0), seed=st.integers(0, 10_000))
@example(cost=4.0, seed=2553)  # the sampled search alone: 5.1812 against the plain path's 5.1696
def test_the_cost_search_is_never_dearer_than_the_plain_path_or_the_detour(cost: float, seed: int) -> None:
    query = _strip_query()
    a, b = free_points(np.random.default_rng(seed), 2, FREE)
    found = query.find_path(a, b, filter=QueryFilter(costs={"water": cost}))
    plain = query.find_path(a, b)
    wet = shapely.LineString(plain.points[:, :2]).intersection(STRIP).length
    priced = plain.length + (cost - 1.0) * wet  # the plain shortest path, priced with the costs
    assert found.cost is not None
    assert plain.length - 1e-6 <= found.cost <= priced * (1 + 2e-3) + 1e-9
    detour = query.find_path(a, b, filter=QueryFilter(exclude=frozenset({"water"})))
    if detour.ok:
        assert found.cost <= detour.length * (1 + 2e-3) + 1e-9


junk = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 100), st.floats(allow_nan=True), st.text(max_size=3),
    st.lists(st.integers(-2, 70), max_size=3), st.dictionaries(st.text(max_size=2), st.floats(), max_size=2),
)  # fmt: skip


@settings(max_examples=100, deadline=None)
@given(costs=junk, exclude=junk, include=junk, spacing=junk)
def test_malformed_filters_raise_navmesh_error_or_build(costs: object, exclude: object, include: object,
                                                        spacing: object) -> None:  # fmt: skip
    kwargs = {"costs": costs, "exclude": exclude, "include": include, "sample_spacing": spacing}
    try:
        f = QueryFilter(**kwargs)  # type: ignore[arg-type]
    except NavMeshError:
        return
    try:  # what builds must answer, or name the area the mesh lacks
        _strip_query().find_path((2.0, 2.0, 0.0), (22.0, 2.0, 0.0), filter=f)
    except NavMeshError as exc:
        assert "unknown area" in str(exc)


def test_a_filter_that_allows_nothing_finds_no_start(query: NavMeshQuery) -> None:
    path = query.find_path((2.0, 2.0, 0.0), (22.0, 2.0, 0.0), filter=QueryFilter(include=frozenset()))
    assert path.status is QueryStatus.INVALID and QueryReason.START_OFF_MESH in path.reason
    assert query.find_path((2.0, 2.0, 0.0), (22.0, 2.0, 0.0)).ok  # the query goes on
