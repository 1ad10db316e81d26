"""STATIC-only ray batches in the level's private copy: the world's own answers, body ids included."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from scenes import World, WorldError, groups, parse_scene
from scenes._bullet import new_client
from scenes._bullet import pybullet as pb
from scenes.raycast import ray_test
from scenes.static_rays import MIN_CAPSULES, StaticRays

# three static bodies at least (floor and boxes merge by color only with visuals), a ramp, and a crowd of
# capsules standing across the rays' way
SCENE = """
[scene]
name = "crowded"
[floor]
size = [40, 40]
[[box]]
name = "wall"
center = [8, 0, 1.5]
size = [0.4, 16, 3]
color = [0.8, 0.2, 0.2, 1]
[[box]]
name = "pillar"
center = [-6, 5, 1]
half_extents = [0.5, 0.5, 1]
yaw_deg = 30
color = [0.2, 0.8, 0.2, 1]
[[ramp]]
name = "ramp"
start = [-10, -10, 0]
end = [-4, -10, 1.5]
width = 3
"""

N_CAPSULES = MIN_CAPSULES + 20


def crowd(world: World, n: int) -> list[int]:
    rng = np.random.default_rng(7)
    feet = np.column_stack([rng.uniform(-15, 15, n), rng.uniform(-15, 15, n), np.zeros(n)])
    return world.add_capsules(feet, kinematic=True)


@pytest.fixture(scope="module")
def crowded():
    """A crowded world in a client that already holds a body of its own, far below: the world's body ids
    then differ from its copy's, which start at 0."""
    client = new_client(False)
    client.createMultiBody(0, client.createCollisionShape(pb.GEOM_SPHERE, radius=0.1), -1, (0, 0, -100))
    try:
        with World(parse_scene(SCENE), client=client) as w:
            crowd(w, N_CAPSULES)
            assert min(w.static_bodies) > 0
            yield w
    finally:
        client.disconnect()


def world_answers(world: World, starts: np.ndarray, ends: np.ndarray, mask: int):
    """The rays cast in the world's own client, capsules and all."""
    return ray_test(world.client, starts, ends, mask=mask)


@settings(max_examples=40, deadline=None)
@given(
    arrays(np.float64, (24, 3), elements=st.floats(-18, 18)),
    arrays(np.float64, (24, 3), elements=st.floats(-18, 18)),
)
def test_static_batches_give_the_worlds_own_answers(crowded: World, starts, ends) -> None:
    starts[:, 2] = np.abs(starts[:, 2]) / 4  # between the floor and 4.5 m: through capsules and walls
    ends[:, 2] = np.abs(ends[:, 2]) / 6 - 0.5  # some end below the floor
    got = crowded.ray_test(starts, ends, mask=groups.STATIC)
    want = world_answers(crowded, starts, ends, groups.STATIC)
    np.testing.assert_array_equal(got.body, want.body)
    np.testing.assert_array_equal(got.fraction, want.fraction)
    np.testing.assert_array_equal(got.point, want.point)
    np.testing.assert_array_equal(got.normal, want.normal)


def test_many_random_rays_hit_every_static_body_under_its_world_id(crowded: World) -> None:
    rng = np.random.default_rng(1)
    n = 4000
    starts = np.column_stack([rng.uniform(-16, 16, (n, 2)), rng.uniform(0.1, 3.0, n)])
    ends = np.column_stack([rng.uniform(-16, 16, (n, 2)), rng.uniform(-0.5, 3.0, n)])
    got = crowded.ray_test(starts, ends, mask=groups.STATIC)
    want = world_answers(crowded, starts, ends, groups.STATIC)
    np.testing.assert_array_equal(got.body, want.body)
    np.testing.assert_array_equal(got.fraction, want.fraction)
    assert crowded._static_rays is not None and crowded._static_rays.built  # the copy answered
    assert set(got.body[got.hit].tolist()) == set(crowded.static_bodies)  # every body, no copy's id
    # the same rays that may also hit NPCs stop at the capsules in the world itself
    npcs = crowded.ray_test(starts, ends, mask=groups.STATIC | groups.NPC)
    assert (npcs.fraction < got.fraction).sum() > n // 10


def test_only_crowded_worlds_and_static_masks_use_the_copy() -> None:
    with World(parse_scene(SCENE)) as w:
        level = w._static_rays
        assert level is not None
        crowd(w, MIN_CAPSULES - 1)
        down = w.ray_test(np.array([[0.0, 18.0, 2.0]]), np.array([[0.0, 18.0, -1.0]]), mask=groups.STATIC)
        assert not level.built and down.hit[0]
        crowd(w, 1)
        for mask in (-1, groups.STATIC | groups.NPC, groups.NPC, 0):
            w.ray_test(np.array([[0.0, 18.0, 2.0]]), np.array([[0.0, 18.0, -1.0]]), mask=mask)
            assert not level.built
        # ignoring a static body needs the world (the copy cannot hide it); ignoring a capsule does not
        floor = int(down.body[0])
        hits = w.ray_test(
            np.array([[0.0, 18.0, 2.0]]), np.array([[0.0, 18.0, -1.0]]), mask=groups.STATIC, ignore=[floor]
        )
        assert not level.built and not hits.hit[0]
        w.ray_test(
            np.array([[0.0, 18.0, 2.0]]), np.array([[0.0, 18.0, -1.0]]), mask=groups.STATIC | groups.RAYS
        )
        assert level.built
    assert not level.built  # closing the world disconnects the copy


def test_an_injected_client_keeps_its_bodies_and_the_copy_is_closed() -> None:
    client = new_client(False)
    try:
        with World(parse_scene(SCENE), client=client) as w:
            crowd(w, MIN_CAPSULES)
            w.ray_test(np.array([[0.0, 18.0, 2.0]]), np.array([[0.0, 18.0, -1.0]]), mask=groups.STATIC)
            level = w._static_rays
            assert level is not None and level.built
        assert not level.built
        assert client.getNumBodies() == 0
    finally:
        client.disconnect()


def test_a_copy_that_does_not_match_the_world_is_refused() -> None:
    scene = parse_scene(SCENE)
    with World(scene) as w:
        copy = StaticRays(scene, (*w.static_bodies, 99), visuals=False, min_capsules=0)
        with pytest.raises(WorldError, match="changed after it was built"):
            copy.ray_test(np.zeros((1, 3)), np.ones((1, 3)))
        assert not copy.built


@pytest.mark.parametrize("bad", [-1, 1.5, "200", None])
def test_bad_min_capsules_is_refused(bad) -> None:
    with pytest.raises(WorldError, match="min_capsules"):
        StaticRays(parse_scene(SCENE), (), visuals=False, min_capsules=bad)
