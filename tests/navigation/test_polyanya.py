"""Polyanya: its result object (the path, its cost, why there is none), the flat arrays it reads, its
reused work rows, and its cost against an independent visibility graph on random grids."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from nav_helpers import VisibilityGraph

from navigation.funnel import polyline_length
from navigation.grid_bake import bake_grid, grid_free_geometry
from navigation.movingai import GridMap, parse_map
from navigation.paths import Polyanya, SearchResult
from navigation.polyanya import search_mesh, work_rows
from navigation.query import NavMeshQuery

# two rooms joined by a door in column 4; an island room on the right (columns 8-9)
ROOMS = parse_map(
    "type octile\nheight 5\nwidth 10\nmap\n....@...@.\n....@...@.\n........@.\n....@...@.\n....@...@.\n"
)


@pytest.fixture(scope="module")
def rooms() -> NavMeshQuery:
    return NavMeshQuery(bake_grid(ROOMS))


def _search(q: NavMeshQuery, s: tuple[float, float], g: tuple[float, float], budget: int) -> SearchResult:
    return Polyanya(q.mesh).search(s, q.polygons_at(s), g, set(q.polygons_at(g)), budget)


def test_a_found_path_carries_its_cost_and_corridor(rooms: NavMeshQuery) -> None:
    res = _search(rooms, (0.5, 0.5), (7.5, 0.5), 1000)
    assert res.found and not res.budget_exceeded and res.expanded > 0
    assert res.cost == pytest.approx(math.hypot(3.5, 1.5) + 1.0 + math.hypot(2.5, 1.5))
    assert res.cost == pytest.approx(polyline_length([p[:2] for p in res.points]), abs=1e-12)
    assert res.points[0][:2] == (0.5, 0.5) and res.points[-1][:2] == (7.5, 0.5)
    assert res.corridor[0] == rooms.polygon_at((0.5, 0.5)) and res.corridor[-1] == rooms.polygon_at(
        (7.5, 0.5)
    )
    assert (4.0, 2.0) in [p[:2] for p in res.points]  # the door's corner, a mesh vertex
    assert all(v >= 0 for *_, v in res.points[1:-1])


def test_same_polygon_costs_the_straight_line(rooms: NavMeshQuery) -> None:
    res = _search(rooms, (0.5, 0.5), (0.5, 0.5), 1)
    assert res.found and res.cost == 0.0 and res.expanded == 0 and len(res.corridor) == 1


def test_no_path_and_budget_exceeded_are_told_apart(rooms: NavMeshQuery) -> None:
    none = _search(rooms, (0.5, 2.5), (9.5, 2.5), 10_000)  # the island room
    assert not none.found and not none.budget_exceeded and none.cost == math.inf
    assert none.points == () and none.corridor == () and none.expanded > 0
    out = _search(rooms, (0.5, 0.5), (7.5, 4.5), 1)
    assert not out.found and out.budget_exceeded and out.cost == math.inf and out.expanded == 1
    assert _search(rooms, (0.5, 0.5), (7.5, 4.5), 10_000).found


def test_search_arrays_pair_every_portal_with_its_twin(rooms: NavMeshQuery) -> None:
    m = search_mesh(rooms.mesh)
    for p in range(rooms.mesh.polygon_count):
        for c in range(m.offsets[p], m.offsets[p + 1]):
            q, e = m.across[c], m.back[c]
            if q < 0:
                assert e < 0 and rooms.mesh.poly_neighbors[c] < 0
                continue
            twin = m.offsets[q] + e
            k = m.offsets[p + 1] - m.offsets[p]
            nxt = m.offsets[p] + (c - m.offsets[p] + 1) % k
            assert m.across[twin] == p and m.vertex[twin] == m.vertex[nxt]  # the same edge, reversed
    walls = rooms.mesh.poly_neighbors < 0
    assert set(np.flatnonzero(m.vertex_flags & 1)) == set(rooms.mesh.poly_verts[walls])
    assert m.max_corners == int(np.diff(rooms.mesh.poly_offsets).max())


def test_a_search_grows_its_work_rows_and_the_next_one_gets_them(rooms: NavMeshQuery) -> None:
    search = Polyanya(rooms.mesh)
    search.scratch.work_f, search.scratch.work_i = work_rows(1)
    res = search.search((0.5, 0.5), rooms.polygons_at((0.5, 0.5)), (7.5, 4.5), rooms.polygons_at((7.5, 4.5)))
    big = _search(rooms, (0.5, 0.5), (7.5, 4.5), 10_000)
    assert res.found and res.points == big.points and res.cost == big.cost
    assert search.scratch.work_f.shape[0] >= 2 and search.scratch.stamp[1] == search.scratch.work_f.shape[0]


@settings(max_examples=40, deadline=None)
@given(
    arrays(bool, st.tuples(st.integers(2, 9), st.integers(2, 9)), elements=st.booleans()),
    st.integers(0, 2**32 - 1),
)
def test_search_cost_is_the_visibility_graph_length(blocked: np.ndarray, seed: int) -> None:
    """Between random cell centres of random grids, the search's cost is the exact any-angle length (an
    independent visibility graph with networkx), and equals the length of its own turning points."""
    if blocked.all():
        return
    grid = GridMap(blocked)
    q = NavMeshQuery(bake_grid(grid))
    vg = VisibilityGraph(grid_free_geometry(grid), snap=1.0)
    free = np.argwhere(~blocked)  # (y, x)
    rng = np.random.default_rng(seed)
    search = Polyanya(q.mesh)
    for _ in range(4):
        (sy, sx), (gy, gx) = free[rng.integers(len(free), size=2)]
        s, g = (sx + 0.5, sy + 0.5), (gx + 0.5, gy + 0.5)
        res = search.search(s, q.polygons_at(s), g, q.polygons_at(g))
        exact = vg.length(s, g)
        if not math.isfinite(exact):
            assert not res.found or q.mesh.islands[res.corridor[0]] == q.mesh.islands[res.corridor[-1]]
            continue
        if not res.found:  # the mesh and the visibility graph must agree on what is connected
            assert q.mesh.islands[q.polygon_at(s)] != q.mesh.islands[q.polygon_at(g)]
            continue
        assert abs(res.cost - exact) <= 1e-9, (s, g, res.cost, exact)
        assert res.cost == pytest.approx(polyline_length([p[:2] for p in res.points]), abs=1e-12)
