"""The depenetration pass: a crowd cannot push a capsule into a wall, and its geometry is exact."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenes import World, WorldSettings, WorldSettingsError, parse_scene
from scenes.depenetration import displacement, remove_inward, static_contacts, static_contacts_of

WALL = """
[scene]
name = "wall"
[floor]
size = [30.0, 30.0]
[[box]]
name = "wall"
center = [0.0, 0.0, 1.5]
size = [0.5, 10.0, 3.0]
[player]
position = [5.0, 0.0, 0.0]
"""
FACE = 0.25  # the wall's +x face [m]
RADIUS = 0.35


def _deepest_in_wall(max_penetration: float | None, bodies: int, speed: float) -> tuple[float, int]:
    """A queue of capsules driven into the wall at `speed` [m/s] for 4 s, velocities set every tick as
    the coupling does; (deepest the front capsule got into the wall [m], bodies depenetrated)."""
    with World(parse_scene(WALL), settings=WorldSettings(max_penetration=max_penetration)) as w:
        queue = [w.add_capsule((FACE + RADIUS + 2 * RADIUS * k, 0.0, 0.0)) for k in range(bodies)]
        front = w.poses.index(queue[0])
        deepest = 0.0
        for _ in range(240):
            for b in queue:
                vz = float(w.poses.velocities[w.poses.index(b), 2])
                w.set_velocity(b, (-speed, 0.0, vz), yaw_rate=0.0)
            w.step()
            deepest = max(deepest, FACE + RADIUS - float(w.poses.positions[front, 0]))
        return deepest, w.depenetrated


def test_a_pushing_queue_drives_a_capsule_into_the_wall_without_the_pass() -> None:
    deepest, moved = _deepest_in_wall(None, bodies=12, speed=4.0)
    assert deepest > 0.05  # what the soak found in crowds: 5-10 cm inside walls
    assert moved == 0


def test_with_the_pass_the_capsule_stays_within_half_the_limit() -> None:
    deepest, moved = _deepest_in_wall(0.02, bodies=12, speed=4.0)
    assert deepest <= 0.01 + 1e-6
    assert moved > 0


def test_a_few_capsules_find_the_contacts_every_contact_gives() -> None:
    """`static_contacts_of` (closest points of a few capsules) against `static_contacts` (every contact of
    the world): the same bodies, normals and depths, deeper than `keep`, in the same order."""
    with World(parse_scene(WALL), settings=WorldSettings(max_penetration=None)) as w:
        inside = [FACE + RADIUS - d for d in (0.01, 0.05, 0.12)]
        bodies = [w.add_capsule((x, 3.0 * k - 3.0, 0.0)) for k, x in enumerate(inside)]
        bodies.append(w.add_capsule((8.0, 0.0, -0.05)))  # 5 cm into the floor
        static = list(w.static_bodies)
        a = static_contacts_of(w.client, bodies, static, 0.02)
        b = static_contacts(w.client, bodies, static, 0.02)
        np.testing.assert_array_equal(a[0], b[0])
        assert sorted(a[0].tolist()) == sorted(bodies[1:])  # the 1 cm one is within keep
        np.testing.assert_allclose(a[1], b[1], atol=1e-6)
        np.testing.assert_allclose(a[2], b[2], atol=1e-6)


def test_a_lone_capsule_against_a_wall_is_left_to_physics() -> None:
    deepest, moved = _deepest_in_wall(0.02, bodies=1, speed=2.0)
    assert deepest < 0.01 and moved == 0


@pytest.mark.parametrize("bad", [-0.01, math.nan, math.inf, "0.02"])
def test_max_penetration_is_validated(bad: object) -> None:
    with pytest.raises(WorldSettingsError, match="max_penetration"):
        WorldSettings(max_penetration=bad)  # type: ignore[arg-type]


def test_one_contact_moves_exactly_the_missing_depth_along_its_normal() -> None:
    n = np.array([[0.6, 0.0, 0.8]])
    np.testing.assert_allclose(displacement(n, np.array([0.07]), 0.01), 0.06 * n[0], atol=1e-12)
    np.testing.assert_array_equal(displacement(n, np.array([0.005]), 0.01), np.zeros(3))


def _rotation(a: float, b: float, c: float) -> np.ndarray:
    ca, sa, cb, sb, cc, sc = math.cos(a), math.sin(a), math.cos(b), math.sin(b), math.cos(c), math.sin(c)
    rz = np.array([[ca, -sa, 0], [sa, ca, 0], [0, 0, 1]])
    ry = np.array([[cb, 0, sb], [0, 1, 0], [-sb, 0, cb]])
    rx = np.array([[1, 0, 0], [0, cc, -sc], [0, sc, cc]])
    return rz @ ry @ rx


angles = st.floats(-math.pi, math.pi)
depths = st.floats(0.0, 0.5)


@settings(max_examples=200, deadline=None)
@given(angles, angles, angles, st.lists(depths, min_size=1, max_size=3), st.floats(0.0, 0.05))
def test_a_corner_is_resolved_exactly(a: float, b: float, c: float, deep: list[float], keep: float) -> None:
    """Contacts on perpendicular faces (a corner, floor and wall): every one ends at most `keep` deep,
    and the move is no longer than needed."""
    normals = _rotation(a, b, c)[: len(deep)]
    d = np.array(deep)
    move = displacement(normals, d, keep)
    left = d - normals @ move
    assert (left <= keep + 1e-9 + 1e-12).all()  # `displacement` stops within 1e-9 (plus round-off)
    assert float(np.linalg.norm(move)) <= float(np.linalg.norm(np.maximum(d - keep, 0))) + 1e-9


@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 0.1), st.floats(0.0, 0.1))
def test_a_wedge_between_floor_and_a_ramp_underside_squeezes_the_body_out_sideways(
    floor_depth: float, ceiling_depth: float
) -> None:
    """Floor pushing up, a 16.7 degree ramp's underside pushing down and along +y: both contacts end
    within `keep` (to a millimetre), and the body leaves toward the open side, never further under."""
    slope = math.radians(16.7)
    normals = np.array([[0.0, 0.0, 1.0], [0.0, math.sin(slope), -math.cos(slope)]])
    d = np.array([floor_depth, ceiling_depth])
    move = displacement(normals, d, 0.01)
    assert (d - normals @ move <= 0.01 + 1e-3).all()
    assert move[1] >= 0.0


@settings(max_examples=200, deadline=None)
@given(angles, angles, angles, st.lists(st.floats(-10, 10), min_size=3, max_size=3), st.integers(1, 3))
def test_removing_the_inward_velocity_keeps_what_points_away(
    a: float, b: float, c: float, v: list[float], k: int
) -> None:
    normals = _rotation(a, b, c)[:k]
    out = remove_inward(np.array(v), normals)
    assert (normals @ out >= -1e-9).all()  # nothing left into any face
    away = normals.sum(axis=0)  # points out of every face: kept as it is
    np.testing.assert_array_equal(remove_inward(away, normals), away)
