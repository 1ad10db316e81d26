"""The sync benchmark's per-route metrics on traces whose answers are known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from npc_ai.bench.sync_metrics import (
    PHASES,
    RouteTrace,
    aggregate,
    paired_difference,
    phase_of_steps,
    route_metrics,
)

DT = 1 / 60


def _walk(ticks: int = 240, speed: float = 1.0, slip: float = 0.0, command_gain: float = 1.0) -> RouteTrace:
    """A body walking along +x at `speed` by its root motion. The left foot is planted throughout and
    stays where it is in the world (its character-frame x falls as the body passes), sliding forward at
    `slip` [m/s]; the right foot swings. The body is given `command_gain` times the root motion and
    moves as commanded."""
    t = np.arange(ticks + 1) * DT
    position = np.column_stack([command_gain * speed * t, np.zeros_like(t), np.zeros_like(t)])
    root_step = np.tile([speed * DT, 0.0, 0.0], (ticks, 1))
    anim_x = speed * t  # where the animation alone would put the body
    local = np.zeros((ticks + 1, 2, 3))
    local[:, 0, 0] = 0.3 - anim_x + slip * t  # planted foot: fixed in the animation's own world
    local[:, 1, 0] = 0.3 + 0.5 * np.sin(4 * t)
    local[:, 1, 2] = 0.1
    feet = position[:, None, :] + local
    planted = np.zeros((ticks + 1, 2))
    planted[:, 0] = 1.0
    return RouteTrace(
        dt=DT,
        position=position,
        yaw=np.zeros(ticks + 1),
        local_feet=local,
        feet=feet,
        planted=planted,
        root_motion=root_step,
        root_yaw=np.zeros(ticks),
        command=np.tile([command_gain * speed, 0.0], (ticks, 1)),
        arrival=ticks - 60,
        stretch=np.zeros(ticks + 1),
        clamp=np.zeros(ticks + 1),
        pose_error=np.zeros(ticks + 1),
    )


def test_a_planted_foot_that_stays_put_does_not_slide_and_the_coupling_adds_nothing() -> None:
    m = route_metrics(_walk())
    assert m.slide_cm == pytest.approx(0.0, abs=1e-9)
    assert m.excess_cm == pytest.approx(0.0, abs=1e-9)
    assert m.intrinsic_cm == pytest.approx(0.0, abs=1e-9)
    assert m.travelled_m == pytest.approx(4.0)
    assert m.planted_s == pytest.approx(4.0)


def test_the_animation_own_slip_is_sliding_but_not_coupling_excess() -> None:
    m = route_metrics(_walk(slip=0.1))
    assert m.slide_cm / m.planted_s == pytest.approx(10.0, rel=1e-6)  # 0.1 m/s -> 10 cm/s
    assert m.intrinsic_cm == pytest.approx(m.slide_cm, rel=1e-6)
    assert m.excess_cm == pytest.approx(0.0, abs=1e-9)
    assert m.slips == 0  # 0.1 m/s is under the 0.2 m/s slip threshold


def test_a_body_driven_faster_than_its_root_motion_is_speed_excess() -> None:
    m = route_metrics(_walk(command_gain=1.5))  # the naive coupling at 1.5x the clip's speed
    assert m.slide_cm / m.planted_s == pytest.approx(50.0, rel=1e-6)  # the planted foot slides 0.5 m/s
    assert m.excess_speed_cm == pytest.approx(m.slide_cm, rel=1e-6)
    assert m.excess_physics_cm == pytest.approx(0.0, abs=1e-9)
    assert m.excess_turn_cm == pytest.approx(0.0, abs=1e-9)
    assert m.slips == m.planted_steps


def test_phases_cover_start_and_stop_and_aggregate_pools_routes() -> None:
    tr = _walk()
    phase = phase_of_steps(tr)
    assert (phase[:60] == PHASES.index("start")).all()
    assert (phase[tr.arrival - 60 :] == PHASES.index("stop")).all()
    assert (phase[60 : tr.arrival - 60] == PHASES.index("steady")).all()
    a, b = route_metrics(_walk(slip=0.1)), route_metrics(_walk())
    pooled = aggregate([a, b])
    assert pooled["planted_slide_cmps"] == pytest.approx(5.0, rel=1e-6)
    assert pooled["planted_slide_cm_per_m"] == pytest.approx(a.slide_cm / 8.0, rel=1e-6)


def test_paired_bootstrap_interval_holds_the_mean_and_the_ratio() -> None:
    rng = np.random.default_rng(0)
    b = rng.uniform(4, 8, 24)
    a = 0.3 * b + rng.normal(0, 0.1, 24)
    out = paired_difference(a, b, np.random.default_rng(1))
    assert out["ci_low"] <= out["mean"] <= out["ci_high"] < 0
    assert out["ratio_ci_low"] <= out["ratio"] <= out["ratio_ci_high"] < 0.4
    assert out["routes"] == 24
    empty = paired_difference(np.array([math.nan]), np.array([1.0]), np.random.default_rng(1))
    assert empty["routes"] == 0 and math.isnan(empty["mean"])
