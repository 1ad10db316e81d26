"""One enemy as the API and the tests see it: `Npc`, a thin view of one row of a `BehaviourBatch` (its
state, percepts, memory, counters), with the motor helpers a controller steers it by (`walk`, `go_to`).

The state machine itself runs for all NPCs at once (`npc_ai.behaviour.states.decide`); a view reads and
writes the batch's arrays, so it costs nothing per tick.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from navigation.angles import turn_toward
from npc_ai.behaviour.batch import SOURCES, BehaviourBatch, NpcEnv, xyz
from npc_ai.behaviour.probes import ObstacleProbe
from npc_ai.behaviour.settings import BehaviourSettings
from npc_ai.behaviour.suspicion import LEVELS
from npc_ai.behaviour.table import STATE_NAMES, BehaviourError
from npc_ai.body.batch import LocomotorView

__all__ = ["Memory", "Noise", "Npc", "NpcEnv"]


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


class Npc:
    """One enemy: row `index` of the simulation's `BehaviourBatch`.

    Args:
        batch: the behaviour arrays of every NPC. index: this NPC's row (it also staggers perception).
    """

    def __init__(self, batch: BehaviourBatch, index: int) -> None:
        self.batch = batch
        self.index = index
        self.name = batch.names[index]
        self.locomotor: LocomotorView = batch.locomotion.views[index]
        self.rng = batch.rngs[index]
        self.route = batch.routes[index]
        self.env = batch.env

    # -- properties ------------------------------------------------------------------------------------
    @property
    def settings(self) -> BehaviourSettings:
        """Its archetype's settings (assigning new ones takes effect at the next tick)."""
        return self.batch.settings[self.index]

    @settings.setter
    def settings(self, value: BehaviourSettings) -> None:
        self.batch.set_settings(self.index, value)

    @property
    def time(self) -> float:
        return self.env.time

    @property
    def dt(self) -> float:
        """The env's fixed tick [s]."""
        return self.batch.dt

    @property
    def state(self) -> str:
        return STATE_NAMES[int(self.batch.state[self.index])]

    @property
    def home(self) -> str:
        """The calm state it returns to: "patrol" with a route, else "wander"."""
        return STATE_NAMES[int(self.batch.home[self.index])]

    @property
    def state_time(self) -> dict[str, float]:
        """Seconds spent in each state it has been in."""
        row = self.batch.state_time[self.index]
        return {name: float(row[k]) for k, name in enumerate(STATE_NAMES) if row[k] > 0.0}

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

    # -- percepts and memory ---------------------------------------------------------------------------
    @property
    def sees(self) -> bool:
        return bool(self.batch.sees[self.index])

    @property
    def suspicion(self) -> float:
        """The suspicion meter [0..1] (`npc_ai.behaviour.suspicion`; 1 while it sees the player, with
        instant detection)."""
        return float(self.batch.suspicion[self.index])

    @property
    def suspicion_level(self) -> str:
        """The meter's level: "calm", "suspicious", "investigate" or "hostile" (gradual detection)."""
        return LEVELS[int(self.batch.level[self.index])]

    @property
    def target_point(self) -> np.ndarray | None:
        """The player's aim point when last seen [m] (None before the first sighting)."""
        b, i = self.batch, self.index
        return b.target_point[i].copy() if b.has_target[i] else None

    @property
    def target_feet(self) -> np.ndarray | None:
        b, i = self.batch, self.index
        return b.target_feet[i].copy() if b.has_target[i] else None

    @property
    def seen_since(self) -> float | None:
        """When the current sighting began [s] (None while the player is not seen)."""
        t = float(self.batch.seen_since[self.index])
        return None if math.isnan(t) else t

    @property
    def memory(self) -> Memory | None:
        """The last known position of the player, or None."""
        b, i = self.batch, self.index
        if not b.has_memory[i]:
            return None
        source = SOURCES[int(b.memory_source[i])]
        return Memory(b.memory_position[i].copy(), float(b.memory_time[i]), source)

    @memory.setter
    def memory(self, value: Memory | None) -> None:
        if value is None:
            self.batch.forget(self.index)
        elif isinstance(value, Memory) and value.source in SOURCES:
            self.batch.remember(self.index, value.position, value.time, SOURCES.index(value.source))
        else:
            raise BehaviourError(f"memory must be None or a Memory with a source in {SOURCES}, got {value!r}")

    @property
    def heard(self) -> Noise | None:
        """A noise not yet investigated."""
        return self.batch.heard[self.index]

    @property
    def alerted(self) -> bool:
        """An ally's alert not yet acted on."""
        return bool(self.batch.alerted[self.index])

    @property
    def probe(self) -> ObstacleProbe | None:
        """The obstacle probe not yet consumed by Wander."""
        return self.batch.probe_of(self.index)

    @property
    def wants_to_move(self) -> bool:
        return bool(self.batch.wants_to_move()[self.index])

    def wants_probe(self) -> bool:
        """Should the perception phase box-cast for obstacles this tick (wandering, moving, timer due)?"""
        return bool(self.batch.wants_probe(self.time)[self.index])

    def on_probe(self, probe: ObstacleProbe) -> None:
        nan = math.nan
        left = nan if probe.left is None else probe.left
        right = nan if probe.right is None else probe.right
        rows = np.array([self.index])
        self.batch.probes(
            rows,
            np.array([probe.forward]),
            np.array([left]),
            np.array([right]),
            np.array([probe.nudge]),
            probe.time,
        )

    def on_sight(self, point: np.ndarray | None, feet: np.ndarray | None) -> None:
        """A perception tick: the player's aim point and feet when seen, else None."""
        self.batch.sight_row(self.index, point, feet)

    def on_noise(self, noise: Noise) -> None:
        """A noise this NPC heard (ignored while it sees the player)."""
        self.batch.hear(self.index, noise)

    def on_alert(self, position: np.ndarray, by: str) -> None:
        """An ally shared the player's last known position."""
        self.batch.alert(self.index, position, by)

    # -- counters and timers (the research envs' controllers keep them) -----------------------------------
    def _get(self, name: str) -> Any:
        return getattr(self.batch, name)[self.index]

    def _set(self, name: str, value: Any) -> None:
        getattr(self.batch, name)[self.index] = value

    shots = property(lambda self: int(self._get("shots")), lambda self, v: self._set("shots", v))
    hits = property(lambda self: int(self._get("hits")), lambda self, v: self._set("hits", v))
    spotted = property(lambda self: int(self._get("spotted")), lambda self, v: self._set("spotted", v))
    speed_param = property(
        lambda self: float(self._get("speed_param")), lambda self, v: self._set("speed_param", v)
    )  # the speed this NPC asks of its legs, smoothed [m/s]
    cooldown_until = property(
        lambda self: float(self._get("cooldown_until")), lambda self, v: self._set("cooldown_until", v)
    )  # no shot before this [s]
    last_alert = property(lambda self: float(self._get("last_alert")))  # [s]

    def record(self, event: str, **data: Any) -> None:
        self.env.record(self, event, data)

    # -- motor helpers (intents) -----------------------------------------------------------------------
    def smooth_speed(self, target: float) -> float:
        """Move the speed parameter toward `target` [m/s] with the archetype's time constant; return it."""
        return float(self.batch.smooth_speed(np.array([self.index]), target)[0])

    def turn_toward(self, heading: float, rate_deg: float) -> float:
        """The heading one tick of turning at most `rate_deg` [deg/s] brings from the facing toward
        `heading` [rad]."""
        return turn_toward(self.yaw, heading, math.radians(rate_deg) * self.dt)

    def heading_to(self, point: np.ndarray) -> float:
        p = self.position
        return math.atan2(float(point[1] - p[1]), float(point[0] - p[0]))

    def walk(self, speed: float, heading: float | None) -> None:
        """Free (root-motion) locomotion at `speed` [m/s] toward `heading` [rad] (None keeps the facing)."""
        self.batch.walk(np.array([self.index]), float(speed), math.nan if heading is None else heading)

    def go_to(self, destination: np.ndarray, speed: float) -> bool:
        """Follow a navmesh path to `destination` at top speed `speed`; re-plans only when the goal or speed
        changed. Returns False when no path could be planned (start off the mesh)."""
        goal = np.asarray(destination, dtype=np.float64).reshape(1, 3)
        return bool(self.batch.go_to(np.array([self.index]), goal, np.array([float(speed)]))[0])

    def clear_goal(self) -> None:
        self.batch.goal_speed[self.index] = np.nan

    @property
    def arrived(self) -> bool:
        """Arrival as the seed measures it: the remaining path distance is below the agent radius (a
        property, like `Locomotor.arrived` and `NavAgent.arrived`)."""
        rows = np.array([self.index])
        return bool(self.batch.arrived(rows, self.batch.positions())[0])

    def __repr__(self) -> str:
        return f"Npc({self.name!r}, {self.state}, at {xyz(self.position)})"
