"""Scenario tests of the enemy behaviour, each deterministic under its seed.

The range scene: an NPC at the origin facing +X (sight 15 m, half angle 60 deg, perception every 0.1 s,
standing still while wandering), a wall at x = 3.5..4.5, y = 1..12.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from npc_ai.behaviour import BehaviourSettings
from tests.npc_ai.sim_helpers import bake, events, range_scene, simulation

PERIOD = BehaviourSettings().perception_period_s


@pytest.fixture(scope="module")
def scene():
    return range_scene()


@pytest.fixture(scope="module")
def mesh(scene):
    return bake(scene)


def names(evs) -> list[str]:
    return [e.event for e in evs]


def test_player_in_cone_range_and_sight_is_aimed_at(scene, mesh) -> None:
    with simulation(scene, mesh, player=(8.0, 0.0)) as sim:
        sim.run(0.5)
        evs = events(sim)
        assert names(evs)[:3] == ["wander", "spotted", "aim"]
        spotted, aim = evs[1], evs[2]
        # within one perception period (the NPC is already standing, so the stop takes no time)
        assert aim.t <= PERIOD + sim.dt + 1e-9
        assert spotted.t == aim.t
        assert spotted.data["target"] == pytest.approx([8.0, 0.0, 0.0], abs=0.05)
        assert sim.npcs[0].state == "aim"


def test_a_walking_npc_stops_before_it_turns_to_aim(scene, mesh) -> None:
    with simulation(scene, mesh, player=(-18.0, -18.0)) as sim:
        npc, player = sim.npcs[0], sim.player
        assert player is not None
        sim.behaviour.wander_speed[npc.index] = npc.settings.walk_speed  # Wander's target speed
        sim.run(2.0)  # walking east (nothing ahead within the obstacle range)
        assert npc.locomotor.speed > 0.5 and npc.state == "wander"
        here = npc.position
        player.warp((here[0] + 7.0, here[1] - 5.0, 0.0))  # 35 deg to the right, 8.6 m
        yaw0 = npc.yaw
        turned_while_moving = False
        stopped = False
        for _ in range(180):
            sim.step()
            if npc.locomotor.speed > npc.settings.stop_speed and abs(npc.yaw - yaw0) > 1e-9:
                turned_while_moving = True
            stopped = stopped or npc.locomotor.speed <= npc.settings.stop_speed
        aim = next(e for e in events(sim) if e.event == "aim")
        assert aim.t - 2.0 <= PERIOD + 2 * sim.dt
        assert stopped and not turned_while_moving
        want = math.atan2(player.position[1] - npc.position[1], player.position[0] - npc.position[0])
        assert abs((npc.yaw - want + math.pi) % (2 * math.pi) - math.pi) < math.radians(5)


@pytest.mark.parametrize(
    "where, why",
    [
        ((8.0, 5.0), "behind the wall"),
        ((0.0, -8.0), "in range, 90 deg to the right: outside the cone"),
        ((-8.0, 0.0), "in range, behind: outside the cone"),
        ((16.0, 0.0), "in the cone, beyond the sight radius"),
    ],
)
def test_player_not_detected(scene, mesh, where, why) -> None:
    with simulation(scene, mesh, player=where) as sim:
        sim.run(3.0)
        assert "spotted" not in names(events(sim)), why
        assert sim.npcs[0].state == "wander"


def test_losing_sight_chases_the_last_seen_position_then_searches_then_wanders(scene, mesh) -> None:
    with simulation(scene, mesh, player=(7.0, -1.0)) as sim:
        npc, player = sim.npcs[0], sim.player
        assert player is not None
        player.go_to((7.0, 5.0, 0.0))  # walks north behind the wall
        lost = None
        for _ in range(600):
            sim.step()
            lost = next((e for e in events(sim) if e.event == "lost"), None)
            if lost is not None:
                break
        assert lost is not None
        player.warp((-18.0, -18.0, 0.0))  # and is gone, far out of sight
        sim.run(20.0)
        evs = events(sim)
        seq = [n for n in names(evs) if n not in ("shoot",)]
        seq = [n for i, n in enumerate(seq) if not (n == "aim" and i > 2 and seq[i - 1] == "aim")]
        assert seq == ["wander", "spotted", "aim", "lost", "chase", "arrived", "search", "gave-up", "wander"]
        by = {e.event: e for e in evs}
        chase, arrived, search, gave_up = by["chase"], by["arrived"], by["search"], by["gave-up"]
        assert chase.data["target"] == lost.data["last_known"]
        if chase.data["from"] == "aim":  # sight lost while aiming: the chase starts at once
            assert chase.t == lost.t
        else:  # sight lost during a shot: the shot completes, then the chase starts
            assert chase.data["from"] == "shoot"
            assert 0 < chase.t - lost.t <= npc.settings.shot_duration_s + sim.dt + 1e-9
        assert arrived.data["reached"] is True
        gap = np.hypot(*(np.array(arrived.data["position"][:2]) - chase.data["target"][:2]))
        assert gap < npc.radius + 0.15
        assert search.t == arrived.t
        assert gave_up.t - search.t == pytest.approx(npc.settings.search_duration_s, abs=sim.dt + 1e-9)
        assert npc.state == "wander"


def test_shoot_respects_reaction_time_and_cooldown(scene, mesh) -> None:
    with simulation(scene, mesh, player=(8.0, 0.0)) as sim:
        sim.run(5.0)
        s = sim.npcs[0].settings
        evs = events(sim)
        spotted = next(e for e in evs if e.event == "spotted")
        shots = [e for e in evs if e.event == "shoot"]
        assert shots[0].t - spotted.t == pytest.approx(s.reaction_time_s, abs=sim.dt + 1e-9)
        gaps = np.diff([e.t for e in shots])
        assert gaps == pytest.approx(np.full(len(gaps), s.shoot_cooldown_s), abs=sim.dt + 1e-9)
        expected = 1 + math.floor((5.0 - shots[0].t) / s.shoot_cooldown_s + 1e-9)
        assert len(shots) == expected
        assert all(e.data["hit"] and e.data["struck"] == "player" for e in shots)


def test_no_shot_before_the_reaction_time_when_sight_flickers(scene, mesh) -> None:
    # the player steps in and out of sight every 0.3 s: line of sight never holds for 0.5 s
    with simulation(scene, mesh, player=(8.0, 5.0)) as sim:
        player = sim.player
        assert player is not None
        for k in range(10):
            player.warp((8.0, -1.0 if k % 2 == 0 else 5.0, 0.0))
            sim.run(0.3)
        assert "shoot" not in names(events(sim))
        assert "spotted" in names(events(sim))


def test_a_noise_in_hearing_range_is_investigated(scene, mesh) -> None:
    with simulation(scene, mesh, player=None) as sim:
        npc = sim.npcs[0]
        sim.run(0.2)
        sim.emit_noise((-4.0, -5.0, 0.0), loudness=0.6)  # 6.4 m away <= 12 * 0.6: heard
        sim.run(15.0)
        evs = events(sim)
        seq = names(evs)
        assert seq[:6] == ["wander", "heard", "investigate", "arrived", "search", "gave-up"]
        inv = evs[2]
        assert inv.data["target"] == pytest.approx([-4.0, -5.0, 0.0], abs=0.05)
        assert evs[3].data["reached"] is True
        assert npc.memory is not None and npc.memory.source == "hearing"


def test_a_noise_beyond_hearing_range_is_not_heard(scene, mesh) -> None:
    with simulation(scene, mesh, player=None) as sim:
        sim.run(0.2)
        sim.emit_noise((-4.0, -5.0, 0.0), loudness=0.5)  # reach 12 * 0.5 = 6 m < 6.4 m
        sim.run(1.0)
        assert names(events(sim)) == ["wander"]


def test_a_sighting_alerts_allies_in_range() -> None:
    from scenes import NpcSpawn

    scene = range_scene()
    near = NpcSpawn(position=(-3.0, -3.0, 0.0), yaw_deg=180.0, name="near", archetype="guard")
    far = NpcSpawn(position=(-16.0, -16.0, 0.0), yaw_deg=180.0, name="far", archetype="guard")
    scene = scene.with_npcs(near, far)
    with simulation(scene, bake(scene), player=(8.0, 0.0)) as sim:
        sim.run(0.5)
        assert names(events(sim, "near"))[:3] == ["wander", "alerted", "chase"]
        alerted = events(sim, "near")[1]
        assert alerted.data["by"] == "guard"
        assert alerted.data["target"] == pytest.approx([8.0, 0.0, 0.0], abs=0.05)
        assert names(events(sim, "far")) == ["wander"]  # 22.6 m away > alert radius 12 m


def test_alerts_respect_the_cooldown() -> None:
    """A player ducking in and out of view must not flood the radio: one alert per alert_cooldown_s."""
    scene = range_scene()
    with simulation(scene, bake(scene), player=None) as sim:
        g = sim.npcs[0]
        calls: list[float] = []
        sim.broadcast_alert = lambda npc, position: calls.append(sim.time)  # count what the NPC sends
        aim, feet = np.array([5.0, 0.0, 1.6]), np.array([5.0, 0.0, 0.0])
        start = sim.time
        for wait in (60, 60, 120):  # seen and lost at 0 s, 1 s, 2 s, 4 s after the first sighting
            g.on_sight(aim, feet)
            g.on_sight(None, None)
            sim.world.step(wait)
        g.on_sight(aim, feet)
        assert g.settings.alert_cooldown_s == 3.0
        assert calls == pytest.approx([start, start + 4.0])


def test_patrol_visits_its_waypoints(scene, mesh) -> None:
    import dataclasses

    route = ((0.0, -6.0, 0.0), (-8.0, -6.0, 0.0), (-8.0, 6.0, 0.0))
    npc = dataclasses.replace(scene.npcs[0], patrol=route)
    with simulation(scene.with_npcs(npc, keep_existing=False), mesh, player=None) as sim:
        g = sim.npcs[0]
        assert g.state == "patrol"
        closest = [math.inf] * 3
        for _ in range(int(45 / sim.dt)):
            sim.step()
            for k, w in enumerate(route):
                closest[k] = min(closest[k], float(np.hypot(*(g.position[:2] - np.array(w[:2])))))
        assert max(closest) < g.radius


def test_a_seen_player_is_kept_up_to_the_lose_sight_radius(scene, mesh) -> None:
    with simulation(scene, mesh, player=(8.0, 0.0)) as sim:
        player = sim.player
        assert player is not None
        sim.run(0.3)
        player.warp((17.0, 0.0, 0.0))  # beyond the 15 m sight radius, inside the 20 m lose-sight radius
        sim.run(1.0)
        assert "lost" not in names(events(sim)) and sim.npcs[0].sees
        player.warp((-17.0, -18.0, 0.0))  # gone
        sim.run(0.3)
        assert "lost" in names(events(sim))
    with simulation(scene, mesh, player=(17.0, 0.0)) as sim:  # never seen first at 17 m
        sim.run(1.0)
        assert "spotted" not in names(events(sim))
