"""AnimatorBatch: many animators as arrays, each row the same as one Animator fed the same speeds."""

from __future__ import annotations

import numpy as np

from npc_ai.animation import Animator, AnimatorBatch, AnimatorSettings

DT = 1.0 / 60.0


def test_rows_match_one_animator_each_and_report_their_gait_changes() -> None:
    rng = np.random.default_rng(4)
    n, ticks = 8, 240
    speeds = np.clip(np.cumsum(rng.normal(0, 0.15, (ticks, n)), axis=0) + rng.uniform(0, 5, n), 0, 7)
    settings = AnimatorSettings(lazy_pose=True)
    batch = AnimatorBatch(n, settings=settings)
    singles = [Animator(settings=settings) for _ in range(n)]
    changes: list[tuple[int, str, str]] = []
    for t in range(ticks):
        batch.set_speeds(slice(None), speeds[t])
        delta, dyaw, gait = batch.advance(DT)
        changes += [
            (int(r), g0, g1)
            for r, g0, g1 in zip(
                gait.rows,
                (batch_gait_name(x) for x in gait.old),
                (batch_gait_name(x) for x in gait.new),
                strict=True,
            )
        ]
        for i, a in enumerate(singles):
            a.set_speed(float(speeds[t, i]))
            rm = a.advance(DT)
            np.testing.assert_allclose(delta[i], rm.delta_local, atol=1e-12)
            assert abs(dyaw[i] - rm.delta_yaw) < 1e-12
            assert batch.gait_name(i) == a.gait.value and abs(batch.phase[i] - a.phase) < 1e-12
    expected = [
        (i, t.source, t.target) for i, a in enumerate(singles) for t in a.transitions if t.kind == "gait"
    ]
    assert sorted(changes) == sorted(expected)
    assert all(old != new for _, old, new in changes) and len(changes) > n


def batch_gait_name(level: int) -> str:
    from npc_ai.animation.locomotion import GAITS

    return GAITS[int(level)].value


def test_gait_changes_and_root_motion_are_the_callers_after_later_ticks() -> None:
    """A whole-batch tick reuses its gait buffers, never what it returned: earlier results stay."""
    batch = AnimatorBatch(3, settings=AnimatorSettings(lazy_pose=True))
    batch.speed[:] = [0.0, 2.0, 6.5]
    kept = []
    for t in range(150):
        delta, dyaw, changes = batch.advance(DT)
        kept.append((delta, dyaw, changes, delta.copy(), dyaw.copy(), changes.old.copy(), changes.new.copy()))
        if t % 30 == 29:
            batch.speed[:] = batch.speed[::-1]  # gaits change again
    assert len({id(c) for _, _, c, *_ in kept if len(c.rows)}) >= 4
    for delta, dyaw, changes, d0, y0, old0, new0 in kept:
        assert np.array_equal(delta, d0) and np.array_equal(dyaw, y0)
        assert np.array_equal(changes.old, old0) and np.array_equal(changes.new, new0)


def test_filter_factors_follow_the_tick_length() -> None:
    from npc_ai.animation.batch import filter_factor

    s = AnimatorSettings(speed_smoothing_s=0.05, gait_smoothing_s=0.2)
    batch = AnimatorBatch(1, settings=s)
    for dt in (DT, DT, 0.1, DT, 0.5):
        assert batch.filters(dt) == (filter_factor(dt, 0.05), filter_factor(dt, 0.2))
