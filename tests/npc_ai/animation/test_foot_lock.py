"""Runtime foot locking (``foot_lock``): a synthetic 0.45 + 0.45 m leg with known answers, hypothesis
properties of the position-space IK, a cross-check against the cleanup's rotation IK, bad input tables,
and the DeepMimic walk driven faster than its own root speed.
"""

import math

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from npc_ai.animation import (
    AnimationSettingsError,
    compose_world,
    detect_contacts,
    forward_kinematics,
    leg_chain,
    load_clip,
    quat,
    two_bone_ik,
)
from npc_ai.animation.foot_lock import (
    FootLock,
    FootLockResult,
    FootLockSettings,
    foot_joints,
    leg_points_world,
    two_bone_positions,
)

DT = 1 / 60
THIGH = SHIN = 0.45


def _knee(hip: np.ndarray, ankle: np.ndarray, forward: np.ndarray) -> np.ndarray:
    """Knee of a 0.45 + 0.45 leg bending towards ``forward`` (circle intersection, an independent method)."""
    d = np.linalg.norm(ankle - hip)
    u = (ankle - hip) / d
    side = forward - np.dot(forward, u) * u
    side /= np.linalg.norm(side)
    return hip + u * d / 2 + side * math.sqrt(THIGH**2 - (d / 2) ** 2)


def _legs(hips: np.ndarray, ankles: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(2, 3) hip, knee, ankle of two legs whose knees bend forward (+x)."""
    knees = np.stack([_knee(h, a, np.array([1.0, 0, 0])) for h, a in zip(hips, ankles, strict=True)])
    return hips, knees, ankles


def _stance(n: int = 30, drift_m: float = 0.05) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The left foot planted while the hips walk 0.3 m forward and the animated ankle drifts ``drift_m``;
    the right leg hangs under its hip."""
    frames = []
    for i in range(n):
        f = i / (n - 1)
        hx = -0.15 + 0.3 * f
        hips = np.array([[hx, 0.1, 0.85], [hx, -0.1, 0.85]])
        ankles = np.array([[drift_m * f, 0.1, 0.0], [hx - 0.05, -0.1, 0.2]])
        frames.append(_legs(hips, ankles))
    return frames


def _run(lock: FootLock, frames, planted) -> list[FootLockResult]:
    return [
        lock.update(h, k, a, np.asarray(p, dtype=float), DT)
        for (h, k, a), p in zip(frames, planted, strict=True)
    ]


# --- the synthetic leg ------------------------------------------------------------------------------


def test_locked_ankle_stays_put_while_the_animated_ankle_drifts_5_cm():
    frames = _stance()
    out = _run(FootLock(), frames, [(1.0, 0.0)] * len(frames))
    ankles = np.array([r.ankle for r in out])
    assert all(r.locked[0] and not r.locked[1] for r in out)
    assert np.abs(ankles[:, 0, :2] - ankles[0, 0, :2]).max() == 0.0  # held to the bit
    assert np.allclose(ankles[0, 0], frames[0][2][0])  # locked where it landed
    assert np.allclose(ankles[:, 0, 2], [f[2][0, 2] for f in frames])  # animated height kept
    errors = np.array([r.pose_error_m[0] for r in out])
    assert errors[-1] == pytest.approx(0.05) and np.all(np.diff(errors) > 0)  # the drift undone, reported
    assert all(r.stretch_m[0] == 0.0 and r.extension[0] < 0.999 for r in out)
    # the free leg comes back as animated
    assert max(np.abs(r.ankle[1] - f[2][1]).max() for r, f in zip(out, frames, strict=True)) < 1e-12
    assert max(np.abs(r.knee[1] - f[1][1]).max() for r, f in zip(out, frames, strict=True)) < 1e-12


def test_bone_lengths_are_kept_exactly_and_the_knee_bends_forward():
    frames = _stance()
    for r, (hip, _, _) in zip(_run(FootLock(), frames, [(1.0, 0.0)] * 30), frames, strict=True):
        assert np.allclose(np.linalg.norm(r.knee - hip, axis=-1), THIGH, atol=1e-9, rtol=0)
        assert np.allclose(np.linalg.norm(r.ankle - r.knee, axis=-1), SHIN, atol=1e-9, rtol=0)
        assert r.knee[0, 0] > (hip[0, 0] + r.ankle[0, 0]) / 2  # still in front of the hip-ankle line


def test_release_blends_back_smoothly_and_ends_as_animated():
    frames = _stance()
    lock = FootLock()
    _run(lock, frames, [(1.0, 0.0)] * 30)
    hip, _, ankle = frames[-1]
    lock_xy = lock.lock_points[0][:2]
    assert np.linalg.norm(ankle[0, :2] - lock_xy) == pytest.approx(0.05)
    ticks = FootLockSettings().release_s / DT
    prev = np.array([*lock_xy, ankle[0, 2]])  # the locked ankle, 5 cm behind the animated one
    weights = []
    for i in range(1, 20):  # swing: the animated ankle lifts and moves forward 1 cm per tick
        a = ankle.copy()
        a[0] += [0.01 * i, 0.0, 0.005 * i]
        h, k, a = _legs(hip + [0.01 * i, 0, 0], a)
        r = lock.update(h, k, a, np.zeros(2), DT)
        step = np.linalg.norm(r.ankle[0] - prev)
        offset = np.linalg.norm(a[0, :2] - lock_xy)  # 5 cm at release, growing as the foot swings away
        assert step <= 0.01 * math.hypot(1, 0.5) + 2 * offset / ticks
        prev = r.ankle[0]
        weights.append(r.weight[0])
        assert not r.locked[0]
    assert np.all(np.diff(weights) <= 0) and 0 < weights[0] < 1
    assert weights[int(ticks)] == 0.0 and r.pose_error_m[0] < 1e-12 and lock.lock_points == (None, None)


def test_wandering_too_far_releases_and_relocks_only_on_a_new_plant():
    hips = np.array([[0.0, 0.1, 0.85], [0.0, -0.1, 0.85]])
    lock = FootLock()
    seen = []
    for i in range(40):  # the body is pushed: the animated ankle slides 1 cm per tick, still planted
        ankles = np.array([[0.01 * i, 0.1, 0.0], [0.0, -0.1, 0.2]])
        r = lock.update(*_legs(hips + [0.01 * i, 0, 0], ankles), np.array([1.0, 0.0]), DT)
        seen.append(bool(r.locked[0]))
    assert seen.index(False) == 26  # 0.26 m > max_lock_distance_m = 0.25
    assert not any(seen[26:])
    lock.update(*_legs(hips, np.array([[0.0, 0.1, 0.1], [0.0, -0.1, 0.2]])), np.zeros(2), DT)
    r = lock.update(*_legs(hips, np.array([[0.0, 0.1, 0.0], [0.0, -0.1, 0.2]])), np.array([1.0, 0.0]), DT)
    assert r.locked[0] and lock.lock_points[0] is not None and lock.lock_points[1] is None


def test_a_lock_during_a_release_starts_where_the_foot_is():
    frames = _stance()
    lock = FootLock()
    _run(lock, frames, [(1.0, 0.0)] * 30)
    hip, knee, ankle = frames[-1]
    before = lock.update(hip, knee, ankle, np.zeros(2), DT).ankle[0]
    after = lock.update(hip, knee, ankle, np.array([0.8, 0.0]), DT)
    assert after.locked[0] and np.allclose(after.ankle[0], before, atol=1e-12)


def test_an_unreachable_lock_is_clamped_to_max_reach_and_reported():
    lock = FootLock(FootLockSettings(max_lock_distance_m=1.0))
    ankles = np.array([[0.0, 0.1, 0.0], [0.0, -0.1, 0.2]])
    lock.update(*_legs(np.array([[0.0, 0.1, 0.85], [0.0, -0.1, 0.85]]), ankles), np.array([1.0, 0]), DT)
    hips = np.array([[0.5, 0.1, 0.85], [0.5, -0.1, 0.85]])
    r = lock.update(*_legs(hips, ankles + [0.45, 0, 0]), np.array([1.0, 0.0]), DT)
    want = math.hypot(0.5, 0.85) - 0.999 * 0.9
    assert r.locked[0] and r.stretch_m[0] == pytest.approx(want) and r.stretch_m[1] == 0.0
    assert r.extension[0] == pytest.approx(0.999) and np.allclose(r.target[0], [0, 0.1, 0])
    assert r.pose_error_m[0] <= np.linalg.norm(r.target[0] - ankles[0] - [0.45, 0, 0]) + r.stretch_m[0]


def test_release_s_zero_releases_at_once():
    frames = _stance()
    lock = FootLock(FootLockSettings(release_s=0.0))
    _run(lock, frames, [(1.0, 0.0)] * 30)
    r = lock.update(*frames[-1], np.zeros(2), DT)
    assert r.weight[0] == 0.0 and np.allclose(r.ankle, frames[-1][2], atol=1e-12)


# --- the IK on its own ------------------------------------------------------------------------------

_coord = st.floats(-2, 2, allow_nan=False)
_point = arrays(float, (3,), elements=_coord)


@settings(max_examples=300, deadline=None)
@given(_point, _point, _point, st.floats(0.05, 1.0), st.floats(0.05, 1.0), st.floats(0.5, 1.0))
@example(  # the pole 6e-8 m off the hip-target line: the bend direction was 1e-9 off square
    np.array([0.0, 1.5, 0.0]), np.array([5.96046448e-08, 0.0, 0.0]), np.zeros(3), 1.0, 1.0, 1.0
)
def test_ik_keeps_bones_never_overstretches_and_bends_to_the_pole(hip, target, pole, thigh, shin, reach):
    knee, ankle, stretch = two_bone_positions(hip, target, thigh, shin, pole, reach)
    assert np.all(np.isfinite(knee)) and np.all(np.isfinite(ankle)) and stretch >= 0
    assert np.linalg.norm(knee - hip) == pytest.approx(thigh, abs=1e-9)
    assert np.linalg.norm(ankle - knee) == pytest.approx(shin, abs=1e-9)
    length, dist = thigh + shin, np.linalg.norm(target - hip)
    reach_m = np.linalg.norm(ankle - hip)
    assert reach_m <= max(reach * length, abs(thigh - shin)) + 1e-9
    if abs(thigh - shin) + 1e-6 < dist < reach * length - 1e-6:
        assert np.allclose(ankle, target, atol=1e-9) and stretch == pytest.approx(0.0, abs=1e-12)
    else:
        assert stretch == pytest.approx(abs(dist - reach_m), abs=1e-9)
    u = (ankle - hip) / max(reach_m, 1e-300)
    perp = (pole - hip) - np.dot(pole - hip, u) * u
    if np.linalg.norm(perp) > 1e-6 and reach_m > 1e-6:
        assert np.dot(knee - hip, perp) >= -1e-9  # the knee is on the pole's side


@settings(max_examples=100, deadline=None)
@given(_point, _point, st.floats(0.1, 0.9), st.floats(-1, 1))
def test_ik_agrees_with_the_cleanup_rotation_ik_in_the_leg_plane(hip, ankle_dir, frac, bend):
    assume(np.linalg.norm(ankle_dir) > 0.1)
    ankle = hip + ankle_dir / np.linalg.norm(ankle_dir) * 0.8
    assume(abs(ankle_dir[2]) < 0.9 * np.linalg.norm(ankle_dir))
    side = np.cross(ankle - hip, [0.0, 0.0, 1.0])
    knee = hip + (ankle - hip) / 2 + side / np.linalg.norm(side) * 0.2  # a 0.447 + 0.447 leg
    target = hip + frac * (ankle - hip) + bend * 0.1 * (knee - (hip + ankle) / 2)  # in the leg's plane
    r_hip, r_knee = two_bone_ik(hip, knee, ankle, target)
    ik_knee = hip + quat.rotate(r_hip, knee - hip)
    ik_ankle = ik_knee + quat.rotate(r_knee, ankle - knee)
    thigh = np.linalg.norm(knee - hip)
    new_knee, new_ankle, _ = two_bone_positions(hip, target, thigh, thigh, knee)
    assert np.allclose(new_ankle, ik_ankle, atol=1e-6) and np.allclose(new_knee, ik_knee, atol=1e-6)


@pytest.mark.parametrize(
    "hip, target, pole, thigh, shin",
    [
        ([0, 0, 1], [0, 0, 1], [0.1, 0, 0.5], 0.45, 0.45),  # target at the hip, equal bones
        ([0, 0, 1], [0, 0, 1], [0.1, 0, 0.5], 0.5, 0.4),  # target at the hip, unequal bones
        ([0, 0, 1], [0, 0, 0.5], [0, 0, 0.55], 0.45, 0.45),  # pole on the hip-target line
        ([0, 0, 1], [0, 0, 0.5], [0, 0, 1], 0.45, 0.45),  # pole at the hip
        ([0, 0, 1], [0.5, 0.5, 0.5], [0.25, 0.25, 0.75], 0.45, 0.45),  # pole on the line, slanted
        ([0, 0, 1], [0, 0, -5], [0, 0, 0], 0.45, 0.45),  # far out of reach, straight down
    ],
)
def test_degenerate_legs_give_finite_poses_with_kept_bones(hip, target, pole, thigh, shin):
    knee, ankle, stretch = two_bone_positions(
        np.array(hip, float), np.array(target, float), thigh, shin, pole
    )
    assert np.all(np.isfinite(knee)) and np.all(np.isfinite(ankle)) and np.isfinite(stretch)
    assert np.linalg.norm(knee - hip) == pytest.approx(thigh, abs=1e-9)
    assert np.linalg.norm(ankle - knee) == pytest.approx(shin, abs=1e-9)


def test_a_straight_animated_leg_bends_the_way_it_last_bent():
    lock = FootLock()
    hips = np.array([[0.0, 0.1, 0.85], [0.0, -0.1, 0.85]])
    lock.update(*_legs(hips, np.array([[0.0, 0.1, 0.0], [0.0, -0.1, 0.2]])), np.array([1.0, 0]), DT)
    straight_knee = np.array([[0.0, 0.1, 0.4], [0.0, -0.1, 0.4]])
    straight_ankle = np.array([[0.0, 0.1, -0.05], [0.0, -0.1, -0.05]])  # collinear, pole on the line
    r = lock.update(hips, straight_knee, straight_ankle, np.array([1.0, 0.0]), DT)
    assert np.all(np.isfinite(r.knee)) and r.knee[0, 0] > 0  # bent forward, as before
    assert np.linalg.norm(r.knee[0] - hips[0]) == pytest.approx(0.45)


# --- helpers ----------------------------------------------------------------------------------------


def test_offset_moves_the_toes_with_the_ankle_and_foot_joints_finds_them(cmu, walk):
    frames = _stance()
    r = _run(FootLock(), frames, [(1.0, 0.0)] * 30)[-1]
    toes = frames[-1][2] + [0.15, 0.0, -0.02]
    moved = r.offset(toes)
    assert np.allclose(moved - toes, r.ankle - r.animated_ankle) and np.allclose(moved[1], toes[1])
    assert np.allclose(r.offset(toes[:, None, :])[:, 0], moved)
    ankle = leg_chain(cmu, 0)[2]
    below = foot_joints(cmu.skeleton, ankle)
    assert cmu.skeleton.index(cmu.feet[0]) in below and all(j > ankle for j in below)
    assert foot_joints(walk.skeleton, leg_chain(walk, 0)[2]) == ()


def test_leg_points_world_matches_compose_world(walk):
    joints = walk.local_positions()[10]
    chains = [leg_chain(walk, s) for s in (0, 1)]
    hip, knee, ankle = leg_points_world(joints, chains, np.array([1.0, 2.0, 0.0]), 0.7)
    world = compose_world(joints[None], np.array([[1.0, 2.0, 0.0]]), np.array([0.7]))[0]
    for got, col in zip((hip, knee, ankle), range(3), strict=True):
        assert np.allclose(got, world[[chains[0][col], chains[1][col]]])


# --- bad input --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"lock_threshold": 0.0}, "lock_threshold must be a planted weight in"),
        ({"lock_threshold": 1.5}, "lock_threshold"),
        ({"release_s": -0.1}, "release_s must be a non-negative number of seconds"),
        ({"release_s": math.inf}, "release_s"),
        ({"max_reach": 1.01}, "max_reach must be a fraction of the leg length"),
        ({"max_reach": 0.0}, "max_reach"),
        ({"max_lock_distance_m": 0.0}, "max_lock_distance_m must be a positive number of metres"),
        ({"max_lock_distance_m": math.nan}, "max_lock_distance_m"),
        ({"lock_threshold": "0.5"}, "lock_threshold"),
    ],
)
def test_bad_settings_are_rejected(kwargs, message):
    with pytest.raises(AnimationSettingsError, match=message):
        FootLockSettings(**kwargs)


_H, _K, _A = _legs(np.array([[0.0, 0.1, 0.85], [0.0, -0.1, 0.85]]), np.array([[0, 0.1, 0], [0, -0.1, 0]]))


@pytest.mark.parametrize(
    "args, message",
    [
        ((_H[0], _K, _A, np.ones(2), DT), r"hip must be a finite \(2, 3\) array"),
        ((_H, _K, np.where(True, np.nan, _A), np.ones(2), DT), "ankle must be a finite"),
        ((_H, _K, _A, np.ones(3), DT), r"planted must be a finite \(2,\) array"),
        ((_H, _K, _A, np.array([1.0, math.nan]), DT), "planted"),
        ((_H, _K, _A, np.ones(2), -DT), "dt must be a non-negative number of seconds"),
        ((_H, _H, _A, np.ones(2), DT), "leg bones must have positive lengths"),
    ],
)
def test_bad_update_input_is_rejected(args, message):
    with pytest.raises(AnimationSettingsError, match=message):
        FootLock().update(*args)


def test_bad_helper_input_is_rejected():
    r = _run(FootLock(), _stance(), [(1.0, 0.0)] * 30)[-1]
    with pytest.raises(AnimationSettingsError, match=r"offset points must have shape \(2, 3\)"):
        r.offset(np.zeros((3, 3)))
    with pytest.raises(AnimationSettingsError, match="chains must be two"):
        leg_points_world(np.zeros((5, 3)), [(0, 1, 2)], np.zeros(3), 0.0)


# --- the DeepMimic walk, its root driven too fast -----------------------------------------------------


@pytest.fixture(scope="module")
def walk_clean():
    return load_clip("walk", clean=True)


def _drive(clip, speed: float, lock_settings: FootLockSettings | None = None, cycles: int = 3):
    """Play ``clip`` at 60 Hz with its root moved at ``speed`` x its own speed, labels from its contacts."""
    n = int(cycles * clip.duration / DT)
    t = np.arange(n) * DT
    s = clip.sample(t)
    positions = s.positions[0] + speed * (s.positions - s.positions[0])
    joints = forward_kinematics(clip.skeleton, s.pose.root_offset, s.pose.rotations)[0]
    mask = detect_contacts(clip).mask
    planted = mask[np.mod(np.round(t * clip.fps).astype(int), clip.n_frames - 1)]
    chains = [leg_chain(clip, side) for side in (0, 1)]
    lock = FootLock(lock_settings)
    hips, animated, out = [], [], []
    for i in range(n):
        legs = leg_points_world(joints[i], chains, positions[i], float(s.yaw[i]))
        out.append(lock.update(*legs, planted[i].astype(float), DT))
        hips.append(legs[0])
        animated.append(legs[2])
    return np.array(hips), np.array(animated), out, planted


def _sliding(feet: np.ndarray, planted: np.ndarray) -> float:
    """Horizontal displacement [m] of feet over the steps planted at both ends."""
    steps = np.linalg.norm(np.diff(feet[..., :2], axis=0), axis=-1)
    return float(steps[planted[1:] & planted[:-1]].sum())


def _check_pose(hips, animated, out, max_reach=0.999):
    ankles = np.array([r.ankle for r in out])
    extension = np.array([r.extension for r in out])
    error = np.array([r.pose_error_m for r in out])
    stretch = np.array([r.stretch_m for r in out])
    target = np.array([r.target for r in out])
    assert extension.max() <= max_reach + 1e-12
    assert np.all(hips[..., 2] - ankles[..., 2] > 0.5)  # upright: the hips stay well above the ankles
    # the pose error is the lock's horizontal offset plus the reach clamp, nothing else
    offset = np.linalg.norm(target - animated, axis=-1)
    assert np.all(error <= offset + stretch + 1e-9)
    return extension.max(), error.max(), stretch.max()


def test_walk_at_1_2x_root_speed_planted_sliding_drops_more_than_5x(walk_clean):
    hips, animated, out, planted = _drive(walk_clean, 1.2)
    ankles = np.array([r.ankle for r in out])
    before, after = _sliding(animated, planted), _sliding(ankles, planted)
    # measured: 71.7 cm -> 13.8 cm over 3 cycles (5.2x); max extension 0.999, pose error <= 10.6 cm
    assert before == pytest.approx(0.717, abs=0.01) and before / after >= 5.0
    ext, err, _ = _check_pose(hips, animated, out)
    assert ext == pytest.approx(0.999) and err < 0.11


def test_walk_at_1_5x_root_speed_the_leg_runs_out_of_reach(walk_clean):
    # the body outruns a locked foot by 0.49 m/s x 0.65 s stance = 32 cm: beyond the leg's reach, so the
    # clamp drags the foot (honestly: stretch and pose error are reported) and 5x is out of reach here
    hips, animated, out, planted = _drive(walk_clean, 1.5, FootLockSettings(max_lock_distance_m=0.5))
    ankles = np.array([r.ankle for r in out])
    before, after = _sliding(animated, planted), _sliding(ankles, planted)
    assert before == pytest.approx(1.793, abs=0.01) and before / after >= 3.0  # measured 3.3x
    # every bit of the remaining planted sliding happens while the leg is at full reach
    stretch = np.array([r.stretch_m for r in out])
    free = (stretch[1:] == 0) & (stretch[:-1] == 0) & planted[1:] & planted[:-1]
    steps = np.linalg.norm(np.diff(ankles[..., :2], axis=0), axis=-1)
    assert steps[free].max() < 1e-9
    ext, err, st_max = _check_pose(hips, animated, out)
    assert ext == pytest.approx(0.999) and err < 0.25 and st_max < 0.16  # measured 0.241 m, 0.152 m
    # the default lock distance (0.25 m) lets the pushed feet go: locks end before the stance does
    _, _, default, _ = _drive(walk_clean, 1.5)
    locked = np.array([r.locked for r in default])
    assert (planted & ~locked).sum() > (planted & ~np.array([r.locked for r in out])).sum()


def test_walk_at_its_own_speed_is_barely_changed(walk_clean):
    hips, animated, out, planted = _drive(walk_clean, 1.0)
    ankles = np.array([r.ankle for r in out])
    # measured: 0.08 cm -> 0.25 cm of planted sliding over 3 cycles, pose error <= 3.4 mm: the cleaned walk
    # straightens its leg to 0.9999 at toe-off, and the 0.999 reach limit pulls that ankle in a little
    assert _sliding(ankles, planted) < 0.005
    _, err, _ = _check_pose(hips, animated, out)
    assert err < 0.005
