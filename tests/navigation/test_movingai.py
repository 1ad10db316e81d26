"""MovingAI parsing: malformed text raises MapFormatError naming the defect."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from navigation.errors import MapFormatError
from navigation.grid_bake import bake_grid
from navigation.movingai import parse_map, parse_scenarios
from navigation.query import NavMeshQuery


@pytest.mark.parametrize(
    "text, message",
    [
        ("type octile\nheight 2\nwidth 2\n", "no 'map' line"),
        ("type octile\nheight 2\nwidth 2\n..\n", "expected 'key value'"),
        ("type octile\nwidth 2\nmap\n..\n", "no 'height'"),
        ("type octile\nheight x\nwidth 2\nmap\n..\n", "positive integer"),
        ("type octile\nheight 2\nwidth 2\nmap\n..\n", "height 2 but the map has 1"),
        ("type octile\nheight 1\nwidth 2\nmap\n...\n", "width 2"),
        ("type octile\nheight 1\nwidth 2\nmap\n.x\n", "unknown map characters"),
    ],
)
def test_bad_maps(text: str, message: str) -> None:
    with pytest.raises(MapFormatError, match=message):
        parse_map(text)


@given(st.text(alphabet="type octileheightwidthmap0123456789 .@\n", max_size=80))
def test_garbage_is_either_a_map_or_a_map_format_error(text: str) -> None:
    try:
        grid = parse_map(text)
    except MapFormatError:
        return
    assert grid.blocked.shape == (grid.height, grid.width)


def test_bad_scenarios() -> None:
    with pytest.raises(MapFormatError, match="9 fields"):
        parse_scenarios("version 1\n0\tm.map\t1\t1\t0\t0\t0\n")
    with pytest.raises(MapFormatError, match="non-numeric"):
        parse_scenarios("version 1\n0\tm.map\t1\t1\ta\t0\t0\t0\t1.0\n")


def test_swamp_is_walkable_and_trees_water_and_out_of_bounds_are_not() -> None:
    # the format: '.' 'G' passable, 'S' swamp passable from regular terrain, 'T' trees impassable,
    # '@' 'O' out of bounds, 'W' water not passable from terrain
    grid = parse_map("type octile\nheight 1\nwidth 7\nmap\n.GSTW@O\n")
    assert grid.blocked[0].tolist() == [False, False, False, True, True, True, True]


@pytest.mark.parametrize("middle, status, length", [("S", "success", 4.0), ("W", "partial", 1.5)])
def test_only_a_swamp_cell_joins_two_rooms(middle: str, status: str, length: float) -> None:
    # two 2x3 rooms, the wall between them open at one cell: swamp joins them, water does not
    text = f"type octile\nheight 3\nwidth 5\nmap\n..@..\n..{middle}..\n..@..\n"
    query = NavMeshQuery(bake_grid(parse_map(text)))
    path = query.find_path((0.5, 1.5), (4.5, 1.5))
    assert path.status.value == status
    assert path.length == pytest.approx(length, abs=1e-9)
