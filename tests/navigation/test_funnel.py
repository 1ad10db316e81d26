"""String pulling: never longer than the portal-midpoint path; equals Polyanya on its own corridor."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from navigation.errors import NavMeshError
from navigation.funnel import corridor_portals, polyline_length, portal_midpoint_path, string_pull
from navigation.grid_bake import bake_grid
from navigation.movingai import GridMap
from navigation.query import NavMeshQuery, PathStatus


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
    if res.status is not PathStatus.COMPLETE:
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
