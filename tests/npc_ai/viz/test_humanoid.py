import types

import numpy as np
import pybullet as p
import pytest
from pybullet_utils.bullet_client import BulletClient

from npc_ai.animation import (
    AnimationError,
    Animator,
    Clip,
    Pose,
    Skeleton,
    compose_world,
    forward_kinematics,
)
from npc_ai.animation.deepmimic import pybullet_data_path
from npc_ai.viz.humanoid import PosedHumanoid, render_filmstrip

CHECKED = [
    f"{side}_{part}" for side in ("left", "right") for part in ("ankle", "knee", "hip", "shoulder", "elbow")
]


@pytest.fixture(scope="module")
def client():
    c = BulletClient(p.DIRECT)
    c.setGravity(0, 0, -9.81)
    yield c
    c.disconnect()


@pytest.fixture()
def puppet(client):
    h = PosedHumanoid(client)
    yield h
    h.remove()


def _links_by_name(client, body):
    """Link index by link name, read independently from getJointInfo."""
    return {client.getJointInfo(body, j)[12].decode(): j for j in range(client.getNumJoints(body))}


def _pybullet_positions(client, body, names):
    index = _links_by_name(client, body)
    states = client.getLinkStates(body, [index[n] for n in names], computeForwardKinematics=1)
    return np.array([s[4] for s in states])


def test_posed_links_match_forward_kinematics(client, puppet, walk):
    sk = walk.skeleton
    position, yaw = np.array([3.0, -2.0, 0.1]), 0.7
    worst = 0.0
    for t in (0.0, 0.31, 0.77, 1.1):
        s = walk.sample(t)
        puppet.set_pose(s.pose, position, yaw + t)
        fk = forward_kinematics(sk, s.pose.root_offset, s.pose.rotations)[0]
        expected = compose_world(fk[None], position[None], np.array([yaw + t]))[0]
        got = _pybullet_positions(client, puppet.body, CHECKED)
        err = np.linalg.norm(got - expected[[sk.index(n) for n in CHECKED]], axis=1)
        assert np.all(err < 0.01), dict(zip(CHECKED, err, strict=True))
        worst = max(worst, float(err.max()))
        # link_positions reads back the same frames, by skeleton joint name
        read = puppet.link_positions()
        assert list(read) == list(sk.names)
        assert np.allclose([read[n] for n in CHECKED], got)
    assert worst < 1e-4  # measured ~3e-7 m: the conventions match exactly, not just within 1 cm


def test_posed_from_animator_tick(client, puppet):
    animator = Animator()
    animator.set_speed(2.0)
    for _ in range(20):
        animator.advance(1 / 30)
    position, yaw = np.array([-1.0, 4.0, 0.0]), -2.0
    puppet.set_from_animator(animator, position, yaw)
    expected = compose_world(animator.joint_positions()[None], position[None], np.array([yaw]))[0]
    got = _pybullet_positions(client, puppet.body, CHECKED)
    sk = animator.skeleton
    assert np.max(np.linalg.norm(got - expected[[sk.index(n) for n in CHECKED]], axis=1)) < 0.01


def test_puppet_has_no_collisions_and_holds_its_pose(client, puppet, walk):
    s = walk.sample(0.4)
    puppet.set_pose(s.pose, [0.0, 0.0, 0.0], 0.0)
    before = puppet.link_positions()
    pelvis = before["root"]
    # rays through the pelvis (sideways and forwards) and down through the head hit nothing
    hits = client.rayTestBatch(
        [pelvis + [0, 2, 0], pelvis + [2, 0, 0], before["neck"] + [0, 0, 2]],
        [pelvis - [0, 2, 0], pelvis - [2, 0, 0], [*before["neck"][:2], -0.5]],
    )
    assert [h[0] for h in hits] == [-1, -1, -1]
    # a dynamic box dropped on the head falls through it onto a plane below the puppet
    plane = client.loadURDF(str(pybullet_data_path() / "plane.urdf"), [0, 0, -1])
    box = client.createMultiBody(
        1.0,
        client.createCollisionShape(p.GEOM_BOX, halfExtents=[0.1, 0.1, 0.1]),
        basePosition=[*before["neck"][:2], 2.0],
    )
    try:
        for _ in range(360):
            client.stepSimulation()
        box_pos = np.array(client.getBasePositionAndOrientation(box)[0])
        assert box_pos[2] == pytest.approx(-0.9, abs=0.02)  # resting on the plane, 1.9 m below the head
        assert np.allclose(box_pos[:2], before["neck"][:2], atol=1e-3)
        # the puppet is fixed and its joints are held: stepping the world does not make it sag
        after = puppet.link_positions()
        assert max(np.linalg.norm(after[n] - before[n]) for n in before) < 2e-3
    finally:
        client.removeBody(box)
        client.removeBody(plane)


def test_render_filmstrip(tmp_path, walk):
    from PIL import Image

    out = render_filmstrip(walk, tmp_path / "strip" / "walk.png", frames=3, size=(120, 160))
    img = np.asarray(Image.open(out).convert("RGB")).astype(int)
    assert img.shape == (160, 3 * 120, 3)
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20
    # the character (orange) is visible in every tile, and covers a plausible part of it
    orange = (img[..., 0] > 150) & (img[..., 1] < 140) & (img[..., 2] < 90)
    per_tile = orange.reshape(160, 3, 120).sum(axis=(0, 2))
    assert np.all(per_tile > 200) and np.all(per_tile < 0.5 * 120 * 160), per_tile
    # upright: the orange pixels span most of the tile height with the feet in the lower part
    rows = np.flatnonzero(orange[:, :120].any(axis=1))
    assert rows.min() < 0.3 * 160 and rows.max() > 0.6 * 160


def _bad_pose(walk, **change):
    s = walk.sample(0.2).pose
    fields = {"root_offset": s.root_offset, "rotations": s.rotations} | change
    return Pose(**fields)


@pytest.mark.parametrize(
    "make, position, yaw, match",
    [
        (
            lambda w: _bad_pose(w, rotations=np.zeros((3, 4)) + [0, 0, 0, 1]),
            (0, 0, 0),
            0.0,
            r"shape \(15, 4\)",
        ),
        (lambda w: _bad_pose(w), (0.0, np.nan, 0.0), 0.0, "root_position must be 3 finite"),
        (lambda w: _bad_pose(w), (0.0, 0.0), 0.0, "root_position must be 3 finite"),
        (lambda w: _bad_pose(w), (0, 0, 0), float("inf"), "yaw must be a finite"),
        (lambda w: _bad_pose(w, root_offset=np.array([0, np.nan, 1])), (0, 0, 0), 0.0, "root_offset"),
        (
            lambda w: _bad_pose(w, rotations=np.where(np.arange(15)[:, None] == 3, 0.0, w.rotations[0])),
            (0, 0, 0),
            0.0,
            "zero-length quaternion",
        ),
        (lambda w: "not a pose", (0, 0, 0), 0.0, "needs a Pose"),
    ],
)
def test_bad_pose_input(puppet, walk, make, position, yaw, match):
    with pytest.raises(AnimationError, match=match):
        puppet.set_pose(make(walk), position, yaw)


def test_bad_construction_and_removed(client, walk):
    with pytest.raises(AnimationError, match="BulletClient"):
        PosedHumanoid(p)
    with pytest.raises(AnimationError, match="BulletClient"):
        PosedHumanoid(types.SimpleNamespace())
    with pytest.raises(AnimationError, match="scale"):
        PosedHumanoid(client, scale=0.0)
    n = client.getNumBodies()
    h = PosedHumanoid(client, position=(1, 2, 0), yaw=1.0)
    assert client.getNumBodies() == n + 1
    h.remove()
    h.remove()
    assert client.getNumBodies() == n
    with pytest.raises(AnimationError, match="removed"):
        h.set_pose(walk.sample(0.0).pose, (0, 0, 0), 0.0)


def test_render_filmstrip_bad_input(tmp_path, walk):
    tiny = Skeleton(names=("a", "b"), parents=np.array([-1, 0]), offsets=np.zeros((2, 3)))
    other = Clip(
        name="tiny",
        skeleton=tiny,
        fps=10.0,
        positions=np.zeros((2, 3)),
        yaw=np.zeros(2),
        root_offsets=np.zeros((2, 3)),
        rotations=np.zeros((2, 2, 4)) + [0, 0, 0, 1],
        loop=False,
        feet=("a", "b"),
    )
    with pytest.raises(AnimationError, match=r"not on the humanoid\.urdf skeleton"):
        render_filmstrip(other, tmp_path / "x.png")
    with pytest.raises(AnimationError, match="frames"):
        render_filmstrip(walk, tmp_path / "x.png", frames=0)
    with pytest.raises(AnimationError, match="size"):
        render_filmstrip(walk, tmp_path / "x.png", size=(240,))
    assert not (tmp_path / "x.png").exists()
