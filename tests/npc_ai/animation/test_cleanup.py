"""Foot locking (``clean_clip`` / ``lock_feet``): planted feet held, swing and root untouched, bones kept."""

import numpy as np
import pytest

from npc_ai.animation import (
    AnimationSettingsError,
    CleanupSettings,
    clean_clip,
    default_locomotion_set,
    leg_chain,
    load_clip,
    lock_feet,
    two_bone_ik,
)
from npc_ai.animation.cleanup import lock_targets
from npc_ai.animation.contacts import detect_contacts
from npc_ai.animation.metrics import clip_feet_world, clip_root_trajectory
from npc_ai.animation.skeleton import forward_kinematics


@pytest.fixture(scope="module", params=["walk", "run", "cmu"])
def pair(request):
    clip = request.getfixturevalue(request.param)
    return clip.resample(CleanupSettings().fps), clean_clip(clip)


def test_planted_foot_held_and_rest_unchanged(pair):
    raw, clean = pair
    assert np.array_equal(raw.positions, clean.positions) and np.array_equal(raw.yaw, clean.yaw)
    assert np.array_equal(raw.root_offsets, clean.root_offsets)
    assert np.allclose(raw.rotations[:, 0], clean.rotations[:, 0])
    for side in (0, 1):
        targets, weights, runs = lock_targets(raw, side)
        hip, knee, ankle = leg_chain(raw, side)
        before = raw.world_positions()[:, ankle]
        after = clean.world_positions()[:, ankle]
        locked = weights >= 1.0
        assert locked.sum() >= 3 and len(runs) >= 1
        # drift of the planted ankle: the cleaned one sits on its plant point (within IK reach)
        assert np.abs(after[locked] - targets[locked]).max() < 0.01
        step_b = np.linalg.norm(np.diff(before[:, :2], axis=0), axis=1)[locked[:-1] & locked[1:]]
        step_a = np.linalg.norm(np.diff(after[:, :2], axis=0), axis=1)[locked[:-1] & locked[1:]]
        assert step_a.mean() < step_b.mean() and step_a.max() < 0.01
        # outside stance +- blend nothing moves; planted ankle heights are kept (in the blend the leg's
        # reach may lift the ankle a little when the plant point is far from the animated path)
        free = weights == 0.0
        assert free.sum() > 0
        assert np.allclose(before[free], after[free], atol=1e-9)
        assert np.allclose(before[locked, 2], after[locked, 2], atol=0.01)
        # bone lengths kept
        for a, b in ((hip, knee), (knee, ankle)):
            lb = np.linalg.norm(raw.local_positions()[:, a] - raw.local_positions()[:, b], axis=-1)
            la = np.linalg.norm(clean.local_positions()[:, a] - clean.local_positions()[:, b], axis=-1)
            assert np.allclose(lb, la, atol=1e-9)
    # only leg joints change
    legs = {j for side in (0, 1) for j in leg_chain(raw, side)}
    others = [j for j in range(raw.skeleton.n_joints) if j not in legs]
    assert np.allclose(np.abs(np.sum(raw.rotations[:, others] * clean.rotations[:, others], -1)), 1.0)


def test_walk_seam_glitch_removed(walk):
    """The walk's mirror seam: the about-to-plant ankle snaps ~9 cm in one frame; after locking no
    ankle step below 2 cm of the stance height exceeds 3 cm."""

    def worst_low_step(clip):
        w = clip.world_positions()[:, list(clip.foot_indices)]
        low = (w[:, :, 2] - w[:, :, 2].min(axis=0)) < 0.02
        step = np.linalg.norm(np.diff(w[:, :, :2], axis=0), axis=-1)
        return step[low[:-1] & low[1:]].max()

    assert worst_low_step(walk) > 0.08
    assert worst_low_step(clean_clip(walk)) < 0.03


def test_two_bone_ik_reaches_targets():
    rng = np.random.default_rng(3)
    clip = load_clip("walk")
    hip, knee, ankle = leg_chain(clip, 0)
    pos, _ = forward_kinematics(clip.skeleton, clip.root_offsets, clip.rotations)
    target = pos[:, ankle] + rng.uniform(-0.08, 0.08, size=(clip.n_frames, 3))
    r_hip, r_knee = two_bone_ik(pos[:, hip], pos[:, knee], pos[:, ankle], target)
    from npc_ai.animation import quat

    new_knee = pos[:, hip] + quat.rotate(r_hip, pos[:, knee] - pos[:, hip])
    new_ankle = new_knee + quat.rotate(r_knee, pos[:, ankle] - pos[:, knee])
    reach = np.linalg.norm(target - pos[:, hip], axis=-1)
    ok = reach < 0.99 * (np.linalg.norm(pos[:, knee] - pos[:, hip], axis=-1) + 0.41)
    assert np.abs(new_ankle - target)[ok].max() < 1e-6


def test_raw_clip_still_loadable_and_set_uses_cleaned():
    raw, clean = load_clip("walk"), load_clip("walk", clean=True)
    assert "feet locked" not in raw.source and "feet locked" in clean.source
    assert not np.allclose(raw.resample(clean.fps).rotations, clean.rotations)
    loco = default_locomotion_set()
    assert "feet locked" in loco.walk.clip.source and "feet locked" in loco.run.clip.source
    raw_set = default_locomotion_set(clean=False)
    assert "feet locked" not in raw_set.walk.clip.source
    assert [s.speed for s in raw_set.samples] == pytest.approx([s.speed for s in loco.samples])


def test_settings_validated(walk):
    with pytest.raises(AnimationSettingsError, match="blend_s"):
        CleanupSettings(blend_s=-1)
    with pytest.raises(AnimationSettingsError, match="speed_threshold_mps"):
        CleanupSettings(speed_threshold_mps=0)
    with pytest.raises(AnimationSettingsError, match="reach_slack_m"):
        CleanupSettings(reach_slack_m=-0.01)
    hard = lock_feet(walk, CleanupSettings(blend_s=0.0))
    assert hard.n_frames == walk.n_frames


@pytest.mark.parametrize("fps", [0, -60.0, float("nan"), float("inf"), "60"])
def test_settings_fps_validated(fps):
    with pytest.raises(AnimationSettingsError, match="fps must be a positive number"):
        CleanupSettings(fps=fps)


def test_clean_clip_locks_at_the_playback_rate(walk, cmu):
    clean = clean_clip(walk)
    assert clean.fps == pytest.approx(CleanupSettings().fps, rel=0.01) and clean.name == walk.name
    assert clean.duration == pytest.approx(walk.duration, abs=1e-12) and "resampled" in clean.source
    own_rate = clean_clip(walk, CleanupSettings(fps=None))
    assert own_rate.n_frames == walk.n_frames and "resampled" not in own_rate.source
    assert clean_clip(cmu).fps == pytest.approx(60.0, rel=0.01)  # a 120 Hz capture is locked at 60 Hz


# ---------------------------------------------------------------- sliding at the playback rate (issue 11)
PLAYBACK_HZ = 60.0


def _planted_at(clip, times):
    """(T, 2) bool: the clip's own contacts (``detect_contacts`` at its own rate) at clip ``times`` [s]."""
    t = np.mod(times, clip.duration)
    out = np.zeros((t.size, 2), dtype=bool)
    for foot, intervals in enumerate(detect_contacts(clip).intervals):
        for start, end in intervals:
            out[:, foot] |= (t >= start - 1e-9) & (t < end - 1e-9)
            if end > clip.duration:  # an interval across the loop's seam
                out[:, foot] |= t < end - clip.duration - 1e-9
    return out


def planted_sliding_cmps(clip, rate_hz=PLAYBACK_HZ, speed_scale=1.0, cycles=4):
    """Planted-foot sliding [cm/s] of ``clip`` played at ``rate_hz`` with its root at ``speed_scale`` x its
    own root motion: horizontal foot-joint displacement over steps planted at both ends / planted time."""
    dt = 1.0 / rate_hz
    times = np.arange(0.0, clip.duration * cycles + 1e-9, dt)
    pos, yaw = clip_root_trajectory(clip, times, speed_scale)
    feet = clip_feet_world(clip, times, pos, yaw)
    planted = _planted_at(clip, times)
    both = planted[:-1] & planted[1:]
    step = np.linalg.norm(np.diff(feet[..., :2], axis=0), axis=-1)
    assert both.sum() * dt > 0.25 * cycles * clip.duration  # each foot is down a good part of the cycle
    return 100.0 * float(step[both].sum()) / (both.sum() * dt)


@pytest.mark.parametrize("name", ["walk", "run"])
def test_cleaned_clips_barely_slide_at_60_hz(name):
    """Done-when of issue 11: the cleaned walk and run slide <= 2 cm/s at 60 Hz under their own root
    motion, and >= 10x that with the root 1.5x too fast. Measured: walk raw 5.2 / cleaned 0.02 cm/s, run
    raw 14.3 / cleaned 0.8 cm/s (cleaned at 30 Hz before issue 11: 1.7 and 14.9 cm/s); at 1.5x 49 and
    178 cm/s (half the root speed: the planted foot is carried along by the extra 0.5x)."""
    raw, clean = load_clip(name), load_clip(name, clean=True)
    assert clean.fps == pytest.approx(PLAYBACK_HZ, rel=0.01)
    raw_slide = planted_sliding_cmps(raw)
    own = planted_sliding_cmps(clean)
    fast = planted_sliding_cmps(clean, speed_scale=1.5)
    assert raw_slide > 4.0  # the metric sees the capture's sliding
    assert own <= 1.5 and own < 0.25 * raw_slide  # the done-when bound is 2 cm/s
    assert fast >= 10 * 2.0 and fast >= 10 * own
    half_root = 50.0 * clean.root_speed()  # 0.5 x root speed [cm/s]
    assert fast == pytest.approx(half_root, rel=0.1)
    assert planted_sliding_cmps(clean, rate_hz=30.0) <= 2.0  # and at the capture's 30 Hz as well


def _bone_lengths(clip):
    local = clip.local_positions()
    parents = np.asarray(clip.skeleton.parents)
    child = np.flatnonzero(parents >= 0)
    return np.linalg.norm(local[:, child] - local[:, parents[child]], axis=-1)


def _knee_bend(clip, side):
    """(F, 3) the knee's offset from the hip-ankle line (its bend direction times its size) [m]."""
    hip, knee, ankle = leg_chain(clip, side)
    p = clip.local_positions()
    axis = p[:, ankle] - p[:, hip]
    axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
    thigh = p[:, knee] - p[:, hip]
    return thigh - np.sum(thigh * axis, axis=-1, keepdims=True) * axis


@pytest.mark.parametrize("name", ["walk", "run"])
def test_cleanup_ik_is_honest(name):
    """Bone lengths unchanged (every bone, every frame), the leg never longer than its bones and the knee
    bends the way the capture bends it (no hyper-extension)."""
    clean = load_clip(name, clean=True)
    raw = load_clip(name).resample(clean.fps)
    lengths = _bone_lengths(raw)
    assert np.allclose(_bone_lengths(clean), lengths, atol=1e-9)
    assert np.allclose(lengths, lengths[0], atol=1e-9)  # rigid bones in the capture itself
    for side in (0, 1):
        hip, knee, ankle = leg_chain(clean, side)
        p = clean.local_positions()
        leg = np.linalg.norm(p[:, ankle] - p[:, hip], axis=-1)
        full = np.linalg.norm(p[:, knee] - p[:, hip], axis=-1) + np.linalg.norm(
            p[:, ankle] - p[:, knee], axis=-1
        )
        assert np.all(leg <= full + 1e-9)
        bend_raw, bend_clean = _knee_bend(raw, side), _knee_bend(clean, side)
        bent = np.linalg.norm(bend_raw, axis=-1) > 1e-3
        assert np.all(np.sum(bend_raw * bend_clean, axis=-1)[bent] > 0)
