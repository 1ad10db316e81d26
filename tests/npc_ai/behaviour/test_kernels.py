"""The compiled state rules: a row that needs Python stops before writing anything, and runs the same
afterwards as if the rule had done the work itself."""

from __future__ import annotations

import math

import numpy as np
import pytest

from npc_ai.behaviour import kernels, states
from npc_ai.behaviour.table import CHASE, NONE, PATROL, SEARCH, WANDER
from npc_ai.sim import Simulation, SimulationSettings
from scenes import load_scene


@pytest.fixture
def sim() -> Simulation:
    s = Simulation(load_scene("warehouse"), seed=2, settings=SimulationSettings(npcs=3, player=None))
    s.run(0.1)
    yield s
    s.close()


def _run_rules(sim: Simulation, rows: list[int]) -> tuple[int, int]:
    b = sim.behaviour
    lo, ag = b.locomotion, b.locomotion.agents
    body = (
        lo.positions,
        lo.yaw,
        lo.velocities,
        ag.has_path,
        ag.next_position,
        ag.remaining_distance(),
        ag.radius,
    )
    b.rule_work.next_state[:] = NONE
    b.rule_work.note[:] = 0
    return kernels.decide_rows(
        np.array(rows, dtype=np.int64), sim.time, *body, *b.rule_arrays, *b.rule_work.arrays
    )


def _snapshot(sim: Simulation) -> list[np.ndarray]:
    return [np.array(a, copy=True) for a in sim.behaviour.rule_arrays]


def _wanderer_facing_a_wall(sim: Simulation, i: int) -> None:
    b = sim.behaviour
    b.state[i] = WANDER  # (the scene's NPCs patrol)
    b.wander_next_pick[i] = sim.time + 5.0  # no pick due
    b.wander_heading[i] = b.locomotion.yaw[i]  # not turning
    b.has_probe[i] = True
    b.probe_forward[i] = 0.5 * b.cfg.obstacle_range[i]  # something ahead
    b.probe_left[i], b.probe_right[i] = np.nan, 3.0  # free on the left (not cast), a crate on the right


def test_a_row_that_needs_a_draw_writes_nothing_until_it_has_it(sim: Simulation) -> None:
    b = sim.behaviour
    _wanderer_facing_a_wall(sim, 1)
    before = _snapshot(sim)
    pending, cleared = _run_rules(sim, [1])
    assert (pending, cleared) == (1, 0)
    assert b.rule_work.pending[0] == 1 and b.rule_work.status[1] == kernels.TURN_AWAY
    for was, now in zip(before, b.rule_arrays, strict=True):
        np.testing.assert_array_equal(was, now)  # not a single write
    # the draw, then the same row again: it takes the turn and consumes the probe
    b.turn_heading[1], b.turn_ready[1] = 1.25, True
    assert _run_rules(sim, [1]) == (0, 0)
    assert b.wander_heading[1] == 1.25
    assert not b.has_probe[1] and not b.turn_ready[1]
    cap = (
        b.cfg.walk_speed[1]
        * (b.probe_forward[1] - b.cfg.stop_gap[1])
        / (b.cfg.obstacle_range[1] - b.cfg.stop_gap[1])
    )
    assert b.wander_cap[1] == pytest.approx(max(0.0, cap))
    assert b.locomotion.free[1]
    step = b.cfg.turn_step[1]
    assert abs(b.locomotion.free_heading[1] - b.locomotion.yaw[1]) == pytest.approx(step)  # one turn step


def test_decide_draws_the_turn_from_the_npcs_own_generator(sim: Simulation) -> None:
    """`states.decide` hands the draw back to Python: the turn is the seeded 45-110 degrees toward the
    freer side (left here), drawn from row 1's Generator and nobody else's."""
    b = sim.behaviour
    _wanderer_facing_a_wall(sim, 1)
    yaw = float(b.locomotion.yaw[1])
    expect_rng = np.random.Generator(np.random.PCG64())
    expect_rng.bit_generator.state = b.rngs[1].bit_generator.state
    others = [r.bit_generator.state for k, r in enumerate(b.rngs) if k != 1]
    active = np.zeros(b.n, dtype=bool)
    active[1] = True
    states.decide(b, active)
    s = b.settings[1]
    angle = math.radians(float(expect_rng.uniform(s.turn_min_deg, s.turn_max_deg)))
    assert b.wander_heading[1] == pytest.approx(math.remainder(yaw + angle, 2 * math.pi))
    assert [r.bit_generator.state for k, r in enumerate(b.rngs) if k != 1] == others


def test_a_chaser_plans_once_then_reports_its_arrival(sim: Simulation) -> None:
    b = sim.behaviour
    i = 2
    here = b.positions()[i].copy()
    b.state[i] = CHASE
    b.has_memory[i], b.memory_position[i], b.memory_time[i] = True, here, sim.time
    b.goal_speed[i] = np.nan  # the legs have no goal yet
    pending, _ = _run_rules(sim, [i])
    assert pending == 1 and b.rule_work.status[i] == kernels.PLAN
    np.testing.assert_array_equal(b.rule_work.plan_goal[i], here)
    assert b.rule_work.plan_speed[i] == b.cfg.run_speed[i]
    b.plan(i, b.rule_work.plan_goal[i].copy(), float(b.rule_work.plan_speed[i]))
    assert _run_rules(sim, [i]) == (0, 0)
    np.testing.assert_array_equal(b.pursuit_goal[i], here)
    assert b.rule_work.note[i] == kernels.REACHED  # the goal is where it stands
    assert b.rule_work.next_state[i] != NONE


def _stalled_chaser(sim: Simulation, i: int, goal_offset: float) -> None:
    """Row i chases a goal `goal_offset` metres ahead along +x, planned, with no progress for a while."""
    b = sim.behaviour
    goal = b.positions()[i].copy()
    goal[0] += goal_offset
    b.state[i] = CHASE
    b.pursuit_started[i] = sim.time
    b.has_memory[i], b.memory_position[i], b.memory_time[i] = True, goal, sim.time
    b.plan(i, goal.copy(), float(b.cfg.run_speed[i]))
    assert b.locomotion.agents.has_path[i]
    assert _run_rules(sim, [i]) == (0, 0)
    b.stuck_anchor[i] = b.positions()[i, :2]  # standing here ...
    b.stuck_since[i] = sim.time - b.cfg.stuck_timeout_s[i] - 0.01  # ... for too long


def test_a_stalled_chaser_near_its_goal_has_arrived_as_near_as_the_crowd_lets_it(sim: Simulation) -> None:
    b = sim.behaviour
    _stalled_chaser(sim, 0, 0.5 * b.cfg.crowd_radius[0])
    assert _run_rules(sim, [0]) == (0, 0)
    assert b.rule_work.note[0] == kernels.CROWDED and b.rule_work.next_state[0] == SEARCH


def test_a_stalled_chaser_far_from_its_goal_on_its_path_gives_up_at_once(sim: Simulation) -> None:
    """Its body stands at its agent: blocked where the path goes (a crowd), so the same plan again from
    the same spot would not help: it searches."""
    b = sim.behaviour
    _stalled_chaser(sim, 1, 2.0 * b.cfg.crowd_radius[1])
    assert _run_rules(sim, [1]) == (0, 0)
    assert b.replans[1] == 0
    assert b.rule_work.note[1] == kernels.BLOCKED and b.rule_work.next_state[1] == SEARCH


def test_a_stalled_chaser_knocked_off_its_path_plans_again_once_then_gives_up(sim: Simulation) -> None:
    b = sim.behaviour
    _stalled_chaser(sim, 1, 2.0 * b.cfg.crowd_radius[1])
    agents = b.locomotion.agents
    agents.next_position[1, 1] += 2.0 * agents.radius[1]  # its body was shoved away from its agent
    assert _run_rules(sim, [1]) == (1, 0)
    assert b.rule_work.status[1] == kernels.PLAN and b.replans[1] == 1
    b.plan(1, b.rule_work.plan_goal[1].copy(), float(b.rule_work.plan_speed[1]))
    assert _run_rules(sim, [1]) == (0, 0) and b.rule_work.next_state[1] == NONE  # a fresh start
    assert b.stuck_since[1] == sim.time  # the re-plan restarted the clock
    b.stuck_since[1] = sim.time - b.cfg.stuck_timeout_s[1] - 0.01
    assert _run_rules(sim, [1]) == (0, 0)
    assert b.rule_work.note[1] == kernels.BLOCKED and b.rule_work.next_state[1] == SEARCH


def test_moving_feet_keep_a_chaser_going(sim: Simulation) -> None:
    """Feet more than STUCK_PROGRESS from the anchor move it there and restart the clock: no note."""
    b = sim.behaviour
    _stalled_chaser(sim, 2, 2.0 * b.cfg.crowd_radius[2])
    b.stuck_anchor[2, 0] -= 2 * kernels.STUCK_PROGRESS  # as if the feet had been there before
    assert _run_rules(sim, [2]) == (0, 0)
    assert b.rule_work.note[2] == 0 and b.rule_work.next_state[2] == NONE
    assert b.stuck_since[2] == sim.time
    np.testing.assert_array_equal(b.stuck_anchor[2], b.positions()[2, :2])


def test_entering_a_state_restarts_the_stuck_clock(sim: Simulation) -> None:
    """A guard that stood still in Search does not count that time once it chases."""
    b = sim.behaviour
    b.stuck_since[0] = -100.0
    states.enter(b, 0, CHASE)
    assert b.stuck_since[0] == sim.time


def _pinned_wanderer(sim: Simulation, i: int, stood_s: float) -> None:
    """Row i wanders, means to walk, nothing ahead of its casts, and its feet have stood `stood_s`."""
    b = sim.behaviour
    b.state[i] = WANDER
    b.wander_next_pick[i] = sim.time + 5.0  # no pick due
    b.wander_speed[i] = b.cfg.walk_speed[i]  # walking, not standing
    b.wander_heading[i] = b.locomotion.yaw[i]  # not turning
    b.has_probe[i] = False
    b.stuck_anchor[i] = b.positions()[i, :2]
    b.stuck_since[i] = sim.time - stood_s


def test_a_wanderer_pinned_where_its_casts_see_nothing_turns_away(sim: Simulation) -> None:
    """With the crowd's avoidance on the casts see the level only: a wanderer walking into standing NPCs
    has its feet stay put. Past its `stuck_timeout_s` it asks for the turn-away draw, takes it, and its
    stuck clock starts again."""
    b = sim.behaviour
    _pinned_wanderer(sim, 1, b.cfg.stuck_timeout_s[1] + 0.01)
    assert _run_rules(sim, [1]) == (1, 0)
    assert b.rule_work.status[1] == kernels.TURN_AWAY
    b.turn_heading[1], b.turn_ready[1] = 2.0, True
    assert _run_rules(sim, [1]) == (0, 0)
    assert b.wander_heading[1] == 2.0 and not b.turn_ready[1]
    assert b.stuck_since[1] == sim.time


@pytest.mark.parametrize("case", ["not long enough", "standing", "already turning"])
def test_a_wanderer_that_stood_for_its_own_reasons_does_not_turn(sim: Simulation, case: str) -> None:
    b = sim.behaviour
    timeout = b.cfg.stuck_timeout_s[1]
    _pinned_wanderer(sim, 1, 0.5 * timeout if case == "not long enough" else timeout + 0.01)
    if case == "standing":
        b.wander_speed[1] = 0.0
    if case == "already turning":
        b.wander_heading[1] = b.locomotion.yaw[1] + 1.0
    heading = b.wander_heading[1]
    assert _run_rules(sim, [1]) == (0, 0)
    assert b.wander_heading[1] == heading
    if case == "not long enough":
        assert b.stuck_since[1] == pytest.approx(sim.time - 0.5 * timeout)  # still counting
    else:
        assert b.stuck_since[1] == sim.time  # standing, or turning already: the clock starts again


def test_standing_to_look_restarts_a_patrols_stuck_clock(sim: Simulation) -> None:
    """A suspicious patrol stands and looks for `look_s` (2 s by default, longer than its 1 s stuck
    timeout). The look restarts its stuck clock: afterwards it walks on to the same waypoint, where it
    used to count the look as being stuck and skip that waypoint."""
    b = sim.behaviour
    assert b.state[0] == PATROL
    b.stuck_anchor[0] = b.positions()[0, :2]
    b.stuck_since[0] = sim.time - 10.0 * b.cfg.stuck_timeout_s[0]  # it has stood (looking) that long
    b.look_point[0] = b.positions()[0] + np.array([1.0, 0.0, 0.0])
    b.look_until[0] = sim.time + 1.0
    assert _run_rules(sim, [0]) == (0, 0)
    assert b.stuck_since[0] == sim.time
    b.look_until[0] = sim.time - 1.0  # the look is over
    pending, _ = _run_rules(sim, [0])
    assert pending == 0 or b.rule_work.status[0] != kernels.NEXT_WAYPOINT
