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
