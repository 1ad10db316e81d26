"""`navigation.raycasts.slide_many`: `agent.move_on_surface` for many rows, cross-checked row by row."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navigation.agent import move_on_surface
from navigation.errors import NavMeshError
from navigation.query import NavMeshQuery
from navigation.raycasts import slide_many
from tests.navigation.test_raycasts import _query


def random_moves(query: NavMeshQuery, rng: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray]:
    """k moves from points on the mesh, 0-3 m long (a tenth of them zero), many of them into walls."""
    starts, _ = query.random_points(rng, k)
    angle = rng.uniform(-math.pi, math.pi, k)
    length = np.where(rng.random(k) < 0.1, 0.0, rng.uniform(0.0, 3.0, k))
    targets = starts + length[:, None] * np.column_stack([np.cos(angle), np.sin(angle), np.zeros(k)])
    return starts, targets


def assert_same_as_move_on_surface(
    query: NavMeshQuery, starts: np.ndarray, targets: np.ndarray
) -> np.ndarray:
    points, on_mesh, walled = slide_many(query, starts, targets)
    assert points.shape == starts.shape and on_mesh.all()
    for i in range(len(starts)):
        one = move_on_surface(query, starts[i], targets[i], 1.0)
        np.testing.assert_allclose(points[i], one, rtol=0, atol=1e-9)
        assert query.polygon_at(points[i]) >= 0  # never off the mesh
    return walled


@pytest.mark.parametrize("name", ["warehouse", "compound", "den312d"])
def test_many_moves_match_one_move_each(name: str) -> None:
    query = _query(name)
    walled = assert_same_as_move_on_surface(query, *random_moves(query, np.random.default_rng(3), 1500))
    assert 50 < walled.sum() < 1450  # both outcomes are exercised


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(0, 30))
def test_random_batches_match_one_move_each(seed: int, k: int) -> None:
    query = _query("warehouse")
    assert_same_as_move_on_surface(query, *random_moves(query, np.random.default_rng(seed), k))


def test_a_start_off_the_mesh_stays_and_is_flagged() -> None:
    query = _query("warehouse")
    lo = query.mesh.vertices.min(axis=0)
    starts = np.array([lo - [5.0, 5.0, 0.0], query.random_point(np.random.default_rng(0))[0]])
    points, on_mesh, _ = slide_many(query, starts, starts + [1.0, 0.0, 0.0])
    assert on_mesh.tolist() == [False, True]
    np.testing.assert_array_equal(points[0], starts[0])


@pytest.mark.parametrize("bad", [np.zeros((2, 4)), np.full((1, 3), np.nan), [["a", "b", "c"]]])
def test_bad_points_raise(bad: object) -> None:
    with pytest.raises(NavMeshError):
        slide_many(_query("warehouse"), bad, bad)
