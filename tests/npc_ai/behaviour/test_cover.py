"""Cover: a guard with `cover` that the player shoots at runs to a navmesh point that hides it from the
shooter (no line of sight from the shooter's eye to its chest through the static level), in warehouse."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npc_ai.behaviour.cover import CHEST, under_fire
from npc_ai.sim import PlayerSettings, PlayerSettingsError, Simulation, SimulationSettings
from scenes import groups, load_scene


@settings(max_examples=60, deadline=None)
@given(
    t=st.floats(0.0, 1.0),
    off=st.floats(0.0, 5.0),
    r=st.floats(0.1, 3.0),
)
def test_under_fire_is_the_distance_from_the_chest_to_the_shot(t, off, r) -> None:
    start, end = np.array([0.0, 0.0, CHEST]), np.array([10.0, 0.0, CHEST])
    feet = np.array([[10.0 * t, off, 0.0]])  # its chest `off` beside the shot's line
    assert bool(under_fire(feet, start, end, np.array([r]))[0]) == (off <= r)
    beyond = np.array([[12.0 + off, 0.0, 0.0]])  # past the end: the distance to the end counts
    assert bool(under_fire(beyond, start, end, np.array([r]))[0]) == (2.0 + off <= r)


def shot_at(cover: bool, seed: int = 0, seconds: float = 3.0):
    """A guard in warehouse, the player 8 m ahead of it shooting at it once; per tick after the shot: the
    guard's state, and whether the static level hides its chest from the shooter's eye."""
    player = PlayerSettings(mode="still", hide=False, footstep_loudness=0.0)
    sim = Simulation(load_scene("warehouse"), seed=seed, settings=SimulationSettings(npcs=1, player=player))
    with sim:
        b, p = sim.behaviour, sim.player
        assert p is not None
        b.set_settings(0, dataclasses.replace(b.settings[0], cover=cover, cover_s=2.0))
        yaw = float(sim.locomotion.yaw[0])
        ahead = b.positions()[0] + 8.0 * np.array([np.cos(yaw), np.sin(yaw), 0.0])
        p.warp(sim.query.nearest_point(ahead).point)
        sim.run(0.3)
        p.shoot(b.positions()[0] + [0.0, 0.0, CHEST])
        fired, out = sim.time, []
        for _ in range(int(seconds / sim.dt)):
            sim.step()
            chest = b.positions()[0] + [0.0, 0.0, CHEST]
            hidden = bool(sim.world.ray_test(p.aim_point[None], chest[None], mask=groups.STATIC).hit[0])
            out.append((sim.time - fired, sim.npcs[0].state, hidden))
        evs = [e for e in sim.events if e.event in ("player-shot", "under-fire", "cover")]
        return out, evs


@pytest.mark.parametrize("seed", [0, 1])
def test_a_guard_under_fire_reaches_a_covered_point_within_3_s(seed) -> None:
    ticks, evs = shot_at(cover=True, seed=seed)
    assert [e.event for e in evs] == ["player-shot", "under-fire", "cover"]
    cover = evs[-1]
    assert cover.data["point"] is not None and cover.data["from"] in ("aim", "shoot", "patrol", "wander")
    hidden_at = next(t for t, state, hidden in ticks if state == "cover" and hidden)
    assert hidden_at <= 3.0
    # and it holds the point, facing the shooter, for cover_s (2 s) after it got there, then fights on
    states = [state for t, state, _ in ticks if t <= hidden_at + 1.5]
    assert states[-1] == "cover"


def test_a_guard_without_cover_stands_its_ground() -> None:
    ticks, evs = shot_at(cover=False)
    assert [e.event for e in evs] == ["player-shot", "under-fire"]
    assert all(state != "cover" for _, state, _ in ticks)


def test_a_bad_shot_target_is_refused_and_the_player_goes_on() -> None:
    with Simulation(load_scene("arena"), seed=0, settings=SimulationSettings(npcs=1)) as sim:
        assert sim.player is not None
        for bad in ((1.0, 2.0), (np.nan, 0.0, 0.0), "there"):
            with pytest.raises(PlayerSettingsError, match="shoot"):
                sim.player.shoot(bad)
        sim.run(0.2)
        assert not [e for e in sim.events if e.event == "player-shot"]
