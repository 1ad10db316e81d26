"""Bad arguments to the public queries and the nav agent: always NavMeshError, naming the argument (issue 10).

Whatever a caller passes (a string, a dict, a complex number, an object array, a nested list, NaN, inf,
1e200, a huge integer, the wrong number of coordinates), the answer is one typed error that says which
argument is wrong and what it must be, never a ValueError, TypeError or OverflowError from deep inside.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navigation.agent import AgentSettings, NavAgent
from navigation.errors import NavMeshError
from navigation.grid_bake import bake_polygons
from navigation.query import NavMeshQuery, QueryStatus

COORDINATE_LIMIT = 1e9  # [m] the documented limit, navigation.arguments.COORDINATE_LIMIT
IN = (2.0, 2.0, 0.0)  # a good point on the mesh
FAR = (8.0, 8.0, 0.0)


@pytest.fixture(scope="module")
def query() -> NavMeshQuery:
    """A 10 x 10 m room."""
    return NavMeshQuery(bake_polygons([(0, 0), (10, 0), (10, 10), (0, 10)], [], agent_radius=0.4))


def _agent(query: NavMeshQuery) -> NavAgent:
    agent = NavAgent(query, IN)
    agent.set_destination(FAR)
    return agent


def _set(agent: NavAgent, name: str, value: object) -> None:
    setattr(agent, name, value)


# every public way a point gets in: (the argument's name in the message, the call)
POINT_CALLS: dict[str, tuple[str, Callable[[NavMeshQuery, object], object]]] = {
    "find_path start": ("start", lambda q, v: q.find_path(v, FAR)),
    "find_path goal": ("goal", lambda q, v: q.find_path(IN, v)),
    "nearest_point": ("point", lambda q, v: q.nearest_point(v)),
    "raycast start": ("start", lambda q, v: q.raycast(v, FAR)),
    "raycast end": ("end", lambda q, v: q.raycast(IN, v)),
    "distance_to_wall": ("point", lambda q, v: q.distance_to_wall(v)),
    "polygons_at": ("point", lambda q, v: q.polygons_at(v)),
    "polygon_at": ("point", lambda q, v: q.polygon_at(v)),
    "corridor_index": ("point", lambda q, v: q.corridor_index((0,), v)),
    "NavAgent position": ("start position", lambda q, v: NavAgent(q, v)),
    "set_destination": ("destination", lambda q, v: _agent(q).set_destination(v)),
    "warp": ("warp position", lambda q, v: _agent(q).warp(v)),
    "next_position =": ("next_position", lambda q, v: _set(_agent(q), "next_position", v)),
    "position =": ("position", lambda q, v: _set(_agent(q), "position", v)),
}

# every public scalar or other argument: (name in the message, the call, a strategy of bad values)
_not_a_number_or_list = st.one_of(
    st.text(max_size=8),
    st.binary(max_size=4),
    st.none(),
    st.booleans(),
    st.complex_numbers(),
    st.dictionaries(st.text(max_size=3), st.floats(), max_size=2),
)
_not_a_number = st.one_of(_not_a_number_or_list, st.lists(st.floats(), max_size=3))
_bad_length = st.one_of(_not_a_number, st.floats(max_value=-1e-300), st.just(math.nan))
_bad_count = st.one_of(
    _not_a_number.filter(lambda v: v is not None),
    st.floats(),
    st.integers(max_value=-1),
    st.just(np.float64(3.0)),
)
_bad_positive_count = st.one_of(_bad_count, st.just(0))
SCALAR_CALLS: dict[str, tuple[str, Callable[[NavMeshQuery, object], object], st.SearchStrategy[object]]] = {
    "nearest_point max_distance": ("max_distance", lambda q, v: q.nearest_point(IN, v), _bad_length),
    "distance_to_wall max_distance": (
        "max_distance",
        lambda q, v: q.distance_to_wall(IN, v),
        _bad_length,
    ),
    "polygons_at height_tolerance": (
        "height_tolerance",
        lambda q, v: q.polygons_at(IN, v),
        _bad_length.filter(lambda v: v is not None),
    ),
    "polygon_at height_tolerance": (
        "height_tolerance",
        lambda q, v: q.polygon_at(IN, v),
        _bad_length.filter(lambda v: v is not None),
    ),
    "find_path max_nodes": ("max_nodes", lambda q, v: q.find_path(IN, FAR, max_nodes=v), _bad_positive_count),
    "NavMeshQuery max_nodes": (
        "max_nodes",
        lambda q, v: NavMeshQuery(q.mesh, max_nodes=v),
        _bad_positive_count,
    ),
    "NavMeshQuery height_tolerance": (
        "height_tolerance",
        lambda q, v: NavMeshQuery(q.mesh, height_tolerance=v),
        st.one_of(_bad_length, st.just(0.0), st.just(math.inf)),
    ),
    "random_points n": (
        "n",
        lambda q, v: q.random_points(np.random.default_rng(0), v),
        st.one_of(_bad_count, st.integers(min_value=10**7 + 1)),
    ),
    "random_points rng": ("rng", lambda q, v: q.random_points(v, 1), _not_a_number),
    "random_points islands": (
        "islands",
        lambda q, v: q.random_points(np.random.default_rng(0), 1, islands=v),
        st.one_of(
            _not_a_number.filter(lambda v: v is not None),
            st.integers().filter(lambda i: i != 0),
            st.just(np.array(0)),
        ),
    ),
    "random_point islands": (
        "islands",
        lambda q, v: q.random_point(np.random.default_rng(0), islands=v),
        st.one_of(st.complex_numbers(), st.floats(), st.text(max_size=3)),
    ),
    "corridor_index corridor": (
        "corridor",
        lambda q, v: q.corridor_index(v, IN),
        st.one_of(
            _not_a_number.filter(lambda v: v != []),
            st.lists(st.integers().filter(lambda i: i != 0), min_size=1),
        ),
    ),
    "corridor_index start": ("start", lambda q, v: q.corridor_index((0,), IN, v), _bad_count),
    "NavAgent yaw": ("yaw", lambda q, v: NavAgent(q, IN, yaw=v), st.one_of(_not_a_number, st.just(math.inf))),
    "NavAgent settings": (
        "settings",
        lambda q, v: NavAgent(q, IN, v),
        _not_a_number.filter(lambda v: v is not None),
    ),
    "NavAgent query": ("query", lambda q, v: NavAgent(v, IN), _not_a_number),
    "NavMeshQuery mesh": ("mesh", lambda q, v: NavMeshQuery(v), _not_a_number),
    "update dt": (
        "dt",
        lambda q, v: _agent(q).update(v),
        st.one_of(_not_a_number, st.floats(max_value=0.0), st.floats(min_value=3600.001), st.just(math.nan)),
    ),
}


def _object_array(items: list[object]) -> np.ndarray:
    a = np.empty(len(items), dtype=object)
    a[:] = items
    return a


_huge = st.one_of(
    st.floats(min_value=COORDINATE_LIMIT, exclude_min=True),
    st.floats(max_value=-COORDINATE_LIMIT, exclude_max=True),
    st.sampled_from([math.inf, -math.inf, 1e200, 1e155]),
)
_fine = st.floats(-100.0, 100.0)
BAD_POINTS = st.one_of(
    _not_a_number_or_list,
    st.integers(),
    st.lists(st.complex_numbers(), min_size=2, max_size=3),
    st.lists(_fine, min_size=1, max_size=3).map(lambda xs: [*xs[:-1], complex(xs[-1], 1.0)]),
    st.lists(st.one_of(st.text(max_size=3), st.none(), _fine), min_size=2, max_size=3)
    .filter(lambda xs: not all(isinstance(x, float) for x in xs))
    .map(_object_array),
    st.lists(st.lists(_fine, min_size=2, max_size=3), min_size=1, max_size=3),  # nested
    st.lists(_fine, max_size=1),  # too few
    st.lists(_fine, min_size=4, max_size=6),  # too many
    st.tuples(st.one_of(_huge, st.just(math.nan)), _fine),
    st.tuples(_fine, st.one_of(_huge, st.just(math.nan)), _fine),
    st.tuples(_fine, _fine, _huge),
    st.lists(st.integers(min_value=10**9 + 1, max_value=10**400), min_size=2, max_size=3),
    st.just(np.zeros((1, 3))),
    st.just(np.zeros(3, dtype=bool)),
    st.just(np.array(["1", "2"])),
    st.just(np.array([1 + 1j, 2])),
    st.just(np.array([np.datetime64("2024-01-01"), np.datetime64("2024-01-02")])),
    st.builds(dict, x=_fine, y=_fine),
)


@pytest.mark.parametrize("call", sorted(POINT_CALLS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=BAD_POINTS)
def test_malformed_points_raise_navmesh_error_naming_the_argument(
    query: NavMeshQuery, call: str, value: object
) -> None:
    name, fn = POINT_CALLS[call]
    with pytest.raises(NavMeshError) as info:
        fn(query, value)
    assert type(info.value) is NavMeshError
    assert str(info.value).startswith(f"{name} must be 2 or 3 finite numbers [m]")


@pytest.mark.parametrize("call", sorted(SCALAR_CALLS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_malformed_arguments_raise_navmesh_error_naming_the_argument(
    query: NavMeshQuery, call: str, data: st.DataObject
) -> None:
    name, fn, bad = SCALAR_CALLS[call]
    value = data.draw(bad)
    with pytest.raises(NavMeshError) as info:
        fn(query, value)
    assert type(info.value) is NavMeshError
    assert str(info.value).startswith(name)


_POINT = "must be 2 or 3 finite numbers [m] (z may be NaN: any height) with |x|, |y|, |z| <= 1e9, got"
_AGENT_POINT = "must be 2 or 3 finite numbers [m] with |x|, |y|, |z| <= 1e9, got"


@pytest.mark.parametrize(
    "call, value, message",
    [
        ("find_path goal", "abc", f"goal {_POINT} 'abc'"),
        ("find_path start", {"x": 1.0}, f"start {_POINT} {{'x': 1.0}}"),
        ("nearest_point", 1 + 2j, f"point {_POINT} (1+2j)"),
        ("raycast end", (1e200, 2.0), f"end {_POINT} (1e+200, 2.0)"),
        ("raycast start", (1e9, 1e9), None),  # on the limit: accepted (off the mesh)
        ("distance_to_wall", (1.0, math.nan), f"point {_POINT} (1.0, nan)"),
        ("polygons_at", (1.0, 2.0, math.inf), f"point {_POINT} (1.0, 2.0, inf)"),
        ("polygon_at", [[1.0, 2.0]], f"point {_POINT} [[1.0, 2.0]]"),
        ("find_path start", (1, 2, 3, 4), f"start {_POINT} (1, 2, 3, 4)"),
        ("find_path start", [10**400, 1], f"start {_POINT} [1{'0' * 17}...{'0' * 19}, 1]"),
        ("set_destination", (1.0, 2.0, math.nan), f"destination {_AGENT_POINT} (1.0, 2.0, nan)"),
        ("warp", "here", f"warp position {_AGENT_POINT} 'here'"),
        ("next_position =", None, f"next_position {_AGENT_POINT} None"),
    ],
)
def test_bad_points_give_exact_messages(
    query: NavMeshQuery, call: str, value: object, message: str | None
) -> None:
    fn = POINT_CALLS[call][1]
    if message is None:
        fn(query, value)
        return
    with pytest.raises(NavMeshError) as info:
        fn(query, value)
    assert str(info.value) == message


@pytest.mark.parametrize(
    "call, value, message",
    [
        ("find_path max_nodes", 0, "max_nodes must be an integer >= 1, got 0"),
        ("find_path max_nodes", 2.0, "max_nodes must be an integer >= 1, got 2.0"),
        ("find_path max_nodes", True, "max_nodes must be an integer >= 1, got True"),
        ("NavMeshQuery max_nodes", -5, "max_nodes must be an integer >= 1, got -5"),
        (
            "nearest_point max_distance",
            -1.0,
            "max_distance must be a number of metres >= 0 (inf: no limit), got -1.0",
        ),
        (
            "nearest_point max_distance",
            "far",
            "max_distance must be a number of metres >= 0 (inf: no limit), got 'far'",
        ),
        (
            "distance_to_wall max_distance",
            math.nan,
            "max_distance must be a number of metres >= 0 (inf: no limit), got nan",
        ),
        ("NavMeshQuery height_tolerance", 0.0, "height_tolerance must be a number of metres > 0, got 0.0"),
        (
            "polygons_at height_tolerance",
            -1,
            "height_tolerance must be a number of metres >= 0 (inf: no limit), got -1",
        ),
        ("random_points n", -1, "n must be an integer in 0..10000000, got -1"),
        ("random_points n", 2.5, "n must be an integer in 0..10000000, got 2.5"),
        ("random_points rng", 42, "rng must be a numpy.random.Generator (seeded by its owner), got 42"),
        ("random_points islands", "0", "islands must be an island label or labels (integers), got '0'"),
        ("random_points islands", 1 + 0j, "islands must be an island label or labels (integers), got (1+0j)"),
        ("random_points islands", [0, 7], "islands must be labels in 0..0, got 7"),
        ("corridor_index corridor", [0, 99999], "corridor must hold polygon ids in 0..0, got 99999"),
        ("corridor_index corridor", "0", "corridor must be a sequence of polygon ids (integers), got '0'"),
        ("corridor_index start", -1, "start must be an integer >= 0, got -1"),
        ("update dt", 0.0, "dt must be a number of seconds in (0, 3600], got 0.0"),
        ("update dt", "1/60", "dt must be a number of seconds in (0, 3600], got '1/60'"),
        ("NavAgent yaw", "north", "yaw must be a finite number of radians, got 'north'"),
        (
            "NavAgent settings",
            {"speed": 2.0},
            "settings must be an AgentSettings or None, got {'speed': 2.0}",
        ),
        ("NavAgent query", None, "query must be a NavMeshQuery, got None"),
        ("NavMeshQuery mesh", "mesh.npz", "mesh must be a NavMesh, got 'mesh.npz'"),
    ],
)
def test_bad_arguments_give_exact_messages(
    query: NavMeshQuery, call: str, value: object, message: str
) -> None:
    with pytest.raises(NavMeshError) as info:
        SCALAR_CALLS[call][1](query, value)
    assert str(info.value) == message


def test_the_coordinate_limit_is_the_documented_one() -> None:
    from navigation import arguments

    assert arguments.COORDINATE_LIMIT == COORDINATE_LIMIT


def test_good_unusual_values_are_accepted(query: NavMeshQuery) -> None:
    """numpy integers, integer arrays, object arrays of numbers and a NaN height are all fine."""
    assert query.find_path(np.array([2, 2]), [8, 8.0], max_nodes=np.int64(1000)).ok
    assert query.nearest_point(np.array([2.0, 2.0, 0.0], dtype=object)).ok
    assert query.nearest_point(np.array([2.0, 2.0], dtype=np.float32), max_distance=np.float64(1.0)).ok
    assert query.polygon_at((2.0, 2.0, math.nan)) >= 0
    pts, _ = query.random_points(np.random.default_rng(0), np.int32(3), islands=np.int64(0))
    assert pts.shape == (3, 3)
    agent = NavAgent(query, [2, 2, 0], AgentSettings(), yaw=np.float32(1.0))
    assert agent.set_destination(np.array([8, 8])) is QueryStatus.SUCCESS
    agent.update(np.float64(1 / 60))
