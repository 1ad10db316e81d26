"""One episode's world, shared by every environment: the simulation in the env's own PyBullet client, the
goals, which agents a learner drives, and what each agent has perceived.

A `Match` owns one physics client for its whole life. `start` empties it (`resetSimulation`) and builds a
fresh `Simulation` of the episode's scene into it, so an episode never depends on the ones before it;
`close` disconnects the client.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from navigation.angles import wrap_angle
from navigation.navmesh import NavMesh
from npc_ai.behaviour import BehaviourSettings, Npc
from npc_ai.envs.config import DIFFICULTIES, EnvConfig, load_scene
from npc_ai.envs.errors import EnvError, EnvOptionsError, RenderModeError
from npc_ai.envs.sensing import ALERT_STATES, Senses
from npc_ai.errors import NpcAiError
from npc_ai.sim.player import Player, PlayerSettings
from npc_ai.sim.simulation import NpcController, Simulation, SimulationSettings
from scenes import Scene, SceneError, WorldSettings, new_client

PLAYER_SETTINGS = PlayerSettings(mode="wander", speed=2.0, run_speed=3.5)  # the learning player's speeds
EYE = 1.6  # [m] the learning player's eye height
_EYE = np.array([0.0, 0.0, EYE])  # feet -> the player's eye [m]
_CHEST = np.array([0.0, 0.0, 1.2])  # feet -> a guard's chest, where the player looks [m]


@dataclass
class Command:
    """What a learner asked of one agent for this env step: speed [m/s] and turn rate [rad/s]."""

    speed: float = 0.0
    turn_rate: float = 0.0


@dataclass
class Tally:
    """What happened during one env step (the rewards are made from it).

    Attributes:
        seen_s: time the learning player was seen by at least one guard [s] (its reward's detection
            term; not counted, 0, when the player is scripted: no reward reads it then).
        guard_sight_s: per guard, time it saw the player [s].
        hits: per guard, hits it scored on the player this step.
        goals: goals the player reached this step.
    """

    seen_s: float = 0.0
    guard_sight_s: np.ndarray = field(default_factory=lambda: np.zeros(0))
    hits: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    goals: int = 0


class Match:
    """A reusable episode: one client, rebuilt worlds.

    Args:
        gui: open the client in PyBullet's GUI (render_mode "human").
    """

    def __init__(self, gui: bool = False) -> None:
        self.gui = gui
        try:
            self.client = new_client(gui)
        except Exception as exc:  # pybullet.error: PyBullet allows one GUI client per process
            if not gui:
                raise
            raise RenderModeError(
                f"render_mode='human' could not open the PyBullet GUI ({exc}); PyBullet allows one GUI "
                "window per process: close the other human-mode env, or use render_mode='rgb_array'"
            ) from None
        self.sim: Simulation | None = None
        self.config: EnvConfig | None = None
        self._scenes: dict[object, Scene] = {}
        self._meshes: dict[int, NavMesh] = {}  # id of a scene in `_scenes` -> its navmesh
        self.commands: dict[int, Command] = {}  # guard index -> its learner's command
        self.player_command: Command | None = None  # None: the player is scripted
        self.closed = False

    # -- episodes ----------------------------------------------------------------------------------------
    def scene_of(self, config: EnvConfig) -> Scene:
        """The config's scene (loaded once per name)."""
        key = id(config.scene) if isinstance(config.scene, Scene) else str(config.scene)
        if key not in self._scenes:
            self._scenes[key] = load_scene(config)
        return self._scenes[key]

    def start(
        self, config: EnvConfig, seed: int, *, learning_guards: tuple[int, ...], learning_player: bool
    ) -> None:
        """Build a new episode (the old one is dropped).

        Raises:
            EnvOptionsError: the scene cannot be loaded or simulated (nothing changes then: the previous
                episode stays current).
        """
        scene = self.scene_of(config)  # may raise before anything is torn down
        count = config.guards if config.guards is not None else min(len(scene.npcs), config.max_guards)
        if count < len(learning_guards) or any(g >= max(count, 1) for g in learning_guards):
            raise EnvOptionsError(f"this env drives guard 0, so it needs at least 1 guard, got {count}")
        world = WorldSettings(dt=config.dt, visuals=self.gui)
        player = PLAYER_SETTINGS if learning_player else PlayerSettings(mode="wander")
        settings = SimulationSettings(
            npcs=count, player=player, trail_every=0, world=world, bodies=config.bodies
        )
        self.sim = None  # its bodies go with the reset
        self.client.resetSimulation()
        try:
            sim = Simulation(
                scene,
                seed=seed,
                settings=settings,
                client=self.client,
                navmesh=self._meshes.get(id(scene)),
            )
        except (SceneError, NpcAiError) as exc:
            self.client.resetSimulation()
            raise EnvOptionsError(f"cannot simulate scene {scene.name!r}: {exc}") from exc
        self._meshes[id(scene)] = sim.query.mesh
        self.sim, self.config = sim, config
        self.rng = np.random.default_rng(seed)
        self.senses = Senses(sim.world, config.rays, config.ray_range, config.ray_height)
        tweaks = DIFFICULTIES[config.difficulty]
        if tweaks:  # the scripted guards' difficulty; a learner keeps the scene's senses
            for npc in sim.npcs:
                if npc.index not in learning_guards:
                    npc.settings = _tweaked(npc.settings, tweaks)
        self.commands = {g: Command() for g in learning_guards}
        for g in learning_guards:
            sim.control(g, self._guard_controller(g))
        self.player_command = Command() if learning_player else None
        if not (sim.player is not None):
            raise EnvError("the simulation has no player")
        if learning_player:
            sim.player.controller = self._player_controller
        n = len(sim.npcs)
        # fixed for the episode: read once, not every step
        self.bodies = np.array([npc.body for npc in sim.npcs], dtype=np.int64)
        self.guard_radii = np.array([npc.locomotor.character.radius for npc in sim.npcs], dtype=np.float64)
        self.player_radius = float(sim.player.locomotor.character.radius)
        self._sight_half_angle = math.radians(config.sight_half_angle_deg)
        self._path_key: tuple[bytes, int] | None = None  # the player's position and goal of `_path`'s answer
        self.steps = 0
        self.caught = False
        self.just_caught = False
        self.caught_by: set[int] = set()  # the guards credited with the catch
        self.tally = Tally(guard_sight_s=np.zeros(n), hits=np.zeros(n, dtype=np.int64))
        self._hits_before = np.zeros(n, dtype=np.int64)
        self.hits_taken = 0
        # the player's memory of each guard slot (max_guards; slots past the n guards stay unknown): position,
        # time (-inf: never seen), facing, alert, and whether it sees the guard now
        slots = config.max_guards
        self.seen_pos = np.zeros((slots, 3))
        self.seen_time = np.full(slots, -np.inf)
        self.seen_yaw = np.zeros(slots)
        self.seen_alert = np.zeros(slots, dtype=bool)
        self.visible = np.zeros(slots, dtype=bool)
        self.prev_yaw = np.array([npc.yaw for npc in sim.npcs] + [sim.player.yaw])
        self.yaw_rate = np.zeros(n + 1)
        self.goals: list[np.ndarray] = self._draw_goals(config, sim.player) if learning_player else []
        self.goal_index = 0
        self.path_length, self.corner = self._path(sim.player.position)

    def close(self) -> None:
        """Disconnect the client (idempotent)."""
        if not self.closed:
            self.sim = None
            self.client.disconnect()
            self.closed = True

    # -- controllers (called by the simulation every tick) ------------------------------------------------
    def _guard_controller(self, index: int) -> NpcController:
        def control(npc: Npc, time: float) -> None:
            cmd = self.commands[index]
            memory = npc.memory
            if memory is not None and memory.age(time) > npc.settings.memory_expiry_s:
                npc.memory = None
            npc.walk(cmd.speed, npc.yaw + cmd.turn_rate * npc.dt)
            if npc.sees:
                self.tally.guard_sight_s[index] += npc.dt
                self._maybe_fire(npc, time)

        return control

    def _maybe_fire(self, npc: Npc, time: float) -> None:
        """A learning guard fires by itself, as a scripted one would: when it has seen the player for its
        reaction time, faces it within its aim tolerance and its cooldown is over."""
        s, point = npc.settings, npc.target_point
        if point is None or npc.seen_since is None or time < npc.cooldown_until - 1e-9:
            return
        if time - npc.seen_since < s.reaction_time_s - 1e-9:
            return
        if abs(wrap_angle(npc.heading_to(point) - npc.yaw)) > math.radians(s.aim_tolerance_deg):
            return
        if self.sim is None:
            raise EnvError("the env's world is not ready: call reset() first")
        npc.cooldown_until = time + s.shoot_cooldown_s
        result = self.sim.hitscan(npc)
        npc.shots += 1
        npc.hits += int(bool(result.get("hit")))
        npc.record("shoot", learner=True, **result)

    def _player_controller(self, player: Player, time: float, watchers: np.ndarray) -> None:
        cmd = self.player_command
        if cmd is None:
            raise EnvError("the env's world is not ready: call reset() first")
        if len(watchers):
            self.tally.seen_s += player.world.dt
        player.move(cmd.speed, player.yaw + cmd.turn_rate * player.world.dt)

    # -- the step -----------------------------------------------------------------------------------------
    def advance(self) -> Tally:
        """Run one env step (frame_skip ticks) with the current commands; return what happened."""
        sim, cfg = self.sim, self.config
        if not (sim is not None and cfg is not None and sim.player is not None):
            raise EnvError("the env's world is not ready: call reset() first")
        n = len(sim.npcs)
        self.tally = Tally(guard_sight_s=np.zeros(n), hits=np.zeros(n, dtype=np.int64))
        for _ in range(cfg.frame_skip):  # the learning player's controller counts seen_s
            sim.step()
        self.steps += 1
        hits = np.array([npc.hits for npc in sim.npcs], dtype=np.int64)
        self.tally.hits = hits - self._hits_before
        self._hits_before = hits
        self.hits_taken += int(self.tally.hits.sum())
        yaws = np.append(sim.locomotion.yaw, sim.player.yaw)
        self.yaw_rate = wrap_angle(yaws - self.prev_yaw) / cfg.step_s
        self.prev_yaw = yaws
        here = sim.player.position
        while self.goals and self.goal_index < len(self.goals):
            if float(np.hypot(*(self.goals[self.goal_index] - here)[:2])) > cfg.goal_radius:
                break
            self.goal_index += 1
            self.tally.goals += 1
        self.path_length, self.corner = self._path(here)
        near = [False] * n  # guards that see the player within catch_radius
        seeing = [i for i, npc in enumerate(sim.npcs) if npc.sees]
        if seeing:
            d = sim.locomotion.positions[seeing, :2] - here[:2]
            for i, close in zip(
                seeing, (np.hypot(d[:, 0], d[:, 1]) <= cfg.catch_radius).tolist(), strict=True
            ):
                near[i] = close
        touching = cfg.catch_radius > 0 and any(near)
        was = self.caught
        self.caught = was or self.hits_taken >= cfg.hits_to_catch or touching
        self.just_caught = self.caught and not was
        if self.just_caught:  # credit: every guard that hit the player this episode, or touched it now
            self.caught_by = {
                i for i, (h, close) in enumerate(zip(hits.tolist(), near, strict=True)) if h > 0 or close
            }
        return self.tally

    @property
    def goals_left(self) -> int:
        return len(self.goals) - self.goal_index

    @property
    def time_left(self) -> float:
        if self.config is None:
            raise EnvError("the env's world is not ready: call reset() first")
        return max(0.0, self.config.time_limit_s - self.steps * self.config.step_s)

    @property
    def out_of_time(self) -> bool:
        if self.config is None:
            raise EnvError("the env's world is not ready: call reset() first")
        return self.steps >= self.config.max_steps

    # -- perception of the learning player ------------------------------------------------------------------
    def player_sight_rays(
        self, here: np.ndarray, positions: np.ndarray
    ) -> tuple[np.ndarray, list[list[float]], list[list[float]]]:
        """(candidates, starts, ends): the guards inside the player's view (range and half angle) and the
        rays from its eye to their chests.

        Args:
            here: the player's feet [m]. positions: (n, 3) every guard's feet [m].
        """
        sim, cfg = self.sim, self.config
        if not (sim is not None and cfg is not None and sim.player is not None):
            raise EnvError("the env's world is not ready: call reset() first")
        eye = here + _EYE
        chests = positions.reshape(-1, 3) + _CHEST  # every guard at once
        d = chests[:, :2] - eye[:2]
        dist = np.hypot(d[:, 0], d[:, 1])
        bearing = wrap_angle(np.arctan2(d[:, 1], d[:, 0]) - sim.player.yaw)
        reach, half = cfg.sight_range, self._sight_half_angle
        cand = [
            i
            for i, (r, b) in enumerate(zip(dist.tolist(), bearing.tolist(), strict=True))
            if r <= reach and abs(b) <= half
        ]
        if not cand:
            return np.zeros(0, dtype=np.int64), [], []
        # plain floats for the few candidates: the same arithmetic as numpy's (v / max(|v|, 1e-9), with
        # |v| summed as np.linalg.norm sums it: (x^2 + y^2) + z^2)
        (ex, ey, ez), clearance = eye.tolist(), self.player_radius + 0.05
        starts, ends = [], []
        for cx, cy, cz in chests[cand].tolist():
            vx, vy, vz = cx - ex, cy - ey, cz - ez
            norm = max(math.sqrt((vx * vx + vy * vy) + vz * vz), 1e-9)
            starts.append(
                [ex + vx / norm * clearance, ey + vy / norm * clearance, ez + vz / norm * clearance]
            )
            ends.append([cx, cy, cz])
        return np.array(cand, dtype=np.int64), starts, ends

    def update_player_memory(
        self, candidates: np.ndarray, first_hit: np.ndarray, positions: np.ndarray
    ) -> None:
        """Record the guards the player sees now (their line of sight hit the guard itself first).

        Args:
            positions: (n, 3) every guard's feet now [m].
        """
        sim = self.sim
        if sim is None:
            raise EnvError("the env's world is not ready: call reset() first")
        self.visible[:] = False
        seen = candidates[first_hit == self.bodies[candidates]]
        if seen.size == 0:
            return
        self.visible[seen] = True
        self.seen_pos[seen] = positions[seen]
        self.seen_time[seen] = sim.time
        self.seen_yaw[seen] = sim.locomotion.yaw[seen]
        for i in seen.tolist():
            npc = sim.npcs[i]
            self.seen_alert[i] = npc.state in ALERT_STATES or (i in self.commands and npc.sees)

    # -- goals ---------------------------------------------------------------------------------------------
    def _draw_goals(self, cfg: EnvConfig, player: Player) -> list[np.ndarray]:
        if self.sim is None:
            raise EnvError("the env's world is not ready: call reset() first")
        query = self.sim.query
        here = query.polygon_at(player.position)
        island = int(query.mesh.islands[here]) if here >= 0 else query.mesh.main_island
        goals, last = [], player.position
        for _ in range(cfg.goals):
            points, _ = query.random_points(self.rng, 32, islands=island)
            d = np.hypot(*(points[:, :2] - last[:2]).T)
            far = np.flatnonzero(d >= cfg.goal_min_distance)
            pick = int(far[0]) if far.size else int(np.argmax(d))
            last = points[pick].copy()
            goals.append(last)
        return goals

    def _path(self, here: np.ndarray) -> tuple[float, np.ndarray]:
        """Navmesh path length from `here` (the player's feet) to the current goal [m] and the path's next
        corner (the goal itself when none; `here` when no goal is left)."""
        sim = self.sim
        if sim is None:
            raise EnvError("the env's world is not ready: call reset() first")
        if not self.goals or self.goal_index >= len(self.goals):
            return 0.0, here
        goal = self.goals[self.goal_index]
        # find_path is a pure function of (mesh, start, goal): an unmoved player keeps its answer. A moved
        # one asks again: no cheaper test proves the shortest path unchanged (a nearer corner may come into
        # view, or the way round an obstacle on its other side become the shorter one)
        key = (here.tobytes(), self.goal_index)
        if key == self._path_key:
            return self.path_length, self.corner
        self._path_key = key
        path = sim.query.find_path(here, goal)
        if len(path.points) < 2:
            return float(np.hypot(*(goal - here)[:2])), goal
        return path.length, path.points[1]


def _tweaked(settings: BehaviourSettings, tweaks: dict[str, float]) -> BehaviourSettings:
    values: dict[str, Any] = dict(tweaks)
    if "sight_radius" in values:  # keep the lose-sight radius at least as large
        values["lose_sight_radius"] = max(settings.lose_sight_radius, values["sight_radius"])
    return dataclasses.replace(settings, **values)
