"""BodyObstacles: PyBullet crates and barrels tracked as dynamic navmesh obstacles, their poses (tilts and
shape frames included) passed on at each sync, and bodies that cannot be obstacles refused."""

from __future__ import annotations

import math

import numpy as np
import pybullet as pb
import pytest
from shapely.geometry import box

from navigation.dynamic import DynamicNavMesh
from navigation.grid_bake import bake_polygons
from navigation.obstacles import Box, Cylinder, footprint, pose
from navigation.query import NavMeshQuery
from navigation.settings import CarveSettings
from npc_ai.errors import LevelError
from npc_ai.levels.obstacles import GEOM_BOX, GEOM_CYLINDER, BodyObstacles
from scenes import new_client

BASE = bake_polygons([(0.0, 0.0), (20.0, 0.0), (20.0, 10.0), (0.0, 10.0)], [box(8, 4, 12, 6)])


@pytest.fixture
def client():
    c = new_client()
    c.setGravity(0, 0, -9.81)
    c.createMultiBody(0, c.createCollisionShape(pb.GEOM_PLANE))
    yield c
    c.disconnect()


def _crate(client, half, at, orn=(0.0, 0.0, 0.0, 1.0), mass=5.0) -> int:
    shape = client.createCollisionShape(pb.GEOM_BOX, halfExtents=half)
    return int(client.createMultiBody(mass, shape, basePosition=at, baseOrientation=orn))


def test_the_geometry_codes_are_pybullets() -> None:
    assert (GEOM_BOX, GEOM_CYLINDER) == (pb.GEOM_BOX, pb.GEOM_CYLINDER)


def test_a_pushed_crate_carves_where_physics_left_it(client) -> None:
    s = CarveSettings(agent_radius=0.3, carve_only_stationary=False)
    dyn = DynamicNavMesh(BASE, s)
    obstacles = BodyObstacles(dyn, client)
    crate = _crate(client, (0.4, 0.4, 0.4), (4.0, 2.0, 0.4))
    oid = obstacles.track(crate)
    assert obstacles.bodies == {crate: oid} and dyn.shape(oid) == Box((0.4, 0.4, 0.4))
    dyn.update()
    assert NavMeshQuery(dyn.mesh).polygon_at((4.0, 2.0)) == -1
    client.resetBaseVelocity(crate, (3.0, 0.0, 0.0))  # a shove along x: it slides, then friction stops it
    for _ in range(240):
        client.stepSimulation()
    obstacles.sync()
    dyn.update(1.0)
    where, orn = client.getBasePositionAndOrientation(crate)
    assert where[0] > 4.5  # it moved
    assert dyn.pose(oid).position == pytest.approx(where) and dyn.pose(oid).orientation == pytest.approx(orn)
    q = NavMeshQuery(dyn.mesh)
    assert q.polygon_at(where[:2]) == -1 and q.polygon_at((4.0, 2.0)) >= 0
    expected = footprint(Box((0.4, 0.4, 0.4)), pose(where, orn), s)
    assert dyn.holes()[0].polygon.equals_exact(expected.polygon, 1e-9)
    obstacles.untrack(crate)
    dyn.update()
    assert obstacles.bodies == {} and dyn.mesh.total_area == pytest.approx(BASE.total_area)


def test_a_tilted_barrel_and_a_shape_frame_offset(client) -> None:
    dyn = DynamicNavMesh(BASE, CarveSettings(agent_radius=0.0, time_to_stationary=0.0))
    obstacles = BodyObstacles(dyn, client)
    lying = (math.sin(math.pi / 4), 0.0, 0.0, math.cos(math.pi / 4))  # on its side, axis along y
    shape = client.createCollisionShape(pb.GEOM_CYLINDER, radius=0.3, height=2.0)
    barrel = int(client.createMultiBody(0, shape, basePosition=(15.0, 5.0, 0.3), baseOrientation=lying))
    offset_shape = client.createCollisionShape(
        pb.GEOM_BOX, halfExtents=(0.5, 0.2, 0.2), collisionFramePosition=(1.0, 0.0, 0.0)
    )
    arm = int(client.createMultiBody(0, offset_shape, basePosition=(3.0, 8.0, 0.2)))
    b, a = obstacles.track(barrel), obstacles.track(arm)
    assert dyn.shape(b) == Cylinder(0.3, 2.0)
    dyn.update()
    x0, y0, x1, y1 = dyn.holes()[0].polygon.bounds
    assert (y1 - y0) == pytest.approx(2.0) and (x0 + x1) / 2 == pytest.approx(15.0)
    lo, hi = client.getAABB(arm)
    ax0, ay0, ax1, ay1 = dyn.holes()[1].polygon.bounds
    assert np.allclose([ax0, ay0, ax1, ay1], [lo[0], lo[1], hi[0], hi[1]], atol=0.05)  # AABB margin
    assert (ax0 + ax1) / 2 == pytest.approx(4.0) and a != b


def test_bodies_that_cannot_be_obstacles_are_refused(client) -> None:
    dyn = DynamicNavMesh(BASE)
    obstacles = BodyObstacles(dyn, client)
    ball = int(client.createMultiBody(1.0, client.createCollisionShape(pb.GEOM_SPHERE, radius=0.3)))
    with pytest.raises(LevelError, match="only a base of one box or one cylinder"):
        obstacles.track(ball)
    with pytest.raises(LevelError, match="no such body"):
        obstacles.track(999)
    crate = _crate(client, (0.4, 0.4, 0.4), (4.0, 2.0, 0.4))
    obstacles.track(crate)
    with pytest.raises(LevelError, match="already tracked"):
        obstacles.track(crate)
    with pytest.raises(LevelError, match="not tracked"):
        obstacles.untrack(ball)
    with pytest.raises(LevelError, match=r"navmesh must be a navigation\.DynamicNavMesh"):
        BodyObstacles(BASE, client)  # type: ignore[arg-type]
    assert dyn.obstacle_ids == (0,)
