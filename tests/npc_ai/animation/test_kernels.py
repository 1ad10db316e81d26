"""The compiled rules against independent references (definitions written out in numpy, here)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npc_ai.animation import AnimatorBatch, AnimatorSettings, BlendSpace1D, default_locomotion_set, kernels
from npc_ai.animation.locomotion import GaitSettings, gait_thresholds
from npc_ai.animation.root_motion import RootTracks

finite_times = st.floats(-50.0, 50.0, allow_nan=False)


@pytest.fixture(scope="module")
def blend():
    return BlendSpace1D(default_locomotion_set().samples, max_play_rate=3.0)


@settings(max_examples=300, deadline=None)
@given(t=finite_times, frames=st.integers(2, 200), fps=st.floats(1.0, 240.0), loop=st.booleans())
def test_frame_coord_reconstructs_the_time(t, frames, fps, loop):
    """i + a frames after the start of cycle k is the time itself (clamped for one-shot clips)."""
    duration = (frames - 1) / fps
    i, a, k = kernels.frame_coord(t, duration, fps, frames, loop)
    assert 0 <= i <= frames - 2 and 0.0 <= a <= 1.0
    if loop:
        assert k == math.floor(t / duration)
        assert k * duration + (i + a) / fps == pytest.approx(t, abs=1e-9)
    else:
        assert k == 0.0
        assert (i + a) / fps == pytest.approx(min(max(t, 0.0), duration), abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(speed=st.floats(0.0, 12.0), level=st.integers(0, 3))
def test_gait_level_is_the_hysteresis_band(speed, level):
    """The new level is the one whose band holds the speed, moving from the current level: up while above
    the next up-threshold, then down while below the current down-threshold."""
    ups, downs = gait_thresholds(GaitSettings())
    expect = level
    while expect < 3 and speed > ups[expect]:
        expect += 1
    while expect > 0 and speed < downs[expect]:
        expect -= 1
    assert kernels.gait_level(speed, level, ups, downs) == expect


@settings(max_examples=200, deadline=None)
@given(speed=st.floats(0.0, 20.0))
def test_blend_weights_reproduce_the_axis_position(blend, speed):
    """Weights are a partition of unity over at most two neighbouring samples, and interpolate the
    normalised axis: sum w_i x_i = clamp(speed / sprint speed, 0, 1)."""
    w = blend.weights_of(np.array([speed]))[0]
    assert np.all(w >= 0) and w.sum() == pytest.approx(1.0)
    used = np.flatnonzero(w > 0)
    assert len(used) <= 2 and (len(used) < 2 or used[1] == used[0] + 1)
    x = min(max(speed / blend.max_speed, 0.0), 1.0)
    assert float(w @ blend.positions) == pytest.approx(x, abs=1e-12)


def test_root_tracks_match_each_clips_own_sampler(blend):
    """The stacked tracks give each clip's `Clip.sample_root` displacement, rotated into the frame at t0."""
    clips = tuple(s.clip for s in blend.samples if s.cycle)
    tracks = RootTracks(clips)
    rng = np.random.default_rng(3)
    t0 = rng.uniform(-3, 9, (len(clips), 50))
    t1 = t0 + rng.uniform(0, 0.2, t0.shape)
    d, y = tracks.deltas(t0, t1)
    for c, clip in enumerate(clips):
        p0, y0 = clip.sample_root(t0[c])
        p1, y1 = clip.sample_root(t1[c])
        dp = p1 - p0
        cs, sn = np.cos(-y0), np.sin(-y0)
        expect = np.column_stack([cs * dp[:, 0] - sn * dp[:, 1], sn * dp[:, 0] + cs * dp[:, 1], dp[:, 2]])
        np.testing.assert_allclose(d[c], expect, atol=1e-12)
        np.testing.assert_allclose(y[c], y1 - y0, atol=1e-12)


def test_root_tracks_reject_bad_times(blend):
    from npc_ai.animation import AnimationSettingsError

    tracks = RootTracks((blend.samples[1].clip,))
    with pytest.raises(AnimationSettingsError):
        tracks.deltas(np.zeros((1, 3)), np.zeros((1, 4)))
    with pytest.raises(AnimationSettingsError):
        tracks.deltas(np.array([[np.nan]]), np.zeros((1, 1)))


def test_a_tick_of_some_rows_leaves_the_others_alone():
    """`locomotion_tick` writes only the rows it is given (the batch's arrays are updated in place)."""
    batch = AnimatorBatch(6, settings=AnimatorSettings(lazy_pose=True))
    batch.speed[:] = [0.0, 1.0, 2.0, 4.0, 6.0, 3.0]
    for _ in range(30):
        batch.advance(1 / 60)
    before = {k: v.copy() for k, v in vars(batch).items() if isinstance(v, np.ndarray)}
    delta, dyaw, _ = batch.advance(1 / 60, np.array([1, 4]))
    assert delta.shape == (2, 3) and dyaw.shape == (2,)
    for name, old in before.items():
        now = getattr(batch, name)
        others = np.setdiff1d(np.arange(6), [1, 4]) if now.shape[:1] == (6,) else slice(None)
        np.testing.assert_array_equal(now[others], old[others], err_msg=name)
    assert not np.array_equal(batch.phase[[1, 4]], before["phase"][[1, 4]])


def test_warm_up_compiles_what_the_package_calls():
    """After `warm_up`, real use adds no compiled signature (the first tick would otherwise compile)."""
    import numba

    from npc_ai.animation import Animator

    kernels.warm_up()
    dispatchers = {
        name: d for name, d in vars(kernels).items() if isinstance(d, numba.core.registry.CPUDispatcher)
    }
    before = {name: len(d.signatures) for name, d in dispatchers.items()}
    batch = AnimatorBatch(3, settings=AnimatorSettings(lazy_pose=True))
    batch.speed[:] = [0.0, 2.0, 6.5]
    batch.advance(1 / 60)
    batch.tick(1 / 60, np.array([0, 2]))
    animator = Animator(settings=AnimatorSettings(lazy_pose=True))
    animator.set_speed(1.0)
    animator.advance(1 / 60)
    blend = batch.blend
    blend.advance(batch.phase, 0.1, batch.speed, batch.weights)
    blend.play_rate(1.0, batch.weights[0])
    blend.samples[1].clip.sample_root(0.3)
    blend.samples[1].clip.sample_root(np.array([0.1, 0.2]))
    assert {name: len(d.signatures) for name, d in dispatchers.items()} == before
