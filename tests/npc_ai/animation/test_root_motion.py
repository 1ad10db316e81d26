import numpy as np
import pytest

from npc_ai.animation import (
    extract_root_motion,
    has_root_motion,
    integrate_root_motion,
    load_clip,
    root_motion_deltas,
)


def test_deltas_sum_to_cycle_and_wrap(walk):
    dt = 1 / 60
    t = np.arange(0, 3 * walk.duration, dt)
    d, y = root_motion_deltas(walk, t, t + dt)
    assert np.allclose(y, 0.0)
    total = d.sum(axis=0)
    assert total[0] == pytest.approx(
        np.linalg.norm(walk.cycle_displacement) * len(t) * dt / walk.duration, rel=1e-6
    )
    # constant forward velocity along the facing (loop trajectories are straight lines)
    assert np.allclose(d[:, 0] / dt, walk.root_speed(), rtol=1e-6) and np.all(np.abs(d[:, 1]) < 1e-9)


def test_extract_across_seam(run):
    rm = extract_root_motion(run, run.duration - 0.01, run.duration + 0.01)
    assert rm.delta_local[0] == pytest.approx(0.02 * run.root_speed(), rel=1e-6)
    assert rm.velocity_local[0] == pytest.approx(run.root_speed(), rel=1e-6)


def test_has_root_motion(walk, cmu):
    assert has_root_motion(walk) and has_root_motion(cmu)
    assert not has_root_motion(load_clip("idle"))
    assert not has_root_motion(walk.in_place())


def test_integrate_turns_local_into_world():
    pos, yaw = integrate_root_motion(
        np.array([[1.0, 0, 0], [1.0, 0, 0]]), np.array([np.pi / 2, 0.0]), np.zeros(3), 0.0
    )
    assert np.allclose(pos, [[0, 0, 0], [1, 0, 0], [1, 1, 0]])
    assert np.allclose(yaw, [0, np.pi / 2, np.pi / 2])
