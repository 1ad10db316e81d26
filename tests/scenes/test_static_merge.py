"""Static level geometry merged into compound bodies answers rays and box casts exactly as one body per box.

The reference is built in the test itself: a second PyBullet client with one plain box body per piece of
box-shaped geometry (what the builder made before merging). Both answer the same random rays and casts.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from navigation.movingai import parse_map
from npc_ai.levels import scene_from_grid
from scenes import World, groups, load_scene
from scenes._bullet import new_client
from scenes._bullet import pybullet as pb
from scenes.boxcast import box_cast, box_shape
from scenes.build import MAX_CHILDREN, scene_boxes
from scenes.raycast import ray_test

MAZE = """type octile
height 12
width 16
map
................
.@@@@@@..@@@@@@.
.@..........@@..
.@.@@@@@@@..@...
.@.@.....@..@.@.
...@.@@@.@....@.
.@@@.@.@.@@@@.@.
.....@.@......@.
.@@@@@.@@@@@@.@.
.@..........@...
.@@@@@@@@@@.@@@.
................
"""


def reference_client(scene):
    client = new_client()
    bodies = []
    for b in scene_boxes(scene):
        shape = client.createCollisionShape(pb.GEOM_BOX, halfExtents=b.half_extents)
        bodies.append(client.createMultiBody(0.0, shape, -1, b.center, b.quaternion))
    return client, bodies


def level(name: str):
    if name == "maze":
        return scene_from_grid(parse_map(MAZE, "maze.map"), name="maze")
    return load_scene(name)


@pytest.fixture(scope="module", params=["arena", "warehouse", "compound", "maze"])
def pair(request):
    scene = level(request.param)
    ref, bodies = reference_client(scene)
    with World(scene, seed=1) as world:
        yield world, ref, bodies
    ref.disconnect()


def test_merged_level_has_few_bodies_of_at_most_sixteen_boxes(pair) -> None:
    world, _ref, bodies = pair
    merged = [b for b in world.static_bodies if world.client.getNumJoints(b) == 0]
    assert len(world.static_bodies) <= math.ceil(len(bodies) / MAX_CHILDREN) + 2
    # every box made it into some compound: the shapes the bodies hold add up to the boxes
    children = sum(len(world.client.getCollisionShapeData(b, -1)) for b in merged)
    assert children == len(bodies)


def test_random_rays_hit_the_same_surfaces(pair) -> None:
    world, ref, _bodies = pair
    lo, hi = world.static_bounds()
    rng = np.random.default_rng(3)
    n = 3000
    starts = rng.uniform(lo - 1.0, hi + 1.0, (n, 3))
    ends = rng.uniform(lo - 1.0, hi + 1.0, (n, 3))
    ends[: n // 3, :2] = starts[: n // 3, :2]  # a third vertical, like the navmesh bake's
    ends[: n // 3, 2] = lo[2] - 1.0
    got = world.ray_test(starts, ends, mask=groups.STATIC)
    want = ray_test(ref, starts, ends, mask=-1, threads=1)
    np.testing.assert_array_equal(got.hit, want.hit)
    hit = want.hit
    assert hit.sum() > n // 3
    np.testing.assert_allclose(got.fraction[hit], want.fraction[hit], atol=1e-6)
    np.testing.assert_allclose(got.normal[hit], want.normal[hit], atol=1e-6)


def test_box_casts_stop_at_the_same_distance(pair) -> None:
    world, ref, bodies = pair
    lo, hi = world.static_bounds()
    rng = np.random.default_rng(5)
    half = np.array([0.3, 0.3, 0.6])
    shape = box_shape(ref, half)
    for _ in range(40):
        start = rng.uniform(lo, hi)
        start[2] = lo[2] + 1.0 + float(rng.uniform(0.0, 0.5))
        yaw = float(rng.uniform(-math.pi, math.pi))
        end = start + 8.0 * np.array([math.cos(yaw), math.sin(yaw), 0.0])
        got = world.box_cast(half, start, end, mask=groups.STATIC)
        quat = pb.getQuaternionFromEuler((0.0, 0.0, 0.0))
        want = box_cast(ref, shape, quat, start, end, bodies)
        assert got.hit == want.hit
        if want.hit:
            assert got.distance == pytest.approx(want.distance, abs=2e-3)
