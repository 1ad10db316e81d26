"""Every enemy's behaviour state in arrays, one row per NPC: the state codes and timers of the state
machine, the percepts and memory, the motor intents, the counters.

`BehaviourBatch` is the data and its small per-row services; `npc_ai.behaviour.states.decide` is the tick
that runs the state machine over it (a mask per state, table-checked transitions). Per-row Python runs
only for rare events: a state entered, a sighting gained or lost, a noise or an alert, a new destination,
a wander speed pick or a turn away (the draws from each NPC's own Generator). `npc_ai.behaviour.brain.Npc`
is the thin per-NPC view the API and the tests use.

Conventions: world Z-up, metres, seconds, radians unless a name ends in `_deg`; yaw 0 faces +X. A NaN in
a float array stands for "none" (no goal, not seen, no side cast).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from navigation.angles import wrap_angle
from npc_ai.behaviour import search, suspicion
from npc_ai.behaviour.probes import ObstacleProbe
from npc_ai.behaviour.settings import BehaviourSettings
from npc_ai.behaviour.table import COVER, PATROL, STATE_NAMES, WANDER, BehaviourError
from npc_ai.body.batch import LocomotionBatch

if TYPE_CHECKING:
    from npc_ai.behaviour.brain import Noise, Npc

SOURCES = ("sight", "hearing", "alert", "suspicion")  # where a memory came from, by code
SIGHT, HEARING, ALERT, SUSPICION = range(4)
BOXED_MOVE = 0.25  # [m] a wanderer boxed in this near where it last turned around has not got out
BOXED_SPREAD_DEG = 90.0  # [deg] its turn around then errs up to this far either side (seeded)


class NpcEnv(Protocol):
    """What the simulation offers the NPCs' states."""

    @property
    def time(self) -> float: ...

    @property
    def dt(self) -> float: ...

    def record(self, npc: Npc, event: str, data: dict[str, Any]) -> None: ...

    def hitscan(self, npc: Npc) -> dict[str, Any]: ...

    def broadcast_alert(self, npc: Npc, position: np.ndarray) -> None: ...


def xyz(p: np.ndarray) -> list[float]:
    """A point as an event field: 3 floats rounded to 0.1 mm."""
    return [round(v, 4) for v in np.asarray(p, dtype=np.float64).tolist()]


class SettingsArrays:
    """The per-NPC settings the tick reads, one (n,) array each (rates converted to radians per tick).

    Attributes are named after the `BehaviourSettings` fields; `*_step` are turn rates times the tick
    [rad per tick], `aim_tolerance` is in radians, `speed_gain` is the fraction of the gap to the target
    speed closed per tick (1 when `speed_smoothing_s` is 0).
    """

    FLOATS = (
        "walk_speed", "run_speed", "obstacle_range", "stop_gap", "probe_interval_s", "stop_speed",
        "reaction_time_s", "shoot_cooldown_s", "shot_duration_s", "search_duration_s", "chase_timeout_s",
        "stuck_timeout_s", "crowd_radius",
        "memory_expiry_s", "hearing_range", "alert_radius", "alert_cooldown_s", "eye_height",
        "sight_radius", "lose_sight_radius", "cos_half_angle", "probe_skin", "probe_range",
        "cos_lose_half_angle", "perception_period_s", "lose_after_s", "detection_time_s",
        "suspicion_decay_s", "suspicious_level", "investigate_level", "range_factor", "peripheral_factor",
        "still_factor", "crouch_factor", "look_s", "occluded_hearing_factor", "cover_s", "under_fire_radius",
    )  # fmt: skip
    DERIVED = (
        "turn_step",
        "aim_step",
        "search_step",
        "aim_tolerance",
        "speed_gain",
        "half_angle",
        "central_angle",
    )

    def __init__(self, n: int) -> None:
        for name in self.FLOATS + self.DERIVED:
            setattr(self, name, np.zeros(n))

    def load(self, i: int, s: BehaviourSettings, dt: float) -> None:
        """Row i takes the settings `s` (tick `dt` [s])."""
        for name in self.FLOATS:
            getattr(self, name)[i] = getattr(s, name)
        self.turn_step[i] = math.radians(s.turn_rate_deg) * dt
        self.aim_step[i] = math.radians(s.aim_turn_rate_deg) * dt
        self.search_step[i] = math.radians(s.search_turn_rate_deg) * dt
        self.aim_tolerance[i] = math.radians(s.aim_tolerance_deg)
        self.half_angle[i] = math.radians(s.half_angle_deg)
        self.central_angle[i] = math.radians(s.central_angle_deg)
        tau = s.speed_smoothing_s
        self.speed_gain[i] = 1.0 if tau <= 0 else min(1.0, dt / tau)

    # the attributes, for type checkers
    walk_speed: np.ndarray
    run_speed: np.ndarray
    obstacle_range: np.ndarray
    stop_gap: np.ndarray
    probe_interval_s: np.ndarray
    stop_speed: np.ndarray
    reaction_time_s: np.ndarray
    shoot_cooldown_s: np.ndarray
    shot_duration_s: np.ndarray
    search_duration_s: np.ndarray
    chase_timeout_s: np.ndarray
    stuck_timeout_s: np.ndarray
    crowd_radius: np.ndarray
    memory_expiry_s: np.ndarray
    hearing_range: np.ndarray
    alert_radius: np.ndarray
    alert_cooldown_s: np.ndarray
    eye_height: np.ndarray
    sight_radius: np.ndarray
    lose_sight_radius: np.ndarray
    cos_half_angle: np.ndarray
    probe_skin: np.ndarray
    probe_range: np.ndarray
    cos_lose_half_angle: np.ndarray
    perception_period_s: np.ndarray
    lose_after_s: np.ndarray
    detection_time_s: np.ndarray
    suspicion_decay_s: np.ndarray
    suspicious_level: np.ndarray
    investigate_level: np.ndarray
    range_factor: np.ndarray
    peripheral_factor: np.ndarray
    still_factor: np.ndarray
    crouch_factor: np.ndarray
    look_s: np.ndarray
    occluded_hearing_factor: np.ndarray
    cover_s: np.ndarray
    under_fire_radius: np.ndarray
    half_angle: np.ndarray
    central_angle: np.ndarray
    turn_step: np.ndarray
    aim_step: np.ndarray
    search_step: np.ndarray
    aim_tolerance: np.ndarray
    speed_gain: np.ndarray


class RuleWork:
    """What one decide phase's compiled rules hand back, one row per NPC (`npc_ai.behaviour.kernels`):
    the state each row enters (NONE: stays), the event it reports, why it needs Python and, for a plan,
    the goal [m] and top speed [m/s]; `pending` and `cleared` list rows (their counts are returned)."""

    def __init__(self, n: int) -> None:
        self.next_state = np.full(n, -1, dtype=np.int64)
        self.note = np.zeros(n, dtype=np.int64)
        self.status = np.zeros(n, dtype=np.int64)
        self.plan_goal = np.zeros((n, 3))
        self.plan_speed = np.zeros(n)
        self.pending = np.zeros(n, dtype=np.int64)
        self.cleared = np.zeros(n, dtype=np.int64)
        self.arrays = (
            self.next_state, self.note, self.status, self.plan_goal, self.plan_speed, self.pending,
            self.cleared,
        )  # fmt: skip


class BehaviourBatch:
    """The behaviour state of n NPCs on the legs of a `LocomotionBatch` (row i drives row i).

    Args:
        locomotion: the NPCs' legs. settings: each NPC's archetype settings. names: unique NPC names
            (events carry them). routes: each NPC's patrol waypoints (feet positions [m]; empty to
            wander). rngs: each NPC's own Generator. env: the simulation's services.
    """

    def __init__(
        self,
        locomotion: LocomotionBatch,
        settings: Sequence[BehaviourSettings],
        names: Sequence[str],
        routes: Sequence[Sequence[Sequence[float]]],
        rngs: Sequence[np.random.Generator],
        env: NpcEnv,
    ) -> None:
        n = len(settings)
        self.n, self.locomotion, self.env = n, locomotion, env
        self.dt = float(env.dt)  # the env's tick is fixed: read it once
        self.names, self.rngs = list(names), list(rngs)
        self._name_set = frozenset(self.names)  # a noise whose source is one of them is an ally's
        self.settings: list[BehaviourSettings] = list(settings)
        self.routes = [tuple(np.asarray(p, dtype=np.float64) for p in r) for r in routes]
        longest = max((len(r) for r in self.routes), default=0)
        self.route_points = np.zeros((n, max(1, longest), 3))  # the routes, padded [m]
        for i, r in enumerate(self.routes):
            self.route_points[i, : len(r)] = np.asarray(r).reshape(-1, 3)
        self.rows = np.arange(n)
        self.cfg = SettingsArrays(n)
        for i, s in enumerate(self.settings):
            self.cfg.load(i, s, self.dt)
        patrols = [s.patrol and len(r) >= 1 for s, r in zip(self.settings, self.routes, strict=True)]
        self.home = np.where(patrols, PATROL, WANDER).astype(np.int64)
        self.state = self.home.copy()  # state codes (npc_ai.behaviour.table)
        self.state_time = np.zeros((n, len(STATE_NAMES)))  # seconds spent in each state
        # percepts
        self.sees = np.zeros(n, dtype=bool)
        self.has_target = np.zeros(n, dtype=bool)  # the player was seen at least once
        self.target_point = np.zeros((n, 3))  # the player's aim point when last seen [m]
        self.target_feet = np.zeros((n, 3))  # the player's feet when last seen [m]
        self.seen_since = np.full(n, np.nan)  # when the current sighting began [s]
        self.has_memory = np.zeros(n, dtype=bool)
        self.memory_position = np.zeros((n, 3))  # the last known position of the player [m]
        self.memory_time = np.zeros(n)  # when it was sensed [s]
        self.memory_source = np.zeros(n, dtype=np.int64)  # SIGHT, HEARING, ALERT or SUSPICION
        self.last_look = np.full(n, -np.inf)  # the last perception tick [s]
        self.last_seen = np.full(n, -np.inf)  # when the player was last in sight [s]
        self.suspicion = np.zeros(n)  # the suspicion meter [0..1] (`npc_ai.behaviour.suspicion`)
        self.level = np.zeros(n, dtype=np.int64)  # its level code (suspicion.LEVELS)
        self.look_until = np.full(n, -np.inf)  # a suspicious NPC stands and looks until [s]
        self.look_point = np.zeros((n, 3))  # toward where it glimpsed the player [m]
        self.curious = np.zeros(n, dtype=bool)  # the meter asks for an investigation not yet begun
        # Search's route of points to look around at (`npc_ai.behaviour.search`; count 0: the seed's
        # look-around at the last known position)
        self.search_route = np.zeros((n, search.MAX_POINTS, 3))  # [m]
        self.search_count = np.zeros(n, dtype=np.int64)
        self.search_index = np.zeros(n, dtype=np.int64)  # the point it walks to or looks around at
        self.search_looking = np.zeros(n, dtype=bool)  # looking around at that point
        self.search_board = search.SearchBoard()
        # Cover (`npc_ai.behaviour.cover`)
        self.take_cover = np.zeros(n, dtype=bool)  # under fire: Cover is due
        self.threat = np.zeros((n, 3))  # the eye of whoever fired at it last [m]
        self.has_cover = np.zeros(n, dtype=bool)  # Cover found a point that hides it
        self.cover_point = np.zeros((n, 3))  # [m]
        self.cover_held = np.zeros(n, dtype=bool)  # it reached the point
        self.cover_until = np.zeros(n)  # it holds the point until [s]
        self.heard: list[Noise | None] = [None] * n  # a noise not yet investigated
        self.hearing = np.zeros(n, dtype=bool)  # heard[i] is not None
        self.alerted = np.zeros(n, dtype=bool)  # an ally's alert not yet acted on
        self.has_probe = np.zeros(n, dtype=bool)  # an obstacle probe not yet consumed
        self.probe_time = np.zeros(n)  # [s]
        self.probe_forward = np.zeros(n)  # free gaps [m] (inf: nothing in range)
        self.probe_left = np.full(n, np.nan)  # NaN: not cast
        self.probe_right = np.full(n, np.nan)
        self.probe_nudge = np.zeros(n, dtype=np.int64)
        self.probe_due = np.zeros(n)  # [s]
        # motor state
        self.speed_param = np.zeros(n)  # the speed each NPC asks of its legs, smoothed [m/s]
        self.cooldown_until = np.full(n, -np.inf)  # [s]
        self.last_alert = np.full(n, -np.inf)  # when each NPC last alerted its allies [s]
        self.goal = np.zeros((n, 3))  # the destination last given to the legs [m]
        self.goal_speed = np.full(n, np.nan)  # its top speed [m/s]; NaN: no goal
        # the states' own timers and targets
        self.wander_speed = np.zeros(n)  # Wander's target speed [m/s]
        self.wander_next_pick = np.zeros(n)  # when Wander picks a new target speed [s]
        self.wander_heading = np.zeros(n)  # where Wander turns to [rad]
        self.wander_cap = np.full(n, np.inf)  # the speed limit the last probe set [m/s]
        self.turn_ready = np.zeros(n, dtype=bool)  # a turn away is drawn, not yet taken
        self.turn_heading = np.zeros(n)  # that turn's heading [rad]
        self.turned_around_at = np.full((n, 2), np.nan)  # feet where Wander last turned around, boxed in [m]
        self.waypoint = np.full(n, -1, dtype=np.int64)  # Patrol's current waypoint (-1: none yet)
        self.aim_stopped = np.zeros(n, dtype=bool)  # Aim: stopped, now turning to the target
        self.shot_until = np.zeros(n)  # Shoot holds until [s]
        self.pursuit_started = np.zeros(n)  # Chase / Investigate began [s]
        self.pursuit_goal = np.zeros((n, 3))  # where Chase / Investigate goes [m]
        self.replans = np.zeros(n, dtype=np.int64)  # this pursuit's re-plans for being stuck
        self.stuck_anchor = np.zeros((n, 2))  # where the feet last moved STUCK_PROGRESS from [m]
        self.stuck_since = np.zeros(n)  # when [s]
        self.search_until = np.zeros(n)  # [s]
        self.search_looks = np.zeros((n, 3))  # the headings Search looks along [rad]
        self.search_look = np.zeros(n, dtype=np.int64)
        # counters
        self.shots = np.zeros(n, dtype=np.int64)
        self.hits = np.zeros(n, dtype=np.int64)
        self.spotted = np.zeros(n, dtype=np.int64)
        self.transitions = 0
        self.views: list[Npc] = []  # set by the simulation (events are recorded against them)
        self.rule_work = RuleWork(n)
        c, lo = self.cfg, locomotion
        # the arrays the compiled rules read and write, in `kernels.decide_rows`' order (never rebound)
        self.rule_arrays = (
            lo.free, lo.free_speed, lo.free_heading,
            c.walk_speed, c.run_speed, c.obstacle_range, c.stop_gap, c.stop_speed, c.reaction_time_s,
            c.chase_timeout_s, c.stuck_timeout_s, c.crowd_radius, c.memory_expiry_s, c.turn_step,
            c.aim_step, c.search_step,
            c.aim_tolerance, c.speed_gain, self.home,
            self.state, self.sees, self.alerted, self.hearing, self.has_target, self.target_point,
            self.seen_since, self.has_memory, self.memory_position, self.memory_time, self.has_probe,
            self.probe_forward, self.probe_nudge, self.speed_param, self.cooldown_until, self.goal,
            self.goal_speed, self.wander_speed, self.wander_next_pick, self.wander_heading,
            self.wander_cap, self.turn_ready, self.turn_heading, self.waypoint, self.route_points,
            self.aim_stopped, self.shot_until, self.pursuit_started, self.pursuit_goal, self.replans,
            self.stuck_anchor, self.stuck_since,
            self.search_until, self.search_looks, self.search_look, self.look_until, self.look_point,
            self.curious, self.search_route, self.search_count, self.search_index, self.search_looking,
            self.take_cover, self.threat, self.has_cover, self.cover_point, self.cover_held, self.cover_until,
            c.cover_s,
        )  # fmt: skip

    # -- settings -------------------------------------------------------------------------------------
    def set_settings(self, i: int, settings: BehaviourSettings) -> None:
        """Row i's archetype settings change (the research envs tweak the scripted guards)."""
        if not isinstance(settings, BehaviourSettings):
            raise BehaviourError(f"settings must be BehaviourSettings, got {type(settings).__name__}")
        self.settings[i] = settings
        self.cfg.load(i, settings, self.dt)

    # -- body ------------------------------------------------------------------------------------------
    def positions(self) -> np.ndarray:
        """(n, 3) feet positions [m] as of the last physics step."""
        return self.locomotion.positions

    def body_speeds(self, rows: np.ndarray) -> np.ndarray:
        """(m,) horizontal body speeds of `rows` [m/s]."""
        v = self.locomotion.velocities[rows]
        return np.hypot(v[:, 0], v[:, 1])

    def arrived(self, rows: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """(m,) bool: the body's remaining path distance (agent's plus the body-agent gap) is below the
        agent radius, for NPCs with a path (arrival as the seed measures it)."""
        ag = self.locomotion.agents
        out = ag.has_path[rows].copy()
        r = rows[out]
        if r.size:
            gap = ag.next_position[r, :2] - positions[r, :2]
            remaining = ag.remaining_distance(r) + np.hypot(gap[:, 0], gap[:, 1])
            out[out] = remaining < ag.radius[r]
        return out

    # -- intents ---------------------------------------------------------------------------------------
    def walk(self, rows: np.ndarray, speeds: np.ndarray | float, headings: np.ndarray | float) -> None:
        """Free (root-motion) locomotion of `rows` at `speeds` [m/s] toward `headings` [rad] (NaN keeps
        the facing); drops their goals."""
        lo = self.locomotion
        lo.free[rows] = True
        lo.free_speed[rows] = np.maximum(0.0, speeds)
        lo.free_heading[rows] = headings
        self.goal_speed[rows] = np.nan

    def go_to(self, rows: np.ndarray, goals: np.ndarray, speeds: np.ndarray) -> np.ndarray:
        """Follow navmesh paths to `goals` (m, 3) at top speeds `speeds` (m,) [m/s]; re-plans only the
        rows whose goal or speed changed. Returns (m,) bool: has a path (False: start off the mesh)."""
        same = (self.goal_speed[rows] == speeds) & (self.goal[rows] == goals).all(axis=1)
        for k in (~same).nonzero()[0].tolist():
            self.plan(int(rows[k]), goals[k], float(speeds[k]))
        return self.locomotion.agents.has_path[rows]

    def plan(self, i: int, goal: np.ndarray, speed: float) -> None:
        """Row i heads for `goal` [m] at top speed `speed` [m/s] (a new path is planned)."""
        self.goal[i] = goal
        self.goal_speed[i] = speed
        self.speed_param[i] = speed
        self.locomotion.set_destination(i, np.array(goal, dtype=np.float64), speed=speed)

    def smooth_speed(self, rows: np.ndarray, target: np.ndarray | float) -> np.ndarray:
        """Move the speed parameter of `rows` toward `target` [m/s] with each archetype's time constant;
        return the new values."""
        sp = self.speed_param[rows]
        sp = sp + self.cfg.speed_gain[rows] * (target - sp)
        sp = np.where(np.abs(sp - target) < 1e-3, target, sp)
        self.speed_param[rows] = sp
        return sp

    def heading_to(self, rows: np.ndarray, points: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """(m,) headings [rad] from the `rows`' feet toward `points` (m, 3)."""
        p = positions[rows]
        return np.arctan2(points[:, 1] - p[:, 1], points[:, 0] - p[:, 0])

    # -- percepts (per row: rare events) --------------------------------------------------------------
    def remember(self, i: int, position: np.ndarray, time: float, source: int) -> None:
        self.has_memory[i] = True
        self.memory_position[i] = position
        self.memory_time[i] = time
        self.memory_source[i] = source

    def forget(self, i: int) -> None:
        self.has_memory[i] = False

    def clear_heard(self, rows: np.ndarray | int) -> None:
        for i in np.atleast_1d(rows).tolist():
            self.heard[i] = None
        self.hearing[rows] = False

    def sight(
        self,
        rows: np.ndarray,
        seen: np.ndarray,
        point: np.ndarray,
        feet: np.ndarray,
        *,
        target_speed: float = 0.0,
        crouching: bool = False,
    ) -> None:
        """The perception tick of `rows`: seen (m,) bool, the player's aim point (3,) and feet (3,) [m],
        its horizontal speed [m/s] and stance (they set how fast a suspicion meter fills).

        Rows that keep seeing update their target and memory at once. Rows with gradual detection run
        their suspicion meters (`npc_ai.behaviour.suspicion`); a row spots the player when it sees it with
        instant detection or a full meter. A row that sees the player loses it only after not seeing it
        for its `lose_after_s`. Rows that gain or lose the player go through `sight_row` in row order
        (events, alerts to allies)."""
        t, c = self.env.time, self.cfg
        first = np.isinf(self.last_look[rows])
        dt = np.where(first, c.perception_period_s[rows], np.minimum(t - self.last_look[rows], 1e9))
        self.last_look[rows] = t
        self.last_seen[rows[seen]] = t
        keep = seen & self.sees[rows]
        if keep.any():
            k = rows[keep]
            self.target_point[k] = point
            self.target_feet[k] = feet
            self.has_memory[k] = True
            self.memory_position[k] = feet
            self.memory_time[k] = t
            self.memory_source[k] = SIGHT
        instant = c.detection_time_s[rows] <= 0.0
        if instant.any():
            self.suspicion[rows[instant]] = np.where(seen[instant] | self.sees[rows[instant]], 1.0, 0.0)
        if not instant.all():
            g = ~instant
            suspicion.suspect(self, rows[g], seen[g], feet, dt[g], target_speed, crouching)
        hostile = instant | (self.level[rows] == suspicion.HOSTILE)
        gain = seen & ~self.sees[rows] & hostile
        lose = ~seen & self.sees[rows] & (t - self.last_seen[rows] >= c.lose_after_s[rows] - 1e-9)
        for k in (gain | lose).nonzero()[0].tolist():
            self.sight_row(int(rows[k]), point if seen[k] else None, feet if seen[k] else None)

    def sight_row(self, i: int, point: np.ndarray | None, feet: np.ndarray | None) -> None:
        """Row i's perception tick: the player's aim point and feet when seen, else None."""
        t = self.env.time
        if point is not None and feet is not None:
            self.target_point[i], self.target_feet[i] = point, feet
            self.has_target[i] = True
            self.remember(i, feet, t, SIGHT)
            if not self.sees[i]:
                self.sees[i] = True
                self.seen_since[i] = t
                self.spotted[i] += 1
                self.record(i, "spotted", target=xyz(feet), distance=round(self.distance(i, feet), 3))
                if t - self.last_alert[i] >= self.cfg.alert_cooldown_s[i]:
                    self.last_alert[i] = t
                    self.env.broadcast_alert(self.views[i], np.array(feet, dtype=np.float64))
        elif self.sees[i]:
            self.sees[i] = False
            self.seen_since[i] = np.nan
            last = self.memory_position[i] if self.has_memory[i] else self.positions()[i]
            self.record(i, "lost", last_known=xyz(last))

    def hear(self, i: int, noise: Noise, *, occluded: bool = False) -> None:
        """Row i heard `noise`, through a wall when `occluded` (ignored while it sees the player).

        A noise an ally made (its source is an NPC's name: a shot, its impact) sends a calm row (Wander,
        Patrol) to investigate, as any noise does; a row already after the player ignores it: the shot
        marks where the ally stands, not the player, and the ally's alert carries the player's position.
        Taking it as the player's last known position sent pursuers to their own shooters, into the crowd
        around them, over and over (`npc-ai bench soak` with avoidance)."""
        if self.sees[i] or self.ignores([noise.source])[i, 0]:
            return
        self.record(
            i,
            "heard",
            noise=xyz(noise.position),
            loudness=round(noise.loudness, 4),
            source=noise.source,
            distance=round(self.distance(i, noise.position), 3),
            occluded=occluded,
        )
        self.heard[i] = noise
        self.hearing[i] = True
        if not self.has_memory[i] or self.memory_time[i] <= noise.time:
            self.remember(i, noise.position, noise.time, HEARING)

    def ignores(self, sources: Sequence[str]) -> np.ndarray:
        """(n, k) bool: row i pays no heed to a noise made by sources[j] (an ally's, while it is after the
        player: `hear`)."""
        ally = np.array([source in self._name_set for source in sources], dtype=bool)
        engaged = (self.state != WANDER) & (self.state != PATROL)
        return engaged[:, None] & ally[None, :]

    def under_fire(self, i: int, shooter_eye: np.ndarray, by: str) -> None:
        """Row i was shot at by `by` from `shooter_eye` [m]: an archetype with cover takes it (Cover)."""
        self.threat[i] = shooter_eye
        self.record(i, "under-fire", by=by, shooter=xyz(shooter_eye))
        if self.settings[i].cover and self.state[i] != COVER:
            self.take_cover[i] = True

    def alert(self, i: int, position: np.ndarray, by: str, seen_at: float | None = None) -> None:
        """An ally (`by`) shared the player's last known position with row i, as seen at `seen_at` [s]
        (None: now); the memory keeps that time, so its age is the news' age."""
        if self.sees[i]:
            return
        t = self.env.time
        when = t if seen_at is None else min(float(seen_at), t)
        self.remember(i, np.asarray(position, dtype=np.float64), when, ALERT)
        self.alerted[i] = True
        self.record(i, "alerted", by=by, target=xyz(position), age=round(t - when, 4))

    def probes(self, rows: np.ndarray, forward: np.ndarray, left: np.ndarray, right: np.ndarray,
               nudge: np.ndarray, time: float) -> None:  # fmt: skip
        """Obstacle probes cast at `time` [s] for `rows`: free gaps [m] (left / right NaN when not
        cast) and nudges (+1 / -1 / 0); the next one is due a probe interval later."""
        self.has_probe[rows] = True
        self.probe_time[rows] = time
        self.probe_forward[rows] = forward
        self.probe_left[rows] = left
        self.probe_right[rows] = right
        self.probe_nudge[rows] = nudge
        self.probe_due[rows] = time + self.cfg.probe_interval_s[rows] - 1e-9

    def probe_of(self, i: int) -> ObstacleProbe | None:
        """Row i's unconsumed probe."""
        if not self.has_probe[i]:
            return None
        left, right = float(self.probe_left[i]), float(self.probe_right[i])
        return ObstacleProbe(
            float(self.probe_time[i]),
            float(self.probe_forward[i]),
            None if math.isnan(left) else left,
            None if math.isnan(right) else right,
            int(self.probe_nudge[i]),
        )

    def wants_to_move(self) -> np.ndarray:
        """(n,) bool: a wanderer with a target speed, or any NPC whose legs still carry it."""
        return ((self.state == WANDER) & (self.wander_speed > 0.0)) | (self.speed_param > 0.05)

    def wants_probe(self, time: float) -> np.ndarray:
        """(n,) bool: should the perceive phase box-cast for obstacles (wandering, moving, timer due)?"""
        return (time >= self.probe_due) & (self.state == WANDER) & self.wants_to_move()

    # -- events ----------------------------------------------------------------------------------------
    def record(self, i: int, event: str, **data: Any) -> None:
        self.env.record(self.views[i], event, data)

    def distance(self, i: int, p: np.ndarray) -> float:
        """Horizontal distance from row i's feet to `p` [m]."""
        here = self.locomotion.views[i].position
        return float(np.linalg.norm(np.asarray(p)[:2] - here[:2]))

    def memory_age(self, i: int, now: float) -> float | None:
        return float(now - self.memory_time[i]) if self.has_memory[i] else None

    def turn_away(self, i: int, yaw: float) -> float:
        """Wander's heading away from an obstacle ahead of row i (facing `yaw` [rad]): turn around when
        both sides are blocked, else a seeded 45-110 degrees toward the freer side.

        Boxed in again where it last turned around (its feet within `BOXED_MOVE` of that spot), the way
        back is blocked too: it turns around give or take a seeded `BOXED_SPREAD_DEG`. Turning exactly
        around there sent it back and forth between the same two blocked headings for as long as it
        wandered (a wanderer between a shelf and a standing NPC, 7 s in the warehouse soak)."""
        s = self.settings[i]
        left, right = float(self.probe_left[i]), float(self.probe_right[i])
        lf = math.inf if math.isnan(left) else left
        rf = math.inf if math.isnan(right) else right
        if lf < s.obstacle_range and rf < s.obstacle_range:
            here = self.positions()[i, :2]
            last = self.turned_around_at[i].copy()
            self.turned_around_at[i] = here
            if not np.isnan(last[0]) and math.hypot(*(here - last)) < BOXED_MOVE:
                spread = math.radians(float(self.rngs[i].uniform(-BOXED_SPREAD_DEG, BOXED_SPREAD_DEG)))
                return float(wrap_angle(yaw + math.pi + spread))
            return float(wrap_angle(yaw + math.pi))
        angle = math.radians(float(self.rngs[i].uniform(s.turn_min_deg, s.turn_max_deg)))
        sign = 1.0 if lf >= rf else -1.0
        return float(wrap_angle(yaw + sign * angle))

    def pick_wander_speed(self, i: int, time: float) -> None:
        """Wander's seeded pick: walk or stand, until a new pick 5-10 s later (the archetype's range)."""
        s, rng = self.settings[i], self.rngs[i]
        self.wander_speed[i] = s.walk_speed if rng.random() < s.move_probability else 0.0
        self.wander_next_pick[i] = time + float(rng.uniform(s.speed_change_min_s, s.speed_change_max_s))
