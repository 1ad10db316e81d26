"""Batched ray tests against analytic answers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scenes import World, WorldError, groups, parse_scene
from scenes.raycast import MAX_RAYS_PER_BATCH

SCENE = """
[scene]
name = "rays"
[floor]
size = [40, 40]
[[box]]
name = "wall"
center = [10, 0, 1.5]
size = [1, 20, 3]
[[box]]
name = "rotated"
center = [-8, 4, 1]
half_extents = [1.5, 0.5, 1]
yaw_deg = 30
"""


@pytest.fixture(scope="module")
def world():
    with World(parse_scene(SCENE)) as w:
        yield w


def ray_obb(start, end, center, half, yaw):
    """Analytic ray vs oriented box (slab method in the box frame): (entry fraction, entry face's world
    normal), or None for a miss."""
    c, s = math.cos(yaw), math.sin(yaw)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    o = rot.T @ (np.asarray(start) - center)
    d = rot.T @ (np.asarray(end) - np.asarray(start))
    t0, t1, axis = 0.0, 1.0, -1
    for k in range(3):
        if abs(d[k]) < 1e-12:
            if abs(o[k]) > half[k]:
                return None
            continue
        a, b = (-half[k] - o[k]) / d[k], (half[k] - o[k]) / d[k]
        if min(a, b) > t0:
            t0, axis = min(a, b), k
        t1 = min(t1, max(a, b))
    if not (t0 <= t1 and t0 > 0):
        return None
    local = np.zeros(3)
    local[axis] = -math.copysign(1.0, d[axis])
    return t0, rot @ local


def test_vertical_rays_hit_the_floor_with_exact_fraction(world: World) -> None:
    xs = np.linspace(-5, 5, 11)
    starts = np.c_[xs, np.zeros(11), np.full(11, 4.0)]
    ends = starts - [0, 0, 8.0]
    hits = world.ray_test(starts, ends)
    assert np.isin(hits.body, world.static_bodies).all()
    np.testing.assert_allclose(hits.fraction, 0.5, atol=1e-6)
    np.testing.assert_allclose(hits.point[:, 2], 0.0, atol=1e-6)
    np.testing.assert_allclose(hits.normal, [[0, 0, 1]] * 11, atol=1e-6)


def test_axis_aligned_wall_hit(world: World) -> None:
    hits = world.ray_test(np.array([[0.0, 3.0, 1.0]]), np.array([[20.0, 3.0, 1.0]]))
    assert hits.body[0] in world.static_bodies
    assert hits.point[0, 0] == pytest.approx(9.5, abs=1e-5)
    assert hits.fraction[0] == pytest.approx(9.5 / 20.0, abs=1e-6)
    np.testing.assert_allclose(hits.normal[0], [-1, 0, 0], atol=1e-6)


@example(angle=0.5031564908839955, lateral=0.5031564908839955, z=1.0)  # grazing: 1.2 deg to the face
@settings(max_examples=150, deadline=None)
@given(
    angle=st.floats(0, 2 * math.pi),
    lateral=st.floats(-1.0, 1.0),
    z=st.floats(0.2, 1.8),
)
def test_rays_against_a_rotated_box_match_the_slab_method(
    world: World, angle: float, lateral: float, z: float
) -> None:
    center, half, yaw = np.array([-8.0, 4.0, 1.0]), np.array([1.5, 0.5, 1.0]), math.radians(30)
    direction = np.array([math.cos(angle), math.sin(angle), 0.0])
    normal = np.array([-direction[1], direction[0], 0.0])
    start = center - direction * 6 + normal * lateral
    start[2] = z
    end = start + direction * 12
    # Bullet casts rays at convex shapes with GJK, accurate to about a millimetre ACROSS the face: a
    # grazing ray (1 degree to the face) may land centimetres off along the ray. So: rays that clear a box
    # 5 mm larger must miss, rays that hit a box 5 mm smaller must hit, and the hit must lie within 2 mm
    # of the exact entry face's plane.
    band = np.array([0.005, 0.005, 0.005])
    inner = ray_obb(start, end, center, half - band, yaw)
    outer = ray_obb(start, end, center, half + band, yaw)
    hits = world.ray_test(start[None], end[None], mask=groups.STATIC)
    if outer is None:
        assert not hits.hit[0]  # nothing else lies across these horizontal rays
    elif inner is not None:
        assert hits.body[0] in world.static_bodies
        exact = ray_obb(start, end, center, half, yaw)
        assert exact is not None
        fraction, normal = exact
        off_plane = float((hits.point[0] - (start + fraction * (end - start))) @ normal)
        assert abs(off_plane) <= 2e-3


def test_more_rays_than_one_batch_all_get_answers(world: World) -> None:
    n = MAX_RAYS_PER_BATCH + 2000
    rng = np.random.default_rng(3)
    xy = rng.uniform(-15, 15, size=(n, 2))
    starts = np.c_[xy, np.full(n, 5.0)]
    ends = np.c_[xy, np.full(n, -1.0)]
    hits = world.ray_test(starts, ends)
    assert len(hits) == n
    assert hits.hit.all()
    # the analytic top surface: the wall (3 m), the rotated box (2 m), else the floor
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    dx, dy = xy[:, 0] + 8.0, xy[:, 1] - 4.0
    in_rotated = (np.abs(c * dx + s * dy) <= 1.5) & (np.abs(-s * dx + c * dy) <= 0.5)
    in_wall = (np.abs(xy[:, 0] - 10.0) <= 0.5) & (np.abs(xy[:, 1]) <= 10.0)
    top = np.where(in_wall, 3.0, np.where(in_rotated, 2.0, 0.0))
    edge = (np.abs(np.abs(c * dx + s * dy) - 1.5) < 1e-3) | (np.abs(np.abs(-s * dx + c * dy) - 0.5) < 1e-3)
    np.testing.assert_allclose(hits.point[~edge, 2], top[~edge], atol=1e-5)


def test_ignore_passes_through_the_caster_and_mask_selects_groups() -> None:
    with World(parse_scene(SCENE)) as w:
        npc = w.add_capsule((4.0, 0.0, 0.0), group=groups.NPC)
        start, end = np.array([[0.0, 0.0, 1.0]]), np.array([[20.0, 0.0, 1.0]])
        assert w.ray_test(start, end).body[0] == npc
        through = w.ray_test(start, end, ignore=[npc])
        assert through.body[0] in w.static_bodies
        assert through.point[0, 0] == pytest.approx(9.5, abs=1e-4)
        assert through.fraction[0] == pytest.approx(9.5 / 20, abs=1e-4)
        masked = w.ray_test(start, end, mask=groups.STATIC)
        assert masked.body[0] in w.static_bodies
        assert w.ray_test(start, end, mask=groups.PLAYER).body[0] == -1


@pytest.mark.parametrize(
    ("starts", "ends"),
    [
        (np.zeros((2, 2)), np.zeros((2, 2))),
        (np.zeros((2, 3)), np.zeros((3, 3))),
        (np.array([[np.nan, 0, 0]]), np.zeros((1, 3))),
        (np.zeros((1, 3)), np.array([[np.inf, 0, 0]])),
    ],
)
def test_bad_ray_arrays_raise_world_error(world: World, starts, ends) -> None:
    with pytest.raises(WorldError):
        world.ray_test(starts, ends)


def test_rays_and_probes_pause_the_collector_and_give_it_back(world: World, monkeypatch) -> None:
    """PyBullet's answers are freed by reference counting: no collection runs while they are made, and
    the collector is left as it was found (on, or off if the caller had turned it off)."""
    import gc

    from scenes import raycast

    seen: list[bool] = []
    real = raycast.pb.rayTestBatch

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(raycast.pb, "rayTestBatch", spy)
    starts, ends = np.array([[0.0, 0.0, 5.0]]), np.array([[0.0, 0.0, -1.0]])
    assert gc.isenabled()
    assert world.ray_test(starts, ends).hit.all()
    assert seen == [False] and gc.isenabled()
    assert world.boxes_overlap(np.array([[10.0, 0.0, 1.0]]), [0.1, 0.1, 0.1]).all() and gc.isenabled()
    gc.disable()
    try:
        world.ray_test(starts, ends)
        assert not gc.isenabled()
    finally:
        gc.enable()
