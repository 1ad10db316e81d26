"""`Simulation.control`: one NPC driven by your own controller instead of its state machine."""

from __future__ import annotations

import math

import numpy as np
import pytest

from npc_ai.levels import load_level
from npc_ai.sim.player import PlayerSettings
from npc_ai.sim.simulation import Simulation, SimulationError, SimulationSettings


@pytest.fixture(scope="module")
def scene():
    return load_level("arena")


def make(scene, seed: int = 3) -> Simulation:
    settings = SimulationSettings(npcs=2, player=PlayerSettings(mode="still"), trail_every=0)
    return Simulation(scene, seed=seed, settings=settings)


def test_a_controlled_npc_follows_its_controller_and_skips_its_state_machine(scene) -> None:
    calls: list[float] = []

    def north(npc, time):
        calls.append(time)
        npc.walk(1.0, math.pi / 2)

    with make(scene) as sim:
        npc = sim.npcs[0]
        sim.control(npc.name, north)
        state = npc.state
        start = npc.position.copy()
        sim.run(1.0)
        assert len(calls) == 60
        assert calls[0] == pytest.approx(1 / 60)
        assert npc.state == state  # the state machine never ran
        assert abs(math.remainder(npc.yaw - math.pi / 2, 2 * math.pi)) < 0.05
        assert npc.position[1] - start[1] > 0.3  # walked north


def test_a_controlled_wanderer_gets_no_obstacle_probes(scene) -> None:
    """The probes serve the Wander state, which the controller replaces: none are cast for it."""
    wanted, probed = [], []

    def walk(npc, time):
        npc.speed_param = 1.0  # looks like a moving wanderer to `wants_probe`
        wanted.append(npc.wants_probe())
        npc.walk(1.0, None)

    with make(scene) as sim:
        npc = sim.npcs[1]
        assert npc.state == "wander"
        probes = sim.behaviour.probes

        def spy(rows, *a):
            probed.extend(rows.tolist())
            return probes(rows, *a)

        sim.behaviour.probes = spy  # type: ignore[method-assign]
        sim.behaviour.wander_speed[1] = npc.settings.walk_speed  # walking: its timer fires
        sim.run(0.5)
        assert 1 in probed  # a wandering NPC of its own is probed...
        probed.clear()
        sim.control(1, walk)
        sim.run(0.5)
        assert any(wanted) and 1 not in probed  # ...a controlled one is not


def test_giving_the_npc_back_resumes_its_state_machine(scene) -> None:
    with make(scene) as sim:
        sim.control(0, lambda npc, t: npc.walk(0.0, None))
        sim.run(0.2)
        sim.control(0, None)
        before = dict(sim.npcs[0].state_time)
        sim.run(0.2)
        assert sum(sim.npcs[0].state_time.values()) > sum(before.values())


def test_the_other_npcs_are_unchanged_by_an_idle_controller_of_another(scene) -> None:
    """Controlling NPC 0 must not change NPC 1's own random stream or decisions while 0 stands still."""
    with make(scene) as a, make(scene) as b:
        a.control(0, lambda npc, t: npc.walk(0.0, None))
        b.control(0, lambda npc, t: npc.walk(0.0, None))
        a.run(1.0)
        b.run(1.0)
        assert np.array_equal(a.npcs[1].position, b.npcs[1].position)


@pytest.mark.parametrize(
    "npc, controller, message",
    [
        ("nobody", lambda n, t: None, "no NPC named 'nobody'"),
        (5, lambda n, t: None, r"NPC index must be an integer in 0\.\.1"),
        (-1, lambda n, t: None, "NPC index"),
        (True, lambda n, t: None, "NPC index"),
        (0, "not callable", "must be callable"),
    ],
)
def test_bad_control_requests_raise(scene, npc, controller, message) -> None:
    with make(scene) as sim, pytest.raises(SimulationError, match=message):
        sim.control(npc, controller)
