"""Ledge guards: static boxes that stop dynamic NPC capsules and let players, props and rays through."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scenes import World, WorldError, groups, new_client, parse_scene
from scenes.ledge_guards import add_ledge_guards

FLOOR = """
[scene]
name = "floor"
[floor]
size = [30.0, 30.0]
"""
RADIUS = 0.35


def _guarded(world: World) -> tuple[int, ...]:
    """One guard along y = 0 from x = -5 to 5, facing +y: capsules of RADIUS keep their centres at y <= 0."""
    return add_ledge_guards(
        world, np.array([[-5.0, 0.0, 0.0]]), np.array([[5.0, 0.0, 0.0]]), np.array([[0.0, 1.0]]),
        offset=RADIUS, height=1.8,
    )  # fmt: skip


def _walk_into_it(group: int) -> float:
    """A capsule of `group` at y = -1 driven +y at 2 m/s for a second: where its centre ends [y, m]."""
    with World(parse_scene(FLOOR)) as w:
        guards = _guarded(w)
        assert w.ledge_guards == guards
        body = w.add_capsule((0.0, -1.0, 0.0), radius=RADIUS, group=group)
        for _ in range(60):
            w.set_velocity(body, (0.0, 2.0, 0.0), yaw_rate=0.0)
            w.step()
        return float(w.poses.positions[w.poses.index(body), 1])


def test_a_dynamic_npc_capsule_stops_at_the_guard() -> None:
    assert _walk_into_it(groups.NPC) == pytest.approx(0.0, abs=0.02)


def test_a_player_capsule_walks_through() -> None:
    assert _walk_into_it(groups.PLAYER) > 0.9


def test_rays_pass_through_and_the_world_removes_the_guards() -> None:
    client = new_client()
    try:
        w = World(parse_scene(FLOOR), client=client)
        before = client.getNumBodies()
        guards = _guarded(w)
        assert client.getNumBodies() == before + len(guards)
        hits = w.ray_test(np.array([[0.0, -2.0, 1.0]]), np.array([[0.0, 2.0, 1.0]]))
        assert not hits.hit[0]
        w.close()
        assert client.getNumBodies() == 0
    finally:
        client.disconnect()


@pytest.mark.parametrize(
    ("starts", "ends", "outward", "offset"),
    [
        (np.zeros((2, 3)), np.ones((1, 3)), np.ones((2, 2)), 0.3),  # shapes differ
        (np.full((1, 3), math.nan), np.ones((1, 3)), np.ones((1, 2)), 0.3),  # not finite
        (np.zeros((1, 3)), np.ones((1, 3)), np.ones((1, 2)), -0.1),  # offset < 0
    ],
)
def test_bad_guards_are_refused(starts, ends, outward, offset) -> None:
    with World(parse_scene(FLOOR)) as w:
        with pytest.raises(WorldError, match="ledge guards"):
            add_ledge_guards(w, starts, ends, outward, offset=offset, height=1.8)
        assert w.ledge_guards == ()  # nothing added
