"""Foot skate of a clip driven by its own root motion vs a root driven 1.5x too fast.

Measured (60 Hz, 4 walk cycles, ankle joints): with the reference definition (5 cm above each foot's
lowest height, 0.5 m/s, per-step speed) the walk's own root motion scores 26 % and 1.5x scores 73 %.
Two facts of the DeepMimic walk keep its own score above 2 %: the swing ankle passes 2.7-4.3 cm above
its stance height at 2-3 m/s (real toe clearance is ~1.5 cm), and the file's mid-cycle mirror seam
(frame 18 -> 19) moves the planted ankle 8.8 cm in one frame (checked against pybullet's FK), which alone
is 2 of 38 steps per foot (5.3 %). With a 2 cm contact band the walk scores 5 % vs 57 % at 1.5x.
"""

import numpy as np
import pytest

from npc_ai.animation import (
    SettingsError,
    clip_feet_world,
    clip_root_trajectory,
    contact_foot_speed,
    foot_skate_ratio,
    skate_metrics,
)

DT = 1 / 60


def _feet(clip, scale, cycles=4):
    t = np.arange(0, cycles * clip.duration, DT)
    pos, yaw = clip_root_trajectory(clip, t, scale)
    return clip_feet_world(clip, t, pos, yaw)


def test_walk_own_root_motion_vs_1_5x(walk):
    own = skate_metrics(_feet(walk, 1.0), DT)
    fast = skate_metrics(_feet(walk, 1.5), DT)
    assert own.contact_fraction > 0.3  # contacts are seen, so 0 skating would mean something
    assert own.skate_ratio == pytest.approx(0.26, abs=0.03)
    assert fast.skate_ratio > 2.5 * own.skate_ratio
    # tight 2 cm band: only the data's seam glitch remains (2 x 2 steps per 76-step cycle)
    own2 = foot_skate_ratio(_feet(walk, 1.0), DT, height_threshold_m=0.02)
    fast2 = foot_skate_ratio(_feet(walk, 1.5), DT, height_threshold_m=0.02)
    assert own2 <= 0.06 and fast2 > 0.5


def test_run_own_root_motion_vs_1_5x(run):
    own = foot_skate_ratio(_feet(run, 1.0), DT)
    fast = foot_skate_ratio(_feet(run, 1.5), DT)
    assert own < 0.15 and fast > 3 * own


def test_cmu_own_root_motion_vs_1_5x(cmu):
    own = skate_metrics(_feet(cmu, 1.0, cycles=1), DT)
    fast = skate_metrics(_feet(cmu, 1.5, cycles=1), DT)
    assert own.skate_ratio < 0.1 and fast.skate_ratio > 2 * own.skate_ratio
    assert own.contact_speed_mps < fast.contact_speed_mps


def test_synthetic_sliding_foot():
    t = np.arange(100) * DT
    planted = np.stack([np.zeros(100), np.zeros(100), np.zeros(100)], axis=1)
    sliding = np.stack([t * 1.0, np.zeros(100), np.zeros(100)], axis=1)  # 1 m/s on the floor
    feet = np.stack([planted, sliding], axis=1)
    assert foot_skate_ratio(feet, DT) == pytest.approx(1.0)
    assert contact_foot_speed(feet, DT) == pytest.approx(0.5)
    assert foot_skate_ratio(feet[:, :1], DT) == 0.0
    assert foot_skate_ratio(feet, DT, speed_window=5) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "feet, dt, match",
    [(np.zeros((1, 2, 3)), DT, "shape"), (np.zeros((5, 2)), DT, "shape"), (np.zeros((5, 2, 3)), 0.0, "dt")],
)
def test_bad_metric_input(feet, dt, match):
    with pytest.raises(SettingsError, match=match):
        foot_skate_ratio(feet, dt)
