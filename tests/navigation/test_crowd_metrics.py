"""navigation.crowd_metrics: each figure cross-checked against a brute-force loop over ticks and pairs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navigation import CrowdError
from navigation.crowd_metrics import OVERLAP_TOLERANCE, crowd_metrics, separations


def brute(traj, radii, goals, dt, arrival, moving, window_s, progress_m):
    t_count, n = traj.shape[:2]
    seps = []
    for t in range(t_count):
        best = math.inf
        for i in range(n):
            for j in range(i + 1, n):
                best = min(best, math.dist(traj[t, i], traj[t, j]) - radii[i] - radii[j])
        seps.append(best)
    first = []
    for i in range(n):
        hits = [t for t in range(t_count) if math.dist(traj[t, i], goals[i]) <= arrival]
        first.append(hits[0] if hits else -1)
    turns = []
    for i in range(n):
        for t in range(1, t_count - 1):
            a, b = (traj[t] - traj[t - 1])[i] / dt, (traj[t + 1] - traj[t])[i] / dt
            if math.hypot(*a) > moving and math.hypot(*b) > moving:
                d = math.atan2(b[1], b[0]) - math.atan2(a[1], a[0])
                d = (d + math.pi) % (2 * math.pi) - math.pi
                turns.append(abs(math.degrees(d)) / dt)
    w = min(t_count - 1, max(1, round(window_s / dt)))
    stuck = sum(
        1
        for i in range(n)
        if first[i] < 0
        and math.dist(traj[-1 - w, i], goals[i]) - math.dist(traj[-1, i], goals[i]) < progress_m
    )
    return seps, first, turns, stuck


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 9), st.integers(3, 40))
def test_metrics_match_a_brute_force_count(seed, n, t_count) -> None:
    rng = np.random.default_rng(seed)
    steps = rng.normal(0, 0.05, (t_count, n, 2)) + rng.uniform(-0.05, 0.05, (1, n, 2))
    traj = rng.uniform(-2, 2, (1, n, 2)) + np.cumsum(steps, axis=0)
    radii = rng.uniform(0.1, 0.6, n)
    goals = traj[rng.integers(0, t_count, n), np.arange(n)] + rng.normal(0, 0.3, (n, 2))
    dt, arrival = 0.1, 0.25
    m = crowd_metrics(traj, radii, goals, dt, arrival_radius=arrival, deadlock_window_s=0.5)
    seps, first, turns, stuck = brute(traj, radii, goals, dt, arrival, 0.1, 0.5, 0.25)
    assert m.agents == n
    assert m.min_separation_m == pytest.approx(min(seps), abs=1e-12)
    np.testing.assert_allclose(separations(traj, radii), seps, atol=1e-12)
    assert m.overlap_ticks == sum(s < -OVERLAP_TOLERANCE for s in seps)
    assert m.completed_share == pytest.approx(sum(f >= 0 for f in first) / n)
    if all(f >= 0 for f in first):
        assert m.time_to_complete_s == pytest.approx(max(first) * dt)
    else:
        assert m.time_to_complete_s is None
    assert m.jitter_deg_per_s == pytest.approx(np.mean(turns) if turns else 0.0, rel=1e-9, abs=1e-9)
    assert m.deadlocked_agents == stuck


def test_a_straight_walk_has_no_jitter_and_arrives() -> None:
    t = np.arange(50)[:, None, None] * np.array([[[0.1, 0.0], [0.0, 0.1]]])
    traj = t + np.array([[[0.0, 0.0], [5.0, 0.0]]])
    m = crowd_metrics(traj, [0.3, 0.3], traj[-1], 0.1, arrival_radius=0.05)
    assert m.jitter_deg_per_s == 0.0 and m.completed_share == 1.0 and m.overlap_ticks == 0
    assert m.time_to_complete_s == pytest.approx(4.9)
    assert m.to_json()["deadlocked_agents"] == 0


def test_a_stuck_agent_is_deadlocked_a_slow_one_is_not() -> None:
    t_count = 200
    still = np.zeros((t_count, 1, 2))
    slow = np.linspace(0, 2.0, t_count)[:, None, None] * np.array([[[1.0, 0.0]]]) + [[[10.0, 0.0]]]
    traj = np.concatenate([still, slow], axis=1)
    m = crowd_metrics(traj, [0.3, 0.3], [[5.0, 0.0], [20.0, 0.0]], 0.1, arrival_radius=0.3)
    assert m.deadlocked_agents == 1 and m.completed_share == 0.0 and m.time_to_complete_s is None


@pytest.mark.parametrize(
    "traj, radii, goals, dt, message",
    [
        (np.zeros((3, 2)), [0.3], [[0, 0]], 0.1, r"trajectories must have shape"),
        (np.zeros((3, 2, 2)), [0.3], [[0, 0]], 0.1, "radii must be"),
        (np.zeros((3, 2, 2)), [0.3, -1], [[0, 0], [1, 1]], 0.1, "finite"),
        (np.full((3, 2, 2), np.nan), [0.3, 0.3], [[0, 0], [1, 1]], 0.1, "finite"),
        (np.zeros((3, 2, 2)), [0.3, 0.3], [[0, 0], [1, 1]], 0.0, "dt must be"),
    ],
)
def test_bad_input(traj, radii, goals, dt, message) -> None:
    with pytest.raises(CrowdError, match=message):
        crowd_metrics(traj, radii, goals, dt, arrival_radius=0.3)


def test_bad_parameters() -> None:
    traj = np.zeros((3, 2, 2)) + [[[0, 0], [1, 1]]]
    with pytest.raises(CrowdError, match="arrival_radius"):
        crowd_metrics(traj, [0.3, 0.3], traj[0], 0.1, arrival_radius=-1.0)
    with pytest.raises(CrowdError, match="deadlock_window_s"):
        crowd_metrics(traj, [0.3, 0.3], traj[0], 0.1, arrival_radius=0.1, deadlock_window_s=0.0)
