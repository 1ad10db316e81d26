import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npc_ai.animation import AnimationSettingsError


@settings(max_examples=60, deadline=None)
@given(t=st.floats(-3, 3), k=st.integers(-3, 3))
def test_looping_sample_carries_cycle_displacement(walk, t, k):
    a = walk.sample(t)
    b = walk.sample(t + k * walk.duration)
    assert np.allclose(b.positions, a.positions + k * walk.cycle_displacement, atol=1e-6)
    assert np.allclose(b.pose.root_offset, a.pose.root_offset, atol=1e-6)
    dot = np.abs(np.sum(a.pose.rotations * b.pose.rotations, axis=-1))
    assert np.all(dot > 1 - 1e-6)


def test_sample_interpolates_between_frames(walk):
    mid = walk.sample(0.5 / walk.fps)
    assert np.allclose(mid.positions, 0.5 * (walk.positions[0] + walk.positions[1]))
    assert np.allclose(walk.sample(walk.frame_times[7]).pose.rotations, walk.rotations[7], atol=1e-9)


def test_one_shot_clamps(cmu):
    assert np.allclose(cmu.sample(-1.0).positions, cmu.positions[0])
    assert np.allclose(cmu.sample(cmu.duration + 5).positions, cmu.positions[-1])


def test_in_place_and_play_rate(run):
    still = run.in_place()
    assert np.allclose(still.positions, still.positions[0]) and still.root_speed() == 0.0
    fast = run.with_play_rate(6.0 / run.root_speed())
    assert fast.root_speed() == pytest.approx(6.0)
    with pytest.raises(AnimationSettingsError):
        run.with_play_rate(0.0)


def test_local_world_consistency(walk):
    world = walk.world_positions()
    assert np.allclose(
        world[:, 0], walk.positions + np.c_[walk.root_offsets[:, :2], walk.root_offsets[:, 2]], atol=1e-9
    )


@pytest.mark.parametrize("name", ["walk", "run", "cmu"])
def test_resample_at_the_same_rate_reproduces_the_clip(name, request):
    clip = request.getfixturevalue(name)
    same = clip.resample(clip.fps)
    assert same.n_frames == clip.n_frames and same.fps == pytest.approx(clip.fps, rel=1e-12)
    assert np.allclose(same.positions, clip.positions, atol=1e-9)
    assert np.allclose(same.yaw, clip.yaw, atol=1e-9)
    assert np.allclose(same.root_offsets, clip.root_offsets, atol=1e-9)
    assert np.all(np.abs(np.sum(same.rotations * clip.rotations, axis=-1)) > 1 - 1e-9)
    assert (same.name, same.feet, same.loop, same.skeleton) == (
        clip.name,
        clip.feet,
        clip.loop,
        clip.skeleton,
    )


@settings(max_examples=25, deadline=None)
@given(fps=st.floats(4.0, 240.0))
def test_resample_keeps_duration_displacement_and_seam(walk, fps):
    out = walk.resample(fps)
    assert out.fps == pytest.approx(fps, rel=0.5 / (walk.duration * fps) + 1e-12)  # under half a frame off
    assert out.duration == pytest.approx(walk.duration, abs=1e-12)
    assert np.allclose(out.cycle_displacement, walk.cycle_displacement, atol=1e-12)
    assert out.root_speed() == pytest.approx(walk.root_speed(), rel=1e-9)
    # loop seam: the last frame is the first pose, one cycle on
    assert out.loop and np.allclose(out.rotations[-1], out.rotations[0])
    assert np.allclose(out.root_offsets[-1], out.root_offsets[0])
    assert np.allclose(out.positions[-1], out.positions[0] + walk.cycle_displacement)
    # every new frame is the original clip sampled at that time
    s = walk.sample(out.frame_times)
    assert np.allclose(out.local_positions(), walk.local_positions(out.frame_times), atol=1e-9)
    assert np.allclose(out.positions, s.positions, atol=1e-9)
    assert "resampled" in out.source


def test_resample_one_shot_keeps_its_ends(cmu):
    out = cmu.resample(30.0)
    assert not out.loop and out.duration == pytest.approx(cmu.duration, abs=1e-12)
    assert np.allclose(out.positions[[0, -1]], cmu.positions[[0, -1]])
    assert np.allclose(out.local_positions()[-1], cmu.local_positions()[-1], atol=1e-9)


@pytest.mark.parametrize("fps", [0, -30.0, float("nan"), float("inf"), None, "60"])
def test_resample_rejects_bad_rates(walk, fps):
    with pytest.raises(AnimationSettingsError, match="resample fps must be a positive number"):
        walk.resample(fps)
