"""The animator over a 0 -> 6 -> 0 m/s ramp at 60 Hz.

Pop bound: the requested speed changes by 6 m/s / 180 ticks = 0.033 m/s per tick; the root velocity (the
blend's root motion divided by dt) must change by no more than 0.05 m/s per tick (measured 0.034). A
pop (a phase jump, a weight switch, a fade restart) would be a change of the order of a gait's speed
difference (> 0.5 m/s). Pose bound: no foot moves (character frame) more per tick than the fastest foot
of the source clips at 60 Hz (sprint: 0.2 m).
"""

import itertools

import numpy as np
import pytest

from npc_ai.animation import (
    ActionState,
    AnimationError,
    AnimationSettingsError,
    Animator,
    AnimatorSettings,
    compose_world,
    integrate_root_motion,
    load_clip,
)
from npc_ai.animation.contacts import _runs, contact_mask

DT = 1 / 60


@pytest.fixture(scope="module")
def ramp():
    animator = Animator()
    n = 360
    speeds = np.concatenate([np.linspace(0, 6, n // 2), np.linspace(6, 0, n - n // 2)])
    motions, feet = [], []
    for s in speeds:
        animator.set_speed(float(s))
        motions.append(animator.advance(DT))
        feet.append(animator.foot_positions())
    return animator, speeds, motions, np.array(feet)


def test_no_pops(ramp):
    _, speeds, motions, feet = ramp
    v = np.array([m.velocity_local for m in motions])
    dv = np.linalg.norm(np.diff(v[:, :2], axis=0), axis=1)
    assert dv.max() <= 0.05
    assert np.abs(np.linalg.norm(v[:, :2], axis=1) - speeds).max() < 0.07
    # pose continuity
    sprint = Animator().locomotion_set.sprint.clip
    t = np.arange(0, sprint.duration, DT)
    src = sprint.local_positions(t)[:, list(sprint.foot_indices)]
    limit = np.linalg.norm(np.diff(src, axis=0), axis=-1).max()
    assert np.linalg.norm(np.diff(feet, axis=0), axis=-1).max() <= 1.05 * limit


def test_gait_transitions_recorded():
    """Up and down the speed range and a second at rest: every gait once each way, chosen from the speed
    smoothed over `gait_smoothing_s` (0.2 s), so each switch comes a little after its threshold."""
    animator = Animator()
    speeds = np.concatenate([np.linspace(0, 6, 180), np.linspace(6, 0, 180), np.zeros(60)])
    for s in speeds:
        animator.set_speed(float(s))
        animator.advance(DT)
    gaits = [(t.source, t.target) for t in animator.transitions if t.kind == "gait"]
    assert gaits == [
        ("idle", "walk"),
        ("walk", "run"),
        ("run", "sprint"),
        ("sprint", "run"),
        ("run", "walk"),
        ("walk", "idle"),
    ]
    up = {t.target: t.time_s for t in animator.transitions[:3]}
    lag = animator.settings.gait_smoothing_s  # a ramp of 2 m/s per second is seen 0.2 s late
    assert up["run"] == pytest.approx(3.3 / 2 + lag, abs=0.05)  # walk -> run at 3.3 m/s


def test_feet_alternate_when_blending(ramp):
    """Left and right foot-down events of the blended output alternate (no crossed feet)."""
    _, speeds, motions, feet = ramp
    pos, yaw = integrate_root_motion(
        np.array([m.delta_local for m in motions]), np.array([m.delta_yaw for m in motions]), np.zeros(3), 0.0
    )
    world = compose_world(feet, pos[1:], yaw[1:])
    mask, _ = contact_mask(world, DT, 0.05, 0.5)
    events = []
    for foot, side in ((0, "L"), (1, "R")):
        runs = _runs(mask[:, foot])
        merged = []
        for a, b in runs:  # bridge contact flickers shorter than 3 ticks
            if merged and a - merged[-1][1] <= 3:
                merged[-1] = (merged[-1][0], b)
            else:
                merged.append((a, b))
        events += [(a, side) for a, _ in merged if speeds[a] > 0.5]
    seq = [side for _, side in sorted(events)]
    assert len(seq) >= 8
    assert all(a != b for a, b in itertools.pairwise(seq)), seq


def test_phase_zero_is_left_foot_down_for_all_active_clips():
    animator = Animator()
    loco = animator.locomotion_set
    for s in (loco.walk, loco.run, loco.sprint):
        local = s.clip.local_positions(s.time_at(np.array([0.0, 0.5])))
        feet = local[:, list(s.clip.foot_indices), 2]
        assert feet[0, 0] < feet[0, 1] + 0.02  # left lower at phase 0
        assert feet[1, 1] < feet[1, 0] + 0.02  # right lower at phase 0.5


def test_action_state_and_interruptible():
    jump = ActionState("jump", load_clip("jump"), interruptible=False)
    animator = Animator(actions={"jump": jump})
    animator.set_speed(1.0)
    for _ in range(30):
        animator.advance(DT)
    assert animator.trigger("jump") is True
    assert animator.state == "jump"
    assert animator.trigger("locomotion") is False  # not interruptible
    with pytest.raises(AnimationError, match="no animator state"):
        animator.trigger("fly")
    moved = 0.0
    for _ in range(int(jump.clip.duration / DT) + 30):
        moved += animator.advance(DT).delta_local[0]
    assert animator.state == "locomotion"
    kinds = [(t.source, t.target) for t in animator.transitions if t.kind == "state"]
    assert kinds == [("locomotion", "jump"), ("jump", "locomotion")]
    assert moved > 0.5


def test_speed_smoothing_and_validation():
    animator = Animator(settings=AnimatorSettings(speed_smoothing_s=0.5))
    animator.set_speed(4.0)
    animator.advance(DT)
    assert animator.smoothed_speed == pytest.approx(4.0 * DT / 0.5)
    with pytest.raises(AnimationSettingsError):
        animator.set_speed(float("nan"))
    with pytest.raises(AnimationSettingsError):
        animator.advance(0.0)
    with pytest.raises(AnimationSettingsError, match="fade_walk_run_s"):
        AnimatorSettings(fade_walk_run_s=-1)
    assert AnimatorSettings().gait_fade(*(animator.gait, animator.gait)) == 0.0
