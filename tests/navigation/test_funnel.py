"""String pulling: never longer than the portal-midpoint path; equals Polyanya on its own corridor.
Dropping collinear points: real corners (in 3-D) stay, the length does not change."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from navigation.errors import NavMeshError
from navigation.funnel import (
    COLLINEAR_TOLERANCE,
    corridor_portals,
    drop_collinear,
    drop_collinear_rows,
    polyline_length,
    portal_midpoint_path,
    string_pull,
)
from navigation.grid_bake import bake_grid
from navigation.movingai import GridMap
from navigation.query import NavMeshQuery, QueryStatus


@settings(max_examples=40, deadline=None)
@given(
    arrays(bool, st.tuples(st.integers(2, 9), st.integers(2, 9)), elements=st.booleans()),
    st.integers(0, 2**32 - 1),
)
def test_funnel_never_longer_than_midpoints(blocked: np.ndarray, seed: int) -> None:
    if blocked.all():
        return
    q = NavMeshQuery(bake_grid(GridMap(blocked)))
    pts, _ = q.random_points(np.random.default_rng(seed), 2)
    res = q.find_path(pts[0], pts[1])
    if res.status is not QueryStatus.SUCCESS:
        return
    portals = corridor_portals(q.mesh, res.corridor)
    pulled = string_pull(portals, pts[0], pts[1])
    mids = portal_midpoint_path(portals, pts[0], pts[1])
    assert polyline_length(pulled) <= polyline_length(mids) + 1e-9
    assert polyline_length(pulled) == pytest.approx(res.length, abs=1e-7)


def test_straight_corridor_and_bad_corridor() -> None:
    q = NavMeshQuery(bake_grid(GridMap(np.zeros((3, 6), bool))))
    assert polyline_length(string_pull([], np.array([0.5, 0.5]), np.array([5.5, 2.5]))) == pytest.approx(
        np.hypot(5, 2)
    )
    with pytest.raises(NavMeshError, match="not neighbours"):
        corridor_portals(q.mesh, [0, 0])


def _turn_deg(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
    u, w = b - a, c - b
    return float(np.degrees(np.arccos(np.clip(u @ w / (np.linalg.norm(u) * np.linalg.norm(w)), -1.0, 1.0))))


@settings(max_examples=150, deadline=None)
@given(
    arrays(float, st.tuples(st.integers(2, 6), st.sampled_from([2, 3])), elements=st.floats(-50, 50)),
    st.data(),
)
def test_drop_collinear_keeps_exactly_the_corners_and_the_length(
    corners: np.ndarray, data: st.DataObject
) -> None:
    seg = np.linalg.norm(np.diff(corners, axis=0), axis=1)
    assume((seg >= 1.0).all())
    assume(all(_turn_deg(*corners[i - 1 : i + 2]) >= 15.0 for i in range(1, len(corners) - 1)))
    # the same polyline with extra points on its segments and repeated corners
    dense = [corners[0]]
    for a, b in itertools.pairwise(corners):
        ts = data.draw(st.lists(st.one_of(st.floats(0.05, 0.95), st.sampled_from([0.0, 1.0])), max_size=4))
        dense += [a + t * (b - a) for t in sorted(ts)]
        dense.append(b)
    dense_arr = np.array(dense)
    out = drop_collinear(dense_arr)
    np.testing.assert_array_equal(out, corners)
    assert polyline_length(out) == pytest.approx(polyline_length(dense_arr), rel=1e-12)


def test_drop_collinear_keeps_a_change_of_slope() -> None:
    bend = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0.5]], float)  # straight from above, bends in 3-D
    np.testing.assert_array_equal(drop_collinear(bend), bend)
    even = np.array([[0, 0, 0], [1, 0, 0.25], [2, 0, 0.5]], float)  # one slope all the way
    np.testing.assert_array_equal(drop_collinear(even), even[[0, 2]])
    tiny = np.array([[0, 0, 0], [1, 0, 0.5 * COLLINEAR_TOLERANCE], [2, 0, 0]], float)
    np.testing.assert_array_equal(drop_collinear(tiny), tiny[[0, 2]])
    small = np.array([[0, 0, 0], [1, 0, 2 * COLLINEAR_TOLERANCE], [2, 0, 0]], float)
    np.testing.assert_array_equal(drop_collinear(small), small)
    np.testing.assert_array_equal(drop_collinear(bend[[0, 0]]), bend[[0, 0]])  # the ends always stay
    np.testing.assert_array_equal(drop_collinear(np.array([[0, 0], [0, 0], [0, 0]], float)), np.zeros((2, 2)))


@pytest.mark.parametrize(
    "points, tolerance, message",
    [
        (np.zeros(3), 1e-3, "shape"),
        (np.zeros((3, 2)), -1.0, "tolerance"),
        (np.zeros((3, 2)), float("nan"), "tolerance"),
    ],
)
def test_drop_collinear_bad_input(points: np.ndarray, tolerance: float, message: str) -> None:
    with pytest.raises(NavMeshError, match=message):
        drop_collinear(points, tolerance)


@given(
    arrays(
        np.float64, st.tuples(st.integers(1, 12), st.just(3)), elements=st.sampled_from([0.0, 1.0, 2.0, 0.5])
    ),
)
def test_drop_collinear_rows_is_drop_collinear_in_place(points: np.ndarray) -> None:
    # the compiled path search drops collinear points on its output rows; it must keep what
    # drop_collinear keeps, and carry the ids of the rows it keeps along
    p = points.copy()
    ids = np.arange(len(p)) * 10
    n = drop_collinear_rows(p, ids, len(p), 1e-9, 1e-9)
    want = drop_collinear(points, 1e-9, horizontal_tolerance=1e-9)
    np.testing.assert_array_equal(p[:n], want)
    np.testing.assert_array_equal(points[ids[:n] // 10], want)
