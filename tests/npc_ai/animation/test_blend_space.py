import numpy as np
import pytest

from npc_ai.animation import AnimationSettingsError, BlendSpace1D, default_locomotion_set


@pytest.fixture(scope="module")
def blend():
    return BlendSpace1D(default_locomotion_set().samples, max_play_rate=3.0)


def test_weights_interpolate_neighbours(blend):
    assert np.allclose(blend.weights(0.0), [1, 0, 0, 0])
    assert np.allclose(blend.weights(blend.samples[1].speed), [0, 1, 0, 0])
    w = blend.weights(0.5 * (blend.samples[1].speed + blend.samples[2].speed))
    assert np.allclose(w, [0, 0.5, 0.5, 0])
    assert np.allclose(blend.weights(9.0), [0, 0, 0, 1])


@pytest.mark.parametrize("speed", [0.3, 0.98, 2.0, 3.56, 5.0, 6.0, 9.0])
def test_root_speed_follows_request(blend, speed):
    r = blend.step(0.1, 1 / 60, speed)
    assert np.linalg.norm(r.delta_local[:2]) * 60 == pytest.approx(speed, rel=1e-3)


def test_play_rate_capped_beyond_last_sample(blend):
    w = blend.weights(30.0)
    assert blend.play_rate(9.0, w) == pytest.approx(1.5)
    assert blend.play_rate(30.0, w) == 3.0
    assert blend.play_rate(6.0, w) == pytest.approx(1.0)


def test_blended_cycle_duration(blend):
    w = np.array([0, 0.5, 0.5, 0])
    assert blend.cycle_duration(w) == pytest.approx(0.5 * (1.2666 + 0.8), rel=1e-3)
    assert blend.cycle_duration(np.array([1.0, 0, 0, 0])) is None


def test_bad_samples():
    loco = default_locomotion_set()
    with pytest.raises(AnimationSettingsError):
        BlendSpace1D([loco.run, loco.walk])


def test_batched_advance_matches_each_clips_own_root_motion(blend) -> None:
    """`advance` samples every clip's root track in one stacked pass; the weighted sum of each clip's own
    `root_motion_deltas` (the scalar sampler) over the same phase step must agree, for many characters."""
    from npc_ai.animation import root_motion_deltas

    rng = np.random.default_rng(5)
    n, dt = 64, 1 / 60
    phase = rng.uniform(0, 1, n)
    speeds = rng.uniform(0, 7, n)
    weights = blend.weights_of(speeds)
    weights[::3] = rng.dirichlet(np.ones(weights.shape[1]), len(weights[::3]))  # cross-fade mixtures
    delta, dyaw, new_phase, rates = blend.advance(phase, dt, speeds, weights)
    for j in range(n):
        expect, turn = np.zeros(3), 0.0
        step = (new_phase[j] - phase[j]) % 1.0
        for s, w in zip(blend.samples, weights[j], strict=True):
            if s.cycle and w > 1e-9:
                t0, t1 = float(s.time_at(phase[j])), float(s.time_at(phase[j] + step))
                d, y = root_motion_deltas(s.clip, t0, t1)
                expect += w * d
                turn += w * float(y)
        np.testing.assert_allclose(delta[j], expect, atol=1e-9)
        assert dyaw[j] == pytest.approx(turn, abs=1e-9)
        assert rates[j] == pytest.approx(blend.play_rate(speeds[j], weights[j]))
