"""Convex box casts against analytic times of impact, thin obstacles, contact at start, ignored casters."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenes import World, WorldError, groups, parse_scene
from scenes._bullet import pybullet as pb

SCENE = """
[scene]
name = "casts"
[floor]
size = [40, 40]
z = -5
[[box]]
name = "wall"
center = [5.5, 0, 1]
size = [1, 20, 2]
"""
TOL = 3e-3  # the cast stops within 1 mm of contact; PyBullet's GJK adds well under 1 mm


@pytest.fixture(scope="module")
def world():
    with World(parse_scene(SCENE)) as w:
        yield w


def sat_sweep_2d(a_half, a_yaw, a_start, travel, b_center, b_half, b_yaw):
    """Time of impact in [0, 1] of rectangle A moving by `travel` against rectangle B (separating axes)."""

    def axes(yaw):
        c, s = math.cos(yaw), math.sin(yaw)
        return [np.array([c, s]), np.array([-s, c])]

    def radius(half, yaw, axis):
        return sum(h * abs(ax @ axis) for h, ax in zip(half, axes(yaw), strict=True))

    t_enter, t_exit = 0.0, 1.0
    for axis in axes(a_yaw) + axes(b_yaw):
        gap = (b_center - a_start) @ axis
        r = radius(a_half, a_yaw, axis) + radius(b_half, b_yaw, axis)
        v = travel @ axis
        if abs(v) < 1e-12:
            if abs(gap) > r:
                return None
            continue
        t0, t1 = (gap - r) / v, (gap + r) / v
        t_enter, t_exit = max(t_enter, min(t0, t1)), min(t_exit, max(t0, t1))
        if t_enter > t_exit:
            return None
    return t_enter


def test_axis_aligned_cast_stops_at_the_wall(world: World) -> None:
    hit = world.box_cast((0.25, 0.25, 0.5), (0, 0, 1), (10, 0, 1))
    assert hit.hit and not hit.started_in_contact
    assert hit.body in world.static_bodies
    assert hit.distance == pytest.approx(5.0 - 0.25, abs=TOL)
    assert hit.fraction == pytest.approx(4.75 / 10, abs=TOL / 10)
    np.testing.assert_allclose(hit.normal, [-1, 0, 0], atol=1e-3)
    assert hit.point[0] == pytest.approx(5.0, abs=TOL)


def test_rotated_caster_touches_with_its_corner(world: World) -> None:
    hit = world.box_cast((0.25, 0.25, 0.5), (0, 0, 1), (10, 0, 1), yaw=math.radians(45))
    assert hit.hit
    assert hit.distance == pytest.approx(5.0 - 0.25 * math.sqrt(2), abs=TOL)


def test_cast_that_misses_reaches_the_end(world: World) -> None:
    hit = world.box_cast((0.25, 0.25, 0.5), (0, 0, 1), (4, 0, 1))
    assert not hit.hit
    assert hit.fraction == 1.0 and hit.body == -1
    np.testing.assert_allclose(hit.position, [4, 0, 1])


@settings(max_examples=60, deadline=None)
@given(
    a_yaw=st.floats(-math.pi, math.pi),
    b_yaw=st.floats(-math.pi, math.pi),
    lateral=st.floats(-1.5, 1.5),
    heading=st.floats(-0.6, 0.6),
)
def test_cast_against_rotated_obstacle_matches_separating_axis_sweep(a_yaw, b_yaw, lateral, heading) -> None:
    with World(parse_scene('[scene]\nname = "e"\n')) as w:
        b_center, b_half = np.array([4.0, 0.0]), np.array([0.8, 0.3])
        shape = w.client.createCollisionShape(pb.GEOM_BOX, halfExtents=[*b_half, 1.0])
        body = w.client.createMultiBody(
            0, shape, -1, [*b_center, 1.0], pb.getQuaternionFromEuler((0, 0, b_yaw))
        )
        w.groups[body] = groups.STATIC
        a_half = np.array([0.3, 0.2])
        start = np.array([0.0, lateral])
        travel = 8.0 * np.array([math.cos(heading), math.sin(heading)])
        expected = sat_sweep_2d(a_half, a_yaw, start, travel, b_center, b_half, b_yaw)
        hit = w.box_cast((*a_half, 0.5), (*start, 1.0), (*(start + travel), 1.0), yaw=a_yaw)
        if expected is None:
            assert not hit.hit
        else:
            assert hit.hit
            assert hit.distance == pytest.approx(expected * 8.0, abs=TOL)


def test_thin_pole_is_found_by_the_cast_but_missed_by_a_ray_grid() -> None:
    with World(parse_scene('[scene]\nname = "pole"\n')) as w:
        shape = w.client.createCollisionShape(pb.GEOM_CYLINDER, radius=0.01, height=2.0)
        pole = w.client.createMultiBody(0, shape, -1, [5.0, 0.1, 1.0])
        w.groups[pole] = groups.STATIC
        half = (0.3, 0.3, 0.8)
        hit = w.box_cast(half, (0, 0, 1), (10, 0, 1))
        assert hit.hit and hit.body == pole
        assert hit.distance == pytest.approx(5.0 - 0.01 - 0.3, abs=TOL)
        # The 3x3 grid of parallel rays through the box's face corners and centre misses the 2 cm pole.
        offsets = np.array([(y, z) for y in (-0.3, 0.0, 0.3) for z in (-0.8, 0.0, 0.8)])
        starts = np.c_[np.zeros(9), offsets[:, 0], 1.0 + offsets[:, 1]]
        ends = starts + [10.0, 0, 0]
        assert not w.ray_test(starts, ends).hit.any()


def test_cast_starting_in_contact_reports_fraction_zero(world: World) -> None:
    hit = world.box_cast((0.25, 0.25, 0.5), (4.75, 0, 1), (10, 0, 1))
    assert hit.hit and hit.started_in_contact
    assert hit.fraction == 0.0
    inside = world.box_cast((0.25, 0.25, 0.5), (5.3, 0, 1), (0, 0, 1))
    assert inside.hit and inside.started_in_contact and inside.fraction == 0.0


def test_cast_ignores_the_caster_and_masked_groups() -> None:
    with World(parse_scene(SCENE)) as w:
        me = w.add_capsule((0.0, 0.0, 0.0), group=groups.NPC)
        other = w.add_capsule((2.5, 0.0, 0.0), group=groups.PLAYER)
        half, start, end = (0.3, 0.3, 0.5), (0, 0, 1), (10, 0, 1)
        assert w.box_cast(half, start, end).started_in_contact  # the caster's own capsule
        seen = w.box_cast(half, start, end, ignore=[me])
        assert seen.body == other
        assert seen.distance == pytest.approx(2.5 - 0.35 - 0.3, abs=TOL)
        past = w.box_cast(half, start, end, ignore=[me], mask=groups.STATIC)
        assert past.body in w.static_bodies
        assert past.distance == pytest.approx(5.0 - 0.3, abs=TOL)


def test_bad_cast_arguments_raise_world_error(world: World) -> None:
    with pytest.raises(WorldError):
        world.box_cast((0.2, -0.1, 0.2), (0, 0, 1), (1, 0, 1))
    with pytest.raises(WorldError):
        world.box_cast((0.2, 0.2, 0.2), (0, np.nan, 1), (1, 0, 1))
