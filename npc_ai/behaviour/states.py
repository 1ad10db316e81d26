"""The enemy states, run for every NPC at once over the arrays of a `BehaviourBatch`.

    wander / patrol --spotted--> aim --lost--> chase --arrived--> search --gave up--> wander / patrol
                                  ^  \\--aimed, reaction time, cooldown--> shoot --> aim
    a noise heard --> investigate --arrived--> search;  an ally's alert --> chase

`decide` is one decide phase: each state's rule takes the rows in that state (a mask over the state codes),
computes their next state codes and their intents (a speed and heading, or a destination) in numpy, and
writes the intents to the legs. Then the transitions that fired are checked against the table
(`npc_ai.behaviour.table.ALLOWED`) and entered row by row, in row order: entering a state is the rare
event where per-NPC Python runs (`ENTER`), and it is recorded as an event named after the state (with
`from`). `spotted`, `lost`, `arrived`, `gave-up`, `heard`, `alerted` are recorded as they happen.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from navigation.angles import turn_toward, wrap_angle
from npc_ai.behaviour.batch import SOURCES, BehaviourBatch, xyz
from npc_ai.behaviour.table import (
    AIM,
    CHASE,
    INVESTIGATE,
    NONE,
    SEARCH,
    SHOOT,
    STATE_NAMES,
    check_transitions,
)

TURN_DONE = math.radians(5.0)  # a wander turn (or a search look) counts as finished within this
NUDGE = math.radians(20.0)  # veer this far from something the probe's skin brushes
SEARCH_LOOKS = (math.radians(70), math.radians(-70), math.pi)  # relative to the facing on arrival

Notes = list[tuple[int, str, dict[str, Any]]]  # events a rule records before its row's transition


class Tick:
    """What every rule of one decide phase reads: the time [s], the feet positions (n, 3) [m] and
    facings (n,) [rad] as of the last physics step, the interrupt of the calm states per row, and the
    next-state codes and notes the rules fill in."""

    def __init__(self, b: BehaviourBatch, time: float) -> None:
        self.time = time
        self.positions = b.positions()
        self.yaw = b.locomotion.yaw
        # sight first, then an ally's alert, then a noise (the calm states' interrupt)
        self.react = np.where(b.sees, AIM, np.where(b.alerted, CHASE, np.where(b.hearing, INVESTIGATE, NONE)))
        self.next = np.full(b.n, NONE, dtype=np.int64)
        self.notes: Notes = []

    def interrupt(self, rows: np.ndarray) -> np.ndarray:
        """Hand the `rows` the calm states' interrupt applies to over; return the others."""
        r = self.react[rows]
        go = r != NONE
        self.next[rows[go]] = r[go]
        return rows[~go]


def _wander(b: BehaviourBatch, rows: np.ndarray, k: Tick) -> None:
    """The seed's wander: a target speed of 0 or walk every 5-10 s, smoothed; box-cast obstacle
    avoidance on a timer (turn away 45-110 degrees toward the freer side, or turn around); smooth turns."""
    rows = k.interrupt(rows)
    if not rows.size:
        return
    t, yaw, c = k.time, k.yaw, b.cfg
    for i in rows[t >= b.wander_next_pick[rows]].tolist():
        b.pick_wander_speed(i, t)
    speed = b.smooth_speed(rows, b.wander_speed[rows])
    probed = b.has_probe[rows]
    if probed.any():  # consume the probes
        p = rows[probed]
        b.has_probe[p] = False
        forward, reach, gap = b.probe_forward[p], c.obstacle_range[p], c.stop_gap[p]
        b.wander_cap[p] = c.walk_speed[p] * np.minimum(1.0, np.maximum(0.0, (forward - gap) / (reach - gap)))
        turning = np.abs(wrap_angle(b.wander_heading[p] - yaw[p])) > TURN_DONE
        away = (forward < reach) & ~turning
        for i in p[away].tolist():
            b.wander_heading[i] = b.turn_away(i, float(yaw[i]))
        nudge = b.probe_nudge[p]
        veer = ~away & ~turning & (nudge != 0)  # brushing past something: veer away from it
        b.wander_heading[p[veer]] = wrap_angle(yaw[p[veer]] + nudge[veer] * NUDGE)
    # not probed, not meaning to move, legs at rest: no speed limit
    still = ~probed & (b.wander_speed[rows] <= 0.0) & (b.speed_param[rows] <= 0.05)
    b.wander_cap[rows[still]] = math.inf
    heading = turn_toward(yaw[rows], b.wander_heading[rows], c.turn_step[rows])
    b.walk(rows, np.minimum(speed, b.wander_cap[rows]), heading)


def _patrol(b: BehaviourBatch, rows: np.ndarray, k: Tick) -> None:
    """Walk the spawn's patrol route, waypoint after waypoint, looping."""
    rows = k.interrupt(rows)
    if not rows.size:
        return
    ok = b.go_to(rows, b.route_points[rows, b.waypoint[rows]], b.cfg.walk_speed[rows])
    done = ~ok | b.arrived(rows, k.positions)
    for i in rows[done].tolist():
        b.waypoint[i] = (b.waypoint[i] + 1) % len(b.routes[i])
        b.go_to(np.array([i]), b.routes[i][b.waypoint[i]][None], b.cfg.walk_speed[[i]])


def _aim(b: BehaviourBatch, rows: np.ndarray, k: Tick) -> None:
    """Decelerate to a stop, then turn to face the player smoothly; shoot when aimed, when line of sight
    has held for the reaction time and the cooldown allows; chase when the player is lost."""
    lost = ~b.sees[rows]
    k.next[rows[lost]] = CHASE
    rows = rows[~lost]
    if not rows.size:
        return
    c, t = b.cfg, k.time
    speed = b.smooth_speed(rows, 0.0)
    stopped = b.aim_stopped[rows]
    moving = rows[~stopped]
    if moving.size:
        slow = speed[~stopped] < c.stop_speed[moving]
        b.aim_stopped[moving] = (b.body_speeds(moving) < c.stop_speed[moving]) & slow
        b.walk(moving, speed[~stopped], np.nan)
    still = rows[stopped]
    b.walk(still[~b.has_target[still]], 0.0, np.nan)  # seen, but not yet where: keep still
    r = still[b.has_target[still]]
    if not r.size:
        return
    want = b.heading_to(r, b.target_point[r], k.positions)
    yaw = k.yaw[r]
    b.walk(r, 0.0, turn_toward(yaw, want, c.aim_step[r]))
    aimed = np.abs(wrap_angle(want - yaw)) <= c.aim_tolerance[r]
    since = b.seen_since[r]
    held = ~np.isnan(since) & (t - since >= c.reaction_time_s[r] - 1e-9)
    k.next[r[aimed & held & (t >= b.cooldown_until[r] - 1e-9)]] = SHOOT


def _shoot(b: BehaviourBatch, rows: np.ndarray, k: Tick) -> None:
    """Hold briefly after the shot (turning with the player while it is seen), then aim again, or chase
    when the player is gone."""
    holding = k.time < b.shot_until[rows] - 1e-9
    done = rows[~holding]
    k.next[done] = np.where(b.sees[done], AIM, CHASE)
    h = rows[holding]
    watch = b.sees[h] & b.has_target[h]
    r = h[watch]
    if r.size:
        want = b.heading_to(r, b.target_point[r], k.positions)
        b.walk(r, 0.0, turn_toward(k.yaw[r], want, b.cfg.aim_step[r]))
    b.walk(h[~watch], 0.0, np.nan)


def _pursue(b: BehaviourBatch, rows: np.ndarray, k: Tick, speeds: np.ndarray) -> None:
    """Chase and Investigate: go to the last known position at `speeds` [m/s] (newer news moves the
    goal); search on arrival, when no path exists, or after the chase timeout."""
    seen = b.sees[rows]
    k.next[rows[seen]] = AIM
    rows, speeds = rows[~seen], speeds[~seen]
    if not rows.size:
        return
    t = k.time
    goal, mem = b.pursuit_goal[rows], b.memory_position[rows]
    newer = b.has_memory[rows] & (mem != goal).any(axis=1)
    b.pursuit_goal[rows[newer]] = mem[newer]  # an alert, a noise
    b.alerted[rows] = False
    b.clear_heard(rows)
    ok = b.go_to(rows, b.pursuit_goal[rows], speeds)
    arrived = b.arrived(rows, k.positions)
    late = t - b.pursuit_started[rows] > b.cfg.chase_timeout_s[rows]
    end = ~ok | arrived | late
    for j in end.nonzero()[0].tolist():
        i = int(rows[j])
        target = xyz(b.pursuit_goal[i])
        if not ok[j]:
            k.notes.append((i, "arrived", {"target": target, "reached": False, "reason": "no path"}))
        elif arrived[j]:
            k.notes.append((i, "arrived", {"target": target, "reached": True}))
        else:
            k.notes.append((i, "arrived", {"target": target, "reached": False, "reason": "timeout"}))
    k.next[rows[end]] = SEARCH


def _chase(b: BehaviourBatch, rows: np.ndarray, k: Tick) -> None:
    """Run (root motion, agent follows animation) to the last known position; search on arrival."""
    _pursue(b, rows, k, b.cfg.run_speed[rows])


def _investigate(b: BehaviourBatch, rows: np.ndarray, k: Tick) -> None:
    """Walk to a noise that was heard; search there on arrival; chase on an ally's alert."""
    alert = b.alerted[rows] & ~b.sees[rows]
    k.next[rows[alert]] = CHASE
    rows = rows[~alert]
    _pursue(b, rows, k, b.cfg.walk_speed[rows])


def _search(b: BehaviourBatch, rows: np.ndarray, k: Tick) -> None:
    """Look around at the last known position (left, right, behind) for a while, then give up."""
    rows = k.interrupt(rows)
    if not rows.size:
        return
    t = k.time
    over = t >= b.search_until[rows] - 1e-9
    for i in rows[over].tolist():
        age = b.memory_age(i, t)
        k.notes.append((i, "gave-up", {"memory_age": None if age is None else round(age, 3)}))
    k.next[rows[over]] = b.home[rows[over]]
    r = rows[~over]
    want = b.search_looks[r, b.search_look[r]]
    yaw = k.yaw[r]
    done = np.abs(wrap_angle(want - yaw)) < TURN_DONE
    b.search_look[r[done]] = (b.search_look[r[done]] + 1) % len(SEARCH_LOOKS)
    b.walk(r, b.smooth_speed(r, 0.0), turn_toward(yaw, want, b.cfg.search_step[r]))


RULES: tuple[Callable[[BehaviourBatch, np.ndarray, Tick], None], ...] = (
    _wander, _patrol, _aim, _shoot, _chase, _search, _investigate,
)  # fmt: skip  # by state code


def decide(b: BehaviourBatch, active: np.ndarray | None = None) -> None:
    """One decide phase for the `active` rows (an (n,) bool mask; None: all): forget stale memories,
    run each state's rule over its rows, enter the states that fired (row order), count state time."""
    t = b.env.time
    if active is None:  # the memories of controlled NPCs are their controllers' business
        b.has_memory &= t - b.memory_time <= b.cfg.memory_expiry_s
        codes = b.state
    else:
        b.has_memory &= (t - b.memory_time <= b.cfg.memory_expiry_s) | ~active
        codes = np.where(active, b.state, NONE)
    k = Tick(b, t)
    for code in np.bincount(codes + 1, minlength=len(RULES) + 1)[1:].nonzero()[0].tolist():
        RULES[code](b, (codes == code).nonzero()[0], k)
    fired = (k.next != NONE).nonzero()[0]
    if fired.size or k.notes:
        check_transitions(b.state[fired], k.next[fired])
        notes: dict[int, list[tuple[str, dict[str, Any]]]] = {}
        for i, event, data in k.notes:
            notes.setdefault(i, []).append((event, data))
        for i in sorted(set(fired.tolist()) | set(notes)):
            for event, data in notes.get(i, ()):
                b.record(i, event, **data)
            if k.next[i] != NONE:
                enter(b, i, int(k.next[i]))
    if active is None:
        b.state_time[b.rows, b.state] += b.dt
    else:
        rows = active.nonzero()[0]
        b.state_time[rows, b.state[rows]] += b.dt


def start(b: BehaviourBatch) -> None:
    """Enter every row's home state (Wander, or Patrol with a route)."""
    for i in range(b.n):
        enter(b, i, int(b.home[i]), first=True)


def enter(b: BehaviourBatch, i: int, code: int, *, first: bool = False) -> None:
    """Row i leaves its state for `code` (already checked against the table) and records the event."""
    old = STATE_NAMES[int(b.state[i])]
    b.state[i] = code
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
    b.clear_heard(i)
    b.pursuit_started[i] = b.env.time
    known = bool(b.has_memory[i])
    goal = b.memory_position[i].copy() if known else b.locomotion.views[i].position
    b.pursuit_goal[i] = goal
    b.plan(i, goal, speed)
    return {"target": xyz(goal), "source": SOURCES[int(b.memory_source[i])] if known else "none"}


def _enter_chase(b: BehaviourBatch, i: int) -> dict[str, Any]:
    return _enter_pursuit(b, i, float(b.cfg.run_speed[i]))


def _enter_investigate(b: BehaviourBatch, i: int) -> dict[str, Any]:
    return _enter_pursuit(b, i, float(b.cfg.walk_speed[i]))


def _enter_search(b: BehaviourBatch, i: int) -> dict[str, Any]:
    b.goal_speed[i] = np.nan
    b.search_until[i] = b.env.time + b.cfg.search_duration_s[i]
    base = float(b.locomotion.yaw[i])
    b.search_looks[i] = [wrap_angle(base + a) for a in SEARCH_LOOKS]
    b.search_look[i] = 0
    return {"duration": b.settings[i].search_duration_s}


ENTER: tuple[Callable[[BehaviourBatch, int], dict[str, Any]], ...] = (
    _enter_wander, _enter_patrol, _enter_aim, _enter_shoot, _enter_chase, _enter_search, _enter_investigate,
)  # fmt: skip  # by state code
