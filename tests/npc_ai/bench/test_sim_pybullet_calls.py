"""`scenes.World.pybullet_calls`, the PyBullet call counter `bench sim` reports: exact counts by kind."""

from __future__ import annotations

import numpy as np
import pytest

from scenes import World, WorldSettings, groups, load_scene
from scenes.raycast import MAX_RAYS_PER_BATCH

SPOTS = np.array([[-10.0, -10.0, 0.0], [10.0, 10.0, 0.0], [-12.0, 5.0, 0.0]])  # open floor in arena


def test_a_fresh_world_has_made_no_counted_call() -> None:
    with World(load_scene("arena")) as w:
        assert sum(w.pybullet_calls.values()) == 0  # building the level is not counted


def test_steps_and_pose_reads() -> None:
    with World(load_scene("arena"), settings=WorldSettings(max_penetration=None)) as w:
        w.add_capsules(SPOTS)  # one pose read of the 3 capsules
        assert w.pybullet_calls["createCollisionShape"] == 1
        assert w.pybullet_calls["createMultiBody"] == 3 and w.pybullet_calls["changeDynamics"] == 3
        assert w.pybullet_calls["setCollisionFilterGroupMask"] == 3
        w.step()
        w.step(4)  # one pose read for the 4 ticks
        calls = w.pybullet_calls
        assert calls["stepSimulation"] == 5
        assert calls["getBasePositionAndOrientation"] == 3 * (1 + 2)
        assert calls["getBaseVelocity"] == 3 * (1 + 2)
        assert calls["performCollisionDetection"] == 0  # no depenetration pass


def test_one_capsule_at_a_time_reads_every_pose_each_time() -> None:
    with World(load_scene("arena"), settings=WorldSettings(max_penetration=None)) as w:
        for p in SPOTS:
            w.add_capsule(p)  # reads 1, then 2, then 3 poses
        for _ in range(5):
            w.step()
        assert w.pybullet_calls["stepSimulation"] == 5
        assert w.pybullet_calls["getBasePositionAndOrientation"] == (1 + 2 + 3) + 3 * 5
        assert w.pybullet_calls["createCollisionShape"] == 3


def test_the_depenetration_pass_is_counted() -> None:
    with World(load_scene("arena")) as w:  # default settings: a depenetration pass after every tick
        bodies = w.add_capsules(SPOTS)
        w.teleport(bodies[0], [-10.0, -10.0, 0.5])  # 0.4 m into the floor: moved out
        for _ in range(5):
            w.step()
        calls = w.pybullet_calls
        # three capsules (at most depenetration.FEW): their closest points to the level, not every contact
        assert calls["getClosestPoints"] == 5 * 3 * len(w.static_bodies)
        assert "performCollisionDetection" not in calls
        assert w.depenetrated >= 1
        assert calls["resetBasePositionAndOrientation"] == 1 + w.depenetrated  # the teleport, the passes
        assert calls["resetBaseVelocity"] == w.depenetrated


def test_many_capsules_recompute_every_contact_once_a_tick() -> None:
    with World(load_scene("arena")) as w:
        w.add_capsules(np.column_stack([np.arange(12.0) - 6.0, np.zeros(12), np.zeros(12)]))
        for _ in range(5):
            w.step()
        calls = w.pybullet_calls
        assert calls["performCollisionDetection"] == 5 and calls["getContactPoints"] == 5
        assert "getClosestPoints" not in calls


def test_velocity_writes() -> None:
    with World(load_scene("arena")) as w:
        bodies = w.add_capsules(SPOTS)
        w.set_velocities(bodies, np.ones((3, 3)))
        w.set_velocity(bodies[0], (1.0, 0.0, 0.0), yaw_rate=0.5)
        w.set_velocity(bodies[1], (1.0, 0.0, 0.0))
        assert w.pybullet_calls["resetBaseVelocity"] == 3 + 2


def test_rays_count_batches_not_rays() -> None:
    with World(load_scene("arena")) as w:
        starts = np.zeros((20, 3)) + [0.0, 0.0, 5.0]
        w.ray_test(starts, starts - [0.0, 0.0, 10.0])
        assert w.pybullet_calls["rayTestBatch"] == 1
        many = np.zeros((MAX_RAYS_PER_BATCH + 1, 3)) + [0.0, 0.0, 5.0]
        w.ray_test(many, many - [0.0, 0.0, 10.0])
        assert w.pybullet_calls["rayTestBatch"] == 1 + 2
        w.ray_test(np.zeros((0, 3)), np.zeros((0, 3)))
        assert w.pybullet_calls["rayTestBatch"] == 3
        assert w.pybullet_calls["getNumJoints"] == 0  # nothing hidden from the rays yet


def test_rays_that_ignore_a_body_count_its_collision_filter_changes() -> None:
    with World(load_scene("arena")) as w:
        body = w.add_capsule(SPOTS[0])
        before = w.pybullet_calls["setCollisionFilterGroupMask"]
        eye = SPOTS[0] + [0.0, 0.0, 1.0]
        hits = w.ray_test(eye[None], (eye + [5.0, 0.0, 0.0])[None], ignore=[body])
        assert hits.body[0] != body
        assert w.pybullet_calls["getNumJoints"] == 2  # hide, then restore: one link (the base)
        assert w.pybullet_calls["setCollisionFilterGroupMask"] == before + 2


def test_box_casts_and_overlaps() -> None:
    with World(load_scene("arena")) as w:
        a, b = w.add_capsules(SPOTS[:2])
        w.overlap([-11.0, -11.0, 0.0], [-9.0, -9.0, 2.0], mask=groups.CHARACTERS)
        assert w.pybullet_calls["getOverlappingObjects"] == 1
        # the mask leaves only characters, which the world tracks as capsules: the cast meets them in closed
        # form (scenes.capsule_casts) with no PyBullet query at all, not even for candidates
        hit = w.box_cast((0.2, 0.2, 0.2), (0.0, 0.0, 3.0), (1.0, 0.0, 3.0), mask=groups.CHARACTERS)
        assert not hit.hit
        assert w.pybullet_calls["getOverlappingObjects"] == 1
        assert w.pybullet_calls["getClosestPoints"] == 0
        shapes = w.pybullet_calls["createCollisionShape"]
        # every group (PROP too, bodies no table knows): candidates from one AABB query, the level's one
        # static body and capsule a (b is ignored), both met in closed form (scenes.capsule_casts,
        # scenes.box_casts: the arena's boxes turn only about Z), so no closest-point query
        assert w.overlap([-13.4, -10.4, 0.6], [-8.6, -9.6, 1.4]) == [*w.static_bodies, a]
        hit = w.box_cast((0.2, 0.2, 0.2), (-13.0, -10.0, 1.0), (-9.0, -10.0, 1.0), ignore=[b])
        assert hit.hit and hit.body == a and hit.distance == pytest.approx(2.45)
        assert w.pybullet_calls["getOverlappingObjects"] == 3
        assert w.pybullet_calls["getClosestPoints"] == 0
        assert w.pybullet_calls["createCollisionShape"] == shapes  # the box shape is cached


def test_boxes_overlap_counts_one_aabb_query_per_box_and_one_test_per_candidate() -> None:
    with World(load_scene("arena")) as w:
        centers = np.array([[-10.0, -10.0, 3.0], [-10.0, -10.0, 0.0], [10.0, 10.0, 3.0]])
        inside = w.boxes_overlap(centers, (0.1, 0.1, 0.1))
        assert inside.tolist() == [False, True, False]
        assert w.pybullet_calls["getOverlappingObjects"] == 3
        # arena's level is one merged static body whose AABB holds every box: one exact test per box
        assert len(w.static_bodies) == 1
        assert w.pybullet_calls["getClosestPoints"] == 3
