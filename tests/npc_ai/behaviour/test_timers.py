"""The sight timers (`npc_ai.behaviour.timers`): every NPC looks exactly once per period; a small crowd in
a few large batches, a large one in one batch a tick; in the simulation, one ray batch per sight tick."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npc_ai.behaviour.timers import CYCLE_LIMIT, SightTimers
from npc_ai.sim.player import PlayerSettings
from npc_ai.sim.simulation import Simulation, SimulationError, SimulationSettings
from scenes import load_scene


def _looks(timers: SightTimers, ticks: int) -> dict[int, list[int]]:
    """NPC -> the ticks it looked on, over `ticks` ticks."""
    out: dict[int, list[int]] = {i: [] for i in range(len(timers.periods))}
    for t in range(ticks):
        rows = timers.due(t)
        assert rows.tolist() == sorted(set(rows.tolist()))  # increasing, each NPC once
        for i in rows.tolist():
            out[i].append(t)
    return out


@settings(max_examples=80, deadline=None)
@given(
    periods=st.lists(st.integers(1, 12), min_size=0, max_size=60),
    batch=st.integers(1, 40),
    start=st.integers(0, 10_000),
)
def test_every_npc_looks_once_per_period(periods: list[int], batch: int, start: int) -> None:
    timers = SightTimers(np.array(periods, dtype=np.int64), batch)
    span = 2 * max(periods, default=1) * 5
    looks = _looks(timers, start + span)
    for i, p in enumerate(periods):
        seen = [t for t in looks[i] if t >= start]
        assert np.diff(seen).tolist() == [p] * (len(seen) - 1)  # exactly one period apart
        assert seen[0] - start < p  # and the first within one period of any tick


@pytest.mark.parametrize(
    ("n", "groups"), [(1, 1), (10, 1), (16, 1), (17, 2), (40, 3), (95, 6), (96, 6), (500, 6)]
)
def test_a_small_crowd_looks_in_few_large_batches(n: int, groups: int) -> None:
    timers = SightTimers(np.full(n, 6, dtype=np.int64), 16)
    assert timers.groups == groups
    sizes = [len(timers.due(t)) for t in range(6)]
    assert sum(1 for k in sizes if k) == groups  # ticks with a batch, per period
    assert max(sizes) - min(k for k in sizes if k) <= 1  # the groups even


def test_a_large_crowd_keeps_one_phase_per_npc() -> None:
    """From 16 x 6 NPCs on (and with batch 1), NPC i looks when (tick + i) % period == 0."""
    for n, batch in ((120, 16), (12, 1)):
        timers = SightTimers(np.full(n, 6, dtype=np.int64), batch)
        for t in range(12):
            assert timers.due(t).tolist() == [i for i in range(n) if (t + i) % 6 == 0]


def test_long_cycles_are_computed_per_tick() -> None:
    periods = np.array([599, 601, 7], dtype=np.int64)  # lcm far over CYCLE_LIMIT: no list up front
    timers = SightTimers(periods, 1)
    assert timers._cycle is None and CYCLE_LIMIT < 599 * 601
    looks = _looks(timers, 2000)
    for i, p in enumerate(periods.tolist()):
        assert np.diff(looks[i]).tolist() == [p] * (len(looks[i]) - 1) and looks[i][0] < p


def test_the_simulation_makes_one_ray_batch_per_sight_tick() -> None:
    settings = SimulationSettings(npcs=10, player=PlayerSettings(mode="still"))
    with Simulation(load_scene("arena"), seed=3, settings=settings) as sim:
        calls: list[int] = []
        see = sim.perception.see

        def counting(eyes, *a, **kw):
            calls.append(len(eyes))
            return see(eyes, *a, **kw)

        sim.perception.see = counting  # type: ignore[method-assign]
        sim.run(1.0)
        assert calls == [10] * 10  # all 10 together, once every 6 ticks


@pytest.mark.parametrize("bad", [0, -3, 1.5, True, "16", None])
def test_timer_batch_is_checked(bad: object) -> None:
    with pytest.raises(SimulationError, match="timer_batch"):
        SimulationSettings(timer_batch=bad)  # type: ignore[arg-type]
