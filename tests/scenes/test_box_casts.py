"""Box casts meet the level's boxes in closed form (`scenes.box_casts`); cross-checked against conservative
advancement with PyBullet's closest points (`scenes.boxcast.box_cast`), which ramps and meshes still use."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scenes import World, groups, load_scene
from scenes.boxcast import box_cast, box_shape
from scenes.build import StaticBox, scene_boxes, static_boxes


@pytest.fixture(scope="module")
def world():
    with World(load_scene("arena")) as w:  # boxes turned by 15, 40, -30, 45, -135 and -90 degrees
        yield w


def reference(w: World, half: np.ndarray, start: np.ndarray, end: np.ndarray, yaw: float):
    """The same cast by conservative advancement against the tabled level bodies alone."""
    shape = box_shape(w.client, half)
    q = (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))
    return box_cast(w.client, shape, q, start, end, sorted(w._casts.boxes.bodies), tolerance=1e-7)


def _grazes(world: World, half: np.ndarray, start: np.ndarray, end: np.ndarray, yaw: float) -> bool:
    """The box passes within 3 mm of a wall without touching it, or touches it by less than that: 3 mm
    more or less of box changes whether it hits, or which wall it hits first (it then reaches a wall
    further on: the first contact moves by more than 5 cm)."""
    bigger = reference(world, half + 3e-3, start, end, yaw)
    smaller = reference(world, np.maximum(half - 3e-3, 1e-3), start, end, yaw)
    return bigger.hit != smaller.hit or (bigger.hit and abs(bigger.distance - smaller.distance) > 0.05)


@settings(max_examples=150, deadline=None)
@example(seed=6145994, height=1.0, yaw=0.0, hx=0.05078125, hy=0.25, hz=0.5)  # a corner touched by 0.5 mm
@given(
    seed=st.integers(0, 2**32 - 1),
    height=st.floats(0.05, 3.0),
    yaw=st.floats(-math.pi, math.pi),
    hx=st.floats(0.01, 0.6),
    hy=st.floats(0.01, 0.6),
    hz=st.floats(0.01, 0.5),
)
def test_agrees_with_conservative_advancement(
    world: World, seed: int, height: float, yaw: float, hx: float, hy: float, hz: float
) -> None:
    rng = np.random.default_rng(seed)
    start = np.array([*rng.uniform(-12, 12, 2), height])
    end = start + np.array([*rng.uniform(-8, 8, 2), 0.0])
    half = np.array([hx, hy, hz])
    got = world.box_casts(half, start[None], end[None], yaws=np.array([yaw]), mask=groups.STATIC).row(0)
    want = reference(world, half, start, end, yaw)
    length = float(np.linalg.norm(end - start))
    if got.hit and want.hit:
        # PyBullet rounds its boxes' edges by a 1 mm margin: a corner may touch a little later
        closing = abs(float(got.normal @ (end - start))) / length  # 1 mm along the normal: ~5 mm at 4 deg
        if abs(got.distance - want.distance) * closing >= 1e-3:
            assert _grazes(world, half, start, end, yaw)
            return  # a graze (PyBullet's rounded corner misses a sub-mm touch): the walls may differ
        assert got.started_in_contact == want.started_in_contact or got.distance < 3e-3
        if not got.started_in_contact:
            assert np.isclose(np.linalg.norm(got.normal), 1.0) and got.normal[2] == 0.0
            assert float(got.normal @ (end - start)) < 0.0  # against the move
            np.testing.assert_allclose(got.position, start + got.fraction * (end - start), atol=1e-9)
            # on the same wall, within the stretch two parallel faces may touch along (heights aside)
            assert np.linalg.norm((got.point - want.point)[:2]) < 0.05 + 2.0 * (hx + hy)
    elif got.hit or want.hit:  # a grazing touch may be found by one and missed by the other
        hit = got if got.hit else want
        assert (hit.distance > 0.0 and length - hit.distance < 3e-3) or _grazes(world, half, start, end, yaw)


def test_many_casts_hit_where_advancement_does() -> None:
    """600 seeded probe-like casts (a slab of a body's cross-section) through the warehouse: both methods
    agree on every hit, within 1 mm along the wall's normal (PyBullet's rounded corners: a corner sliding
    along a face at 4 degrees touched 5 mm of travel later there), and the closed form makes no
    closest-point query."""
    with World(load_scene("warehouse")) as w:
        rng = np.random.default_rng(5)
        m = 600
        starts = np.column_stack([rng.uniform(-19, 19, m), rng.uniform(-14, 14, m), np.full(m, 1.05)])
        ends = starts + np.column_stack([rng.uniform(-6, 6, (m, 2)), np.zeros(m)])
        yaws, half = rng.uniform(-math.pi, math.pi, m), np.array([0.02, 0.45, 0.75])
        before = w.pybullet_calls["getClosestPoints"]
        got = w.box_casts(half, starts, ends, yaws=yaws, mask=groups.STATIC)
        assert w.pybullet_calls["getClosestPoints"] == before
        both = errors = 0
        for i in range(m):
            want = reference(w, half, starts[i], ends[i], float(yaws[i]))
            if got.hit[i] and want.hit:
                both += 1
                direction = (ends[i] - starts[i]) / np.linalg.norm(ends[i] - starts[i])
                closing = abs(float(got.normal[i] @ direction))
                errors += abs(got.distance[i] - want.distance) * closing > 1e-3
                errors += got.body[i] != want.body and abs(got.distance[i] - want.distance) > 1e-6
            else:
                errors += got.hit[i] != want.hit
        assert both > 250 and errors == 0, (both, errors)


def test_a_cast_starting_in_a_wall_started_in_contact_and_pushes_out_the_short_way(world: World) -> None:
    boxes = world._casts.boxes
    k = int(np.flatnonzero(np.abs(boxes.yaw) < 1e-9)[-1])  # an unturned box
    centre = boxes.center[k] + [boxes.half[k, 0] - 0.05, 0.0, 0.0]  # 5 cm inside its +x face
    hit = world.box_cast((0.02, 0.02, 0.02), centre, centre + [0.0, 3.0, 0.0], mask=groups.STATIC)
    assert hit.hit and hit.started_in_contact and hit.fraction == 0.0 and hit.body == boxes.body[k]
    np.testing.assert_allclose(hit.normal, [1.0, 0.0, 0.0])


def test_one_cast_and_the_batch_agree(world: World) -> None:
    rng = np.random.default_rng(2)
    starts = np.column_stack([rng.uniform(-12, 12, (40, 2)), np.full(40, 0.8)])
    ends = starts + np.column_stack([rng.uniform(-8, 8, (40, 2)), np.zeros(40)])
    yaws = rng.uniform(-math.pi, math.pi, 40)
    many = world.box_casts((0.1, 0.3, 0.5), starts, ends, yaws=yaws, mask=groups.STATIC)
    for i in range(40):
        one = world.box_cast((0.1, 0.3, 0.5), starts[i], ends[i], yaw=float(yaws[i]), mask=groups.STATIC)
        assert (one.hit, one.fraction, one.body) == (many.hit[i], many.fraction[i], many.body[i])
        np.testing.assert_array_equal(one.normal, many.normal[i])


def test_ignoring_a_wall_or_masking_the_level_out_skips_the_closed_form(world: World) -> None:
    start, end = np.array([-14.0, 0.0, 0.8]), np.array([14.0, 0.0, 0.8])
    hit = world.box_cast((0.1, 0.1, 0.1), start, end, mask=groups.STATIC)
    assert hit.hit
    assert not world.box_cast((0.1, 0.1, 0.1), start, end, mask=groups.NPC).hit
    past = world.box_cast((0.1, 0.1, 0.1), start, end, mask=groups.STATIC, ignore=[hit.body])
    assert not past.hit or past.body != hit.body


def test_the_table_keeps_boxes_turned_about_z_only() -> None:
    flat = StaticBox((1.0, 2.0, 0.5), (0.5, 0.25, 0.5), (0.0, 0.0, math.sin(0.3), math.cos(0.3)))
    tilted = StaticBox((0.0, 0.0, 0.5), (1.0, 1.0, 0.1), (0.0, math.sin(0.1), 0.0, math.cos(0.1)))
    table = static_boxes({7: (flat, flat), 8: (flat, tilted), 9: ()})
    assert table.bodies == {7} and table.body.tolist() == [7, 7]
    np.testing.assert_allclose(table.yaw, [0.6, 0.6])
    np.testing.assert_allclose(table.center[0], [1.0, 2.0, 0.5])


def test_ramps_stay_with_conservative_advancement() -> None:
    with World(load_scene("compound")) as w:
        # the compound's one ramp is turned about a horizontal axis: in a body of its own (merge_groups
        # never puts it with flat boxes), the only one left to conservative advancement
        assert len(set(w.static_bodies) - w._casts.boxes.bodies) == 1
        assert len(w._casts.boxes.body) == len(scene_boxes(w.scene)) - 1


def test_without_candidates_the_batch_meets_what_one_cast_with_candidates_meets() -> None:
    """`box_casts` whose mask leaves only tabled boxes and capsules finds the capsules near each cast itself
    (no AABB query, `casts._closed_only`); `box_cast` gathers candidates from PyBullet: the same answers,
    each cast ignoring its own capsule."""
    with World(load_scene("arena")) as w:
        rng = np.random.default_rng(8)
        feet = np.column_stack([rng.uniform(-8, 8, (30, 2)), np.zeros(30)])
        bodies = np.array(w.add_capsules(feet, radius=0.35, height=1.8, kinematic=True))
        m = 120
        own = rng.integers(0, 30, m)
        starts = feet[own] + [0.0, 0.0, 1.05]
        ends = starts + np.column_stack([rng.uniform(-6, 6, (m, 2)), np.zeros(m)])
        yaws = rng.uniform(-math.pi, math.pi, m)
        mask = groups.STATIC | groups.NPC
        queries = w.pybullet_calls["getOverlappingObjects"]
        many = w.box_casts((0.02, 0.45, 0.75), starts, ends, yaws=yaws, mask=mask, ignore=bodies[own])
        assert w.pybullet_calls["getOverlappingObjects"] == queries  # no candidates gathered
        met = set()
        for i in range(m):
            one = w.box_cast(
                (0.02, 0.45, 0.75),
                starts[i],
                ends[i],
                yaw=float(yaws[i]),
                mask=mask,
                ignore=[int(bodies[own[i]])],
            )
            assert (one.hit, one.body, one.started_in_contact) == (
                many.hit[i],
                many.body[i],
                many.started_in_contact[i],
            )
            assert one.fraction == many.fraction[i]
            met.add(int(one.body))
        assert len(met & set(bodies.tolist())) > 5 and len(met & set(w.static_bodies)) >= 1


def test_casts_past_a_ramp_advance_against_it_alone() -> None:
    """In compound the ramp is the one static body no table holds: `box_casts` (no candidates gathered)
    advances the casts near it against it, and agrees with `box_cast` (candidates from PyBullet)."""
    with World(load_scene("compound")) as w:
        ramp = (set(w.static_bodies) - w._casts.boxes.bodies).pop()
        rng = np.random.default_rng(3)
        m = 80
        starts = np.column_stack([rng.uniform(-16, -4, m), rng.uniform(-9, 7, m), rng.uniform(0.2, 2.5, m)])
        ends = starts + np.column_stack([rng.uniform(-5, 5, (m, 2)), np.zeros(m)])
        yaws = rng.uniform(-math.pi, math.pi, m)
        queries = w.pybullet_calls["getOverlappingObjects"]
        many = w.box_casts((0.05, 0.3, 0.3), starts, ends, yaws=yaws, mask=groups.STATIC)
        assert w.pybullet_calls["getOverlappingObjects"] == queries
        for i in range(m):
            one = w.box_cast((0.05, 0.3, 0.3), starts[i], ends[i], yaw=float(yaws[i]), mask=groups.STATIC)
            assert (one.hit, one.body, one.fraction) == (many.hit[i], many.body[i], many.fraction[i])
        assert (many.body == ramp).sum() > 5
