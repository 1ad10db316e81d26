"""The seed's wander for 10 simulated minutes: box casts keep the capsule off the walls and on the navmesh."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from npc_ai.sim.simulation import Simulation, SimulationSettings
from scenes import load_scene

MINUTES = 10.0
CONTACT_DISTANCE = 0.005  # [m]


def wander(scene_name: str, seed: int) -> dict:
    scene = load_scene(scene_name)
    lone = dataclasses.replace(scene.npcs[-1], patrol=())  # a wanderer (no patrol route)
    scene = scene.with_npcs(lone, keep_existing=False)
    with Simulation(scene, seed=seed, settings=SimulationSettings(player=None, trail_every=0)) as sim:
        npc, world = sim.npcs[0], sim.world
        client, static = world.client, set(world.static_bodies)
        contacts = off_mesh = turns = 0
        travelled = 0.0
        prev = npc.position
        for tick in range(round(MINUTES * 60 / sim.dt)):
            sim.step()
            for c in client.getContactPoints(bodyA=npc.body):
                # a wall contact: a static body, a normal that is not vertical, within 5 mm
                if c[2] in static and abs(c[7][2]) < 0.7 and c[8] <= CONTACT_DISTANCE:
                    contacts += 1
            if tick % 6 == 0:
                p = npc.position
                if sim.query.polygon_at(p) < 0:
                    off_mesh += 1
                travelled += float(np.hypot(*(p[:2] - prev[:2])))
                prev = p
        turns = sum(1 for e in world.events if e.event != "wander")
        return {
            "contacts": contacts,
            "off_mesh": off_mesh,
            "travelled": travelled,
            "other_events": turns,
            "state": npc.state,
        }


@pytest.mark.slow  # 10 simulated minutes per scene (~35 s): CI runs it with the slow set
@pytest.mark.parametrize("scene_name, seed", [("arena", 1), ("warehouse", 2)])
def test_ten_minutes_of_wandering_touch_no_wall(scene_name: str, seed: int) -> None:
    got = wander(scene_name, seed)
    assert got["contacts"] == 0
    assert got["off_mesh"] == 0
    assert got["travelled"] > 150.0  # it really wandered (about half the time at 0.98 m/s)
    assert got["state"] == "wander" and got["other_events"] == 0
