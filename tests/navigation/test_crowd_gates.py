"""One-way gates (navigation.crowd_gates): which passages are gates, and who goes through them first."""

from __future__ import annotations

import numpy as np
import pytest

from navigation.crowd_gates import (
    GAP_MARGIN,
    HOLD,
    HOLD_DEPTH,
    MAX_GREEN,
    OUT_MARGIN,
    REACH,
    TAIL_SLACK,
    Gates,
    find_gates,
    gate_rows,
)
from navigation.navmesh import build_navmesh

# two 10 x 4 m rooms (each in three strips) joined by a doorway 0.8 m wide and 1 m deep at x = 5
_XS = (0.0, 4.6, 5.4, 10.0)
SOUTH, DOOR, NORTH = 1, 3, 5  # the polygons on the doorway's axis (south middle strip, doorway, north)


def _two_rooms() -> tuple[np.ndarray, list[list[int]]]:
    v: list[tuple[float, float]] = []
    for y in (0.0, 4.0, 5.0, 9.0):
        v.extend((x, y) for x in _XS)

    def at(ix: int, iy: int) -> int:
        return 4 * iy + ix

    polys = [[at(i, 0), at(i + 1, 0), at(i + 1, 1), at(i, 1)] for i in range(3)]  # south: 0, 1, 2
    polys.append([at(1, 1), at(2, 1), at(2, 2), at(1, 2)])  # the doorway: 3
    polys.append([at(0, 2), at(1, 2), at(1, 3), at(0, 3)])  # north: 4, 5, 6
    polys.append([at(1, 2), at(2, 2), at(2, 3), at(1, 3)])
    polys.append([at(2, 2), at(3, 2), at(3, 3), at(2, 3)])
    return np.array(v, dtype=np.float64), polys


@pytest.fixture(scope="module")
def gates() -> Gates:
    v, polys = _two_rooms()
    return find_gates(build_navmesh(v, polys), 1.2)


def test_a_doorway_narrower_than_the_width_is_one_gate(gates: Gates) -> None:
    assert gates.count == 1
    assert gates.centre[0] == pytest.approx((5.0, 4.5))
    assert abs(gates.axis[0, 1]) == pytest.approx(1.0)  # across the wall
    assert gates.half[0, 0] == pytest.approx(0.4)  # half the doorway's width
    pairs = {tuple(sorted(p[1:])) for p in gates.pairs.tolist()}
    assert pairs == {(SOUTH, DOOR), (DOOR, NORTH)}  # both of its portals, merged


@pytest.mark.parametrize("width", [0.0, 0.8, 0.5])
def test_no_gate_where_the_passage_is_not_narrower(width: float) -> None:
    v, polys = _two_rooms()
    assert find_gates(build_navmesh(v, polys), width).count == 0  # the 4 m portals inside rooms never are


def _tick(gates: Gates, pos, pref, corridors, owner, green, dt=0.05, poly=None, dest=None):  # type: ignore[no-untyped-def]
    """One `gate_rows` tick; `dest`: the agents' destinations (default: all at the gate's centre, so that
    none has a longer way left than another)."""
    n = len(pos)
    destination = np.zeros((n, 3))
    destination[:, :2] = gates.centre[0] if dest is None else dest
    positions = np.array([(x, y, 0.0) for x, y in pos])
    pref = np.array(pref, dtype=np.float64)
    width = max(len(c) for c in corridors)
    corr = np.full((n, width), -1, np.int64)
    for i, c in enumerate(corridors):
        corr[i, : len(c)] = c
    prio = np.ones(n)
    held = np.zeros(n, bool)
    gate_rows(
        dt, positions, pref, np.full(n, 0.4), np.full(n, 1.4), np.ones(n, bool), np.ones(n, bool), corr,
        np.array([len(c) for c in corridors]), np.zeros(n, np.int64) if poly is None else np.array(poly),
        gates.centre, gates.axis, gates.half,
        gates.pairs, owner, green, REACH, HOLD, MAX_GREEN, 0.25, 4.0, prio, held, np.zeros(n, np.int64),
        np.zeros(n, np.int64), np.zeros(n, bool), destination,
    )  # fmt: skip
    return pref, prio, held


def test_the_nearer_side_goes_first_and_the_other_waits_clear_of_the_mouth(gates: Gates) -> None:
    owner, green = np.zeros(1, np.int64), np.zeros(1)
    # a goes north from 2.5 m south of the doorway's centre, b south from HOLD + 0.5 m north of it
    b_out = HOLD + 0.5
    assert b_out < REACH
    pos = [(5.0, 2.0), (5.0, 4.5 + b_out)]
    corridors = [[SOUTH, DOOR, NORTH], [NORTH, DOOR, SOUTH]]
    pref, prio, held = _tick(gates, pos, [(0.0, 1.4), (0.0, -1.4)], corridors, owner, green)
    assert owner[0] == (1 if gates.axis[0, 1] > 0 else -1)  # a's way
    assert held.tolist() == [False, True]
    assert prio.tolist() == [4.0, 0.25]  # a, next in, pushes; b yields
    assert pref[0] == pytest.approx((0.0, 1.4))  # a as it was
    # b, 0.5 m beyond the hold circle, may close only to it within half a second: 1 m/s
    assert pref[1] == pytest.approx((0.0, -(b_out - HOLD) / 0.5))
    # too near: b backs off to the hold circle
    pref, _, held = _tick(gates, [(5.0, 2.0), (5.0, 6.5)], [(0.0, 1.4), (0.0, -1.4)], corridors, owner, green)
    assert held[1] and pref[1, 1] > 0.0
    # a is through (its corridor no longer crosses the doorway): the gate is b's
    through = [[NORTH], corridors[1]]
    go = [(0.0, 1.4), (0.0, -1.4)]
    pref, prio, held = _tick(gates, [(5.0, 8.5), (5.0, 7.5)], go, through, owner, green)
    assert owner[0] == -(1 if gates.axis[0, 1] > 0 else -1)
    assert not held.any()
    assert pref[1] == pytest.approx((0.0, -1.4))


def test_an_agent_whose_path_does_not_cross_is_left_alone(gates: Gates) -> None:
    owner, green = np.zeros(1, np.int64), np.zeros(1)
    pref, prio, held = _tick(gates, [(3.0, 2.0)], [(1.4, 0.0)], [[0, SOUTH, 2]], owner, green)
    assert owner[0] == 0 and not held.any() and prio[0] == 1.0 and pref[0] == pytest.approx((1.4, 0.0))


def test_an_agent_through_the_gate_pushes_past_those_waiting_and_does_not_hold_it(gates: Gates) -> None:
    """a came through northward (its corridor behind it crosses the doorway) and is 2.5 m beyond the
    centre, among those waiting there: it keeps the priority to push through them (they waited on its way
    out, and on its goal), but the gate is no longer its side's: b, waiting to go south, gets it."""
    owner, green = np.zeros(1, np.int64), np.zeros(1)
    north = 1 if gates.axis[0, 1] > 0 else -1
    owner[0] = north
    corridors = [[SOUTH, DOOR, NORTH], [NORTH, DOOR, SOUTH]]
    go = [(0.3, 1.4), (0.0, -1.4)]
    pref, prio, held = _tick(gates, [(5.0, 7.0), (4.0, 8.0)], go, corridors, owner, green, poly=[2, 0])
    assert prio[0] == 4.0 and not held[0]
    assert pref[0] == pytest.approx(go[0])  # its way, as it was
    assert owner[0] == -north and not held[1]  # b's turn
    # farther out than the hold circle plus OUT_MARGIN: an ordinary mover again
    far = 4.5 + HOLD + OUT_MARGIN + 0.1
    _, prio, _ = _tick(gates, [(5.0, far), (4.0, 8.0)], go, corridors, owner, green, poly=[2, 0])
    assert prio[0] == 1.0


@pytest.mark.parametrize("y, holds", [(4.3, True), (4.49, True), (4.6, False), (5.2, False)])
def test_an_agent_in_the_passage_holds_the_gate_until_it_is_past_the_middle(
    gates: Gates, y: float, holds: bool
) -> None:
    """a, in the doorway going north, keeps the gate its side's while it is short of the passage's middle
    (y = 4.5); past it, it is on its way out (it still pushes, priority 4) and b, waiting north of the
    doorway to go south, gets the gate at once instead of after a has left the passage's zone."""
    owner, green = np.zeros(1, np.int64), np.zeros(1)
    north = 1 if gates.axis[0, 1] > 0 else -1
    owner[0] = north
    corridors = [[SOUTH, DOOR, NORTH], [NORTH, DOOR, SOUTH]]
    go = [(0.0, 1.4), (0.0, -1.4)]
    _, prio, held = _tick(gates, [(5.0, y), (5.0, 8.0)], go, corridors, owner, green, poly=[1, 0])
    assert prio[0] == 4.0 and not held[0]
    assert owner[0] == (north if holds else -north)
    assert held[1] == holds


@pytest.mark.parametrize("out, waiting, keeps", [(0.3, True, False), (-0.3, True, True), (0.3, False, True)])
def test_a_side_with_no_agent_near_the_gate_gives_it_to_those_waiting(
    gates: Gates, out: float, waiting: bool, keeps: bool
) -> None:
    """The gate is a's side's, but a is still `out` metres beyond the hold circle plus `GAP_MARGIN` (walking
    up, or pushed back along the approach) while b waits at the hold circle on the other side: the gate is
    b's at once (gap-out), not after `MAX_GREEN`. Within that distance, or with nobody waiting, a's side
    keeps it."""
    owner, green = np.zeros(1, np.int64), np.zeros(1)
    north = 1 if gates.axis[0, 1] > 0 else -1
    owner[0] = north
    a = (5.0, 4.5 - (HOLD + GAP_MARGIN + out))
    pos, go, corridors = [a], [(0.0, 1.4)], [[SOUTH, DOOR, NORTH]]
    if waiting:
        pos.append((5.0, 4.5 + HOLD))
        go.append((0.0, -1.4))
        corridors.append([NORTH, DOOR, SOUTH])
    _, _, held = _tick(gates, pos, go, corridors, owner, green)
    assert owner[0] == (north if keeps else -north)
    assert held[0] == (not keeps)  # a waits its turn now


@pytest.mark.parametrize("beyond_b, b_held", [(5.0, True), (7.0, False)])
def test_of_those_waiting_for_the_turn_the_longest_ways_left_go_first(
    gates: Gates, beyond_b: float, b_held: bool
) -> None:
    """a and b both wait south of the doorway to go north, 3.2 m from its centre; a's destination is 10 m
    beyond the centre, b's `beyond_b`. More than `TAIL_SLACK` shorter, b's way waits (held, yielding) and a
    goes first: a schedule that sends the long ways last finishes later (`npc-ai bench crowd` doorway).
    Within the slack both go. c, nearer than the hold circle, is on its way in whatever its way left."""
    owner, green = np.zeros(1, np.int64), np.zeros(1)
    north = 1 if gates.axis[0, 1] > 0 else -1
    owner[0] = north
    r = HOLD + 0.2
    pos = [(5.0 - 0.6, 4.5 - r), (5.0 + 0.6, 4.5 - r), (5.0, 4.5 - HOLD + 1.0)]
    dest = [(5.0, 4.5 + 10.0), (5.0, 4.5 + beyond_b), (5.0, 4.5 + 1.0)]
    assert (10.0 - beyond_b > TAIL_SLACK) == b_held
    go = [(0.0, 1.4)] * 3
    corridors = [[SOUTH, DOOR, NORTH]] * 3
    pref, prio, held = _tick(gates, pos, go, corridors, owner, green, dest=dest)
    assert owner[0] == north
    assert held.tolist() == [False, b_held, False]
    assert prio[1] == (0.25 if b_held else 1.0)
    assert prio[2] == 4.0  # c, the nearest, is the next one in
    if b_held:  # it may close on the centre only to the hold circle within half a second
        out = np.subtract(pos[1], gates.centre[0])
        dist = np.hypot(*out)
        assert -pref[1] @ (out / dist) == pytest.approx((dist - HOLD) / 0.5)


@pytest.mark.parametrize("gate_is_bs", [False, True])
def test_a_held_agent_waits_off_the_wall_beside_the_mouth(gates: Gates, gate_is_bs: bool) -> None:
    """b walks to the doorway along the wall north of it (1.2 m out from the line of its portals, 4.9 m to
    the side) while a, south of it, has the gate: b ends on the hold circle at least `HOLD_DEPTH` out from
    that line, off the wall where the goals nearest it lie and those coming out walk to them. With the gate
    b's, the same walk goes straight in."""
    owner, green = np.zeros(1, np.int64), np.zeros(1)
    north = 1 if gates.axis[0, 1] > 0 else -1
    owner[0] = -north if gate_is_bs else north
    centre = gates.centre[0]
    b = np.array((centre[0] + 4.9, centre[1] + 1.2))
    corridors = [[SOUTH, DOOR, NORTH], [NORTH, DOOR, SOUTH]]
    a = (5.0, 2.0) if not gate_is_bs else (5.0, 0.2)  # queued on its side (within REACH), or not near
    dt = 0.05
    for _ in range(100):
        to_centre = centre - b
        go_b = 1.4 * to_centre / np.hypot(*to_centre) if np.hypot(*to_centre) > 0.5 else np.zeros(2)
        pref, _, held = _tick(gates, [a, tuple(b)], [(0.0, 1.4), tuple(go_b)], corridors, owner, green, dt=dt)
        b = b + dt * pref[1]
        if gate_is_bs and abs(b[1] - centre[1]) < 0.5:
            break
    depth = abs(b[1] - centre[1])
    if gate_is_bs:
        assert not held[1] and depth < 0.5  # it went in
    else:
        assert held[1]
        assert depth >= HOLD_DEPTH - 0.01
        assert np.hypot(*(b - centre)) >= HOLD - 0.01
