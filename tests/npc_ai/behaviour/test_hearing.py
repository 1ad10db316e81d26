"""Sounds carry: noises are heard in the open within hearing range x loudness, through walls within a share
of it (one ray batch), and a shot sends an ally who hears it to investigate where it was fired.

The range scene: an NPC ("guard") at the origin facing +X; a wall at x = 3.5..4.5, y = 1..12, 3 m high."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npc_ai.behaviour import BehaviourSettings, Noise
from npc_ai.behaviour.hearing import audible, listen
from scenes import NpcSpawn
from tests.npc_ai.sim_helpers import bake, events, range_scene, simulation

DEFAULTS = BehaviourSettings()


@settings(max_examples=80, deadline=None)
@given(
    d=st.floats(0.0, 60.0).filter(lambda x: x == 0.0 or x > 1e-6),
    loud=st.floats(0.0, 5.0),
    factor=st.floats(0.0, 1.0),
)
def test_a_wall_never_lets_a_noise_carry_farther(d, loud, factor) -> None:
    listener, noise = np.zeros((1, 3)), np.array([[d, 0.0, 0.0]])
    rng, f = np.array([12.0]), np.array([factor])
    open_air = audible(listener, noise, np.array([loud]), rng, np.array([[False]]), f)[0, 0]
    walled = audible(listener, noise, np.array([loud]), rng, np.array([[True]]), f)[0, 0]
    assert open_air == (loud > 0 and d <= 12.0 * loud)
    assert walled == (loud > 0 and d <= 12.0 * loud * factor)
    assert open_air or not walled


@pytest.fixture(scope="module")
def range_world():
    scene = range_scene()
    return scene, bake(scene)


def farthest_heard(sim, bearing_deg: float, loudness: float, distances) -> tuple[float, list[bool]]:
    """The farthest of `distances` [m] along `bearing_deg` from the guard at which a noise of `loudness` is
    heard, through the simulation's own hearing (`listen`: the open test and the wall rays), and for each
    heard one whether it came through a wall."""
    b, heard, walls = sim.behaviour, [], []

    def spy(i, noise, *, occluded=False):
        heard.append(float(np.hypot(*noise.position[:2])))
        walls.append(occluded)

    b.hear = spy
    a = math.radians(bearing_deg)
    for d in distances:
        listen(
            sim.world, b, [Noise(np.array([d * math.cos(a), d * math.sin(a), 0.0]), loudness, "test", 0.0)]
        )
    return max(heard, default=0.0), walls


def test_a_shot_behind_a_wall_is_heard_at_a_shorter_range_than_in_the_open() -> None:
    hearing = 6.0  # [m] a guard that hears a shot (loudness 3) within 18 m in the open: inside the floor
    scene = range_scene(hearing_range=hearing)
    shot = DEFAULTS.shot_loudness
    distances = np.arange(2.0, 19.01, 0.25)
    with simulation(scene, bake(scene), player=None) as sim:
        # south-east: open floor; north-east through (4, 5): the wall stands between from 7.2 m on
        open_air, open_walls = farthest_heard(sim, -51.0, shot, distances)
        behind, walled = farthest_heard(sim, 51.0, shot, distances[distances >= 7.5])
    assert open_air == pytest.approx(hearing * shot, abs=0.25) and not any(open_walls)
    assert walled and all(walled)
    attenuation = behind / open_air  # measured: the reach through the wall over the reach in the open
    assert behind < open_air
    assert attenuation == pytest.approx(DEFAULTS.occluded_hearing_factor, abs=0.03)


def test_an_ally_who_hears_a_shot_investigates_where_it_was_fired(range_world) -> None:
    mesh = range_world[1]
    # a second guard 7 m west of the first, facing away (west): it cannot see the player east of them both;
    # no radio alerts, so the shot is its only news
    scene = range_scene(alert_radius=0.0).with_npcs(
        NpcSpawn(position=(-7.0, 0.0, 0.0), yaw_deg=180.0, name="ally", archetype="guard")
    )
    with simulation(scene, mesh, player=(8.0, -1.0)) as sim:
        sim.run(4.0)
        shots = [e for e in events(sim) if e.event == "shoot"]
        assert shots, "the first guard shoots at the player it sees"
        ally = events(sim, "ally")
        heard = next(e for e in ally if e.event == "heard")
        assert heard.data["source"] == "guard" and heard.data["occluded"] is False
        assert heard.t == pytest.approx(shots[0].t, abs=2 / 60 + 1e-9)  # the next perceive phase
        investigate = next(e for e in ally if e.event == "investigate")
        assert investigate.data["source"] == "hearing"
        assert investigate.data["target"] == pytest.approx(shots[0].data["position"], abs=0.05)
        assert not any(e.event == "spotted" for e in ally if e.t <= investigate.t)


def test_footsteps_are_louder_when_running() -> None:
    from npc_ai.sim.player import PlayerSettings

    s = PlayerSettings(speed=2.0, run_speed=4.0, footstep_loudness=0.6, footstep_speed=1.0)
    assert s.footstep_loudness_at(4.0) == pytest.approx(0.6)
    assert s.footstep_loudness_at(2.0) == pytest.approx(0.3)
    assert s.footstep_loudness_at(1.0) == 0.0 and s.footstep_loudness_at(0.5) == 0.0


def test_a_row_after_the_player_ignores_its_allies_noises_but_not_the_players(range_world) -> None:
    """An ally's shot marks where the ally stands: a calm row goes to see (above), but one already after the
    player keeps the player's last known position instead of running to the shooter."""
    from npc_ai.behaviour import states
    from npc_ai.behaviour.batch import SOURCES
    from npc_ai.behaviour.table import CHASE, STATE_NAMES

    mesh = range_world[1]
    scene = range_scene(alert_radius=0.0).with_npcs(
        NpcSpawn(position=(-7.0, 0.0, 0.0), yaw_deg=180.0, name="ally", archetype="guard")
    )
    with simulation(scene, mesh, player=None) as sim:
        b = sim.behaviour
        guard, ally = b.names.index("guard"), b.names.index("ally")
        seen = np.array([-9.0, 2.0, 0.0])
        b.remember(ally, seen, 0.0, SOURCES.index("sight"))
        states.enter(b, ally, CHASE)
        shot = Noise(np.array([0.0, 0.0, 0.0]), 3.0, "guard", 0.1)  # the guard's shot, 7 m away
        b.hear(ally, shot)
        assert not b.hearing[ally] and b.heard[ally] is None
        np.testing.assert_array_equal(b.memory_position[ally], seen)  # still where the player was seen
        b.hear(guard, Noise(np.array([-7.0, 0.0, 0.0]), 3.0, "ally", 0.1))  # calm (home state): it listens
        assert b.hearing[guard] and STATE_NAMES[int(b.state[guard])] in ("wander", "patrol")
        step = Noise(np.array([-6.0, 1.0, 0.0]), 1.0, "player", 0.2)  # the player's own noise still counts
        b.hear(ally, step)
        assert b.hearing[ally]
        np.testing.assert_array_equal(b.memory_position[ally], step.position)
        sim.step()  # the event log is read after a tick
        heard = [e for e in sim.events if e.event == "heard"]
        assert [(e.data["npc"], e.data["source"]) for e in heard] == [("guard", "ally"), ("ally", "player")]
