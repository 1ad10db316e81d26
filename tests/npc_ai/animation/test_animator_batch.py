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
