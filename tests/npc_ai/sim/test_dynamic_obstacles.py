"""A guard re-plans around a crate pushed into its aisle, in the same call that carves the crate (within
one tick of the update), then walks around it to its goal without entering its footprint."""

from __future__ import annotations

import numpy as np
import pybullet as pb
import pytest
from shapely.geometry import LineString, Point

from navigation.dynamic import DynamicNavMesh
from navigation.settings import CarveSettings
from npc_ai.levels import load_level
from npc_ai.levels.navmesh import bake_settings
from npc_ai.levels.obstacles import BodyObstacles
from npc_ai.sim.simulation import Simulation, SimulationError, SimulationSettings
from scenes import NpcSpawn

START, GOAL = (-14.0, -5.5, 0.0), (-4.0, -5.5, 0.0)  # along the aisle between two west shelf rows
CRATE_HALF = (0.7, 0.7, 0.5)  # with the agent radius it closes the aisle (2.8 m between the shelves)


def test_a_guard_replans_around_a_crate_pushed_into_its_aisle() -> None:
    scene = load_level("warehouse").with_npcs(NpcSpawn(position=START, name="walker"), keep_existing=False)
    with Simulation(scene, seed=0, settings=SimulationSettings(player=None, trail_every=0)) as sim:
        sim.control("walker", lambda npc, t: npc.go_to(np.array(GOAL), 1.5) if t < 0.05 else None)
        bake = bake_settings(scene.navmesh)
        dyn = DynamicNavMesh(
            sim.query.mesh,
            CarveSettings(
                agent_radius=bake.agent_radius, agent_height=bake.agent_height, time_to_stationary=0.25
            ),
        )
        client = sim.world.client
        crate = client.createMultiBody(
            20.0,
            client.createCollisionShape(pb.GEOM_BOX, halfExtents=CRATE_HALF),
            basePosition=(0.5, -12.5, 0.5),
        )  # in the cross aisle's south end, off the walker's way
        obstacles = BodyObstacles(dyn, client)
        obstacles.track(crate)
        sim.use_navmesh(dyn.update(0.0))
        walker = sim.locomotion.agents
        for _ in range(30):
            sim.step()
        first = walker.path(0)
        assert first is not None and first.ok and len(first.points) == 2  # straight down the aisle
        assert first.length == pytest.approx(10.0)
        client.resetBasePositionAndOrientation(crate, (-9.0, -5.5, 0.5), (0, 0, 0, 1))  # pushed in ahead
        replanned_at = None
        for tick in range(60):
            sim.step()
            obstacles.sync()
            update = dyn.update(sim.dt)
            moved = sim.use_navmesh(update)
            if dyn.obstacle_ids and update.carved == (0,):
                replanned_at = tick
                assert [n.name for n in moved] == ["walker"]  # in the same call as the carve
                path = walker.path(0)
                hole = dyn.holes()[0].polygon
                assert path.ok and not LineString(path.points[:, :2]).crosses(hole)
                assert path.length > first.length + 4.0  # around a shelf row
                break
        assert replanned_at is not None and replanned_at >= 14  # carved once still for 0.25 s
        box = Point(-9.0, -5.5).buffer(CRATE_HALF[0], cap_style="square")
        for _ in range(60 * 30):
            sim.step()
            assert box.distance(Point(walker.next_position[0, :2])) > 0.3
            if sim.npcs[0].arrived:
                break
        assert sim.npcs[0].arrived
        assert any(e.event == "replanned" for e in sim.events)


def test_use_navmesh_refuses_what_is_not_an_update() -> None:
    scene = load_level("warehouse").with_npcs(NpcSpawn(position=START, name="walker"), keep_existing=False)
    with (
        Simulation(scene, seed=0, settings=SimulationSettings(player=None, trail_every=0)) as sim,
        pytest.raises(SimulationError, match=r"update must be a navigation\.CarveUpdate"),
    ):
        sim.use_navmesh(sim.query.mesh)  # type: ignore[arg-type]
