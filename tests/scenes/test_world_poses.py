"""The world's per-tick calls: pose reads after a step, velocity writes (one body or many)."""

from __future__ import annotations

import numpy as np
import pytest

from scenes import World, WorldError, load_scene
from scenes._bullet import pybullet as pb


def _capsules(w: World, n: int) -> list[int]:
    return w.add_capsules(np.array([[float(i), 0.0, 0.0] for i in range(n)]))


def test_poses_are_the_bodies_own_after_a_step() -> None:
    with World(load_scene("arena")) as w:
        bodies = _capsules(w, 3)
        w.set_velocities(bodies, np.array([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.5, 0.5, 0.0]]))
        w.step(2)
        p = w.poses
        assert p.bodies.tolist() == bodies
        for row, body in enumerate(bodies):
            pos, orn = pb.getBasePositionAndOrientation(body, physicsClientId=w._cid)
            lin, _ = pb.getBaseVelocity(body, physicsClientId=w._cid)
            assert p.positions[row].tolist() == list(pos) and p.orientations[row].tolist() == list(orn)
            assert p.velocities[row].tolist() == list(lin)


def test_pose_caches_share_one_read_only_body_list_until_a_body_is_added() -> None:
    with World(load_scene("arena")) as w:
        _capsules(w, 2)
        w.step()
        first = w.poses.bodies
        w.step()
        assert w.poses.bodies is first and not first.flags.writeable
        with pytest.raises(ValueError):
            first[0] = -1
        more = _capsules(w, 1)
        w.step()
        assert w.poses.bodies.tolist() == [*first.tolist(), *more] and first.shape == (2,)
        assert w.poses.positions.flags.writeable  # positions stay the cache's own (teleport writes them)


def test_set_velocities_sets_every_body_and_stops_its_spin() -> None:
    with World(load_scene("arena")) as w:
        bodies = _capsules(w, 3)
        w.set_velocity(bodies[1], (0.0, 0.0, 0.0), yaw_rate=2.0)
        v = np.array([[1.0, 2.0, 0.0], [-1.0, 0.5, 0.25], [0.0, 0.0, 0.0]])
        w.set_velocities(iter(bodies), v)  # any iterable of ids
        for body, want in zip(bodies, v.tolist(), strict=True):
            lin, ang = pb.getBaseVelocity(body, physicsClientId=w._cid)
            assert list(lin) == want and list(ang) == [0.0, 0.0, 0.0]
        assert w.pybullet_calls["resetBaseVelocity"] == 1 + 3


def test_set_velocity_keeps_the_spin_unless_given_a_yaw_rate() -> None:
    with World(load_scene("arena")) as w:
        (body,) = _capsules(w, 1)
        w.set_velocity(body, (1.0, 0.0, 0.0), yaw_rate=1.5)
        w.set_velocity(body, (0.0, 2.0, 0.0))
        lin, ang = pb.getBaseVelocity(body, physicsClientId=w._cid)
        assert list(lin) == [0.0, 2.0, 0.0] and list(ang) == [0.0, 0.0, 1.5]


@pytest.mark.parametrize(
    "velocities, message",
    [
        (np.array([[np.nan, 0.0, 0.0], [0.0, 0.0, 0.0]]), "finite"),
        (np.array([[np.inf, 0.0, 0.0], [0.0, 0.0, 0.0]]), "finite"),
        (np.zeros((3, 3)), "2 bodies and 3 velocities"),
        (np.zeros((1, 3)), "2 bodies and 1 velocities"),
    ],
)
def test_set_velocities_refuses_bad_velocities(velocities: np.ndarray, message: str) -> None:
    with World(load_scene("arena")) as w:
        bodies = _capsules(w, 2)
        with pytest.raises(WorldError, match=message):
            w.set_velocities(bodies, velocities)
        assert w.pybullet_calls["resetBaseVelocity"] == 0  # refused before any body was touched
