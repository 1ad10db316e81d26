"""`navigation.paths`: find_path's compiled call and the Python around it (output buffers, work rows, the
fallback count); exactness on the MovingAI maps is in test_benchmark.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from navigation import arguments
from navigation.errors import NavMeshError
from navigation.grid_bake import bake_grid
from navigation.movingai import parse_map
from navigation.query import NavMeshQuery, QueryReason, QueryStatus

# a serpentine: three walls with gaps at alternate ends, so a path from the top left turns at both ends
# of each gap
SNAKE = parse_map(
    "type octile\nheight 7\nwidth 8\nmap\n"
    "........\n@@@@@@@.\n........\n.@@@@@@@\n........\n@@@@@@@.\n........\n"
)
START, GOAL = (0.5, 0.5), (0.5, 6.5)


@pytest.fixture()
def snake() -> NavMeshQuery:
    return NavMeshQuery(bake_grid(SNAKE))


def test_small_output_buffers_grow_and_give_the_same_path(snake: NavMeshQuery) -> None:
    want = snake.find_path(START, GOAL)
    assert want.ok and len(want.points) == 8 and want.exact  # both ends of each of the three gaps
    snake._paths._resize(1, 1, 256)  # room for one point and one polygon: the call runs again with more
    got = snake.find_path(START, GOAL)
    np.testing.assert_array_equal(got.points, want.points)
    assert got.corridor == want.corridor and got.status is QueryStatus.SUCCESS
    assert snake._paths._out_pts.shape[0] >= len(want.points)


def test_small_work_rows_grow_once_and_stay(snake: NavMeshQuery) -> None:
    want = snake.find_path(START, GOAL)
    snake._paths._resize(64, 64, 1)
    got = snake.find_path(START, GOAL)
    np.testing.assert_array_equal(got.points, want.points)
    rows = snake._paths._work[0].shape[0]
    assert rows > 1
    snake.find_path(START, GOAL)
    assert snake._paths._work[0].shape[0] == rows


def test_paths_own_their_points(snake: NavMeshQuery) -> None:
    a = snake.find_path(START, GOAL)
    kept = a.points.copy()
    snake.find_path(GOAL, START)  # the output buffers are reused: the first answer must not change
    np.testing.assert_array_equal(a.points, kept)
    assert a.points.flags.owndata and a.points.flags.c_contiguous and a.points.shape[1] == 3


def test_the_fallback_is_counted(snake: NavMeshQuery) -> None:
    assert snake.path_fallbacks == 0
    res = snake.find_path(START, GOAL, max_nodes=1)
    assert res.ok and not res.exact and QueryReason.BUDGET_EXCEEDED in res.reason
    assert snake.path_fallbacks == 1
    assert snake.find_path(START, GOAL).exact and snake.path_fallbacks == 1


def test_same_polygon_and_off_mesh(snake: NavMeshQuery) -> None:
    res = snake.find_path((0.5, 0.5), (3.5, 0.5))
    assert res.ok and len(res.points) == 2 and res.length == pytest.approx(3.0)
    off = snake.find_path((0.5, 1.5), GOAL)  # inside the first wall
    assert off.status is QueryStatus.INVALID and off.reason is QueryReason.START_OFF_MESH
    assert off.points.shape == (0, 3)


@pytest.mark.parametrize(
    "value",
    [(1.0, 2.0), (1.0, 2.0, 3.0), [1.0, 2.0], np.array([1.0, 2.0]), (1, 2), (np.float32(1.5), 2.0)],
)
def test_xyz_is_point_as_a_tuple(value: object) -> None:
    got = arguments.xyz(value, "p", any_height=True)
    want = arguments.point(value, "p", any_height=True)
    assert isinstance(got, tuple) and all(type(v) is float for v in got)
    np.testing.assert_array_equal(np.array(got), want)


@pytest.mark.parametrize("value", [(math.nan, 1.0), (1.0, math.inf), (1e300, 0.0), ("1", 1.0), "ab"])
def test_xyz_refuses_what_point_refuses(value: object) -> None:
    with pytest.raises(NavMeshError, match="start must be 2 or 3 finite numbers"):
        arguments.xyz(value, "start")


@pytest.mark.parametrize(
    "start, goal, what",
    [
        ((math.nan, 0.5), GOAL, "start"),
        ((0.5, 1e300), GOAL, "start"),
        (START, (0.5, math.inf), "goal"),
        (START, ("0.5", 6.5), "goal"),
    ],
)
def test_find_path_refuses_bad_points_on_its_fast_path_too(
    snake: NavMeshQuery, start: object, goal: object, what: str
) -> None:
    # two 2-tuples take find_path's inline check; what it lets past must be what arguments.xyz lets past
    with pytest.raises(NavMeshError, match=f"{what} must be 2 or 3 finite numbers"):
        snake.find_path(start, goal)


@pytest.mark.parametrize(
    "start, goal", [(START, GOAL), ((0.5, 0.5, math.nan), [0.5, 6.5]), ((np.float64(0.5), 0.5), (0.5, 6.5))]
)
def test_every_form_of_point_gives_the_same_path(snake: NavMeshQuery, start: object, goal: object) -> None:
    want = snake.find_path(START, GOAL)
    got = snake.find_path(start, goal)
    assert got.corridor == want.corridor and np.array_equal(got.points, want.points)
    assert got.status is QueryStatus.SUCCESS and got.reason is QueryReason.NONE and type(got) is type(want)
