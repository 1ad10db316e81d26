"""The enemy's states. Each is per-NPC (it may keep timers) and turns percepts into intents.

    wander / patrol --spotted--> aim --lost--> chase --arrived--> search --gave up--> wander / patrol
                                  ^  \\--aimed, reaction time, cooldown--> shoot --> aim
    a noise heard --> investigate --arrived--> search;  an ally's alert --> chase

The transition into a state is recorded as an event named after it (with `from`); `spotted`, `lost`,
`arrived`, `gave-up`, `heard`, `alerted` are recorded by the brain and the states as they happen.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from navigation.angles import wrap_angle
from npc_ai.behaviour.brain import Npc, _xyz
from npc_ai.behaviour.machine import State

STATE_NAMES = ("wander", "patrol", "aim", "shoot", "chase", "search", "investigate")
STATE_CODES: dict[str, int] = {name: code for code, name in enumerate(STATE_NAMES)}  # for arrays and traces
_TURN_DONE = math.radians(5.0)  # a wander turn counts as finished within this of its target
_NUDGE = math.radians(20.0)  # veer this far from something the probe's skin brushes


def _react(npc: Npc, *, hear: bool = True, alert: bool = True) -> str | None:
    """The interrupt every calm state shares: sight first, then an ally's alert, then a noise."""
    if npc.sees:
        return "aim"
    if alert and npc.alerted:
        return "chase"
    if hear and npc.heard is not None:
        return "investigate"
    return None


class Wander(State[Npc]):
    """The seed's wander: a target speed of 0 or walk every 5-10 s, smoothed; box-cast obstacle avoidance
    on a timer (turn away 45-110 degrees toward the freer side, or turn around); smooth turns."""

    name = "wander"
    transitions = frozenset({"aim", "chase", "investigate"})

    def __init__(self) -> None:
        self.target_speed = 0.0
        self.next_pick = 0.0
        self.heading = 0.0
        self.cap = math.inf

    def enter(self, npc: Npc) -> dict[str, Any]:
        npc.clear_goal()
        self.heading = npc.yaw
        self.cap = math.inf
        npc.probe = None
        npc.probe_due = npc.time
        self._pick(npc)
        return {"speed": self.target_speed}

    def _pick(self, npc: Npc) -> None:
        s = npc.settings
        self.target_speed = s.walk_speed if npc.rng.random() < s.move_probability else 0.0
        self.next_pick = npc.time + float(npc.rng.uniform(s.speed_change_min_s, s.speed_change_max_s))

    def update(self, npc: Npc) -> str | None:
        react = _react(npc)
        if react is not None:
            return react
        s = npc.settings
        if npc.time >= self.next_pick:
            self._pick(npc)
        speed = npc.smooth_speed(self.target_speed)
        probe = npc.probe
        if probe is not None:
            npc.probe = None  # consume it
            span = s.obstacle_range - s.stop_gap
            self.cap = s.walk_speed * min(1.0, max(0.0, (probe.forward - s.stop_gap) / span))
            turning = abs(wrap_angle(self.heading - npc.yaw)) > _TURN_DONE
            if probe.forward < s.obstacle_range and not turning:
                self.heading = self._turn_away(npc, probe.left, probe.right)
            elif probe.nudge and not turning:  # brushing past something: veer away from it
                self.heading = wrap_angle(npc.yaw + probe.nudge * _NUDGE)
        elif not npc.wants_to_move:
            self.cap = math.inf
        heading = npc.turn_toward(self.heading, s.turn_rate_deg)
        npc.walk(min(speed, self.cap), heading)
        return None

    def _turn_away(self, npc: Npc, left: float | None, right: float | None) -> float:
        s = npc.settings
        lf = math.inf if left is None else left
        rf = math.inf if right is None else right
        if lf < s.obstacle_range and rf < s.obstacle_range:
            return wrap_angle(npc.yaw + math.pi)
        angle = math.radians(float(npc.rng.uniform(s.turn_min_deg, s.turn_max_deg)))
        sign = 1.0 if lf >= rf else -1.0
        return wrap_angle(npc.yaw + sign * angle)


class Patrol(State[Npc]):
    """Walk the spawn's patrol route, waypoint after waypoint, looping."""

    name = "patrol"
    transitions = frozenset({"aim", "chase", "investigate"})

    def __init__(self) -> None:
        self.waypoint = -1

    def enter(self, npc: Npc) -> dict[str, Any]:
        npc.clear_goal()
        if self.waypoint < 0:  # the route's nearest waypoint first
            d = [float(np.linalg.norm(w[:2] - npc.position[:2])) for w in npc.route]
            self.waypoint = int(np.argmin(d))
        return {"waypoint": self.waypoint, "target": _xyz(npc.route[self.waypoint])}

    def update(self, npc: Npc) -> str | None:
        react = _react(npc)
        if react is not None:
            return react
        target = npc.route[self.waypoint]
        if not npc.go_to(target, npc.settings.walk_speed) or npc.arrived:
            self.waypoint = (self.waypoint + 1) % len(npc.route)
            npc.go_to(npc.route[self.waypoint], npc.settings.walk_speed)
        return None


class Aim(State[Npc]):
    """Decelerate to a stop, then turn to face the player smoothly; shoot when aimed, when line of sight
    has held for the reaction time and the cooldown allows; chase when the player is lost."""

    name = "aim"
    transitions = frozenset({"chase", "shoot"})

    def __init__(self) -> None:
        self.stopped = False

    def enter(self, npc: Npc) -> dict[str, Any]:
        npc.clear_goal()
        npc.alerted = False
        npc.heard = None
        self.stopped = (
            npc.locomotor.speed < npc.settings.stop_speed and npc.speed_param < npc.settings.stop_speed
        )
        target = npc.target_feet if npc.target_feet is not None else npc.position
        return {"target": _xyz(target)}

    def update(self, npc: Npc) -> str | None:
        s = npc.settings
        if not npc.sees:
            return "chase"
        speed = npc.smooth_speed(0.0)
        if not self.stopped:
            self.stopped = npc.locomotor.speed < s.stop_speed and speed < s.stop_speed
            npc.walk(speed, None)
            return None
        if npc.target_point is None:  # seen, but not yet where: keep still
            npc.walk(0.0, None)
            return None
        want = npc.heading_to(npc.target_point)
        npc.walk(0.0, npc.turn_toward(want, s.aim_turn_rate_deg))
        aimed = abs(wrap_angle(want - npc.yaw)) <= math.radians(s.aim_tolerance_deg)
        held = npc.seen_since is not None and npc.time - npc.seen_since >= s.reaction_time_s - 1e-9
        if aimed and held and npc.time >= npc.cooldown_until - 1e-9:
            return "shoot"
        return None


class Shoot(State[Npc]):
    """Fire one hit-scan ray at the player (the event says hit or miss), start the cooldown, hold briefly."""

    name = "shoot"
    transitions = frozenset({"aim", "chase"})

    def __init__(self) -> None:
        self.until = 0.0

    def enter(self, npc: Npc) -> dict[str, Any]:
        s = npc.settings
        npc.cooldown_until = npc.time + s.shoot_cooldown_s
        self.until = npc.time + s.shot_duration_s
        result = npc.env.hitscan(npc)
        npc.shots += 1
        npc.hits += int(bool(result.get("hit")))
        return result

    def update(self, npc: Npc) -> str | None:
        if npc.time < self.until - 1e-9:
            if npc.sees and npc.target_point is not None:
                npc.walk(
                    0.0, npc.turn_toward(npc.heading_to(npc.target_point), npc.settings.aim_turn_rate_deg)
                )
            else:
                npc.walk(0.0, None)
            return None
        return "aim" if npc.sees else "chase"


class Chase(State[Npc]):
    """Run (root motion, agent follows animation) to the last known position; search on arrival."""

    name = "chase"
    transitions = frozenset({"aim", "search"})
    speed_setting = "run_speed"

    def __init__(self) -> None:
        self.started = 0.0
        self.goal: np.ndarray | None = None

    def enter(self, npc: Npc) -> dict[str, Any]:
        npc.clear_goal()
        npc.alerted = False
        npc.heard = None
        self.started = npc.time
        self.goal = npc.memory.position.copy() if npc.memory is not None else npc.position
        npc.go_to(self.goal, getattr(npc.settings, self.speed_setting))
        return {"target": _xyz(self.goal), "source": npc.memory.source if npc.memory else "none"}

    def update(self, npc: Npc) -> str | None:
        if npc.sees:
            return "aim"
        if npc.memory is not None and (
            self.goal is None or npc.memory.position.tolist() != self.goal.tolist()
        ):
            self.goal = npc.memory.position.copy()  # newer news (an alert, a noise) moves the goal
        npc.alerted = False
        npc.heard = None
        if self.goal is None:
            self.goal = npc.position
        ok = npc.go_to(self.goal, getattr(npc.settings, self.speed_setting))
        if not ok:
            npc.record("arrived", target=_xyz(self.goal), reached=False, reason="no path")
            return "search"
        if npc.arrived:
            npc.record("arrived", target=_xyz(self.goal), reached=True)
            return "search"
        if npc.time - self.started > npc.settings.chase_timeout_s:
            npc.record("arrived", target=_xyz(self.goal), reached=False, reason="timeout")
            return "search"
        return None


class Investigate(Chase):
    """Walk to a noise that was heard; search there on arrival."""

    name = "investigate"
    transitions = frozenset({"aim", "search", "chase"})
    speed_setting = "walk_speed"

    def update(self, npc: Npc) -> str | None:
        if npc.alerted and not npc.sees:
            return "chase"
        return super().update(npc)


class Search(State[Npc]):
    """Look around at the last known position (left, right, behind) for a while, then give up."""

    name = "search"
    transitions = frozenset({"aim", "chase", "investigate", "wander", "patrol"})

    def __init__(self) -> None:
        self.until = 0.0
        self.looks: list[float] = []
        self.look = 0

    def enter(self, npc: Npc) -> dict[str, Any]:
        npc.clear_goal()
        s = npc.settings
        self.until = npc.time + s.search_duration_s
        base = npc.yaw
        self.looks = [wrap_angle(base + a) for a in (math.radians(70), math.radians(-70), math.pi)]
        self.look = 0
        return {"duration": s.search_duration_s}

    def update(self, npc: Npc) -> str | None:
        react = _react(npc)
        if react is not None:
            return react
        if npc.time >= self.until - 1e-9:
            age = npc.memory.age(npc.time) if npc.memory is not None else None
            npc.record("gave-up", memory_age=None if age is None else round(age, 3))
            return npc.home
        want = self.looks[self.look]
        if abs(wrap_angle(want - npc.yaw)) < _TURN_DONE:
            self.look = (self.look + 1) % len(self.looks)
        npc.walk(npc.smooth_speed(0.0), npc.turn_toward(want, npc.settings.search_turn_rate_deg))
        return None


def build_states() -> list[State[Npc]]:
    """A fresh set of states for one NPC."""
    return [Wander(), Patrol(), Aim(), Shoot(), Chase(), Investigate(), Search()]
