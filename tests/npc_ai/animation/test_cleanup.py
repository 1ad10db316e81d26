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
from npc_ai.animation.skeleton import forward_kinematics


@pytest.fixture(scope="module", params=["walk", "run", "cmu"])
def pair(request):
    clip = request.getfixturevalue(request.param)
    return clip, clean_clip(clip)


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
    assert not np.allclose(raw.rotations, clean.rotations)
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
    hard = lock_feet(walk, CleanupSettings(blend_s=0.0))
    assert hard.n_frames == walk.n_frames
