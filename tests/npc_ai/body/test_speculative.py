"""Speculative contacts of the dynamic NPC capsules: `speculate` is an inelastic contact of equal masses
applied before the step, and two NPCs running into each other stop at the touch."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npc_ai.body import speculative
from npc_ai.body.speculative import speculate
from npc_ai.sim import Simulation, SimulationSettings
from scenes import NpcSpawn, parse_scene

DT = 1.0 / 60.0
R = 0.4
NONE = (np.zeros((0, 2)), np.zeros(0))


def closing(feet: np.ndarray, v: np.ndarray, i: int, j: int) -> tuple[float, float]:
    """(closing speed of i and j [m/s], their gap [m])."""
    e = feet[j, :2] - feet[i, :2]
    d = float(np.hypot(*e))
    return float((v[i, :2] - v[j, :2]) @ e / d), d - 2 * R


def test_two_runners_head_on_close_their_gap_exactly_and_keep_their_momentum() -> None:
    feet = np.array([[0.0, 0.0, 0.0], [0.9, 0.0, 0.0]])  # 10 cm apart
    v = np.array([[3.56, 0.5, -0.2], [-3.56, 0.0, 0.0]])
    before = v.copy()
    assert speculate(feet, v, R, DT, *NONE, 4) == 1
    c, gap = closing(feet, v, 0, 1)
    assert c == pytest.approx(gap / DT, abs=1e-9)  # they touch at the end of the tick, no deeper
    np.testing.assert_allclose(v.sum(axis=0), before.sum(axis=0), atol=1e-12)  # momentum kept
    np.testing.assert_array_equal(v[:, 1:], before[:, 1:])  # sideways and vertical parts kept


def test_one_running_into_anothers_back_pushes_it_along() -> None:
    feet = np.array([[0.0, 0.0, 0.0], [0.8, 0.0, 0.0]])  # touching
    v = np.array([[3.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    speculate(feet, v, R, DT, *NONE, 4)
    np.testing.assert_allclose(v[:, 0], [2.0, 2.0])  # as an inelastic contact of equal masses


def test_moving_apart_or_sideways_is_left_alone() -> None:
    feet = np.array([[0.0, 0.0, 0.0], [0.8, 0.0, 0.0], [5.0, 0.0, 0.0]])
    v = np.array([[-1.0, 2.0, 0.0], [1.0, -2.0, 0.0], [-3.0, 0.0, 0.0]])  # the third is 4.2 m off
    before = v.copy()
    assert speculate(feet, v, R, DT, *NONE, 4) == 0
    np.testing.assert_array_equal(v, before)


def test_a_body_closing_on_a_fixed_circle_stops_at_it() -> None:
    feet = np.array([[0.0, 0.0, 0.0]])
    v = np.array([[3.56, 1.0, 0.0]])
    speculate(feet, v, R, DT, np.array([[0.0 + 0.4 + 0.35 + 0.02, 0.0]]), np.array([0.35]), 4)
    assert v[0, 0] == pytest.approx(0.02 / DT) and v[0, 1] == 1.0


positions = st.lists(st.tuples(st.floats(-2.0, 2.0), st.floats(-2.0, 2.0)), min_size=2, max_size=10)
velocity = st.tuples(st.floats(-4.0, 4.0), st.floats(-4.0, 4.0))


@settings(max_examples=150, deadline=None)
@given(positions, st.lists(velocity, min_size=10, max_size=10))
def test_a_crowd_keeps_its_momentum_loses_energy_and_ends_apart(
    xy: list[tuple[float, float]], vs: list[tuple[float, float]]
) -> None:
    """Random circles (overlapping ones too): the sum of velocities is kept, the kinetic energy never
    grows (contacts only take energy away), and with enough sweeps no pair closes more than its gap."""
    n = len(xy)
    feet = np.zeros((n, 3))
    feet[:, :2] = xy
    v = np.zeros((n, 3))
    v[:, :2] = vs[:n]
    v[:, 2] = -0.5
    before = v.copy()
    speculate(feet, v, R, DT, *NONE, 2000)
    np.testing.assert_allclose(v.sum(axis=0), before.sum(axis=0), atol=1e-9)
    assert (v**2).sum() <= (before**2).sum() + 1e-9
    for i, j in itertools.combinations(range(n), 2):
        if np.hypot(*(feet[i, :2] - feet[j, :2])) < 1e-6:
            continue  # coincident: no line between them to close along
        c, gap = closing(feet, v, i, j)
        assert c <= max(gap, 0.0) / DT + 1e-3


FLOOR = """
[scene]
name = "floor"
[floor]
size = [30.0, 10.0]
[navmesh]
agent_radius = 0.4
agent_height = 1.8
max_climb = 0.4
max_slope_deg = 45.0
cell_size = 0.1
cell_height = 0.1
"""


def _head_on_closest(x: float) -> float:
    """Two NPCs at -x and x [m] sent at run speed through each other's start, no avoidance: the smallest gap
    between their capsules over 3 s [m] (< 0: one inside the other)."""
    spawns = (
        NpcSpawn(position=(-x, 0.0, 0.0), yaw_deg=0.0),
        NpcSpawn(position=(x, 0.0, 0.0), yaw_deg=180.0),
    )
    scene = parse_scene(FLOOR).with_npcs(*spawns, keep_existing=False)
    with Simulation(scene, settings=SimulationSettings(npcs=2, player=None, trail_every=0)) as sim:
        goals = [np.array([x, 0.0, 0.0]), np.array([-x, 0.0, 0.0])]
        sent = [False, False]

        def go(k: int) -> Callable[[object, float], None]:
            def control(npc: object, time: float) -> None:
                if not sent[k]:
                    npc.go_to(goals[k], npc.settings.run_speed)  # type: ignore[attr-defined]
                    sent[k] = True

            return control

        for k in range(2):
            sim.control(k, go(k))
        closest = math.inf
        for _ in range(180):
            sim.step()
            feet = sim.locomotion.positions
            closest = min(closest, float(np.hypot(*(feet[0, :2] - feet[1, :2]))) - 2 * sim.locomotion.radius)
        return closest


STARTS = (5.0, 6.0)  # [m] two distances: how deep they get depends on the gap left a tick before the touch


def test_two_npcs_running_into_each_other_stop_at_the_touch() -> None:
    assert min(_head_on_closest(x) for x in STARTS) > -0.01


def test_without_speculative_contacts_they_run_into_each_other(monkeypatch: pytest.MonkeyPatch) -> None:
    """The control: Bullet's own contact comes a step late at running speeds."""
    monkeypatch.setattr(speculative, "speculate", lambda *args: 0)
    assert min(_head_on_closest(x) for x in STARTS) < -0.02
