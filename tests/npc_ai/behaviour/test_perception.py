"""Pure perception maths: view cones, hearing, eye rays (hypothesis properties and exact cases)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npc_ai.behaviour.perception import (
    PerceptionError,
    eye_rays,
    forward_from_yaw,
    heading_error,
    heard,
    in_view_cone,
    within_range,
)

coord = st.floats(-50, 50, allow_nan=False)
point = st.tuples(coord, coord, st.floats(-2, 2, allow_nan=False))


def test_cone_exact_cases() -> None:
    eye = np.array([[0.0, 0.0, 1.6]])
    fwd = forward_from_yaw(np.array([0.0]))
    targets = np.array(
        [
            [8.0, 0.0, 1.6],  # ahead, in range
            [0.0, 8.0, 1.6],  # 90 deg to the left
            [-8.0, 0.0, 1.6],  # behind
            [16.0, 0.0, 1.6],  # ahead, beyond range
            [5.0, 5.0 * math.tan(math.radians(59)), 1.6],  # just inside 60 deg
            [5.0, 5.0 * math.tan(math.radians(61)), 1.6],  # just outside
        ]
    )
    got = in_view_cone(eye, fwd, targets, 15.0, math.cos(math.radians(60)))
    assert got.tolist() == [[True, False, False, False, True, False]]


@settings(max_examples=200, deadline=None)
@given(
    point,
    point,
    st.floats(-math.pi, math.pi),
    st.floats(0.1, 30),
    st.floats(1, 179),
    st.floats(-math.pi, math.pi),
)
def test_cone_symmetric_under_rotation(eye, target, yaw, radius, half_deg, spin) -> None:
    """Rotating eye, forward and target together about Z (and translating) never changes the answer."""
    e = np.array([eye])
    t = np.array([target])
    f = forward_from_yaw(np.array([yaw]))
    c = math.cos(math.radians(half_deg))
    before = in_view_cone(e, f, t, radius, c)
    rot = np.array([[math.cos(spin), -math.sin(spin), 0], [math.sin(spin), math.cos(spin), 0], [0, 0, 1]])
    after = in_view_cone(e @ rot.T + 3.0, f @ rot.T, t @ rot.T + 3.0, radius, c)
    # points within 1e-6 of the cone's boundary may flip by rounding; skip those
    d = t - e
    dist = float(np.linalg.norm(d))
    cosang = float(d[0] @ f[0]) / dist if dist > 0 else 1.0
    if abs(dist - radius) > 1e-6 and abs(cosang - c) > 1e-6:
        assert before.tolist() == after.tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(point, min_size=1, max_size=4), st.lists(point, min_size=1, max_size=6), st.floats(0, 20))
def test_cone_never_detects_beyond_radius(eyes, targets, radius) -> None:
    e, t = np.array(eyes), np.array(targets)
    f = forward_from_yaw(np.zeros(len(e)))
    got = in_view_cone(e, f, t, radius, -1.0)  # a full circle: only the radius decides
    dist = np.linalg.norm(t[None] - e[:, None], axis=2)
    assert not (got & (dist > radius)).any()
    assert got[dist < radius - 1e-9].all()


@settings(max_examples=100, deadline=None)
@given(point, st.floats(-math.pi, math.pi), st.floats(1, 179))
def test_cone_is_mirror_symmetric(eye, yaw, half_deg) -> None:
    """A target at +a from forward is seen exactly when the one at -a is."""
    e = np.array([eye])
    f = forward_from_yaw(np.array([yaw]))
    for a in np.radians([10.0, 45.0, 80.0, 120.0, 170.0]):
        if abs(math.degrees(a) - half_deg) < 1e-6:
            continue
        pts = np.array(
            [
                [eye[0] + 5 * math.cos(yaw + s * a), eye[1] + 5 * math.sin(yaw + s * a), eye[2]]
                for s in (1, -1)
            ]
        )
        got = in_view_cone(e, f, pts, 10.0, math.cos(math.radians(half_deg)))
        assert got[0, 0] == got[0, 1]


def test_hearing_rule() -> None:
    ears = np.array([[0.0, 0.0, 1.6], [20.0, 0.0, 1.6]])
    noises = np.array([[5.0, 0.0, 1.6], [0.0, 9.0, 1.6]])
    # heard if d^2 <= (range * loudness)^2; listener 1 is deaf (range 0)
    got = heard(ears, noises, np.array([0.5, 1.0]), np.array([10.0, 0.0]))
    assert got.tolist() == [[True, True], [False, False]]
    assert heard(ears[:1], noises[:1], np.array([0.49]), 10.0).tolist() == [[False]]


def test_within_range_and_heading_error() -> None:
    a = np.zeros((1, 3))
    assert within_range(a, np.array([[3.0, 4.0, 0.0], [3.0, 4.1, 0.0]]), 5.0).tolist() == [[True, False]]
    err = heading_error(
        np.array([0.0, math.pi]), np.zeros((2, 3)), np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    )
    assert err == pytest.approx([math.pi / 2, math.pi])


def test_eye_rays_start_outside_the_capsule() -> None:
    starts, ends = eye_rays(np.array([[0.0, 0.0, 1.6]]), np.array([[10.0, 0.0, 1.6]]), 0.37)
    assert starts[0] == pytest.approx([0.37, 0.0, 1.6])
    assert ends[0] == pytest.approx([10.0, 0.0, 1.6])


@pytest.mark.parametrize(
    "eye, message",
    [
        (np.zeros((2, 2)), r"eye must be an \(n, 3\) array"),
        (np.array([[np.nan, 0.0, 0.0]]), "eye must be finite"),
    ],
)
def test_bad_arrays_raise(eye, message) -> None:
    with pytest.raises(PerceptionError, match=message):
        in_view_cone(eye, np.array([[1.0, 0, 0]] * len(eye)), np.zeros((1, 3)), 1.0, 0.5)


def test_bad_scalars_raise() -> None:
    with pytest.raises(PerceptionError, match="cos_half_angle must lie in"):
        in_view_cone(np.zeros((1, 3)), np.array([[1.0, 0, 0]]), np.zeros((1, 3)), 1.0, 1.5)
    with pytest.raises(PerceptionError, match="radius must be"):
        in_view_cone(np.zeros((1, 3)), np.array([[1.0, 0, 0]]), np.zeros((1, 3)), -1.0, 0.5)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_per_eye_radius_and_angle_match_one_call_per_eye(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = 5, 7
    eye, targets = rng.uniform(-10, 10, (n, 3)), rng.uniform(-10, 10, (m, 3))
    fwd = rng.normal(size=(n, 3))
    radius, cos_half = rng.uniform(0, 15, n), rng.uniform(-1, 1, n)
    got = in_view_cone(eye, fwd, targets, radius, cos_half)
    for i in range(n):
        row = in_view_cone(eye[i : i + 1], fwd[i : i + 1], targets, float(radius[i]), float(cos_half[i]))
        np.testing.assert_array_equal(got[i], row[0])


def test_per_eye_arrays_of_the_wrong_length_are_refused() -> None:
    with pytest.raises(PerceptionError, match=r"radius must be a number or \(2,\) numbers"):
        in_view_cone(np.zeros((2, 3)), np.ones((2, 3)), np.zeros((1, 3)), np.ones(3), 0.5)


def test_perception_sense_sees_what_the_view_cone_says() -> None:
    from npc_ai.behaviour import perception as module
    from scenes import World, groups, load_scene

    with World(load_scene("arena"), seed=1) as world:
        npc = world.add_capsule((-12.0, -12.0, 0.0), group=groups.NPC)
        player = world.add_capsule((-9.0, -12.0, 0.0), group=groups.PLAYER)
        world.step()
        eye = np.array([-12.0, -12.0, 1.6])
        viewers = [
            module.Viewer(eye, 0.0, npc, 0.4, 10.0, math.cos(math.radians(60))),  # faces the player
            module.Viewer(eye, math.pi, npc, 0.4, 10.0, math.cos(math.radians(60))),  # faces away
            module.Viewer(eye, 0.0, npc, 0.4, 2.5, math.cos(math.radians(60))),  # short-sighted
        ]
        seen = module.Perception(world, period_ticks=1).sense(viewers, {player: np.array([-9.0, -12.0, 1.4])})
    assert [set(s.visible) for s in seen] == [{player}, set(), set()]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(point, st.floats(-4, 4), st.floats(0, 30), st.floats(-1, 1)), min_size=1, max_size=6),
    st.lists(point, min_size=1, max_size=5),
)
def test_the_shells_rays_are_the_view_cone_and_eye_rays(viewers: list, targets: list) -> None:
    """The compiled candidate pass of `Perception.see` keeps exactly the pairs `in_view_cone` accepts (for
    targets whose AABB holds their aim point) and starts their rays where `eye_rays` does."""
    from npc_ai.behaviour.perception import _sight_rays

    eyes = np.array([v[0] for v in viewers], dtype=np.float64)
    yaws = np.array([v[1] for v in viewers])
    radii = np.array([v[2] for v in viewers])
    cos_half = np.array([v[3] for v in viewers])
    clear = np.full(len(viewers), 0.42)
    pts = np.array(targets, dtype=np.float64)
    wanted = np.ones(len(pts), dtype=bool)
    pairs, starts, ends = _sight_rays(
        eyes, yaws, clear, radii, cos_half, pts, pts - 0.3, pts + 0.3, wanted, 0.5
    )
    cone = in_view_cone(eyes, forward_from_yaw(yaws), pts, radii, cos_half)
    assert sorted(map(tuple, pairs.tolist())) == sorted(map(tuple, np.argwhere(cone).tolist()))
    if len(pairs):
        want_starts, _ = eye_rays(eyes[pairs[:, 0]], pts[pairs[:, 1]], clear[pairs[:, 0]])
        np.testing.assert_array_equal(starts, want_starts)
        past = np.linalg.norm(ends - pts[pairs[:, 1]], axis=1)
        np.testing.assert_allclose(past[np.linalg.norm(pts[pairs[:, 1]] - starts, axis=1) > 1e-6], 0.5)
    # nothing is a candidate when no target is wanted
    none = _sight_rays(eyes, yaws, clear, radii, cos_half, pts, pts - 0.3, pts + 0.3, ~wanted, 0.5)[0]
    assert len(none) == 0
