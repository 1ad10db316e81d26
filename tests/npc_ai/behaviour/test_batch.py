"""The batched state machine: every NPC's rows are independent (a tick over all rows equals ticks over any
split of them), and the per-NPC view reads and writes the batch's arrays."""

from __future__ import annotations

import numpy as np
import pytest

from npc_ai.behaviour import BehaviourError, Memory, states
from npc_ai.sim import Simulation, SimulationSettings
from scenes import load_scene


def _run(split: int | None, seconds: float = 8.0) -> Simulation:
    sim = Simulation(load_scene("warehouse"), seed=4, settings=SimulationSettings(npcs=24))
    if split is not None:
        decide = states.decide
        groups = np.arange(sim.behaviour.n) % split

        def in_parts(batch, active=None):
            for g in range(split):  # the same rows, decided in `split` separate calls
                decide(batch, groups == g)

        original = sim._decide

        def split_decide() -> None:
            saved = states.decide
            states.decide = in_parts
            try:
                original()
            finally:
                states.decide = saved

        sim._decide = split_decide  # type: ignore[method-assign]
    sim.run(seconds)
    return sim


def _by_npc(sim: Simulation) -> dict[str, list[tuple[float, str]]]:
    out: dict[str, list[tuple[float, str]]] = {}
    for e in sim.events:
        out.setdefault(e.data.get("npc", ""), []).append((round(e.t, 6), e.event))
    return out


@pytest.mark.parametrize("split", [2, pytest.param(3, marks=pytest.mark.slow)])
def test_rows_are_independent(split: int) -> None:
    """Deciding the NPCs in separate groups gives every NPC the same events, states and positions as
    deciding them all at once (a mask or an index that mixed rows up would break this)."""
    whole, parts = _run(None), _run(split)
    try:
        states_seen = {n.state for n in whole.npcs} | {e.event for e in whole.events}
        assert {"chase", "aim", "wander"} <= states_seen  # the run exercises several states
        assert _by_npc(whole) == _by_npc(parts)
        assert np.array_equal(whole.behaviour.state, parts.behaviour.state)
        assert np.array_equal(whole.behaviour.positions(), parts.behaviour.positions())
        assert np.array_equal(whole.behaviour.state_time, parts.behaviour.state_time)
    finally:
        whole.close()
        parts.close()


def test_the_view_reads_and_writes_the_arrays() -> None:
    with Simulation(load_scene("arena"), seed=1, settings=SimulationSettings(npcs=3)) as sim:
        b, npc = sim.behaviour, sim.npcs[1]
        npc.memory = Memory(np.array([1.0, 2.0, 0.0]), 0.5, "alert")
        assert b.has_memory[1] and b.memory_position[1].tolist() == [1.0, 2.0, 0.0]
        memory = npc.memory
        assert memory is not None and memory.source == "alert" and memory.time == 0.5
        assert memory.position.tolist() == [1.0, 2.0, 0.0]
        npc.memory = None
        assert not b.has_memory[1] and npc.memory is None
        with pytest.raises(BehaviourError, match="memory must be None or a Memory"):
            npc.memory = Memory(np.zeros(3), 0.0, "telepathy")
        npc.shots += 2
        npc.cooldown_until = 7.5
        assert b.shots[1] == 2 and b.cooldown_until[1] == 7.5
        npc.walk(1.0, 0.25)
        lo = sim.locomotion
        assert lo.free[1] and lo.free_speed[1] == 1.0 and lo.free_heading[1] == 0.25
        assert np.isnan(b.goal_speed[1])  # walking drops the goal
        before = sim.npcs[0].state_time
        sim.run(0.5)
        after = sim.npcs[0].state_time
        assert sum(after.values()) == pytest.approx(sum(before.values()) + 0.5, abs=1e-9)


def test_a_wanderer_boxed_in_again_where_it_turned_around_does_not_turn_exactly_around() -> None:
    """Both sides blocked: turn around. Boxed in again on the same spot (the way back is blocked too), an
    exact turn around would send it back to the heading it just left, and so on for as long as it wanders
    (a wanderer between a shelf and a standing NPC in the warehouse soak): it errs up to
    `BOXED_SPREAD_DEG` either side instead, seeded. Once it has moved `BOXED_MOVE` away, turning around is
    exact again."""
    from npc_ai.behaviour.batch import BOXED_MOVE, BOXED_SPREAD_DEG
    from npc_ai.behaviour.kernels import wrap

    def turns(seed: int) -> list[float]:
        with Simulation(
            load_scene("warehouse"), seed=seed, settings=SimulationSettings(npcs=2, player=None)
        ) as sim:
            b = sim.behaviour
            blocked = 0.5 * b.cfg.obstacle_range[0]
            b.probe_left[0] = b.probe_right[0] = blocked
            out = [b.turn_away(0, 0.3), b.turn_away(0, 0.3 + np.pi), b.turn_away(0, 1.0)]
            b.turned_around_at[0] = b.positions()[0, :2] + (BOXED_MOVE + 0.01, 0.0)  # it walked off since
            out.append(b.turn_away(0, 1.0))
            return out

    first, second, third, moved = turns(1)
    assert first == pytest.approx(wrap(0.3 + np.pi))  # the first time: exactly around
    for got, yaw in ((second, 0.3 + np.pi), (third, 1.0)):
        off = abs(wrap(got - (yaw + np.pi)))
        assert 0.0 < off <= np.radians(BOXED_SPREAD_DEG)
    assert second != pytest.approx(0.3)  # not back to the heading it left
    assert moved == pytest.approx(wrap(1.0 + np.pi))
    assert turns(1) == [first, second, third, moved]  # seeded
    assert turns(2)[1] != second
