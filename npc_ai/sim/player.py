"""The player in a simulation: scripted (a scene route, or a navmesh wanderer that hides from NPCs that see
it), standing still, or driven by the keyboard in the PyBullet GUI.

The player is a `Locomotor` in the PLAYER collision group with the agent-drives coupling (animation follows
the agent: robust, and the player is not what is being measured).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from navigation.agent import AgentSettings
from navigation.query import NavMeshQuery
from npc_ai.behaviour.perception import eye_rays
from npc_ai.body.coupling import CouplingSettings
from npc_ai.body.locomotor import Locomotor
from npc_ai.errors import NpcAiError
from scenes import World, groups

PLAYER_MODES = ("route", "wander", "still", "keyboard")


class PlayerSettingsError(NpcAiError, ValueError):
    """A player setting is out of range, or a player command got a bad argument (a NaN heading...)."""


class PlayerController(Protocol):
    """Your own player: called once per tick, in the decide phase, to steer the player's body.

    Any callable with this signature works: a function, a bound method, an object with `__call__` (a
    scripted route, a trained policy). It replaces the `PlayerSettings.mode`; the settings still give the
    speeds, the aim height and the footstep noises. Steer with the player's commands, which take effect in
    this tick's locomotion phase: `player.go_to(target, speed)` (a navmesh path), `player.move(speed,
    heading)` (walk freely), `player.stop()`; read `player.position`, `player.yaw`, `player.arrived`. Never
    step the world from a controller. Plug one in with `Simulation(scene, player_controller=f)`, or set
    `sim.player.controller = f` later (e.g. a closure over the simulation that reads `sim.npcs`).

    Args:
        player: the player to steer.
        time: simulated time [s].
        watchers: (k, 3) eye positions [m] of the NPCs that see the player now (k = 0 when unseen).
    """

    def __call__(self, player: Player, time: float, watchers: np.ndarray) -> None: ...


@dataclass(frozen=True)
class PlayerSettings:
    """How the player moves.

    Attributes:
        mode: "route" (the scene's route), "wander" (random navmesh points, hiding when seen), "still",
            or "keyboard" (arrow keys / WASD in the GUI; Shift runs).
        speed: travel speed [m/s, > 0]. run_speed: speed when hiding or running [m/s, >= speed].
        aim_height: NPCs look and shoot at this height above the feet [m, > 0].
        hide: in wander mode, run for cover when an NPC sees the player.
        hide_candidates: random navmesh points considered as cover each time [>= 1].
        hide_radius: cover is looked for within this distance [m, > 0].
        hide_s: after finding cover, the player runs there and looks for no other for this long [s, > 0].
        hide_retry_s: after a search that found no cover, the next waits this long [s, > 0] (each search
            casts one ray per watcher and candidate: with a crowd watching, searching every tick cost more
            than the rest of the tick).
        footstep_loudness: loudness of the footsteps of a player running at `run_speed`; slower steps are
            quieter in proportion to the speed (`footstep_loudness_at`) [>= 0; 0 = silent].
        footstep_speed: footsteps are made above this speed [m/s, >= 0].
        footstep_interval_s: one footstep noise every this many seconds [s, > 0].
        shot_loudness: the loudness of the player's shots (`Player.shoot`), heard at its feet [>= 0].
        shot_range: the length of its hit-scan ray [m, > 0].
    """

    mode: str = "wander"
    speed: float = 2.0
    run_speed: float = 3.5
    aim_height: float = 1.3
    hide: bool = True
    hide_candidates: int = 24
    hide_radius: float = 15.0
    hide_s: float = 3.0
    hide_retry_s: float = 0.5
    footstep_loudness: float = 0.3
    footstep_speed: float = 2.5
    footstep_interval_s: float = 0.5
    shot_loudness: float = 3.0
    shot_range: float = 40.0

    def footstep_loudness_at(self, speed: float) -> float:
        """The loudness of one footstep at `speed` [m/s]: `footstep_loudness * speed / run_speed` (louder
        when running), 0 at or below `footstep_speed`."""
        if speed <= self.footstep_speed:
            return 0.0
        return self.footstep_loudness * speed / self.run_speed

    def __post_init__(self) -> None:
        if self.mode not in PLAYER_MODES:
            raise PlayerSettingsError(
                f"player mode must be one of {', '.join(PLAYER_MODES)}, got {self.mode!r}"
            )
        positive = ("speed", "run_speed", "aim_height", "hide_radius", "hide_s", "hide_retry_s", "shot_range")
        for name in (*positive, "footstep_interval_s"):
            v = getattr(self, name)
            if not (isinstance(v, int | float) and math.isfinite(v) and v > 0):
                raise PlayerSettingsError(f"{name} must be a positive number, got {v!r}")
        if self.run_speed < self.speed:
            raise PlayerSettingsError(f"run_speed must be >= speed ({self.speed}), got {self.run_speed!r}")
        for name in ("footstep_loudness", "footstep_speed", "shot_loudness"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v >= 0):
                raise PlayerSettingsError(f"{name} must be a number >= 0, got {v!r}")
        if not (isinstance(self.hide_candidates, int) and self.hide_candidates >= 1):
            raise PlayerSettingsError(
                f"hide_candidates must be an integer >= 1, got {self.hide_candidates!r}"
            )


class Player:
    """The player character.

    Args:
        world, query: the world and navmesh query. position: feet [m]. yaw: [rad].
        settings: movement mode and speeds. rng: the player's Generator (derived from the world's).
        route: waypoints for "route" mode [m]. loop: restart the route at its end.
        controller: a `PlayerController` that steers the player every tick instead of `settings.mode`
            (also settable later as the `controller` attribute).
    """

    def __init__(
        self,
        world: World,
        query: NavMeshQuery,
        position: object,
        *,
        yaw: float = 0.0,
        settings: PlayerSettings | None = None,
        rng: np.random.Generator,
        route: Sequence[Sequence[float]] = (),
        loop: bool = True,
        controller: PlayerController | None = None,
    ) -> None:
        self.world = world
        self.query = query
        self.settings = settings if settings is not None else PlayerSettings()
        self.rng = rng
        self.locomotor = Locomotor(
            world,
            query,
            position,
            yaw=yaw,
            agent=AgentSettings(speed=self.settings.speed),
            coupling=CouplingSettings(mode="agent_drives", foot_lock=False),
            group=groups.PLAYER,
        )
        self.route = [np.asarray(p, dtype=np.float64) for p in route]
        self.loop = loop
        self.waypoint = 0
        self._search_after = -math.inf
        self.hides = 0
        self._next_step = 0.0
        self._goal: np.ndarray | None = None
        # the island the player stands on (its wander and cover points stay there); the main island if none
        here = query.polygon_at(self.locomotor.agent.next_position)
        self._island = int(query.mesh.islands[here]) if here >= 0 else query.mesh.main_island
        self.keys: dict[int, int] = {}
        self.controller = controller
        # the stance NPCs see: a crouching player fills their suspicion meters slower (the archetype's
        # `crouch_factor`); a controller or a script sets it
        self.crouching = False
        self.shots: list[np.ndarray] = []  # targets of shots asked for this tick (`shoot`)
        if self.settings.mode == "route" and not self.route:
            self.settings = PlayerSettings(**{**self.settings.__dict__, "mode": "wander"})

    def use_query(self, query: NavMeshQuery, remap: object) -> bool:
        """Move the player onto `query`, the query of an updated navmesh (`NavAgent.use_query`): its path
        re-planned if a rebuilt polygon is on it, its island looked up again; returns whether it
        re-planned."""
        replanned = self.locomotor.use_query(query, remap)
        self.query = query
        here = query.polygon_at(self.locomotor.agent.next_position)
        self._island = int(query.mesh.islands[here]) if here >= 0 else query.mesh.main_island
        return replanned

    # -- state -------------------------------------------------------------------------------------------
    @property
    def body(self) -> int:
        return self.locomotor.character.body

    @property
    def position(self) -> np.ndarray:
        return self.locomotor.position

    @property
    def yaw(self) -> float:
        """Heading of the body about Z [rad]."""
        return self.locomotor.yaw

    @property
    def arrived(self) -> bool:
        """The player reached the end of the path `go_to` gave it (see `Locomotor.arrived`)."""
        return self.locomotor.arrived

    @property
    def aim_point(self) -> np.ndarray:
        p = self.locomotor.position
        p[2] += self.settings.aim_height
        return p

    def warp(self, position: object) -> bool:
        """Teleport the player (snapped onto the mesh) and stop it."""
        self._goal = None
        self.locomotor.stop()
        return self.locomotor.warp(position)

    def go_to(self, target: object, speed: float | None = None) -> None:
        """Walk to `target` [m] (scripts and tests steer the player with this)."""
        self._goal = np.asarray(target, dtype=np.float64)
        self.locomotor.set_destination(self._goal, speed=speed or self.settings.speed)

    def move(self, speed: float, heading: float | None = None) -> None:
        """Walk freely (no path) at `speed` [m/s, >= 0] toward `heading` [rad] (None keeps the facing).

        Raises:
            PlayerSettingsError: a speed that is negative or not finite, or a heading that is not finite.
        """
        if isinstance(speed, bool) or not (
            isinstance(speed, int | float) and math.isfinite(speed) and speed >= 0
        ):
            raise PlayerSettingsError(f"move speed must be a finite number of m/s >= 0, got {speed!r}")
        if heading is not None and not (isinstance(heading, int | float) and math.isfinite(heading)):
            raise PlayerSettingsError(
                f"move heading must be a finite angle in radians or None, got {heading!r}"
            )
        self._goal = None
        self.locomotor.move_freely(float(speed), None if heading is None else float(heading))

    def shoot(self, target: object) -> None:
        """Fire a hit-scan shot at `target` [m] (3 numbers) in this tick's decide phase: NPCs it hits or
        passes within their `under_fire_radius` are under fire (those with `cover` take it), and it is
        heard (`shot_loudness`).

        Raises:
            PlayerSettingsError: a target that is not 3 finite numbers.
        """
        t = np.asarray(target, dtype=np.float64) if not isinstance(target, str) else np.zeros(0)
        if t.shape != (3,) or not np.isfinite(t).all():
            raise PlayerSettingsError(f"shoot needs a target of 3 finite numbers [m], got {target!r}")
        self.shots.append(t)

    def fire(self, target: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        """The hit-scan ray of one shot at `target`: (start, end [m], body hit or -1); it starts just
        outside the player's capsule at its aim point and ends at what it hits or at `shot_range`."""
        start = self.aim_point
        direction = target - start
        direction = direction / max(float(np.linalg.norm(direction)), 1e-9)
        start = start + direction * (self.locomotor.character.radius + 0.02)
        end = start + direction * self.settings.shot_range
        hits = self.world.ray_test(start[None], end[None])
        return start, hits.point[0].copy(), int(hits.body[0])

    def stop(self) -> None:
        """Drop any path and come to a stop."""
        self._goal = None
        self.locomotor.stop()

    # -- the tick ----------------------------------------------------------------------------------------
    def decide(self, time: float, watchers: np.ndarray) -> tuple[np.ndarray, float] | None:
        """Choose where to go: the `controller` when there is one, else the settings' mode; `watchers`
        (k, 3) are the eyes of the NPCs that see the player now.

        Returns a footstep noise when one is made this tick: its position [m] and loudness (else None).
        """
        mode = self.settings.mode
        if self.controller is not None:
            self.controller(self, time, watchers)
        elif mode == "route":
            self._follow_route()
        elif mode == "wander":
            self._wander(time, watchers)
        elif mode == "keyboard":
            self._keyboard()
        s = self.settings
        if s.footstep_loudness > 0 and time >= self._next_step:
            loudness = s.footstep_loudness_at(self.locomotor.speed)
            if loudness > 0:
                self._next_step = time + s.footstep_interval_s
                return self.position, loudness
        return None

    def _follow_route(self) -> None:
        if self._goal is None or self.locomotor.arrived or not self.locomotor.agent.has_path:
            if self._goal is not None:
                self.waypoint += 1
                if self.waypoint >= len(self.route):
                    if not self.loop:
                        self.locomotor.stop()
                        return
                    self.waypoint = 0
            self.go_to(self.route[self.waypoint])

    def _wander(self, time: float, watchers: np.ndarray) -> None:
        s = self.settings
        if s.hide and len(watchers) and time >= self._search_after:
            cover = self._find_cover(watchers)
            if cover is None:
                self._search_after = time + s.hide_retry_s  # no cover now: search again a little later
            else:
                self.hides += 1
                self._search_after = time + s.hide_s
                self.go_to(cover, s.run_speed)
                return
        if self._goal is None or self.locomotor.arrived or not self.locomotor.agent.has_path:
            p, _ = self.query.random_point(self.rng, islands=self._island)
            self.go_to(p)

    def _find_cover(self, watchers: np.ndarray) -> np.ndarray | None:
        """The nearest of some random navmesh points within `hide_radius` that no watcher can see (one
        ray batch for all watcher x candidate pairs)."""
        s = self.settings
        pts, _ = self.query.random_points(self.rng, s.hide_candidates * 4, islands=self._island)
        here = self.position
        d = np.linalg.norm(pts[:, :2] - here[:2], axis=1)
        keep = d <= s.hide_radius
        pts, d = pts[keep][: s.hide_candidates], d[keep][: s.hide_candidates]
        if len(pts) == 0:
            return None
        aims = pts + np.array([0.0, 0.0, s.aim_height])
        eyes = np.repeat(watchers, len(aims), axis=0)
        targets = np.tile(aims, (len(watchers), 1))
        starts, ends = eye_rays(eyes, targets, 0.6)
        hits = self.world.ray_test(starts, ends, mask=groups.STATIC)
        hidden = hits.hit.reshape(len(watchers), len(aims)).all(axis=0)
        if not hidden.any():
            return None
        i = int(np.flatnonzero(hidden)[np.argmin(d[hidden])])
        return pts[i]

    def _keyboard(self) -> None:
        """Arrow keys or WASD move along the world axes (up = +Y); Shift runs; no key stops."""
        try:
            events = self.world.client.getKeyboardEvents()
        except Exception:  # no GUI: nothing pressed
            events = {}
        import pybullet as pb

        down = {k for k, v in events.items() if v & pb.KEY_IS_DOWN}
        x = float(bool(down & {pb.B3G_RIGHT_ARROW, ord("d")})) - float(
            bool(down & {pb.B3G_LEFT_ARROW, ord("a")})
        )
        y = float(bool(down & {pb.B3G_UP_ARROW, ord("w")})) - float(
            bool(down & {pb.B3G_DOWN_ARROW, ord("s")})
        )
        if x == 0 and y == 0:
            self.locomotor.stop()
            return
        run = pb.B3G_SHIFT in down
        speed = self.settings.run_speed if run else self.settings.speed
        self.locomotor.move_freely(speed, math.atan2(y, x))

    def before_physics(self, dt: float) -> None:
        self.locomotor.before_physics(dt)

    def after_physics(self) -> None:
        self.locomotor.after_physics()
