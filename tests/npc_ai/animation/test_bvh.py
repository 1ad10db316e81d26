import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npc_ai.animation import AnimationError, ClipFormatError, detect_contacts, parse_bvh
from npc_ai.animation.contacts import ContactSettings

SMALL = """HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT LeftFoot
  {
    OFFSET 10 -90 0
    CHANNELS 3 Xrotation Yrotation Zrotation
    End Site
    {
      OFFSET 0 0 15
    }
  }
  JOINT RightFoot
  {
    OFFSET -10 -90 0
    CHANNELS 3 Yrotation Zrotation Xrotation
  }
}
MOTION
Frames: 3
Frame Time: 0.1
0 95 0 0 0 0 0 0 0 0 0 0
0 95 10 0 0 0 0 0 0 0 0 0
0 95 20 90 0 0 0 0 0 0 0 0
"""


def test_small_bvh_units_axes_end_site():
    clip = parse_bvh(SMALL, scale=0.01)
    assert clip.n_frames == 3 and clip.fps == pytest.approx(10)
    assert clip.skeleton.names == ("Hips", "LeftFoot", "LeftFoot_end", "RightFoot")
    assert clip.feet == ("LeftFoot", "RightFoot")
    world = clip.world_positions()
    assert world[0, 0] == pytest.approx([0, 0, 0.95])  # Y-up 95 cm -> z 0.95 m
    assert world[1, 0] == pytest.approx([0, -0.10, 0.95])  # +z (Y-up) -> -y (Z-up)
    assert world[0, 2] == pytest.approx([0.1, -0.15, 0.05])  # End Site offset accumulated
    # frame 2: 90 deg about the file's z (forward axis) rolls the body: left foot goes up to the side
    assert world[2, 1, 2] > 0.9


def test_rotation_order_is_intrinsic_in_channel_order():
    from scipy.spatial.transform import Rotation

    text = SMALL.replace("0 95 20 90 0 0 0 0 0 0 0 0", "0 95 20 0 0 0 30 40 50 0 0 0")
    clip = parse_bvh(text, scale=0.01)
    q = clip.rotations[2, 1]
    from npc_ai.animation import quat

    expected = quat.y_up_to_z_up_rotation(Rotation.from_euler("XYZ", [30, 40, 50], degrees=True).as_quat())
    assert min(np.abs(q - expected).max(), np.abs(q + expected).max()) < 1e-9


def test_cmu_clip_facts(cmu):
    assert cmu.n_frames == 995
    assert cmu.fps == pytest.approx(120, rel=1e-3)
    assert cmu.root_offsets[0, 2] == pytest.approx(0.954, abs=0.005)  # hip height in metres: file is metres
    assert cmu.feet == ("LeftToe", "RightToe")


def test_cmu_start_walk_stop_speed_profile(cmu):
    step = np.linalg.norm(np.diff(cmu.positions[:, :2], axis=0), axis=1) * cmu.fps
    t = cmu.frame_times[1:]
    start, end = step[t < 1.0].mean(), step[t > cmu.duration - 1.0].mean()
    middle = step[(t > 4.5) & (t < 6.0)].mean()
    assert start < 0.3 and end < 0.15 and middle > 0.9
    assert middle > 4 * max(start, end)
    # travels forward: in the walking part the displacement is along the facing (+x of the character frame)
    from npc_ai.animation import root_motion_deltas

    d, _ = root_motion_deltas(cmu, np.arange(4.5, 6.0, 0.1), np.arange(4.5, 6.0, 0.1) + 0.1)
    assert np.all(d[:, 0] > 0.05) and np.all(np.abs(d[:, 1]) < d[:, 0])
    assert np.linalg.norm(cmu.cycle_displacement[:2]) == pytest.approx(2.58, abs=0.05)


def test_cmu_contacts_both_feet(cmu):
    contacts = detect_contacts(cmu)
    assert len(contacts.intervals[0]) >= 5 and len(contacts.intervals[1]) >= 5
    # in the steady walk (4-6.2 s) steps alternate; the CMU toe lands 6-8 cm up (its lowest is 2.5 cm),
    # so use a 6 cm band
    wide = detect_contacts(cmu, ContactSettings(height_threshold_m=0.06))
    events = sorted([(t, "L") for t in wide.down_times(0)] + [(t, "R") for t in wide.down_times(1)])
    walk = [side for t, side in events if 4.0 < t < 6.2]
    assert len(walk) >= 4 and all(a != b for a, b in itertools.pairwise(walk))


@pytest.mark.parametrize(
    "mutate, match",
    [
        (lambda s: s.replace("HIERARCHY", "HIERARCH"), "line 1: expected 'HIERARCHY'"),
        (lambda s: s.replace("OFFSET 10 -90 0", "OFFSET 10 -90"), "line 9: expected a number"),
        (lambda s: s.replace("CHANNELS 3 Xrotation", "CHANNELS 3 Wrotation"), "line 9: unknown channel"),
        (
            lambda s: s.replace(
                "CHANNELS 3 Yrotation Zrotation Xrotation", "CHANNELS 3 Yposition Zrotation Xrotation"
            ),
            "line 18: position channel",
        ),
        (lambda s: s.replace("Frames: 3", "Frames: 4"), r"truncated: 3 of 4 frames"),
        (lambda s: s.replace("Frames: 3", "Frames: three"), "line 22: frame count"),
        (lambda s: s.replace("Frame Time: 0.1", "Frame Time: 0"), "line 23: frame time"),
        (
            lambda s: s.replace("0 95 10 0 0 0 0 0 0 0 0 0", "0 95 10 0 0 0 0 0 0"),
            r"line 25 \(frame 1\): expected 12",
        ),
        (
            lambda s: s.replace("0 95 10 0", "0 95 ten 0"),
            r"line 25 \(frame 1\): channel value is not a number",
        ),
        (lambda s: s.replace("0 95 20 90", "0 95 nan 90"), r"line 26 \(frame 2\)"),
        (lambda s: s.split("MOTION")[0], "no MOTION section"),
        (lambda s: s[: s.index("JOINT RightFoot")] + "MOTION\n", "file ends where"),
        (lambda s: s + "1 2 3 4 5 6 7 8 9 10 11 12\n", "line 27: more than the 3 declared frames"),
    ],
)
def test_malformed_bvh(mutate, match):
    with pytest.raises(ClipFormatError, match=match) as info:
        parse_bvh(mutate(SMALL), source="bad.bvh")
    assert str(info.value).startswith("bad.bvh: ")


def test_missing_feet_is_an_error():
    text = SMALL.replace("LeftFoot", "Lx").replace("RightFoot", "Rx")
    with pytest.raises(AnimationError, match="foot joints"):
        parse_bvh(text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fuzzed_bvh_raises_only_clip_format_error(data):
    """Cut, delete or replace tokens of a valid file: the parser returns a clip or raises ClipFormatError
    naming a line, never anything else."""
    lines = SMALL.splitlines()
    op = data.draw(st.sampled_from(["truncate", "drop_line", "replace_token", "insert_token"]))
    if op == "truncate":
        cut = data.draw(st.integers(0, len(SMALL)))
        text = SMALL[:cut]
    else:
        i = data.draw(st.integers(0, len(lines) - 1))
        if op == "drop_line":
            del lines[i]
        else:
            tokens = lines[i].split() or [""]
            j = data.draw(st.integers(0, len(tokens) - 1))
            junk = data.draw(
                st.sampled_from(["{", "}", "JOINT", "End", "x", "-1e400", "1.5", "CHANNELS", "7", ""])
            )
            if op == "replace_token":
                tokens[j] = junk
            else:
                tokens.insert(j, junk)
            lines[i] = " ".join(tokens)
        text = "\n".join(lines)
    try:
        clip = parse_bvh(text, source="fuzz.bvh")
    except ClipFormatError as exc:
        assert "line" in str(exc) and str(exc).startswith("fuzz.bvh: ")
    except AnimationError as exc:  # a well-formed file whose foot joints were renamed
        assert "foot" in str(exc)
    else:
        assert clip.n_frames >= 2
