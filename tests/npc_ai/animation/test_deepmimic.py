import json

import numpy as np
import pytest

from npc_ai.animation import (
    ClipFormatError,
    builtin_motion_path,
    detect_contacts,
    load_deepmimic,
    parse_deepmimic,
)
from npc_ai.animation.deepmimic import URDF_SCALE


def test_walk_cycle(walk):
    assert walk.n_frames == 39 and walk.loop
    assert walk.duration == pytest.approx(1.2666, abs=1e-3)
    assert np.linalg.norm(walk.cycle_displacement[:2]) == pytest.approx(1.2386, abs=1e-3)
    assert walk.root_speed() == pytest.approx(0.98, rel=0.02)
    assert walk.root_offsets[0, 2] == pytest.approx(0.8475, abs=1e-4)  # hip height [m]


def test_run_cycle(run):
    assert run.n_frames == 25
    assert run.duration == pytest.approx(0.80, abs=1e-3)
    assert np.linalg.norm(run.cycle_displacement[:2]) == pytest.approx(2.845, abs=1e-3)
    assert run.root_speed() == pytest.approx(3.56, rel=0.02)


def test_units_leg_length_matches_hip_height(walk):
    # thigh + shin in URDF units x 0.25 = 0.83 m, just under the 0.85 m hip height
    leg = (1.686184 + 1.639480) * URDF_SCALE
    assert leg == pytest.approx(0.831, abs=1e-3)
    sk = walk.skeleton
    assert np.linalg.norm(sk.offsets[sk.index("left_knee")]) == pytest.approx(1.686184 * URDF_SCALE)


@pytest.mark.parametrize("name", ["walk", "run"])
def test_contacts_alternate(name, walk, run):
    clip = {"walk": walk, "run": run}[name]
    contacts = detect_contacts(clip)
    seq = contacts.sequence()
    assert len(seq) == 2 and set(seq) == {"L", "R"}  # one step per foot per cycle: L, R, L, R when looped
    # the two feet land half a cycle apart
    gap = (contacts.down_phases(0)[0] - contacts.down_phases(1)[0]) % 1.0
    assert gap == pytest.approx(0.5, abs=0.05)


def test_fk_matches_pybullet(walk):
    """Cross-check: our FK of the walk equals pybullet's own FK of humanoid.urdf (globalScaling 0.25)."""
    import pybullet as p
    from pybullet_utils.bullet_client import BulletClient

    from npc_ai.animation import quat
    from npc_ai.animation.deepmimic import MOTION_JOINTS, pybullet_data_path

    frames = np.array(json.loads(builtin_motion_path("walk").read_text())["Frames"])
    client = BulletClient(p.DIRECT)
    try:
        body = client.loadURDF(
            str(pybullet_data_path() / "humanoid" / "humanoid.urdf"),
            globalScaling=URDF_SCALE,
            useFixedBase=True,
        )
        names = [client.getJointInfo(body, j)[12].decode() for j in range(client.getNumJoints(body))]
        world = walk.world_positions()
        for k in (0, 11, 30):
            fr = frames[k]
            client.resetBasePositionAndOrientation(body, fr[1:4], fr[[5, 6, 7, 4]])
            col = 8
            for joint, width in MOTION_JOINTS:
                if width == 4:
                    client.resetJointStateMultiDof(
                        body, names.index(joint), list(fr[[col + 1, col + 2, col + 3, col]])
                    )
                else:
                    client.resetJointState(body, names.index(joint), fr[col])
                col += width
            for joint in ("left_ankle", "right_ankle", "right_wrist", "neck"):
                link = np.array(client.getLinkState(body, names.index(joint), computeForwardKinematics=1)[4])
                assert np.allclose(
                    quat.y_up_to_z_up_vector(link), world[k, walk.skeleton.index(joint)], atol=1e-5
                )
    finally:
        client.disconnect()


def _walk_text():
    return builtin_motion_path("walk").read_text()


def _frames_doc(frames, loop="wrap"):
    return json.dumps({"Loop": loop, "Frames": frames})


GOOD = json.loads(builtin_motion_path("walk").read_text())["Frames"]


@pytest.mark.parametrize(
    "text, match",
    [
        ('{"Loop": "wrap", "Frames": [[1, 2,', r"line 1 column \d+"),
        ('{\n"Loop": "wrap",\n"Frames": [\n[0.03, 1 2]\n]}', "line 4"),
        (_frames_doc([GOOD[0], GOOD[1][:20]]), "frame 1: expected 44 numbers, got 20"),
        (_frames_doc([GOOD[0], GOOD[1], [*GOOD[2][:5], "x", *GOOD[2][6:]]]), "frame 2: .*not a number"),
        (_frames_doc([[-0.1, *GOOD[0][1:]], GOOD[1]]), "frame 0: frame duration"),
        (_frames_doc([GOOD[0]]), "at least 2 frames"),
        (_frames_doc(GOOD[:3], loop="bounce"), "Loop"),
        ("[1, 2, 3]", "line 1"),
    ],
)
def test_malformed_deepmimic(text, match):
    with pytest.raises(ClipFormatError, match=match) as info:
        parse_deepmimic(text, source="bad.txt")
    assert "bad.txt" in str(info.value)


def test_truncated_file_names_line(tmp_path):
    path = tmp_path / "walk_cut.txt"
    text = _walk_text()
    path.write_text(text[: len(text) // 2])
    with pytest.raises(ClipFormatError, match=r"walk_cut.txt: line \d+"):
        load_deepmimic(path)


def test_nonuniform_durations_are_resampled():
    frames = [list(f) for f in GOOD[:7]]
    for k, f in enumerate(frames):
        f[0] = 0.02 if k % 2 else 0.04
    clip = parse_deepmimic(_frames_doc(frames, loop="none"))
    assert clip.duration == pytest.approx(sum(f[0] for f in frames[:-1]))
    assert np.allclose(np.diff(clip.frame_times), 1 / clip.fps)


@pytest.mark.parametrize(
    "body, message",
    [
        (
            "<robot><link name='a'/><link name='b'/><joint name='j'><parent link='a'/></joint></robot>",
            "no <child",
        ),
        (
            "<robot><link name='a'/><link name='b'/><joint name='j'><child link='b'/></joint></robot>",
            "no <parent",
        ),
        ("<robot><link name='a'/><joint", "invalid URDF XML"),
    ],
)
def test_malformed_urdf_is_a_clip_format_error(tmp_path, body: str, message: str) -> None:
    from npc_ai.animation import ClipFormatError
    from npc_ai.animation.deepmimic import load_urdf_skeleton

    f = tmp_path / "bad.urdf"
    f.write_text(body)
    with pytest.raises(ClipFormatError, match=message):
        load_urdf_skeleton(f)
