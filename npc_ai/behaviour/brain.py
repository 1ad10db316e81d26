"""One enemy's brain: what it remembers, what it currently perceives, its state machine, and the small
motor helpers its states use to turn intents (a speed and heading, or a destination) into locomotion.

The brain never queries the world itself: the simulation hands it percepts (sightings, noises, alerts,
obstacle probes) and offers a few services through `NpcEnv` (the clock, event recording, the hit-scan).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from navigation.angles import turn_toward
from npc_ai.behaviour.machine import StateMachine
from npc_ai.behaviour.perception import ObstacleProbe
from npc_ai.behaviour.settings import BehaviourSettings
from npc_ai.body.batch import LocomotorView
from npc_ai.body.locomotor import Locomotor


class NpcEnv(Protocol):
    """What the simulation offers an NPC's states."""

    @property
    def time(self) -> float: ...

    @property
    def dt(self) -> float: ...

    def record(self, npc: Npc, event: str, data: dict[str, Any]) -> None: ...

    def hitscan(self, npc: Npc) -> dict[str, Any]: ...

    def broadcast_alert(self, npc: Npc, position: np.ndarray) -> None: ...


@dataclass(frozen=True)
class Memory:
    """The last known position of the player and where the knowledge came from.

    Attributes:
        position: (3,) feet position [m]. time: when it was sensed [s].
        source: "sight", "hearing" or "alert".
    """

    position: np.ndarray
    time: float
    source: str

    def age(self, now: float) -> float:
        """Seconds since it was sensed."""
        return now - self.time


@dataclass(frozen=True)
class Noise:
    """A noise event: heard by a listener when distance^2 <= (hearing_range * loudness)^2.

    Attributes:
        position: (3,) [m]. loudness: [>= 0, 1 = normal]. source: who made it. time: when [s].
    """

    position: np.ndarray
    loudness: float
    source: str
    time: float


def _xyz(p: np.ndarray) -> list[float]:
    return [round(float(v), 4) for v in p]


class Npc:
    """One enemy.

    Args:
        name: unique name (events carry it). index: its row in the simulation (staggers perception).
        locomotor: its legs (root_motion coupling). settings: its archetype's behaviour settings.
        env: the simulation's services. rng: its own Generator, derived from the world's.
        route: patrol waypoints (feet positions) [m]; empty to wander.
    """

    def __init__(
        self,
        name: str,
        index: int,
        locomotor: Locomotor | LocomotorView,
        settings: BehaviourSettings,
        env: NpcEnv,
        rng: np.random.Generator,
        route: tuple[tuple[float, float, float], ...] = (),
    ) -> None:
        from npc_ai.behaviour.states import build_states

        self.name = name
        self.index = index
        self.locomotor = locomotor
        self.settings = settings
        self.env = env
        self._dt = float(env.dt)  # the env's tick is fixed: read it once
        self.rng = rng
        self.route = tuple(np.asarray(p, dtype=np.float64) for p in route)
        # percepts
        self.sees = False
        self.target_point: np.ndarray | None = None  # aim point of the player while seen [m]
        self.target_feet: np.ndarray | None = None
        self.seen_since: float | None = None
        self.memory: Memory | None = None
        self.heard: Noise | None = None  # a noise not yet investigated
        self.alerted = False  # an ally's alert not yet acted on
        self.probe: ObstacleProbe | None = None
        self.probe_due = 0.0
        # motor state
        self.speed_param = 0.0  # the speed this NPC asks of its legs, smoothed [m/s]
        self.cooldown_until = -math.inf
        self.last_alert = -math.inf  # when this NPC last alerted its allies [s]
        self._goal: np.ndarray | None = None  # the destination last given to the locomotor
        self._goal_speed: float | None = None
        # counters
        self.shots = 0
        self.hits = 0
        self.spotted = 0
        self.state_time: dict[str, float] = {}
        home = "patrol" if (settings.patrol and len(self.route) >= 1) else "wander"
        self.home = home
        self.machine: StateMachine[Npc] = StateMachine(build_states(), home, self._on_transition)

    # -- properties ------------------------------------------------------------------------------------
    @property
    def time(self) -> float:
        return self.env.time

    @property
    def dt(self) -> float:
        """The env's fixed tick [s]."""
        return self._dt

    @property
    def state(self) -> str:
        return self.machine.state

    @property
    def position(self) -> np.ndarray:
        return self.locomotor.position

    @property
    def yaw(self) -> float:
        return self.locomotor.yaw

    @property
    def body(self) -> int:
        return self.locomotor.character.body

    @property
    def eye(self) -> np.ndarray:
        p = self.locomotor.position
        p[2] += self.settings.eye_height
        return p

    @property
    def radius(self) -> float:
        """The nav agent's radius [m] (chase arrival is measured against it)."""
        return self.locomotor.agent.settings.radius

    # -- lifecycle -------------------------------------------------------------------------------------
    def start(self) -> None:
        self.machine.start(self)

    def decide(self) -> str:
        """Forget stale memories, then run the state machine once; return the state's name."""
        if self.memory is not None and self.memory.age(self.time) > self.settings.memory_expiry_s:
            self.memory = None
        state = self.machine.update(self)
        self.state_time[state] = self.state_time.get(state, 0.0) + self.dt
        return state

    def record(self, event: str, **data: Any) -> None:
        self.env.record(self, event, data)

    def _on_transition(self, old: str | None, new: str, details: dict[str, Any]) -> None:
        data = {"from": old} if old is not None else {}
        data.update(details)
        self.record(new, **data)

    # -- percepts --------------------------------------------------------------------------------------
    def wants_probe(self) -> bool:
        """Should the perception phase box-cast for obstacles this tick (wandering, moving, timer due)?"""
        return self.time >= self.probe_due and self.state == "wander" and self.wants_to_move  # cheapest first

    @property
    def wants_to_move(self) -> bool:
        state = self.machine.current
        return bool(getattr(state, "target_speed", 0.0) > 0.0 or self.speed_param > 0.05)

    def on_probe(self, probe: ObstacleProbe) -> None:
        self.probe = probe
        self.probe_due = probe.time + self.settings.probe_interval_s - 1e-9

    def on_sight(self, point: np.ndarray | None, feet: np.ndarray | None) -> None:
        """The result of this NPC's perception tick: the player's aim point and feet when seen, else None."""
        t = self.time
        if point is not None and feet is not None:
            self.target_point, self.target_feet = point.copy(), feet.copy()
            self.memory = Memory(feet.copy(), t, "sight")
            if not self.sees:
                self.sees = True
                self.seen_since = t
                self.spotted += 1
                self.record("spotted", target=_xyz(feet), distance=round(self._dist(feet), 3))
                if t - self.last_alert >= self.settings.alert_cooldown_s:
                    self.last_alert = t
                    self.env.broadcast_alert(self, feet)
        elif self.sees:
            self.sees = False
            self.seen_since = None
            last = self.memory.position if self.memory is not None else self.position
            self.record("lost", last_known=_xyz(last))

    def on_noise(self, noise: Noise) -> None:
        """A noise this NPC heard (ignored while it sees the player)."""
        if self.sees:
            return
        self.record(
            "heard",
            noise=_xyz(noise.position),
            loudness=round(noise.loudness, 4),
            source=noise.source,
            distance=round(self._dist(noise.position), 3),
        )
        self.heard = noise
        if self.memory is None or self.memory.time <= noise.time:
            self.memory = Memory(noise.position.copy(), noise.time, "hearing")

    def on_alert(self, position: np.ndarray, by: str) -> None:
        """An ally shared the player's last known position."""
        if self.sees:
            return
        self.memory = Memory(np.asarray(position, dtype=np.float64).copy(), self.time, "alert")
        self.alerted = True
        self.record("alerted", by=by, target=_xyz(position))

    def _dist(self, p: np.ndarray) -> float:
        return float(np.linalg.norm(np.asarray(p)[:2] - self.position[:2]))

    # -- motor helpers (intents) -----------------------------------------------------------------------
    def smooth_speed(self, target: float) -> float:
        """Move the speed parameter toward `target` [m/s] with the archetype's time constant; return it."""
        tau = self.settings.speed_smoothing_s
        k = 1.0 if tau <= 0 else min(1.0, self.dt / tau)
        self.speed_param += k * (target - self.speed_param)
        if abs(self.speed_param - target) < 1e-3:
            self.speed_param = target
        return self.speed_param

    def turn_toward(self, heading: float, rate_deg: float) -> float:
        """The heading one tick of turning at most `rate_deg` [deg/s] brings from the facing toward
        `heading` [rad]."""
        return turn_toward(self.yaw, heading, math.radians(rate_deg) * self.dt)

    def heading_to(self, point: np.ndarray) -> float:
        p = self.position
        return math.atan2(float(point[1] - p[1]), float(point[0] - p[0]))

    def walk(self, speed: float, heading: float | None) -> None:
        """Free (root-motion) locomotion at `speed` [m/s] toward `heading` [rad] (None keeps the facing)."""
        self.locomotor.move_freely(max(0.0, speed), heading)
        self._goal = None

    def go_to(self, destination: np.ndarray, speed: float) -> bool:
        """Follow a navmesh path to `destination` at top speed `speed`; re-plans only when the goal or speed
        changed. Returns False when no path could be planned (start off the mesh)."""
        goal = np.asarray(destination, dtype=np.float64)
        old = self._goal
        if old is not None and self._goal_speed == speed and old.tolist() == goal.tolist():  # 3 floats
            return self.locomotor.agent.has_path
        self._goal, self._goal_speed = goal.copy(), speed
        self.speed_param = speed
        self.locomotor.set_destination(goal, speed=speed)
        return self.locomotor.agent.has_path

    def clear_goal(self) -> None:
        self._goal = None

    @property
    def arrived(self) -> bool:
        """Arrival as the seed measures it: the remaining path distance is below the agent radius (a
        property, like `Locomotor.arrived` and `NavAgent.arrived`)."""
        agent = self.locomotor.agent
        return bool(agent.has_path and self.locomotor.remaining_distance < self.radius)
