"""The enemy state machine's decide phase, for every NPC at once over the arrays of a `BehaviourBatch`.

    wander / patrol --spotted--> aim --lost--> chase --arrived--> search --gave up--> wander / patrol
                                  ^  \\--aimed, reaction time, cooldown--> shoot --> aim
    a noise heard --> investigate --arrived--> search;  an ally's alert --> chase

`decide` runs each row's state rule in one compiled loop (`npc_ai.behaviour.kernels`: the rules, their
intents, their timers). The rare work a rule hands back runs here in Python, per row: the seeded draws of
each NPC's Generator, a path to plan, the next patrol waypoint. Then the transitions that fired are
checked against the table (`npc_ai.behaviour.table.ALLOWED`) and entered row by row, in row order:
entering a state is per-NPC Python (`ENTER`), and it is recorded as an event named after the state (with
`from`). `arrived` and `gave-up` are recorded just before their row's transition; `spotted`, `lost`,
`heard`, `alerted` as they happen (perceive phase).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from navigation.angles import wrap_angle
from npc_ai.behaviour import kernels
from npc_ai.behaviour.batch import SOURCES, BehaviourBatch, xyz
from npc_ai.behaviour.cover import find_cover
from npc_ai.behaviour.table import (
    NONE,
    SEARCH,
    STATE_NAMES,
    check_transitions,
)


def decide(b: BehaviourBatch, active: np.ndarray | None = None) -> None:
    """One decide phase for the `active` rows (an (n,) bool mask; None: all): forget stale memories,
    run each row's state rule (compiled, `npc_ai.behaviour.kernels`), do the rare work the rules hand
    back (seeded draws, plans, the next patrol waypoint), enter the states that fired (row order), count
    state time."""
    t = b.env.time
    rows = b.rows if active is None else active.nonzero()[0]
    work = b.rule_work
    work.next_state[:] = NONE
    work.note[:] = 0
    positions = b.positions()
    lo = b.locomotion
    ag = lo.agents
    remaining = ag.remaining_distance()
    body = (positions, lo.yaw, lo.velocities, ag.has_path, ag.next_position, remaining, ag.radius)
    while rows.size:
        pending, cleared = kernels.decide_rows(rows, t, *body, *b.rule_arrays, *work.arrays)
        for i in work.cleared[:cleared].tolist():
            b.heard[i] = None
        rows = _hand_back(b, work.pending[:pending].tolist(), t, remaining)
    fired = (work.next_state != NONE).nonzero()[0]
    noted = work.note.nonzero()[0]
    if fired.size or noted.size:
        _transitions(b, fired, noted, t)
    if active is None:
        b.state_time[b.rows, b.state] += b.dt
    else:
        live = active.nonzero()[0]
        b.state_time[live, b.state[live]] += b.dt


def _hand_back(b: BehaviourBatch, pending: list[int], t: float, remaining: np.ndarray) -> np.ndarray:
    """Do the Python work the rules asked for (per row, rare); return the rows to run again."""
    work, again = b.rule_work, []
    for i in pending:
        status = int(work.status[i])
        if status == kernels.PICK:
            b.pick_wander_speed(i, t)
        elif status == kernels.TURN_AWAY:
            b.turn_heading[i] = b.turn_away(i, float(b.locomotion.yaw[i]))
            b.turn_ready[i] = True
        elif status == kernels.PLAN:
            b.plan(i, work.plan_goal[i].copy(), float(work.plan_speed[i]))
        else:  # NEXT_WAYPOINT: the row's tick ends with the next waypoint's plan
            w = int((b.waypoint[i] + 1) % len(b.routes[i]))
            b.waypoint[i] = w
            b.go_to(np.array([i]), b.routes[i][w][None], b.cfg.walk_speed[[i]])
            continue
        again.append(i)
    if not again:
        return _NO_ROWS
    rows = np.array(again, dtype=np.int64)
    remaining[rows] = b.locomotion.agents.remaining_distance(rows)  # plans moved the paths' ends
    return rows


_NO_ROWS = np.zeros(0, dtype=np.int64)
_REASONS = {
    kernels.NO_PATH: "no path",
    kernels.TIMEOUT: "timeout",
    kernels.CROWDED: "crowded",
    kernels.BLOCKED: "blocked",
}  # why a pursuit ended short of its goal (the `arrived` event's `reason`)


def _transitions(b: BehaviourBatch, fired: np.ndarray, noted: np.ndarray, t: float) -> None:
    """Record the rules' notes and enter the states that fired, row by row in row order."""
    work = b.rule_work
    check_transitions(b.state[fired], work.next_state[fired])
    for i in np.union1d(fired, noted).tolist():
        note = int(work.note[i])
        if note == kernels.SEARCHED:
            k = int(b.search_index[i]) - 1
            b.record(i, "searched", point=xyz(b.search_route[i, k]), left=int(b.search_count[i]) - k - 1)
        elif note == kernels.GAVE_UP:
            age = b.memory_age(i, t)
            b.record(i, "gave-up", memory_age=None if age is None else round(age, 3))
        elif note != 0:
            target = xyz(b.pursuit_goal[i])
            if note == kernels.REACHED:
                b.record(i, "arrived", target=target, reached=True)
            else:
                b.record(i, "arrived", target=target, reached=False, reason=_REASONS[note])
        if work.next_state[i] != NONE:
            enter(b, i, int(work.next_state[i]))


def start(b: BehaviourBatch) -> None:
    """Enter every row's home state (Wander, or Patrol with a route)."""
    for i in range(b.n):
        enter(b, i, int(b.home[i]), first=True)


def enter(b: BehaviourBatch, i: int, code: int, *, first: bool = False) -> None:
    """Row i leaves its state for `code` (already checked against the table) and records the event."""
    old = STATE_NAMES[int(b.state[i])]
    if b.state[i] == SEARCH and not first:
        b.search_board.leave(b, i)
    b.state[i] = code
    b.stuck_anchor[i] = b.locomotion.views[i].position[:2]  # stuck counts from here
    b.stuck_since[i] = b.env.time
    details = ENTER[code](b, i)
    b.transitions += 1
    data: dict[str, Any] = {} if first else {"from": old}
    data.update(details)
    b.record(i, STATE_NAMES[code], **data)


# -- entering a state (per row) -----------------------------------------------------------------------
def _enter_wander(b: BehaviourBatch, i: int) -> dict[str, Any]:
    t = b.env.time
    b.goal_speed[i] = np.nan
    b.wander_heading[i] = b.locomotion.yaw[i]
    b.wander_cap[i] = math.inf
    b.has_probe[i] = False
    b.probe_due[i] = t
    b.pick_wander_speed(i, t)
    return {"speed": float(b.wander_speed[i])}


def _enter_patrol(b: BehaviourBatch, i: int) -> dict[str, Any]:
    b.goal_speed[i] = np.nan
    route = b.routes[i]
    if b.waypoint[i] < 0:  # the route's nearest waypoint first
        here = b.locomotion.views[i].position
        d = [float(np.linalg.norm(w[:2] - here[:2])) for w in route]
        b.waypoint[i] = int(np.argmin(d))
    w = int(b.waypoint[i])
    return {"waypoint": w, "target": xyz(route[w])}


def _enter_aim(b: BehaviourBatch, i: int) -> dict[str, Any]:
    b.goal_speed[i] = np.nan
    b.alerted[i] = False
    b.curious[i] = False
    b.clear_heard(i)
    stop = b.cfg.stop_speed[i]
    b.aim_stopped[i] = bool(b.body_speeds(np.array([i]))[0] < stop and b.speed_param[i] < stop)
    target = b.target_feet[i] if b.has_target[i] else b.locomotion.views[i].position
    return {"target": xyz(target)}


def _enter_shoot(b: BehaviourBatch, i: int) -> dict[str, Any]:
    t = b.env.time
    b.cooldown_until[i] = t + b.cfg.shoot_cooldown_s[i]
    b.shot_until[i] = t + b.cfg.shot_duration_s[i]
    result = b.env.hitscan(b.views[i])
    b.shots[i] += 1
    b.hits[i] += int(bool(result.get("hit")))
    return result


def _enter_pursuit(b: BehaviourBatch, i: int, speed: float) -> dict[str, Any]:
    b.goal_speed[i] = np.nan
    b.alerted[i] = False
    b.curious[i] = False
    b.clear_heard(i)
    b.pursuit_started[i] = b.env.time
    b.replans[i] = 0
    known = bool(b.has_memory[i])
    goal = b.memory_position[i].copy() if known else b.locomotion.views[i].position
    b.pursuit_goal[i] = goal
    b.plan(i, goal, speed)
    return {"target": xyz(goal), "source": SOURCES[int(b.memory_source[i])] if known else "none"}


def _enter_chase(b: BehaviourBatch, i: int) -> dict[str, Any]:
    return _enter_pursuit(b, i, float(b.cfg.run_speed[i]))


def _enter_investigate(b: BehaviourBatch, i: int) -> dict[str, Any]:
    return _enter_pursuit(b, i, float(b.cfg.walk_speed[i]))


def _enter_cover(b: BehaviourBatch, i: int) -> dict[str, Any]:
    b.take_cover[i] = False
    b.goal_speed[i] = np.nan
    b.clear_heard(i)
    b.curious[i] = False
    b.alerted[i] = False
    point = find_cover(b, i, b.threat[i])
    b.has_cover[i] = point is not None
    b.cover_held[i] = False
    if point is None:
        return {"point": None, "shooter": xyz(b.threat[i])}
    b.cover_point[i] = point
    b.plan(i, point, float(b.cfg.run_speed[i]))
    return {"point": xyz(point), "shooter": xyz(b.threat[i])}


def _enter_search(b: BehaviourBatch, i: int) -> dict[str, Any]:
    b.goal_speed[i] = np.nan
    b.search_until[i] = b.env.time + b.cfg.search_duration_s[i]
    base = float(b.locomotion.yaw[i])
    b.search_looks[i] = [wrap_angle(base + a) for a in kernels.SEARCH_LOOKS]
    b.search_look[i] = 0
    b.search_count[i] = 0
    b.search_looking[i] = False
    out: dict[str, Any] = {"duration": b.settings[i].search_duration_s}
    if b.settings[i].search_points > 0:  # a route of points around the last known position
        centre = b.memory_position[i] if b.has_memory[i] else b.positions()[i]
        plan = b.search_board.start(b, i, np.array(centre, dtype=np.float64))
        out.update(
            points=int(b.search_count[i]), expected_coverage=round(plan.expected, 3), shared=len(plan.routes)
        )
    return out


ENTER: tuple[Callable[[BehaviourBatch, int], dict[str, Any]], ...] = (
    _enter_wander, _enter_patrol, _enter_aim, _enter_shoot, _enter_chase, _enter_search, _enter_investigate,
    _enter_cover,
)  # fmt: skip  # by state code
