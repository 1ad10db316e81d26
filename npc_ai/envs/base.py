"""What the single-learner Gymnasium environments share: construction from `EnvConfig` keywords, seeding,
`reset(options=...)`, action checks, rendering and closing. `StealthEnv` and `GuardEnv` add their role.
"""

from __future__ import annotations

import abc
import dataclasses
import time
from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from npc_ai.envs.actions import Gaits, action_space, decode
from npc_ai.envs.config import EnvConfig
from npc_ai.envs.errors import EnvError, EnvOptionsError
from npc_ai.envs.match import Match, Tally
from npc_ai.envs.render import TopDown, check_render_mode, display_available

RENDER_MODES = ["rgb_array", "human"] if display_available() else ["rgb_array"]


def make_config(settings: dict[str, Any]) -> EnvConfig:
    """An `EnvConfig` from keyword arguments, with a typed error for unknown ones."""
    known = {f.name for f in dataclasses.fields(EnvConfig)}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise EnvOptionsError(f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return EnvConfig(**settings)


class RoleEnv(gym.Env[dict[str, Any], Any], abc.ABC):
    """A Gymnasium env whose learner plays one role in a `Match` (see `StealthEnv`, `GuardEnv`).

    Args:
        render_mode: None, "rgb_array" (top-down frames) or "human" (the PyBullet GUI; needs a display).
        **settings: `EnvConfig` fields (scene, guards, difficulty, frame_skip, action_type, ...).
    Raises:
        EnvOptionsError: an unknown or bad setting. RenderModeError: a bad render mode.
    """

    # "human" is listed only where a display exists, so `check_env` can make every listed mode
    metadata: dict[str, Any] = {"render_modes": RENDER_MODES, "render_fps": 15}  # noqa: RUF012
    learning_guards: ClassVar[tuple[int, ...]] = ()
    learning_player: ClassVar[bool] = False
    defaults: ClassVar[dict[str, Any]] = {}  # this role's own defaults, under the caller's settings

    def __init__(self, render_mode: str | None = None, **settings: Any) -> None:
        check_render_mode(render_mode, RENDER_MODES)
        self.config = make_config({**self.defaults, **settings})
        self.render_mode = render_mode
        self.metadata = {**type(self).metadata, "render_fps": 1.0 / self.config.step_s}
        self.action_space = action_space(self.config.action_type)
        self.observation_space = self._observation_space()
        self.match = Match(gui=render_mode == "human")
        self._renderer: TopDown | None = None
        self._done = False

    # -- the role ------------------------------------------------------------------------------------------
    @abc.abstractmethod
    def _observation_space(self) -> gym.spaces.Dict:
        """Each role (learning player, learning guard) defines it."""

    @abc.abstractmethod
    def _gaits(self) -> Gaits:
        """Each role (learning player, learning guard) defines it."""

    @abc.abstractmethod
    def _apply(self, speed: float, turn_rate: float) -> None:
        """Each role (learning player, learning guard) defines it."""

    @staticmethod
    @abc.abstractmethod
    def _observe_worlds(matches: Sequence[Match]) -> dict[str, np.ndarray]:
        """Each role: the learner's observation in each world, one row per world (one pass for all of a
        vector env's worlds; a single env is a batch of one)."""

    @staticmethod
    @abc.abstractmethod
    def _rewards(matches: Sequence[Match], tallies: Sequence[Tally], path_before: np.ndarray) -> np.ndarray:
        """Each role: the learner's reward in each world for the step just taken (path_before: each world's
        path length to the player's goal before it [m])."""

    def _observe(self) -> dict[str, Any]:
        return {k: v[0] for k, v in self._observe_worlds([self.match]).items()}

    @abc.abstractmethod
    def _reward(self, tally: Tally, path_before: float) -> float:
        """Each role: `_rewards` for this env's one world (the same formula, on scalars)."""

    @abc.abstractmethod
    def _terminated(self) -> bool:
        """Each role (learning player, learning guard) defines it."""

    def _info(self) -> dict[str, Any]:
        m = self.match
        if m.sim is None:
            raise EnvError("the env has no world yet: call reset() first")
        return {
            "time_s": float(m.sim.time),
            "hits_taken": int(m.hits_taken),
            "caught": bool(m.caught),
            "goals_reached": int(m.goal_index),
            "guards": len(m.sim.npcs),
        }

    # -- the API ---------------------------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode. options: "scene", "guards", "difficulty" (this episode only; see `EnvConfig`).

        Raises:
            EnvOptionsError: an unknown option key or a bad value; the env keeps its previous episode (and,
                for a bad key or value, its random generator untouched) and can be reset again.
        """
        self._start(seed, options)
        if self.render_mode == "human":
            self._aim_gui_camera()
        return self._observe(), self._info()

    def _start(self, seed: int | None, options: dict[str, Any] | None) -> None:
        """`reset` up to the observation (the native vector env observes all its worlds at once)."""
        config = self.config.with_options(options)  # before seeding: a bad option changes nothing
        super().reset(seed=seed)
        state = self.np_random.bit_generator.state
        sim_seed = int(self.np_random.integers(0, 2**31 - 1))
        try:
            self.match.start(
                config, sim_seed, learning_guards=self.learning_guards, learning_player=self.learning_player
            )
        except EnvError:  # as if this reset had not been asked for: the next one draws the same seed
            self.np_random.bit_generator.state = state
            raise
        self._renderer = None
        self._done = False

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Hold `action` for `frame_skip` ticks.

        Raises:
            ActionError: an action outside the action space (nothing is stepped).
            EnvError: step before the first reset.
        """
        if self.match.sim is None:
            raise EnvError("call reset() before step()")
        speed, turn_rate = decode(action, self.config.action_type, self._gaits())
        self._apply(speed, turn_rate)
        path_before = self.match.path_length
        tally = self.match.advance()
        if self.render_mode == "human":
            self._pace()
        obs = self._observe()
        terminated = self._terminated()
        truncated = self.match.out_of_time and not terminated
        return obs, self._reward(tally, path_before), terminated, truncated, self._info()

    def render(self) -> np.ndarray | None:
        """rgb_array: an (H, W, 3) uint8 top-down frame; human: None (the GUI window shows the world, and
        `step` keeps to real time)."""
        if self.render_mode != "rgb_array" or self.match.sim is None:
            return None
        if self._renderer is None:
            self._renderer = TopDown(self.match)
        return self._renderer.frame()

    def _pace(self) -> None:
        """Human mode: hold each step to its simulated duration of wall time, so the GUI plays in real
        time (never sleeps in the other modes)."""
        now = time.perf_counter()
        due = getattr(self, "_next_frame", now)
        if due > now:
            time.sleep(due - now)
        self._next_frame = max(due, now) + self.config.step_s

    def _aim_gui_camera(self) -> None:
        sim = self.match.sim
        if sim is None:
            raise EnvError("the env has no world yet: call reset() first")
        lo, hi = sim.world.static_bounds()
        centre = (lo + hi) / 2
        span = float(max(hi[0] - lo[0], hi[1] - lo[1]))
        self.match.client.resetDebugVisualizerCamera(span * 0.9, 0.0, -70.0, centre.tolist())

    def close(self) -> None:
        """Disconnect the env's PyBullet client (safe to call twice)."""
        self.match.close()
