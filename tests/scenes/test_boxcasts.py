"""`World.box_casts` is m calls of `World.box_cast` in one: the same hit, fraction, distance, position, point,
normal, body and started-in-contact flag for every row (exactly), and the same PyBullet calls, in the real
warehouse with NPC and player capsules around; plus its argument checks."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenes import World, WorldError, groups, load_scene
from scenes.boxcast import BoxCastHits


@pytest.fixture(scope="module")
def crowd():
    """The warehouse with 60 NPC capsules and 4 player capsules on its free floor, settled for a tick."""
    with World(load_scene("warehouse"), seed=3) as world:
        rng = np.random.default_rng(3)
        lo, hi = world.static_bounds()
        feet = np.column_stack([rng.uniform(lo[:2] + 1, hi[:2] - 1, (64, 2)), np.zeros(64)])
        free = ~world.boxes_overlap(feet + [0, 0, 0.9], (0.35, 0.35, 0.5))
        feet = feet[free]
        npcs = world.add_capsules(feet[:-4], group=groups.NPC)
        players = world.add_capsules(feet[-4:], group=groups.PLAYER)
        world.step()
        yield world, np.array(npcs + players)


def random_casts(world: World, bodies: np.ndarray, rng: np.random.Generator, m: int) -> dict:
    """m casts: from capsule centres (the caster ignored, or not: it starts in contact), from random points
    (some inside shelves), of zero length now and then, with one or several half extents."""
    lo, hi = world.static_bounds()
    pose = world.poses
    own = rng.integers(0, len(bodies), m)
    at_body = pose.positions[np.searchsorted(pose.bodies, bodies[own])] + [0, 0, 0.3]
    anywhere = rng.uniform(lo + [0.5, 0.5, 0.3], [hi[0] - 0.5, hi[1] - 0.5, 2.0], (m, 3))
    from_body = rng.random(m) < 0.6
    starts = np.where(from_body[:, None], at_body, anywhere)
    yaws = rng.uniform(-math.pi, math.pi, m)
    reach = np.where(rng.random(m) < 0.05, 0.0, rng.uniform(0.1, 8.0, m))
    heading = yaws + np.where(rng.random(m) < 0.5, 0.0, rng.uniform(-math.pi, math.pi, m))
    ends = starts + reach[:, None] * np.column_stack(
        [np.cos(heading), np.sin(heading), rng.normal(0, 0.05, m)]
    )
    ignore = np.where(from_body & (rng.random(m) < 0.8), bodies[own], -1)
    if rng.random() < 0.5:
        half = np.array([0.35, rng.uniform(0.35, 0.6), 0.75])
    else:
        half = rng.choice([[0.35, 0.45, 0.75], [0.35, 0.35, 0.75], [0.2, 0.3, 0.5]], m)
    return {"half_extents": half, "starts": starts, "ends": ends, "yaws": yaws, "ignore": ignore}


def assert_same_as_box_cast(world: World, casts: dict, mask: int | None) -> BoxCastHits:
    before = world.pybullet_calls.copy()
    many = world.box_casts(**casts, mask=mask)
    spent = world.pybullet_calls - before
    half = np.broadcast_to(casts["half_extents"], casts["starts"].shape)
    before = world.pybullet_calls.copy()
    for i in range(len(many)):
        one = world.box_cast(
            half[i],
            casts["starts"][i],
            casts["ends"][i],
            yaw=float(casts["yaws"][i]),
            mask=mask,
            ignore=[int(casts["ignore"][i])],
        )
        row = many.row(i)
        assert (row.hit, row.fraction, row.distance, row.body, row.started_in_contact) == (
            one.hit,
            one.fraction,
            one.distance,
            one.body,
            one.started_in_contact,
        ), i
        np.testing.assert_array_equal(row.position, one.position)
        np.testing.assert_array_equal(row.point, one.point)
        np.testing.assert_array_equal(row.normal, one.normal)
    spent.pop("createCollisionShape", None)  # made by the first call, shared by the second
    assert spent == world.pybullet_calls - before  # the same queries, as many
    return many


@pytest.mark.parametrize("mask", [None, groups.STATIC | groups.NPC, groups.STATIC])
def test_many_casts_in_the_warehouse_match_one_box_cast_each(crowd, mask) -> None:
    world, bodies = crowd
    many = assert_same_as_box_cast(world, random_casts(world, bodies, np.random.default_rng(11), 400), mask)
    assert many.hit.sum() > 50 and many.started_in_contact.sum() > 20 and (~many.hit).sum() > 50


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(0, 24))
def test_random_batches_match_one_box_cast_each(crowd, seed: int, m: int) -> None:
    world, bodies = crowd
    assert_same_as_box_cast(world, random_casts(world, bodies, np.random.default_rng(seed), m), groups.ALL)


def test_rows_may_ignore_several_bodies_or_none(crowd) -> None:
    world, bodies = crowd
    casts = random_casts(world, bodies, np.random.default_rng(5), 50)
    half = np.broadcast_to(casts["half_extents"], casts["starts"].shape)
    casts["ignore"] = np.column_stack([casts["ignore"], np.roll(casts["ignore"], 1)])
    many = world.box_casts(**casts)
    plain = world.box_casts(casts["half_extents"], casts["starts"], casts["ends"])  # no yaw, nothing ignored
    for i in range(len(many)):
        start, end = casts["starts"][i], casts["ends"][i]
        one = world.box_cast(
            half[i], start, end, yaw=float(casts["yaws"][i]), ignore=casts["ignore"][i].tolist()
        )
        assert (many.distance[i], many.body[i]) == (one.distance, one.body)
        one = world.box_cast(half[i], start, end)
        assert (plain.distance[i], plain.body[i]) == (one.distance, one.body)


def test_an_empty_batch(crowd) -> None:
    world, _ = crowd
    calls = Counter(world.pybullet_calls)
    empty = world.box_casts((0.3, 0.3, 0.5), np.zeros((0, 3)), np.zeros((0, 3)), yaws=np.zeros(0))
    assert len(empty) == 0 and empty.position.shape == (0, 3) and empty.body.dtype == np.int64
    assert world.pybullet_calls == calls


@pytest.mark.parametrize(
    "args, message",
    [
        (((0.3, 0.3, 0.5), np.zeros((2, 2)), np.zeros((2, 3))), "starts must be an \\(m, 3\\) array"),
        (((0.3, 0.3, 0.5), "ab", np.zeros((2, 3))), "starts must be"),
        (((0.3, 0.3, 0.5), np.zeros((2, 3)), np.zeros((3, 3))), "ends must be an \\(2, 3\\) array"),
        (((0.3, 0.3, 0.5), np.zeros((2, 3)), np.full((2, 3), np.nan)), "ends must be"),
        (((0.3, -0.3, 0.5), np.zeros((2, 3)), np.ones((2, 3))), "half extents must be"),
        ((np.ones((3, 3)), np.zeros((2, 3)), np.ones((2, 3))), "half extents must be \\(3,\\) or \\(2, 3\\)"),
        (((0.3, 0.3, np.inf), np.zeros((2, 3)), np.ones((2, 3))), "half extents must be"),
    ],
)
def test_bad_arrays_raise_world_error(crowd, args, message) -> None:
    with pytest.raises(WorldError, match=message):
        crowd[0].box_casts(*args)


@pytest.mark.parametrize(
    "keywords, message",
    [
        ({"yaws": np.zeros(3)}, "yaws must be None or \\(2,\\)"),
        ({"yaws": [0.0, np.nan]}, "yaws must be"),
        ({"yaws": ["a", "b"]}, "yaws must be"),
        ({"ignore": [1.5, 2.0]}, "ignore must be None, or \\(2,\\) or \\(2, j\\) body ids"),
        ({"ignore": [1, 2, 3]}, "ignore must be"),
        ({"ignore": np.zeros((2, 2, 2), dtype=int)}, "ignore must be"),
    ],
)
def test_bad_keywords_raise_world_error(crowd, keywords, message) -> None:
    with pytest.raises(WorldError, match=message):
        crowd[0].box_casts((0.3, 0.3, 0.5), np.zeros((2, 3)), np.ones((2, 3)), **keywords)
