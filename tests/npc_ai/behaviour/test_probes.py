"""`probe_obstacles_many` is `probe_obstacles` for many NPCs at once: the same forward, left and right gaps
and the same nudges, row for row and exactly, in the real warehouse among other NPC and player capsules, with
and without the navmesh edge gaps (`navmesh_edge_gaps` against the simulation's per-heading rule); plus
its argument checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navigation.query import NavMeshQuery
from npc_ai.behaviour.perception import PerceptionError
from npc_ai.behaviour.probes import (
    ObstacleProbe,
    ObstacleProbes,
    navmesh_edge_gaps,
    probe_obstacles,
    probe_obstacles_many,
)
from npc_ai.levels.navmesh import scene_navmesh
from scenes import World, groups, load_scene

RADIUS, HEIGHT = 0.35, 1.8  # `World.add_capsules`' default capsule


@pytest.fixture(scope="module")
def warehouse():
    """The warehouse, its navmesh query, and 80 NPC and 6 player capsules on the mesh, settled."""
    with World(load_scene("warehouse"), seed=2) as world:
        query = NavMeshQuery(scene_navmesh(world)[0])
        rng = np.random.default_rng(2)
        feet, _ = query.random_points(rng, 86)
        npcs = world.add_capsules(feet[:80], radius=RADIUS, height=HEIGHT, group=groups.NPC)
        world.add_capsules(feet[80:], radius=RADIUS, height=HEIGHT, group=groups.PLAYER)
        world.step()
        yield world, query, np.array(npcs)


def mesh_gap(query: NavMeshQuery, here: np.ndarray, reach: float):  # type: ignore[no-untyped-def]
    """`Simulation._mesh_gap`'s closure: the distance to the navmesh edge along a heading, per call."""

    def gap(yaw: float) -> float:
        hit = query.raycast(here, here + reach * np.array([math.cos(yaw), math.sin(yaw), 0.0]))
        return math.inf if (not hit.valid or hit.walkable) else hit.fraction * reach

    return gap


def placements(world: World, query: NavMeshQuery, npcs: np.ndarray, rng: np.random.Generator, m: int) -> dict:
    """m probing NPCs: capsules where they stand (so the box starts in contact with a neighbour now and
    then), or moved beside a wall or off the mesh (their capsule is ignored either way), with random
    headings, skins, reaches and obstacle ranges."""
    pose = world.poses
    rows = rng.choice(len(npcs), m, replace=m > len(npcs))
    feet = pose.positions[np.searchsorted(pose.bodies, npcs[rows])] - [0.0, 0.0, 0.5 * HEIGHT]
    moved = rng.random(m) < 0.3
    lo, hi = world.static_bounds()
    feet[moved, :2] = rng.uniform(lo[:2], hi[:2], (int(moved.sum()), 2))  # in shelves, beside walls, off mesh
    feet[moved, 2] = 0.0
    return {
        "bodies": npcs[rows],
        "feet": feet,
        "yaws": rng.uniform(-math.pi, math.pi, m),
        "body_radius": RADIUS,
        "height": HEIGHT,
        "skin": rng.choice([0.0, 0.1, 0.3], m),
        "reach": rng.uniform(1.0, 6.0, m),
        "obstacle_range": rng.uniform(0.5, 3.0, m),
        "time": 1.25,
    }


def one_by_one(world: World, query: NavMeshQuery | None, kw: dict) -> list[ObstacleProbe]:
    out = []
    for i in range(len(kw["bodies"])):
        reach = float(kw["reach"][i])
        feet = kw["feet"][i]
        out.append(
            probe_obstacles(
                world,
                body=int(kw["bodies"][i]),
                feet=feet,
                yaw=float(kw["yaws"][i]),
                body_radius=kw["body_radius"],
                height=kw["height"],
                skin=float(kw["skin"][i]),
                reach=reach,
                obstacle_range=float(kw["obstacle_range"][i]),
                time=kw["time"],
                edge_gap=None if query is None else mesh_gap(query, feet, reach),
            )
        )
    return out


def assert_same(many: ObstacleProbes, single: list[ObstacleProbe]) -> None:
    assert len(many) == len(single)
    for i, one in enumerate(single):
        assert many.probe(i) == one, i  # exactly: the same floats, None where the sides were not cast
        assert math.isnan(many.left[i]) == (one.left is None)


@pytest.mark.parametrize("edges", [False, True])
def test_many_npcs_get_the_probes_they_get_one_by_one(warehouse, edges: bool) -> None:
    world, query, npcs = warehouse
    kw = placements(world, query, npcs, np.random.default_rng(4), 300)
    many = probe_obstacles_many(world, **kw, edge_gaps=navmesh_edge_gaps(query) if edges else None)
    assert_same(many, one_by_one(world, query if edges else None, kw))
    # every branch was taken: sides cast, nudges both ways, casts that start inside something
    assert (~np.isnan(many.left)).sum() > 30 and (many.nudge == 1).any() and (many.nudge == -1).any()
    assert np.isfinite(many.forward).sum() > 50 and np.isinf(many.forward).sum() > 20
    if edges:  # the mesh edge is what limits some gaps
        boxes = probe_obstacles_many(world, **kw)
        assert (many.forward < boxes.forward).sum() > 10
        assert (np.nan_to_num(many.left, nan=0) < np.nan_to_num(boxes.left, nan=0)).any()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(0, 30), edges=st.booleans())
def test_random_groups_of_npcs_match_one_by_one(warehouse, seed: int, m: int, edges: bool) -> None:
    world, query, npcs = warehouse
    kw = placements(world, query, npcs, np.random.default_rng(seed), m)
    many = probe_obstacles_many(world, **kw, edge_gaps=navmesh_edge_gaps(query) if edges else None)
    assert_same(many, one_by_one(world, query if edges else None, kw))


def test_scalar_settings_and_arrays_agree(warehouse) -> None:
    world, query, npcs = warehouse
    kw = placements(world, query, npcs, np.random.default_rng(8), 40)
    kw.update(skin=0.1, reach=4.0, obstacle_range=1.5)
    scalar = probe_obstacles_many(world, **kw)
    kw.update(skin=np.full(40, 0.1), reach=np.full(40, 4.0), obstacle_range=np.full(40, 1.5))
    kw.update(body_radius=np.full(40, RADIUS), height=np.full(40, HEIGHT))
    arrays = probe_obstacles_many(world, **kw)
    for name in ("forward", "left", "right", "nudge"):
        np.testing.assert_array_equal(getattr(scalar, name), getattr(arrays, name))


def test_navmesh_edge_gaps_follow_the_simulation_rule(warehouse) -> None:
    world, query, _ = warehouse
    rng = np.random.default_rng(9)
    lo, hi = world.static_bounds()
    origins = np.column_stack([rng.uniform(lo[:2], hi[:2], (400, 2)), np.zeros(400)])
    headings, reach = rng.uniform(-math.pi, math.pi, 400), rng.uniform(0.5, 8.0, 400)
    gaps = navmesh_edge_gaps(query)(origins, headings, reach)
    want = [mesh_gap(query, o, r)(h) for o, h, r in zip(origins, headings, reach, strict=True)]
    np.testing.assert_array_equal(gaps, want)
    assert np.isfinite(gaps).sum() > 50 and np.isinf(gaps).sum() > 50


def test_no_npcs_no_casts(warehouse) -> None:
    world, query, _ = warehouse
    calls = world.pybullet_calls.copy()
    empty = probe_obstacles_many(
        world,
        bodies=np.zeros(0, dtype=np.int64),
        feet=np.zeros((0, 3)),
        yaws=np.zeros(0),
        body_radius=RADIUS,
        height=HEIGHT,
        skin=0.1,
        reach=4.0,
        obstacle_range=1.5,
        time=0.0,
        edge_gaps=navmesh_edge_gaps(query),
    )
    assert len(empty) == 0 and empty.nudge.dtype == np.int64
    assert world.pybullet_calls == calls


GOOD = {
    "bodies": np.array([1, 2]),
    "feet": np.zeros((2, 3)),
    "yaws": np.zeros(2),
    "body_radius": 0.35,
    "height": 1.8,
    "skin": 0.1,
    "reach": 4.0,
    "obstacle_range": 1.5,
    "time": 0.0,
}


@pytest.mark.parametrize(
    "change, message",
    [
        ({"feet": np.zeros((2, 2))}, r"feet must be an \(n, 3\) array"),
        ({"feet": np.full((2, 3), np.nan)}, "feet must be finite"),
        ({"bodies": np.array([1.0, 2.0])}, r"bodies must be \(2,\) body ids"),
        ({"bodies": np.array([1])}, r"bodies must be \(2,\) body ids"),
        ({"yaws": 0.0}, r"yaws must be \(2,\) finite numbers"),
        ({"yaws": np.array([0.0, np.inf])}, "yaws must be finite numbers"),
        ({"skin": -0.1}, "skin must be a number of metres >= 0"),
        ({"reach": np.ones(3)}, r"reach must be a number or \(2,\) numbers"),
        ({"reach": 0.0}, "reach must be a number of metres > 0"),
        ({"height": 0.2}, r"height must be a number of metres > lift \(0.3\)"),
        ({"body_radius": np.nan}, "body_radius must be a number of metres > 0"),
        ({"edge_gaps": lambda o, h, r: np.zeros(1)}, r"edge_gaps must return \(6,\) gaps"),
    ],
)
def test_bad_arguments_raise_perception_error(warehouse, change: dict, message: str) -> None:
    with pytest.raises(PerceptionError, match=message):
        probe_obstacles_many(warehouse[0], **{**GOOD, **change})


def test_a_body_beside_a_wall_can_walk_away_and_along_it() -> None:
    """A capsule 4 cm from the warehouse's inner wall (its face at y = -0.10): straight at the wall the gap
    is those 4 cm; away from it, along it and diagonally away the probe finds room (a box of the body's
    depth reaches past the round capsule with its corners and blocked every heading, pinning the NPC)."""
    with World(load_scene("warehouse"), seed=1) as world:
        feet = np.array([14.68, -0.10 - RADIUS - 0.04, 0.0])
        body = world.add_capsule(tuple(feet), radius=RADIUS, height=HEIGHT, group=groups.NPC)
        world.step()
        gaps = {}
        for name, yaw in (("at", math.pi / 2), ("away", -math.pi / 2), ("along", 0.0), ("off", -0.7)):
            p = probe_obstacles(
                world, body=body, feet=feet, yaw=yaw, body_radius=RADIUS, height=HEIGHT, skin=0.1,
                reach=3.0, obstacle_range=1.0, time=0.0,
            )  # fmt: skip
            gaps[name] = p.forward
    assert gaps["at"] == pytest.approx(0.04, abs=0.015)
    assert min(gaps["away"], gaps["along"], gaps["off"]) > 1.0, gaps
