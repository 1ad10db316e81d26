"""The scripted player: route following, hiding from watchers, keyboard mode without a GUI, settings."""

from __future__ import annotations

import numpy as np
import pytest

from npc_ai.behaviour.perception import eye_rays
from npc_ai.sim.player import PlayerSettings, PlayerSettingsError
from npc_ai.sim.simulation import Simulation, SimulationSettings
from scenes import groups, load_scene


def test_route_player_walks_its_scene_route() -> None:
    scene = load_scene("arena")
    settings = SimulationSettings(npcs=0, player=PlayerSettings(mode="route", footstep_loudness=0.0))
    with Simulation(scene, seed=0, settings=settings) as sim:
        p = sim.player
        assert p is not None
        route = np.array(scene.player.route)  # type: ignore[union-attr]
        closest = np.full(len(route), np.inf)
        for _ in range(int(40 / sim.dt)):
            sim.step()
            closest = np.minimum(closest, np.hypot(*(route[:, :2] - p.position[:2]).T))
        assert (closest < 0.5).all()


def test_wander_player_finds_cover_hidden_from_the_watchers() -> None:
    with Simulation(load_scene("warehouse"), seed=4, settings=SimulationSettings(npcs=0)) as sim:
        p = sim.player
        assert p is not None
        p.warp((0.0, -9.5, 0.0))  # in the aisle between two shelf rows
        watcher = np.array([[-15.0, -9.5, 1.6]])  # looking down the aisle
        cover = p._find_cover(watcher)
        assert cover is not None
        start, end = eye_rays(watcher, (cover + [0.0, 0.0, p.settings.aim_height])[None], 0.6)
        assert sim.world.ray_test(start, end, mask=groups.STATIC).hit[0]  # a shelf is in the way
        assert np.hypot(*(cover[:2] - p.position[:2])) <= p.settings.hide_radius


def test_a_search_that_finds_no_cover_waits_hide_retry_s_before_the_next() -> None:
    settings = SimulationSettings(npcs=0, player=PlayerSettings(hide_radius=0.01, hide_retry_s=0.5))
    with Simulation(load_scene("warehouse"), seed=4, settings=settings) as sim:
        p = sim.player
        assert p is not None
        searches: list[float] = []
        find = p._find_cover

        def counted(watchers: np.ndarray) -> np.ndarray | None:
            searches.append(sim.time)
            return find(watchers)

        p._find_cover = counted  # type: ignore[method-assign]
        watcher = np.array([[-15.0, -9.5, 1.6]])
        for k in range(120):  # 2 s, watched all the time, no cover within 1 cm
            p.decide(k * sim.dt, watcher)
        assert len(searches) == 4 and p.hides == 0  # at 0, 0.5, 1.0 and 1.5 s: not 120 ray batches


def test_keyboard_mode_without_a_gui_stands_still() -> None:
    settings = SimulationSettings(npcs=0, player=PlayerSettings(mode="keyboard"))
    with Simulation(load_scene("arena"), seed=0, settings=settings) as sim:
        start = sim.player.position  # type: ignore[union-attr]
        sim.run(0.5)
        assert np.hypot(*(sim.player.position - start)[:2]) < 0.01  # type: ignore[union-attr]


def test_footsteps_are_noises() -> None:
    settings = SimulationSettings(npcs=0, player=PlayerSettings(mode="route", speed=3.0, footstep_speed=2.0))
    with Simulation(load_scene("arena"), seed=0, settings=settings) as sim:
        sim.run(4.0)
        noises = sim.events.of("noise")
        assert len(noises) >= 4 and all(e.data["source"] == "player" for e in noises)
        assert np.diff([e.t for e in noises]).min() >= 0.5 - 1e-9


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"mode": "fly"}, "player mode must be one of route, wander, still, keyboard"),
        ({"speed": 0.0}, "speed must be a positive number"),
        ({"speed": 3.0, "run_speed": 2.0}, "run_speed must be >= speed"),
        ({"hide_candidates": 0}, "hide_candidates must be an integer >= 1"),
        ({"hide_retry_s": 0.0}, "hide_retry_s must be a positive number"),
        ({"footstep_loudness": -1.0}, "footstep_loudness must be a number >= 0"),
    ],
)
def test_bad_player_settings(kwargs, message) -> None:
    with pytest.raises(PlayerSettingsError, match=message):
        PlayerSettings(**kwargs)
