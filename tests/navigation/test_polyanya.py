"""Polyanya's result object: the path, its cost, and why there is none (no path, or the node budget)."""

from __future__ import annotations

import math

import pytest

from navigation.funnel import polyline_length
from navigation.grid_bake import bake_grid
from navigation.movingai import parse_map
from navigation.polyanya import Polyanya, SearchResult
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
