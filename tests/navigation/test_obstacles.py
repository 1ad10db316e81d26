"""Obstacle shapes, poses and footprints: bad input refused with the argument named, footprints that hold
the exact grown outline (and not much more), and the move / turn thresholds."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from navigation.errors import NavMeshError
from navigation.obstacles import Box, Cylinder, footprint, has_moved, pose, turn_between, yaw_quaternion
from navigation.settings import CarveSettings

NAN = float("nan")


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Box((1.0, 1.0)), "half_extents must be 3 numbers"),
        (lambda: Box("abc"), "half_extents must be 3 numbers"),
        (lambda: Box((1.0, 0.0, 1.0)), r"half_extents\[1\] must be a number of metres > 0"),
        (lambda: Box((1.0, NAN, 1.0)), r"half_extents\[1\]"),
        (lambda: Box((1.0, 1.0, 1e12)), r"half_extents\[2\] must be at most"),
        (lambda: Cylinder(-1.0, 1.0), "radius must be a number of metres > 0"),
        (lambda: Cylinder(1.0, float("inf")), "height"),
        (lambda: Cylinder(True, 1.0), "radius"),
        (lambda: pose((0.0, NAN, 0.0)), "position must be 2 or 3 finite numbers"),
        (lambda: pose("here"), "position"),
        (lambda: pose((0.0, 0.0), (0.0, 0.0, 0.0)), "orientation must be a quaternion of 4 finite"),
        (lambda: pose((0.0, 0.0), (0.0, 0.0, NAN, 1.0)), "orientation must be a quaternion"),
        (lambda: pose((0.0, 0.0), (0.0, 0.0, 0.0, 0.0)), "orientation must be a non-zero quaternion"),
        (lambda: pose((0.0, 0.0), (0.0, 0.0, 0.0, 1.0), yaw=1.0), "not both"),
        (lambda: pose((0.0, 0.0), yaw=NAN), "yaw must be a finite number of radians"),
    ],
)
def test_bad_shapes_and_poses_are_refused(make, message: str) -> None:
    with pytest.raises(NavMeshError, match=message):
        make()


def test_pose_defaults_and_normalises() -> None:
    p = pose((1.0, 2.0))
    assert p.position == (1.0, 2.0, 0.0) and p.orientation == (0.0, 0.0, 0.0, 1.0)
    q = pose((1.0, 2.0, 3.0), (0.0, 0.0, 2.0, 0.0))
    assert q.orientation == (0.0, 0.0, 1.0, 0.0)
    assert np.allclose(q.rotation() @ [1.0, 0.0, 0.0], [-1.0, 0.0, 0.0])
    assert np.allclose(pose((0, 0), yaw=0.5).orientation, yaw_quaternion(0.5))


def test_thresholds_tell_a_move_from_jitter() -> None:
    s = CarveSettings(move_threshold=0.1, turn_threshold_deg=5.0)
    a = pose((0.0, 0.0, 0.0))
    assert not has_moved(a, pose((0.05, 0.05, 0.0)), s)
    assert has_moved(a, pose((0.1, 0.05, 0.0)), s)
    assert not has_moved(a, pose((0.0, 0.0), yaw=math.radians(4.0)), s)
    assert has_moved(a, pose((0.0, 0.0), yaw=math.radians(6.0)), s)
    assert turn_between(a, pose((0.0, 0.0), yaw=math.pi)) == pytest.approx(math.pi)


def _box_outline(half: tuple[float, float, float], where) -> shapely.Polygon:
    signs = np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
    pts = (signs * half) @ where.rotation().T + where.position
    return shapely.convex_hull(shapely.multipoints(pts[:, :2]))


@settings(max_examples=60, deadline=None)
@given(
    half=st.tuples(*[st.floats(0.05, 3.0)] * 3),
    quat=st.tuples(*[st.floats(-1.0, 1.0)] * 4).filter(lambda q: sum(v * v for v in q) > 0.01),
    radius=st.one_of(st.just(0.0), st.floats(1e-6, 1.0)),  # GEOS buffers by a subnormal to EMPTY
    segments=st.integers(1, 8),
)
def test_box_footprint_holds_the_grown_outline_and_little_more(half, quat, radius, segments) -> None:
    s = CarveSettings(agent_radius=radius, arc_segments=segments)
    where = pose((1.0, -2.0, 0.5), quat)
    fp = footprint(Box(half), where, s)
    exact = _box_outline(half, where)
    grown = shapely.buffer(exact, radius, quad_segs=64) if radius > 0 else exact
    assert shapely.buffer(fp.polygon, 1e-9).covers(grown)  # never less than the agent radius
    bound = radius / math.cos(math.pi / (4 * segments))
    corners = shapely.points(shapely.get_coordinates(fp.polygon))
    assert shapely.distance(corners, exact).max() <= bound + 1e-9  # at most the polygon's circumradius
    assert fp.bottom <= 0.5 - min(half) + 1e-9 and fp.top >= 0.5 + min(half) - 1e-9


def test_cylinder_footprint_is_the_grown_circle() -> None:
    s = CarveSettings(agent_radius=0.4, arc_segments=4)
    fp = footprint(Cylinder(0.6, 1.0), pose((2.0, 3.0, 0.5)), s)
    circle = shapely.Point(2.0, 3.0).buffer(1.0, quad_segs=64)
    assert shapely.buffer(fp.polygon, 1e-9).covers(circle)
    assert fp.polygon.area < circle.area * (1 / math.cos(math.pi / 16)) ** 2 * 1.001
    assert (fp.bottom, fp.top) == pytest.approx((0.0, 1.0))


def test_a_cylinder_lying_down_covers_its_length() -> None:
    lying = pose((0.0, 0.0, 0.3), (math.sin(math.pi / 4), 0.0, 0.0, math.cos(math.pi / 4)))  # about x
    fp = footprint(Cylinder(0.3, 2.0), lying, CarveSettings(agent_radius=0.0))
    x0, y0, x1, y1 = fp.polygon.bounds
    assert (y1 - y0) == pytest.approx(2.0) and (x1 - x0) == pytest.approx(0.6 / math.cos(math.pi / 16))
    assert fp.top - fp.bottom == pytest.approx(0.6 / math.cos(math.pi / 16))
