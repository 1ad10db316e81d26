"""Kinematic capsules: placed by code, never moved by a step, never read back, seen by rays."""

from __future__ import annotations

import numpy as np
import pytest

from scenes import World, WorldError, groups, load_scene


@pytest.fixture
def world():
    with World(load_scene("arena")) as w:
        yield w


def test_placed_by_code_and_still_under_gravity(world: World) -> None:
    kin = world.add_capsules(np.array([[0.0, 0.0, 0.0], [3.0, 0.0, 0.0]]), kinematic=True)
    dyn = world.add_capsule((6.0, 0.0, 0.5))
    rows = np.array([world.poses.index(b) for b in kin])
    world.place_kinematic(rows, np.array([[0.5, 0.0, 0.9], [3.0, 1.0, 0.9]]), 0.1)
    np.testing.assert_allclose(world.poses.velocities[rows], [[5.0, 0.0, 0.0], [0.0, 10.0, 0.0]])
    before = world.pybullet_calls["getBasePositionAndOrientation"]
    for _ in range(30):
        world.step()
    assert world.pybullet_calls["getBasePositionAndOrientation"] - before == 30  # the dynamic one only
    for b, want in zip(kin, ([0.5, 0.0, 0.9], [3.0, 1.0, 0.9]), strict=True):
        np.testing.assert_allclose(world.client.getBasePositionAndOrientation(b)[0], want)  # gravity: no
        np.testing.assert_allclose(world.poses.positions[world.poses.index(b)], want)
    assert world.poses.positions[world.poses.index(dyn), 2] < 0.95  # the dynamic capsule fell to the floor
    hits = world.ray_test(np.array([[0.5, -3.0, 1.0]]), np.array([[0.5, 3.0, 1.0]]), mask=groups.NPC)
    assert hits.body[0] == kin[0]  # rays see the placed body at once


def test_refuses_dynamic_rows_and_bad_centres(world: World) -> None:
    dyn = world.add_capsule((6.0, 0.0, 0.0))
    kin = world.add_capsules(np.zeros((1, 3)), kinematic=True)
    row, krow = world.poses.index(dyn), world.poses.index(kin[0])
    with pytest.raises(WorldError, match="kinematic capsules"):
        world.place_kinematic(np.array([row]), np.zeros((1, 3)), 0.1)
    with pytest.raises(WorldError, match="kinematic capsules"):
        world.place_kinematic(np.array([99]), np.zeros((1, 3)), 0.1)
    for bad in (np.zeros((2, 3)), np.full((1, 3), np.nan), np.zeros((1, 2))):
        with pytest.raises(WorldError, match="finite centres"):
            world.place_kinematic(np.array([krow]), bad, 0.1)
    np.testing.assert_allclose(world.poses.positions[krow], [0.0, 0.0, 0.9])  # nothing was lost


def test_level_stops_pairing_with_a_group_that_is_all_kinematic(world: World) -> None:
    level = groups.mask_of(groups.STATIC)
    assert world.static_mask == level
    world.add_capsules(np.zeros((1, 3)), kinematic=True)
    assert world.static_mask == level & ~groups.NPC  # no floor-capsule pair for Bullet to re-test
    world.add_capsule((3.0, 0.0, 0.0), group=groups.PLAYER)
    assert world.static_mask == level & ~groups.NPC  # a dynamic body of another group changes nothing
    world.add_capsule((6.0, 0.0, 0.0))  # a dynamic NPC: the level must hold it up again
    assert world.static_mask == level


def test_dynamic_bodies_still_meet_the_level_and_the_kinematic_ones(world: World) -> None:
    kin = world.add_capsules(np.array([[0.0, 0.0, 0.0]]), kinematic=True)
    player = world.add_capsule((-2.0, 0.0, 0.3), group=groups.PLAYER)
    row, krow = world.poses.index(player), world.poses.index(kin[0])
    for _ in range(30):  # the player falls onto the floor and rests there
        world.step()
    z = world.poses.positions[row, 2]
    assert 0.85 < z < 0.95
    # ignoring the kinematic capsule in a ray batch leaves its contacts as they were
    world.ray_test(np.array([[-3.0, 0.0, 1.0]]), np.array([[3.0, 0.0, 1.0]]), ignore=kin)
    for k in range(60):  # the kinematic capsule walks into the player and pushes it along -x
        world.place_kinematic(np.array([krow]), np.array([[-1.0 - 0.05 * k, 0.0, 0.9]]), world.dt)
        world.step()
    assert world.poses.positions[row, 0] < -3.5  # pushed, not passed through
    assert abs(world.poses.positions[row, 2] - z) < 0.05  # and still on the floor


def test_only_the_bodies_that_moved_are_teleported(world: World) -> None:
    kin = world.add_capsules(np.array([[0.0, 0.0, 0.0], [3.0, 0.0, 0.0], [6.0, 0.0, 0.0]]), kinematic=True)
    rows = np.array([world.poses.index(b) for b in kin])
    centres = world.poses.positions[rows].copy()
    centres[1, 0] += 0.5  # only the middle one moves
    before = world.pybullet_calls["resetBasePositionAndOrientation"]
    world.place_kinematic(rows, centres, 0.5)
    assert world.pybullet_calls["resetBasePositionAndOrientation"] - before == 1
    np.testing.assert_allclose(world.poses.velocities[rows], [[0, 0, 0], [1.0, 0, 0], [0, 0, 0]])
    np.testing.assert_allclose(world.client.getBasePositionAndOrientation(kin[1])[0], centres[1])
    bad = centres.copy()
    bad[2, 2] = np.inf  # refused before anything is written
    with pytest.raises(WorldError, match="finite centres"):
        world.place_kinematic(rows, bad, 0.5)
    np.testing.assert_allclose(world.poses.positions[rows], centres)
