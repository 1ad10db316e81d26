"""`World.box_casts`' fast path (`scenes.casts.closed_casts`): casts given as float64 arrays that can meet
only the closed-form tables run in one compiled call; row for row they equal the checked way (`cast_rows`,
then `sweep_rows`), which takes over whenever the fast path does not apply."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scenes.world as world_module
from scenes import World, WorldError, groups, load_scene

MASK = groups.STATIC | groups.NPC


@pytest.fixture(scope="module")
def arena():
    with World(load_scene("arena")) as w:
        rng = np.random.default_rng(2)
        feet = np.column_stack([rng.uniform(-8, 8, (20, 2)), np.zeros(20)])
        w.add_capsules(feet, radius=0.35, height=1.8, kinematic=True)
        w.add_capsules(feet[:5] + [0.5, 0.5, 0.0], radius=0.3, height=1.7)  # dynamic ones too
        w.step()
        yield w


class _Spy:
    """Counts the casts that took the checked way (`sweep_rows`)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = world_module.sweep_rows

        def spy(*args, **kwargs):
            self.calls += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(world_module, "sweep_rows", spy)


def _checked(w: World, half, starts, ends, yaws, ignore, mask):
    """The same casts as plain lists: never the fast path."""
    return w.box_casts(
        np.asarray(half).tolist(),
        starts.tolist(),
        ends.tolist(),
        yaws=None if yaws is None else yaws.tolist(),
        mask=mask,
        ignore=None if ignore is None else np.asarray(ignore).tolist(),
    )


def _same(a, b) -> None:
    assert a.hit.tolist() == b.hit.tolist()
    assert a.body.tolist() == b.body.tolist()
    assert a.started_in_contact.tolist() == b.started_in_contact.tolist()
    np.testing.assert_array_equal(a.fraction, b.fraction)
    np.testing.assert_array_equal(a.distance, b.distance)
    np.testing.assert_array_equal(a.position, b.position)
    np.testing.assert_array_equal(a.normal, b.normal)
    np.testing.assert_array_equal(a.point, b.point)


def _casts(rng: np.random.Generator, w: World, m: int):
    bodies = np.array(w.poses.bodies.tolist()[-25:], dtype=np.int64)
    starts = np.column_stack([rng.uniform(-10, 10, (m, 2)), rng.uniform(0.3, 1.8, m)])
    ends = starts + np.column_stack([rng.uniform(-6, 6, (m, 2)), np.zeros(m)])
    return starts, ends, rng.uniform(-math.pi, math.pi, m), bodies[rng.integers(0, len(bodies), m)]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 40), per_row=st.booleans(), width=st.integers(0, 3))
def test_the_fast_path_equals_the_checked_way(
    arena: World, seed: int, m: int, per_row: bool, width: int
) -> None:
    rng = np.random.default_rng(seed)
    starts, ends, yaws, own = _casts(rng, arena, m)
    half = rng.uniform(0.02, 0.5, (m, 3)) if per_row else np.array([0.02, 0.45, 0.75])
    ignore = None if width == 0 else np.column_stack([own] + [own[::-1]] * (width - 1))
    if width == 1:
        ignore = own
    for mask in (MASK, groups.STATIC, groups.NPC | groups.PLAYER):
        _same(
            arena.box_casts(half, starts, ends, yaws=yaws, mask=mask, ignore=ignore),
            _checked(arena, half, starts, ends, yaws, ignore, mask),
        )


def test_arrays_that_meet_only_the_tables_take_the_fast_path(arena: World, monkeypatch) -> None:
    spy = _Spy(monkeypatch)
    rng = np.random.default_rng(5)
    starts, ends, yaws, own = _casts(rng, arena, 50)
    hits = arena.box_casts(np.array([0.02, 0.45, 0.75]), starts, ends, yaws=yaws, mask=MASK, ignore=own)
    assert spy.calls == 0 and hits.hit.sum() > 10
    arena.box_casts(np.array([0.02, 0.45, 0.75]), starts, ends, yaws=yaws, mask=-1, ignore=own)
    assert spy.calls == 1  # all groups: props may be hit, which no table holds


def test_what_the_fast_path_does_not_take_goes_the_checked_way(arena: World, monkeypatch) -> None:
    spy = _Spy(monkeypatch)
    rng = np.random.default_rng(6)
    starts, ends, yaws, _ = _casts(rng, arena, 12)
    half = np.array([0.05, 0.3, 0.3])
    climbing = ends.copy()
    climbing[3, 2] += 0.5  # one cast not horizontal
    _same(
        arena.box_casts(half, starts, climbing, yaws=yaws, mask=MASK),
        _checked(arena, half, starts, climbing, yaws, None, MASK),
    )
    still = ends.copy()
    still[0] = starts[0]  # one cast that does not move
    _same(
        arena.box_casts(half, starts, still, yaws=yaws, mask=MASK),
        _checked(arena, half, starts, still, yaws, None, MASK),
    )
    wall = np.full(12, sorted(arena._casts.boxes.bodies)[0], dtype=np.int64)  # a tabled wall ignored
    _same(
        arena.box_casts(half, starts, ends, yaws=yaws, mask=MASK, ignore=wall),
        _checked(arena, half, starts, ends, yaws, wall, MASK),
    )
    assert spy.calls == 6  # each of the three, both ways


def test_casts_near_a_ramp_go_the_checked_way(monkeypatch) -> None:
    spy = _Spy(monkeypatch)
    with World(load_scene("compound")) as w:
        rng = np.random.default_rng(3)
        m = 60
        starts = np.column_stack([rng.uniform(-16, -4, m), rng.uniform(-9, 7, m), rng.uniform(0.2, 2.5, m)])
        ends = starts + np.column_stack([rng.uniform(-5, 5, (m, 2)), np.zeros(m)])
        yaws = rng.uniform(-math.pi, math.pi, m)
        half = np.array([0.05, 0.3, 0.3])
        ramp = (set(w.static_bodies) - w._casts.boxes.bodies).pop()
        many = w.box_casts(half, starts, ends, yaws=yaws, mask=groups.STATIC)
        assert spy.calls == 1  # the ramp is no table's: casts near it advance against it
        _same(many, _checked(w, half, starts, ends, yaws, None, groups.STATIC))
        assert (many.body == ramp).sum() > 5
        away = [0.0, 60.0, 0.0]  # the same casts far from the ramp: the fast path again
        w.box_casts(half, starts + away, ends + away, yaws=yaws, mask=groups.STATIC)
        assert spy.calls == 2  # the one above, and `_checked`


@pytest.mark.parametrize(
    "change",
    [
        lambda h, s, e, y: (h, np.where(np.arange(len(s))[:, None] == 2, np.nan, s), e, y),
        lambda h, s, e, y: (h, s, np.where(np.arange(len(e))[:, None] == 1, np.inf, e), y),
        lambda h, s, e, y: (np.array([0.1, -0.2, 0.3]), s, e, y),
        lambda h, s, e, y: (h, s, e, np.where(np.arange(len(y)) == 0, np.nan, y)),
        lambda h, s, e, y: (h, s, e[:-1], y),
        lambda h, s, e, y: (h, s, e, y[:-1]),
    ],
)
def test_bad_arrays_raise_the_checked_ways_typed_error(arena: World, change) -> None:
    rng = np.random.default_rng(9)
    starts, ends, yaws, _ = _casts(rng, arena, 6)
    h, s, e, y = change(np.array([0.05, 0.3, 0.3]), starts, ends, yaws)
    with pytest.raises(WorldError, match="box"):
        arena.box_casts(h, s, e, yaws=y, mask=MASK)
