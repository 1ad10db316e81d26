"""Planted-foot sliding, planted labels from clip contacts, GMD's 20 Hz skating ratio (``sliding``).

Synthetic feet with known answers, hypothesis properties (rigid horizontal motions, scaling), a table of
malformed inputs, and the real DeepMimic walk / run driven at 1x and 1.5x their own root speed.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from npc_ai.animation import AnimationSettingsError, ContactSettings, detect_contacts, load_clip
from npc_ai.animation.metrics import clip_feet_world, clip_root_trajectory, skate_metrics
from npc_ai.animation.sliding import (
    SlideMetrics,
    blend_planted,
    clip_planted_mask,
    gmd_skate_ratio,
    planted_at,
    planted_share_of_skating,
    planted_slide_steps,
    planted_sliding,
    resample_feet,
)

DT = 1 / 60


def _line(speed_mps: float, n: int = 61, z: float = 0.0, dt: float = DT) -> np.ndarray:
    """(n, 3) a foot moving along +x at ``speed_mps`` at height z."""
    t = np.arange(n) * dt
    return np.stack([speed_mps * t, np.zeros(n), np.full(n, z)], axis=1)


# --- planted-foot sliding -------------------------------------------------------------------------


def test_planted_foot_at_0_1_mps_for_1_s_slides_10_cm_and_swing_is_not_counted():
    feet = np.stack([_line(0.1), _line(2.0, z=0.3)], axis=1)  # left planted, right swinging fast
    planted = np.zeros((61, 2), dtype=bool)
    planted[:, 0] = True
    m = planted_sliding(feet, planted, DT, travelled_m=2.0)
    assert m.planted_steps == 60
    assert m.total_cm == pytest.approx(10.0)
    assert m.planted_time_s == pytest.approx(1.0)
    assert m.cmps == pytest.approx(10.0)
    assert m.cm_per_m == pytest.approx(5.0)
    assert m.slip_share == 0.0


def test_only_steps_planted_at_both_ends_count():
    x = np.cumsum([0.0, 0.01, 0.02, 0.04, 0.08])  # steps of 1, 2, 4, 8 cm
    feet = np.stack([x, np.zeros(5), np.zeros(5)], axis=1)[:, None, :]
    planted = np.array([[True], [True], [False], [True], [True]])
    slide, both = planted_slide_steps(feet, planted, DT)
    np.testing.assert_array_equal(both[:, 0], [True, False, False, True])
    np.testing.assert_allclose(slide[:, 0], [0.01, 0.0, 0.0, 0.08])
    m = planted_sliding(feet, planted, DT)
    assert m.total_cm == pytest.approx(9.0) and m.planted_steps == 2
    assert math.isnan(m.cm_per_m)  # no distance travelled given
    assert math.isnan(planted_sliding(feet, planted, DT, travelled_m=0.0).cm_per_m)


def test_weights_count_from_one_half_and_match_bool_labels():
    feet = np.stack([_line(0.1, 4), _line(0.3, 4)], axis=1)
    weights = np.array([[0.5, 0.49], [0.9, 1.0], [0.5, 0.5], [1.0, 0.7]])
    by_weight = planted_sliding(feet, weights, DT, travelled_m=1.0)
    assert by_weight == planted_sliding(feet, weights >= 0.5, DT, travelled_m=1.0)
    np.testing.assert_array_equal(planted_slide_steps(feet, weights, DT)[1].sum(axis=0), [3, 2])
    assert by_weight.total_cm == pytest.approx(100 * (3 * 0.1 + 2 * 0.3) * DT)
    lighter = weights.copy()
    lighter[2, 1] = 0.4999  # right foot no longer planted at row 2: both its steps drop
    assert planted_sliding(feet, lighter, DT).planted_steps == 3


def test_slip_share_threshold():
    dx = np.tile([0.1, 0.3], 30) * DT  # alternating 0.1 and 0.3 m/s
    x = np.concatenate([[0.0], np.cumsum(dx)])
    feet = np.stack([x, np.zeros_like(x), np.zeros_like(x)], axis=1)[:, None, :]
    planted = np.ones((len(x), 1), dtype=bool)
    assert planted_sliding(feet, planted, DT).slip_share == pytest.approx(0.5)
    assert planted_sliding(feet, planted, DT, slip_threshold_mps=0.35).slip_share == 0.0
    assert planted_sliding(feet, planted, DT, slip_threshold_mps=0.05).slip_share == 1.0
    assert planted_sliding(feet, planted, DT).cmps == pytest.approx(20.0)


def test_step_mask_splits_the_total():
    rng = np.random.default_rng(3)
    feet = rng.normal(size=(40, 2, 3))
    planted = rng.random((40, 2)) > 0.3
    phase = rng.random(39) > 0.5
    whole = planted_sliding(feet, planted, DT, travelled_m=3.0)
    a = planted_sliding(feet, planted, DT, steps=phase)
    b = planted_sliding(feet, planted, DT, steps=~phase)
    assert a.total_cm + b.total_cm == pytest.approx(whole.total_cm)
    assert a.planted_steps + b.planted_steps == whole.planted_steps
    assert whole.cm_per_m == pytest.approx(whole.total_cm / 3.0)


def test_no_planted_step_gives_nan_rates():
    feet = np.stack([_line(0.1, 10), _line(0.1, 10)], axis=1)
    m = planted_sliding(feet, np.zeros((10, 2), dtype=bool), DT, travelled_m=1.0)
    assert m.planted_steps == 0 and m.total_cm == 0.0 and m.cm_per_m == 0.0
    assert math.isnan(m.cmps) and math.isnan(m.slip_share)


# --- GMD skating ratio at 20 Hz -------------------------------------------------------------------


def test_resample_60_to_20_hz_takes_every_third_sample_of_linear_motion():
    feet = np.stack([_line(0.7), _line(0.2, z=0.1)], axis=1)
    np.testing.assert_allclose(resample_feet(feet, DT, 20.0), feet[::3], atol=1e-12)
    mid = resample_feet(feet[:2], 0.1, 20.0)  # 0.1 s at 10 Hz -> 0, 0.05, 0.1 s
    np.testing.assert_allclose(mid[1], feet[:2].mean(axis=0))


def test_gmd_ratio_of_a_sliding_foot_resampled_from_60_hz():
    swing = _line(0.0, z=0.2)
    # 0.7 m/s on the floor for 1 s: 20 steps at 20 Hz; the zero-padded 5-step mean of the two end steps
    # is 3 x 0.7 / 5 = 0.42 < 0.5, so 18 of 20 steps skate
    ratio, steps = gmd_skate_ratio(np.stack([_line(0.7), swing], axis=1), DT)
    assert steps == 20 and ratio == pytest.approx(18 / 20)
    # 1 m/s for the first half second, then still: steps 0..9 skate (step 9's mean is 0.6)
    half = _line(1.0)
    half[31:, 0] = half[30, 0]
    assert gmd_skate_ratio(np.stack([half, swing], axis=1), DT)[0] == pytest.approx(0.5)
    # the other foot sliding in the other half: a step counts once when ANY foot skates
    other = half.copy()
    other[:, 0] = np.where(np.arange(61) <= 30, 0.0, (np.arange(61) - 30) * DT)
    assert gmd_skate_ratio(np.stack([half, other], axis=1), DT)[0] == pytest.approx(1.0)
    # too slow, too high, or under a floor that puts it 5 cm up: no skating
    assert gmd_skate_ratio(np.stack([_line(0.45), swing], axis=1), DT)[0] == 0.0
    assert gmd_skate_ratio(np.stack([_line(0.7, z=0.06), swing], axis=1), DT)[0] == 0.0
    assert gmd_skate_ratio(np.stack([_line(0.7), swing], axis=1), DT, floor_z=-0.05)[0] == 0.0
    lifted = np.stack([_line(0.7, z=1.02), swing + [0, 0, 1]], axis=1)
    assert gmd_skate_ratio(lifted, DT, floor_z=1.0)[0] == pytest.approx(0.9)
    c, s = np.cos(2.0), np.sin(2.0)  # turned about z and moved: the same ratio
    turned = lifted @ np.array([[c, s, 0], [-s, c, 0], [0, 0, 1]]) + [3.0, -4.0, 0.0]
    assert gmd_skate_ratio(turned, DT, floor_z=1.0)[0] == pytest.approx(0.9)


def test_planted_share_of_old_skating_steps():
    low_swing = _line(1.0, z=0.01)  # swing foot grazing the floor: the old ratio counts it
    feet = np.stack([_line(1.0), low_swing], axis=1)
    planted = np.zeros((61, 2), dtype=bool)
    planted[:, 0] = True
    assert skate_metrics(feet, DT).skate_ratio == 1.0
    assert planted_share_of_skating(feet, planted, DT) == pytest.approx(0.5)
    assert math.isnan(planted_share_of_skating(np.stack([_line(0.1)] * 2, axis=1), planted, DT))


# --- planted labels from clip contacts ------------------------------------------------------------


@pytest.fixture(scope="module")
def walk_clean():
    return load_clip("walk", clean=True)


@pytest.fixture(scope="module")
def run_clean():
    return load_clip("run", clean=True)


def test_clip_planted_mask_is_detect_contacts_with_min_duration(walk):
    for clip in (walk, load_clip("walk", clean=True)):
        raw = detect_contacts(clip, ContactSettings(min_duration_s=0.0)).mask
        np.testing.assert_array_equal(clip_planted_mask(clip, ContactSettings(min_duration_s=0.0)), raw)
        kept = clip_planted_mask(clip)
        assert kept.shape == (clip.n_frames, 2) and not np.any(kept & ~raw)
        np.testing.assert_array_equal(kept[-1], kept[0])  # a loop's last frame is its first
        assert np.all(kept.sum(axis=0) >= 0.4 * clip.n_frames)  # contacts are found
    # the raw walk has one-frame contact blips that the 0.05 s minimum drops
    assert clip_planted_mask(walk).sum() < detect_contacts(walk).mask.sum()


def test_planted_at_uses_the_frame_interval_containing_t():
    mask = np.array([[True, False], [False, False], [True, True], [False, True], [True, False]])
    times = np.array([0.0, 0.24, 0.25, 0.99, 1.0, 1.3, -0.01])
    looked = planted_at(mask, 1.0, times)  # 4 intervals of 0.25 s; loops wrap
    np.testing.assert_array_equal(looked, mask[[0, 0, 1, 3, 0, 1, 3]])
    clamped = planted_at(mask, 1.0, np.array([-0.5, 1.0, 2.0]), loop=False)
    np.testing.assert_array_equal(clamped, mask[[0, 4, 4]])


def test_planted_at_accepts_foot_contacts_and_honours_min_duration(walk):
    contacts = detect_contacts(walk)  # raw walk: its mask keeps one-frame blips, its intervals do not
    t = walk.frame_times
    np.testing.assert_array_equal(planted_at(contacts, None, t), clip_planted_mask(walk))
    assert planted_at(contacts, None, t).sum() < contacts.mask.sum()


def test_blend_planted_is_the_weighted_mean_of_labels():
    labels = np.array([[True, False], [False, True], [False, False]])
    np.testing.assert_allclose(blend_planted(labels, np.array([0.5, 0.25, 0.25])), [0.5, 0.25])
    idle = np.array([False, False, True])  # the third clip is a held idle pose
    np.testing.assert_allclose(blend_planted(labels, np.array([0.5, 0.25, 0.25]), idle), [0.75, 0.5])
    np.testing.assert_allclose(blend_planted(labels, np.array([2.0, 0.0, 0.0])), [1.0, 0.0])
    batch = blend_planted(np.stack([labels, ~labels]), np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]))
    np.testing.assert_allclose(batch, [[0.5, 0.5], [1.0, 0.5]])


# --- properties -----------------------------------------------------------------------------------

_feet = arrays(np.float64, st.tuples(st.integers(4, 25), st.just(2), st.just(3)), elements=st.floats(-2, 2))
_planted = st.lists(st.booleans(), min_size=50, max_size=50)


def _labels(bits: list[bool], n: int) -> np.ndarray:
    return np.array(bits[: 2 * n] + [True] * max(0, 2 * n - len(bits))).reshape(n, 2)


@settings(max_examples=60, deadline=None)
@given(_feet, _planted, st.floats(-50, 50), st.floats(-50, 50), st.floats(-math.pi, math.pi))
def test_invariant_under_horizontal_translation_and_rotation_about_z(feet, bits, tx, ty, angle):
    planted = _labels(bits, len(feet))
    c, s = math.cos(angle), math.sin(angle)
    moved = feet.copy()
    moved[..., 0] = c * feet[..., 0] - s * feet[..., 1] + tx
    moved[..., 1] = s * feet[..., 0] + c * feet[..., 1] + ty
    a, b = planted_sliding(feet, planted, DT, 1.0), planted_sliding(moved, planted, DT, 1.0)
    assert b.planted_steps == a.planted_steps
    assert b.total_cm == pytest.approx(a.total_cm, rel=1e-9, abs=1e-7)
    assert b.cm_per_m == pytest.approx(a.cm_per_m, rel=1e-9, abs=1e-7)
    assert b.cmps == pytest.approx(a.cmps, rel=1e-9, abs=1e-7, nan_ok=True)
    share = planted_share_of_skating(feet, planted, DT)
    assert planted_share_of_skating(moved, planted, DT) == pytest.approx(share, nan_ok=True)


@settings(max_examples=60, deadline=None)
@given(_feet, _planted, st.floats(0.1, 10.0))
def test_scales_linearly_with_displacement_and_inversely_with_time(feet, bits, k):
    planted = _labels(bits, len(feet))
    base = planted_sliding(feet, planted, DT, 2.0)
    far = planted_sliding(feet * [k, k, 1.0], planted, DT, 2.0, slip_threshold_mps=k * 0.2)
    assert far.total_cm == pytest.approx(k * base.total_cm, rel=1e-9, abs=1e-9)
    assert far.cm_per_m == pytest.approx(k * base.cm_per_m, rel=1e-9, abs=1e-9)
    assert far.cmps == pytest.approx(k * base.cmps, rel=1e-9, abs=1e-9, nan_ok=True)
    assert far.slip_share == pytest.approx(base.slip_share, nan_ok=True)
    slow = planted_sliding(feet, planted, DT * k, 2.0)  # the same path in k times the time
    assert slow.total_cm == pytest.approx(base.total_cm)
    assert slow.cmps == pytest.approx(base.cmps / k, rel=1e-9, nan_ok=True)


# --- malformed input ------------------------------------------------------------------------------

_OK = np.zeros((5, 2, 3))
_NAN = _OK.copy()
_NAN[2, 1, 0] = np.nan


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: planted_sliding(np.zeros((5, 3)), np.ones((5, 2), bool), DT), "shape"),
        (lambda: planted_sliding(np.zeros((1, 2, 3)), np.ones((1, 2), bool), DT), "T >= 2"),
        (lambda: planted_sliding(_NAN, np.ones((5, 2), bool), DT), "finite"),
        (lambda: planted_sliding(_OK, np.ones((4, 2), bool), DT), "planted must have shape"),
        (lambda: planted_sliding(_OK, np.full((5, 2), 1.5), DT), r"\[0, 1\]"),
        (lambda: planted_sliding(_OK, np.full((5, 2), np.nan), DT), r"\[0, 1\]"),
        (lambda: planted_sliding(_OK, np.ones((5, 2), bool), 0.0), "dt"),
        (lambda: planted_sliding(_OK, np.ones((5, 2), bool), -DT), "dt"),
        (lambda: planted_sliding(_OK, np.ones((5, 2), bool), math.nan), "dt"),
        (lambda: planted_sliding(_OK, np.ones((5, 2), bool), DT, travelled_m=-1.0), "travelled_m"),
        (lambda: planted_sliding(_OK, np.ones((5, 2), bool), DT, steps=np.ones(5, bool)), "steps"),
        (lambda: planted_sliding(_OK, np.ones((5, 2), bool), DT, steps=np.ones(4)), "steps"),
        (lambda: planted_sliding(_OK, np.ones((5, 2), bool), DT, slip_threshold_mps=0), "slip"),
        (lambda: gmd_skate_ratio(_NAN, DT), "finite"),
        (lambda: gmd_skate_ratio(_OK, 0.001), "2 samples"),
        (lambda: gmd_skate_ratio(_OK, DT, floor_z=np.zeros(3)), "floor_z"),
        (lambda: gmd_skate_ratio(_OK, DT, window=0), "window"),
        (lambda: planted_share_of_skating(_OK, np.ones((6, 2), bool), DT), "planted must have shape"),
        (lambda: planted_at(np.ones((5, 2)), 1.0, np.zeros(3)), "bool"),
        (lambda: planted_at(np.ones((5, 2), bool), None, np.zeros(3)), "clip_duration"),
        (lambda: planted_at(np.ones((5, 2), bool), 0.0, np.zeros(3)), "clip_duration"),
        (lambda: planted_at(np.ones((5, 2), bool), 1.0, np.array([np.nan])), "times"),
        (lambda: blend_planted(np.ones((3, 2), bool), np.ones(2)), "weights"),
        (lambda: blend_planted(np.ones((3, 2), bool), np.zeros(3)), "positive sum"),
        (lambda: blend_planted(np.ones((3, 2), bool), np.array([1.0, -1.0, 1.0])), ">= 0"),
        (lambda: blend_planted(np.ones((3, 2), bool), np.ones(3), np.ones(2, bool)), "always_planted"),
        (lambda: SlideMetrics(0.0, 0.0, 1.5, 1, 0.0, 0.0), "slip_share"),
        (lambda: SlideMetrics(0.0, 0.0, 0.5, -1, 0.0, 0.0), "planted_steps"),
    ],
)
def test_malformed_input_raises(call, message):
    with pytest.raises(AnimationSettingsError, match=message):
        call()


# --- real clips: own labels at 60 Hz, root driven at 1x and 1.5x ----------------------------------


def _drive(clip, scale: float, cycles: int = 4):
    t = np.arange(0.0, cycles * clip.duration, DT)
    pos, yaw = clip_root_trajectory(clip, t, scale)
    feet = clip_feet_world(clip, t, pos, yaw)
    travelled = float(np.linalg.norm(np.diff(pos[:, :2], axis=0), axis=1).sum())
    return feet, planted_at(clip_planted_mask(clip), clip.duration, t), travelled


def test_walk_sliding_under_a_root_1_5x_too_fast(walk_clean):
    # measured (cleaned at 30 fps / cleaned and resampled to 60 fps): 1x 1.7 / 2.4 cm/m, 1.7 / 2.3 cm/s,
    # 2 / 5 % slips; 1.5x 32.6 / 34.0 cm/m, 49 / 50 cm/s, 100 % slips
    own_feet, labels, own_m = _drive(walk_clean, 1.0)
    fast_feet, _, fast_m = _drive(walk_clean, 1.5)
    assert 0.4 < labels.mean() < 0.6  # the clip's own contacts: about half the time per foot
    own = planted_sliding(own_feet, labels, DT, own_m)
    fast = planted_sliding(fast_feet, labels, DT, fast_m)
    assert own.planted_steps > 250 and math.isfinite(own.cm_per_m) and math.isfinite(own.cmps)
    assert own.cm_per_m < 4.0 and own.cmps < 4.0 and own.slip_share < 0.1
    assert fast.cm_per_m > 10 * own.cm_per_m and fast.cmps > 15 * own.cmps
    assert fast.slip_share > 0.9
    # the old 60 Hz ratio's skating steps are swing feet at 1x; at 1.5x the locked planted feet slide at half
    # the root speed, 0.49 m/s, just under its 0.5 m/s threshold: it misses sliding the planted metric sees
    assert planted_share_of_skating(own_feet, labels, DT) < 0.05
    assert planted_share_of_skating(fast_feet, labels, DT) < 0.05 and fast.cmps > 40


def test_run_sliding_under_a_root_1_5x_too_fast(run_clean):
    # measured (30 fps / 60 fps cleanup): 1x 1.6 / 0.6 cm/m, 14.9 / 5.2 cm/s; 1.5x 12.6 / 14.1 cm/m, 181 cm/s
    own_feet, labels, own_m = _drive(run_clean, 1.0)
    fast_feet, _, fast_m = _drive(run_clean, 1.5)
    own = planted_sliding(own_feet, labels, DT, own_m)
    fast = planted_sliding(fast_feet, labels, DT, fast_m)
    assert own.planted_steps > 50 and own.cm_per_m < 3.0
    assert fast.cm_per_m > 5 * own.cm_per_m and fast.cmps > 8 * own.cmps


def test_clip_planted_mask_is_computed_once_per_clip_and_settings_and_read_only(walk, monkeypatch):
    import npc_ai.animation.sliding as sliding

    clip = load_clip("walk", clean=True).with_play_rate(1.25, name="walk_fast")  # a clip no test asked yet
    calls = []
    real = sliding.detect_contacts

    def counted(c, s=None):
        calls.append(s)
        return real(c, s)

    monkeypatch.setattr(sliding, "detect_contacts", counted)
    first = clip_planted_mask(clip)
    assert clip_planted_mask(clip) is first and clip_planted_mask(clip, ContactSettings()) is first
    strict = clip_planted_mask(clip, ContactSettings(min_duration_s=0.0))
    assert strict is not first and len(calls) == 2  # one detection per (clip, settings)
    assert not first.flags.writeable
    with pytest.raises(ValueError):
        first[0, 0] = not first[0, 0]
    np.testing.assert_array_equal(first, sliding._interval_mask(real(clip), clip.loop))
