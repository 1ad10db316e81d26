"""The enemy states' per-tick rules, compiled (numba): one loop over the rows of a `BehaviourBatch`.

    wander / patrol --spotted--> aim --lost--> chase --arrived--> search --gave up--> wander / patrol
                                  ^  \\--aimed, reaction time, cooldown--> shoot --> aim
    a noise heard --> investigate --arrived--> search;  an ally's alert --> chase
    suspicion: suspicious --> wander / patrol stand and look;  investigate level --> investigate

`decide_rows` runs the rule of each row's state (one scalar rule per state, below) and writes the row's
intents (free walking: `free`, `free_speed` [m/s], `free_heading` [rad], NaN keeping the facing) and its
timers; the state it should enter goes to `next_state` (NONE: stay) and an event to report to `note`.

A rule needs Python at a few rare points: a seeded draw from the NPC's own Generator (a new wander speed, a
turn away from an obstacle), a path to plan (a new destination, or a re-plan for a pursuer stuck on its
way), the next patrol waypoint. A row that reaches one stops there and is listed in `pending` with its
reason in `status` (and, for a plan, the goal and speed in `plan_goal`, `plan_speed`); what it wrote
before is what a second run writes again (nothing for a draw). Python does the work and runs the row
again: every rule reads the same arrays on its second run and gets past the point (the wander pick is no
longer due, the turn has its draw in `turn_heading`, the goal is planned), so a
row's tick is the same as if the rule had called Python itself.

A row on a path is stuck when its feet have not moved STUCK_PROGRESS for its `stuck_timeout_s` (goals that
move, as alerts update them, do not restart the clock; entering a state does): a patrol goes on to its
next waypoint, a pursuer near its goal (`crowd_radius`, by the distance left on its path) has arrived as
near as the crowd there lets it; a pursuer farther away plans again once if its body was knocked off
its path (more than the agent radius from its agent), and otherwise (or after that) gives up.

Positions are feet [m], world Z-up; yaw 0 faces +X [rad]; times [s]; speeds [m/s]. No fastmath: the
results are bit-identical from run to run. The angle rules are `navigation.angles`' compiled ones (its
cache is tracked by `forget_stale_kernels`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from navigation.angles import turn, wrap
from navigation.kernel_cache import forget_stale_kernels
from npc_ai.behaviour.table import (
    AIM,
    CHASE,
    COVER,
    INVESTIGATE,
    NONE,
    PATROL,
    SEARCH,
    SHOOT,
    WANDER,
)

forget_stale_kernels(__file__, ("navigation.angles", "npc_ai.behaviour.table"))

TURN_DONE = math.radians(5.0)  # a wander turn (or a search look) counts as finished within this
NUDGE = math.radians(20.0)  # veer this far from something the probe's skin brushes
SEARCH_LOOKS = (math.radians(70), math.radians(-70), math.pi)  # relative to the facing on arrival
_LOOKS = len(SEARCH_LOOKS)
A = np.ndarray  # the rules' arrays, one row per NPC
_EPS_T = 1e-9  # [s] timer comparisons allow this much round-off

# why a row needs Python (`status`); 0: done
PICK = 1  # Wander: a new target speed is due (draw it, run again)
TURN_AWAY = 2  # Wander: an obstacle ahead (draw the turn into turn_heading, set turn_ready, run again)
REPLAN_DISTANCE = 0.5
"""[m] A new destination closer than this to the current one keeps the current path (no re-plan). An ally's
sightings update a chaser's goal several times a second by a few centimetres; re-planning each time was
most of the decide phase of a crowd that chases."""
REPLAN_SHARE = 0.2
"""A new destination closer to the current one than this share of the distance to it [0..1] keeps the
path too (a goal 10 m away moves 2 m before a re-plan; the rule runs every tick, so the path is re-planned
as the chaser closes in)."""
PLAN = 3  # a new destination: plan a path to plan_goal at plan_speed, run again
NEXT_WAYPOINT = 4  # Patrol: arrived (or no path): go on to the next waypoint (the row's tick ends there)

# the event a rule reports (`note`); 0: none
REACHED = 1  # Chase / Investigate arrived at its goal
NO_PATH = 2  # ... could not get a path there
TIMEOUT = 3  # ... ran out of time
GAVE_UP = 4  # Search is over
CROWDED = 5  # Chase / Investigate stuck within crowd_radius of its goal: arrived as near as it can
BLOCKED = 6  # ... stuck farther away, again after a re-plan: gives up
SEARCHED = 7  # Search: looked around at one point of its search route (the route goes on)
# [m] the feet must move this far (horizontally) to count as moving (`_stuck`): more than a jostled body sways
STUCK_PROGRESS = 0.3


@njit(cache=True)
def _react(sees: bool, alerted: bool, hearing: bool) -> int:
    """The calm states' interrupt: sight first, then an ally's alert, then a noise."""
    if sees:
        return AIM
    if alerted:
        return CHASE
    if hearing:
        return INVESTIGATE
    return NONE


@njit(cache=True)
def _smooth(sp: float, target: float, gain: float) -> float:
    """The speed parameter one tick closer to `target` [m/s] (snaps within 1 mm/s)."""
    sp = sp + gain * (target - sp)
    return target if abs(sp - target) < 1e-3 else sp


@njit(cache=True)
def _walk(
    i: int, speed: float, heading: float, free: A, free_speed: A, free_heading: A, goal_speed: A
) -> None:
    """Row i walks freely (root motion) at `speed` [m/s] toward `heading` [rad] (NaN: keep the facing)
    and drops its destination."""
    free[i] = True
    free_speed[i] = max(0.0, speed)
    free_heading[i] = heading
    goal_speed[i] = np.nan


@njit(cache=True)
def _needs_plan(
    i: int, goal_x: float, goal_y: float, goal_z: float, speed: float, goal: A, goal_speed: A, positions: A
) -> bool:
    """Whether row i's top speed differs from the one its legs were given, or its destination lies
    `REPLAN_DISTANCE` or `REPLAN_SHARE` of the way to it (whichever is more) from theirs: a chased target
    that moved a little keeps the path, and the closer the chaser, the smaller a move that re-plans."""
    if goal_speed[i] != speed:
        return True
    dx, dy, dz = goal[i, 0] - goal_x, goal[i, 1] - goal_y, goal[i, 2] - goal_z
    far = math.hypot(goal_x - positions[i, 0], goal_y - positions[i, 1])
    tolerance = max(REPLAN_DISTANCE, REPLAN_SHARE * far)
    return not (dx * dx + dy * dy + dz * dz < tolerance * tolerance)


@njit(cache=True)
def _path_left(i: int, positions: A, has_path: A, next_position: A, remaining: A) -> float:
    """The body's remaining path distance [m]: the agent's plus the body-agent gap (inf without a path).
    Below the agent radius the row has arrived (arrival as the seed measures it)."""
    if not has_path[i]:
        return math.inf
    gap = math.hypot(next_position[i, 0] - positions[i, 0], next_position[i, 1] - positions[i, 1])
    return remaining[i] + gap


@njit(cache=True)
def _stuck(i: int, time: float, positions: A, anchor: A, since: A, timeout: A) -> bool:
    """Row i's feet have stayed within STUCK_PROGRESS of where they were `timeout[i]` seconds ago (the
    anchor moves with them, horizontally, whenever they leave that circle)."""
    if math.hypot(positions[i, 0] - anchor[i, 0], positions[i, 1] - anchor[i, 1]) > STUCK_PROGRESS:
        anchor[i, 0], anchor[i, 1] = positions[i, 0], positions[i, 1]
        since[i] = time
        return False
    return time - since[i] > timeout[i]


@njit(cache=True)
def _unstick(i: int, time: float, positions: A, anchor: A, since: A) -> None:
    """Row i starts counting from where it stands (a new state, waypoint or plan after being stuck)."""
    anchor[i, 0], anchor[i, 1] = positions[i, 0], positions[i, 1]
    since[i] = time


@njit(cache=True)
def decide_rows(
    rows: np.ndarray,
    time: float,
    # the body and its agent, as of the last physics step
    positions: np.ndarray,
    yaw: np.ndarray,
    velocities: np.ndarray,
    has_path: np.ndarray,
    next_position: np.ndarray,
    remaining: np.ndarray,
    radius: np.ndarray,
    # the legs' intents (written)
    free: np.ndarray,
    free_speed: np.ndarray,
    free_heading: np.ndarray,
    # the settings (`SettingsArrays`) and the home states
    walk_speed: np.ndarray,
    run_speed: np.ndarray,
    obstacle_range: np.ndarray,
    stop_gap: np.ndarray,
    stop_speed: np.ndarray,
    reaction_time_s: np.ndarray,
    chase_timeout_s: np.ndarray,
    stuck_timeout_s: np.ndarray,
    crowd_radius: np.ndarray,
    memory_expiry_s: np.ndarray,
    turn_step: np.ndarray,
    aim_step: np.ndarray,
    search_step: np.ndarray,
    aim_tolerance: np.ndarray,
    speed_gain: np.ndarray,
    home: np.ndarray,
    # the behaviour state (`BehaviourBatch`)
    state: np.ndarray,
    sees: np.ndarray,
    alerted: np.ndarray,
    hearing: np.ndarray,
    has_target: np.ndarray,
    target_point: np.ndarray,
    seen_since: np.ndarray,
    has_memory: np.ndarray,
    memory_position: np.ndarray,
    memory_time: np.ndarray,
    has_probe: np.ndarray,
    probe_forward: np.ndarray,
    probe_nudge: np.ndarray,
    speed_param: np.ndarray,
    cooldown_until: np.ndarray,
    goal: np.ndarray,
    goal_speed: np.ndarray,
    wander_speed: np.ndarray,
    wander_next_pick: np.ndarray,
    wander_heading: np.ndarray,
    wander_cap: np.ndarray,
    turn_ready: np.ndarray,
    turn_heading: np.ndarray,
    waypoint: np.ndarray,
    route_points: np.ndarray,
    aim_stopped: np.ndarray,
    shot_until: np.ndarray,
    pursuit_started: np.ndarray,
    pursuit_goal: np.ndarray,
    replans: np.ndarray,
    stuck_anchor: np.ndarray,
    stuck_since: np.ndarray,
    search_until: np.ndarray,
    search_looks: np.ndarray,
    search_look: np.ndarray,
    look_until: np.ndarray,
    look_point: np.ndarray,
    curious: np.ndarray,
    search_route: np.ndarray,
    search_count: np.ndarray,
    search_index: np.ndarray,
    search_looking: np.ndarray,
    take_cover: np.ndarray,
    threat: np.ndarray,
    has_cover: np.ndarray,
    cover_point: np.ndarray,
    cover_held: np.ndarray,
    cover_until: np.ndarray,
    cover_s: np.ndarray,
    # out
    next_state: np.ndarray,
    note: np.ndarray,
    status: np.ndarray,
    plan_goal: np.ndarray,
    plan_speed: np.ndarray,
    pending: np.ndarray,
    cleared: np.ndarray,
) -> tuple[int, int]:
    """Run the state rule of each of `rows` at `time` [s] (forgetting memories older than the expiry
    first). Returns (rows listed in `pending` that need Python, rows listed in `cleared` whose heard
    noise was dropped)."""
    n_pending = 0
    n_cleared = 0
    for i in rows:
        if time - memory_time[i] > memory_expiry_s[i]:
            has_memory[i] = False
        code = state[i]
        s = 0
        if take_cover[i] and code != COVER:  # under fire: take cover first
            next_state[i] = COVER
        elif code == COVER:
            s = _cover(
                i, time, positions, yaw[i], has_path, next_position, remaining, radius, run_speed, aim_step,
                speed_gain, home, sees, has_memory, goal, goal_speed, speed_param, threat, has_cover,
                cover_point, cover_held, cover_until, cover_s, plan_goal, plan_speed, next_state, free,
                free_speed, free_heading,
            )  # fmt: skip
        elif code in (WANDER, PATROL, SEARCH):
            react = _react(sees[i], alerted[i], hearing[i] or curious[i])
            if react != NONE:
                next_state[i] = react
            elif code != SEARCH and time < look_until[i] - _EPS_T:  # suspicious: stand and look
                _unstick(i, time, positions, stuck_anchor, stuck_since)  # standing is not being stuck
                want = _heading_to(positions, i, look_point)
                _walk(i, 0.0, turn(yaw[i], want, aim_step[i]), free, free_speed, free_heading, goal_speed)
            elif code == WANDER:
                s = _wander(
                    i, time, yaw[i], walk_speed, obstacle_range, stop_gap, turn_step, speed_gain,
                    has_probe, probe_forward, probe_nudge, speed_param, wander_speed, wander_next_pick,
                    wander_heading, wander_cap, turn_ready, turn_heading,
                    free, free_speed, free_heading, goal_speed,
                    positions, stuck_anchor, stuck_since, stuck_timeout_s,
                )  # fmt: skip
            elif code == PATROL:
                g = route_points[i, waypoint[i]]
                speed = walk_speed[i]
                if _needs_plan(i, g[0], g[1], g[2], speed, goal, goal_speed, positions):
                    s = PLAN
                    plan_goal[i] = g
                    plan_speed[i] = speed
                else:
                    left = _path_left(i, positions, has_path, next_position, remaining)
                    if left < radius[i] or not has_path[i]:  # arrived, or no path there
                        s = NEXT_WAYPOINT
                    elif _stuck(i, time, positions, stuck_anchor, stuck_since, stuck_timeout_s):
                        s = NEXT_WAYPOINT  # blocked on the way: the next waypoint
                        _unstick(i, time, positions, stuck_anchor, stuck_since)
            elif search_count[i] > 0 and time < search_until[i] - _EPS_T and not search_looking[i]:
                s = _walk_search(
                    i, time, positions, yaw[i], has_path, next_position, remaining, radius, walk_speed,
                    stuck_timeout_s, goal, goal_speed, search_route, search_count, search_index,
                    search_looking, search_looks, search_look, stuck_anchor, stuck_since, plan_goal,
                    plan_speed, next_state, note, home,
                )  # fmt: skip
            else:
                _search(
                    i, time, yaw[i], search_step, speed_gain, home, speed_param, search_until,
                    search_looks, search_look, next_state, note, free, free_speed, free_heading, goal_speed,
                    search_count, search_index, search_looking,
                )  # fmt: skip
        elif code == AIM:
            _aim(
                i, time, positions, yaw[i], velocities, stop_speed, reaction_time_s, aim_step,
                aim_tolerance, speed_gain, sees, has_target, target_point, seen_since, speed_param,
                cooldown_until, aim_stopped, next_state, free, free_speed, free_heading, goal_speed,
            )  # fmt: skip
        elif code == SHOOT:
            if time < shot_until[i] - _EPS_T:
                if sees[i] and has_target[i]:
                    want = _heading_to(positions, i, target_point)
                    _walk(i, 0.0, turn(yaw[i], want, aim_step[i]), free, free_speed, free_heading, goal_speed)
                else:
                    _walk(i, 0.0, np.nan, free, free_speed, free_heading, goal_speed)
            else:
                next_state[i] = AIM if sees[i] else CHASE
        elif code in (CHASE, INVESTIGATE):
            if code == INVESTIGATE and alerted[i] and not sees[i]:
                next_state[i] = CHASE
            elif sees[i]:
                next_state[i] = AIM
            else:
                speed = run_speed[i] if code == CHASE else walk_speed[i]
                gx, gy, gz = pursuit_goal[i, 0], pursuit_goal[i, 1], pursuit_goal[i, 2]
                if has_memory[i]:  # newer news (an alert, a noise) moves the goal
                    gx, gy, gz = memory_position[i, 0], memory_position[i, 1], memory_position[i, 2]
                if _needs_plan(i, gx, gy, gz, speed, goal, goal_speed, positions):
                    s = PLAN
                    plan_goal[i, 0], plan_goal[i, 1], plan_goal[i, 2] = gx, gy, gz
                    plan_speed[i] = speed
                else:
                    pursuit_goal[i, 0], pursuit_goal[i, 1], pursuit_goal[i, 2] = gx, gy, gz
                    alerted[i] = False
                    curious[i] = False
                    if hearing[i]:
                        hearing[i] = False
                        cleared[n_cleared] = i
                        n_cleared += 1
                    left = _path_left(i, positions, has_path, next_position, remaining)
                    if not has_path[i]:
                        note[i] = NO_PATH
                    elif left < radius[i]:
                        note[i] = REACHED
                    elif time - pursuit_started[i] > chase_timeout_s[i]:
                        note[i] = TIMEOUT
                    elif _stuck(i, time, positions, stuck_anchor, stuck_since, stuck_timeout_s):
                        if left <= crowd_radius[i]:
                            note[i] = CROWDED  # others stand at the goal
                        elif replans[i] == 0 and (
                            math.hypot(
                                next_position[i, 0] - positions[i, 0], next_position[i, 1] - positions[i, 1]
                            )
                            > radius[i]
                        ):  # knocked off its path (the body away from its agent): plan again from here, once
                            replans[i] = 1
                            _unstick(i, time, positions, stuck_anchor, stuck_since)
                            s = PLAN
                            plan_goal[i, 0], plan_goal[i, 1], plan_goal[i, 2] = gx, gy, gz
                            plan_speed[i] = speed
                        else:
                            note[i] = BLOCKED
                    if note[i] != 0:
                        next_state[i] = SEARCH
        status[i] = s
        if s != 0:
            pending[n_pending] = i
            n_pending += 1
    return n_pending, n_cleared


@njit(cache=True)
def _heading_to(positions: A, i: int, points: A) -> float:
    """The heading [rad] from row i's feet toward `points[i]`."""
    return math.atan2(points[i, 1] - positions[i, 1], points[i, 0] - positions[i, 0])


@njit(cache=True)
def _wander(
    i: int, time: float, yaw: float, walk_speed: A, obstacle_range: A, stop_gap: A, turn_step: A,
    speed_gain: A, has_probe: A, probe_forward: A, probe_nudge: A, speed_param: A, wander_speed: A,
    wander_next_pick: A, wander_heading: A, wander_cap: A, turn_ready: A, turn_heading: A, free: A,
    free_speed: A, free_heading: A, goal_speed: A, positions: A, stuck_anchor: A, stuck_since: A,
    stuck_timeout_s: A,
) -> int:  # fmt: skip
    """The seed's wander: a target speed of 0 or walk every 5-10 s, smoothed; box-cast obstacle
    avoidance on a timer (turn away 45-110 degrees toward the freer side, or turn around); smooth
    turns. Returns PICK or TURN_AWAY (nothing written) when it needs a draw, else 0.

    A wanderer walking that has not moved for its `stuck_timeout_s` (`_stuck`) turns away too: with the
    crowd's avoidance on, the box casts see the level only, and one that walked into NPCs standing
    together (guards round an alert's point, others pinned in a corner) pressed into them until they left
    (`npc-ai bench soak` warehouse with avoidance, seeds 7 and 21: 0.98 % of NPC-time stuck, wanderers
    0.5 % of it)."""
    if time >= wander_next_pick[i]:
        return PICK
    heading = wander_heading[i]
    cap = wander_cap[i]
    probed = has_probe[i]
    turned = False
    if probed:  # consume the probe
        forward, reach, gap = probe_forward[i], obstacle_range[i], stop_gap[i]
        cap = walk_speed[i] * min(1.0, max(0.0, (forward - gap) / (reach - gap)))
        turning = abs(wrap(heading - yaw)) > TURN_DONE
        if forward < reach and not turning:
            if not turn_ready[i]:
                return TURN_AWAY
            heading = turn_heading[i]
            turned = True
        elif not turning and probe_nudge[i] != 0:  # brushing past something: veer away from it
            heading = wrap(yaw + probe_nudge[i] * NUDGE)
    if wander_speed[i] <= 0.0:  # standing is not being stuck
        _unstick(i, time, positions, stuck_anchor, stuck_since)
    elif not turned and _stuck(i, time, positions, stuck_anchor, stuck_since, stuck_timeout_s):
        if abs(wrap(heading - yaw)) <= TURN_DONE:  # not already turning
            if not turn_ready[i]:
                return TURN_AWAY
            heading = turn_heading[i]
        _unstick(i, time, positions, stuck_anchor, stuck_since)
    sp = _smooth(speed_param[i], wander_speed[i], speed_gain[i])
    # not probed, not meaning to move, legs at rest: no speed limit
    if not probed and wander_speed[i] <= 0.0 and sp <= 0.05:
        cap = math.inf
    speed_param[i] = sp
    has_probe[i] = False
    turn_ready[i] = False
    wander_heading[i] = heading
    wander_cap[i] = cap
    _walk(i, min(sp, cap), turn(yaw, heading, turn_step[i]), free, free_speed, free_heading, goal_speed)
    return 0


@njit(cache=True)
def _aim(
    i: int, time: float, positions: A, yaw: float, velocities: A, stop_speed: A, reaction_time_s: A,
    aim_step: A, aim_tolerance: A, speed_gain: A, sees: A, has_target: A, target_point: A, seen_since: A,
    speed_param: A, cooldown_until: A, aim_stopped: A, next_state: A, free: A, free_speed: A, free_heading: A,
    goal_speed: A,
) -> None:  # fmt: skip
    """Decelerate to a stop, then turn to face the player smoothly; shoot when aimed, when line of sight
    has held for the reaction time and the cooldown allows; chase when the player is lost."""
    if not sees[i]:
        next_state[i] = CHASE
        return
    sp = _smooth(speed_param[i], 0.0, speed_gain[i])
    speed_param[i] = sp
    if not aim_stopped[i]:
        body = math.hypot(velocities[i, 0], velocities[i, 1])
        aim_stopped[i] = body < stop_speed[i] and sp < stop_speed[i]
        _walk(i, sp, np.nan, free, free_speed, free_heading, goal_speed)
        return
    if not has_target[i]:  # seen, but not yet where: keep still
        _walk(i, 0.0, np.nan, free, free_speed, free_heading, goal_speed)
        return
    want = _heading_to(positions, i, target_point)
    _walk(i, 0.0, turn(yaw, want, aim_step[i]), free, free_speed, free_heading, goal_speed)
    aimed = abs(wrap(want - yaw)) <= aim_tolerance[i]
    since = seen_since[i]
    held = not math.isnan(since) and time - since >= reaction_time_s[i] - _EPS_T
    if aimed and held and time >= cooldown_until[i] - _EPS_T:
        next_state[i] = SHOOT


@njit(cache=True)
def _search(
    i: int, time: float, yaw: float, search_step: A, speed_gain: A, home: A, speed_param: A, search_until: A,
    search_looks: A, search_look: A, next_state: A, note: A, free: A, free_speed: A, free_heading: A,
    goal_speed: A, search_count: A, search_index: A, search_looking: A,
) -> None:  # fmt: skip
    """Look around (left, right, behind) for a while, then give up: at the last known position (the seed's
    search), or at the current point of a search route, where the last look moves on to the next point."""
    if time >= search_until[i] - _EPS_T:
        note[i] = GAVE_UP
        next_state[i] = home[i]
        return
    k = search_look[i]
    want = search_looks[i, k]
    if abs(wrap(want - yaw)) < TURN_DONE:
        if search_looking[i] and k + 1 == _LOOKS:  # this point is searched: on to the next
            search_looking[i] = False
            search_index[i] += 1
            note[i] = SEARCHED
            if search_index[i] >= search_count[i]:
                note[i] = GAVE_UP  # the whole route is searched
                next_state[i] = home[i]
                return
        search_look[i] = (k + 1) % _LOOKS
    sp = _smooth(speed_param[i], 0.0, speed_gain[i])
    speed_param[i] = sp
    _walk(i, sp, turn(yaw, want, search_step[i]), free, free_speed, free_heading, goal_speed)


@njit(cache=True)
def _walk_search(
    i: int, time: float, positions: A, yaw: float, has_path: A, next_position: A, remaining: A, radius: A,
    walk_speed: A, stuck_timeout_s: A, goal: A, goal_speed: A, route: A, count: A, index: A, looking: A,
    looks: A, look: A, anchor: A, since: A, plan_goal: A, plan_speed: A, next_state: A, note: A, home: A,
) -> int:  # fmt: skip
    """A search route's walk: to its current point at walking speed; on arrival look around there (the
    looks relative to the facing on arrival, as at the last known position). A point with no path, or one
    the row is stuck on the way to, is skipped. Returns PLAN when the walk needs a path (else 0)."""
    while index[i] < count[i]:
        g = route[i, index[i]]
        speed = walk_speed[i]
        if _needs_plan(i, g[0], g[1], g[2], speed, goal, goal_speed, positions):
            plan_goal[i, 0], plan_goal[i, 1], plan_goal[i, 2] = g[0], g[1], g[2]
            plan_speed[i] = speed
            _unstick(i, time, positions, anchor, since)
            return PLAN
        left = _path_left(i, positions, has_path, next_position, remaining)
        if left < radius[i]:  # arrived: look around here
            looking[i] = True
            for k in range(_LOOKS):
                looks[i, k] = wrap(yaw + SEARCH_LOOKS[k])
            look[i] = 0
            return 0
        if has_path[i] and not _stuck(i, time, positions, anchor, since, stuck_timeout_s):
            return 0  # on the way
        index[i] += 1  # no way there (no path, or stuck): the next point
    note[i] = GAVE_UP
    next_state[i] = home[i]
    return 0


@njit(cache=True)
def _cover(
    i: int, time: float, positions: A, yaw: float, has_path: A, next_position: A, remaining: A, radius: A,
    run_speed: A, aim_step: A, speed_gain: A, home: A, sees: A, has_memory: A, goal: A, goal_speed: A,
    speed_param: A, threat: A, has_cover: A, cover_point: A, cover_held: A, cover_until: A, cover_s: A,
    plan_goal: A, plan_speed: A, next_state: A, free: A, free_speed: A, free_heading: A,
) -> int:  # fmt: skip
    """Cover: run to the cover point, hold it facing the shooter until `cover_until`, then fight on (Aim
    when it sees the player, else Chase its memory, else home); without a point, fight on at once. Returns
    PLAN when the run needs a path (else 0)."""
    if has_cover[i] and not cover_held[i]:
        g = cover_point[i]
        if _needs_plan(i, g[0], g[1], g[2], run_speed[i], goal, goal_speed, positions):
            plan_goal[i, 0], plan_goal[i, 1], plan_goal[i, 2] = g[0], g[1], g[2]
            plan_speed[i] = run_speed[i]
            return PLAN
        if has_path[i] and _path_left(i, positions, has_path, next_position, remaining) >= radius[i]:
            return 0  # on the way
        cover_held[i] = True  # there (or no way on): hold here
        cover_until[i] = time + cover_s[i]
    if has_cover[i] and time < cover_until[i] - _EPS_T:
        want = math.atan2(threat[i, 1] - positions[i, 1], threat[i, 0] - positions[i, 0])
        sp = _smooth(speed_param[i], 0.0, speed_gain[i])
        speed_param[i] = sp
        _walk(i, sp, turn(yaw, want, aim_step[i]), free, free_speed, free_heading, goal_speed)
        return 0
    next_state[i] = AIM if sees[i] else (CHASE if has_memory[i] else home[i])
    return 0
