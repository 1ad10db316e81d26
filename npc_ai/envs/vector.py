"""A native batched `VectorEnv`: N independent worlds (one PyBullet client each) stepped in one process.

What is batched: action checking and decoding (one numpy pass for all N); the observations (each world
casts its one ray batch, then every observation array is built for all N at once: `npc_ai.envs.observe`);
rewards, flags and the infos as arrays in one pass each; the autoreset bookkeeping (which worlds end, which
restart) as masks. What is not: each world's tick and its ray batch, because every world is its own physics
client and its own batched simulation core; the N worlds are stepped one after the other. Autoreset follows
Gymnasium's default (next step): a sub-env that ended is reset on the following `step`, whose action for it
is ignored, and returns its first observation with reward 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from npc_ai.envs.actions import decode_batch
from npc_ai.envs.base import RoleEnv
from npc_ai.envs.errors import EnvError, EnvOptionsError
from npc_ai.envs.guard import GuardEnv
from npc_ai.envs.stealth import StealthEnv


class NativeVectorEnv(VectorEnv):
    """N copies of one `RoleEnv` class in one process.

    Args:
        env_class: `StealthEnv` or `GuardEnv`. num_envs: how many worlds [>= 1].
        render_mode: None or "rgb_array" (`render` returns one frame per world).
        **settings: `EnvConfig` fields, shared by every world.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": ["rgb_array"],
    }

    def __init__(
        self, env_class: type[RoleEnv], num_envs: int = 1, render_mode: str | None = None, **settings: Any
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise EnvOptionsError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        if render_mode not in (None, "rgb_array"):
            raise EnvOptionsError(f"a vector env renders None or 'rgb_array', got {render_mode!r}")
        settings.pop("max_episode_steps", None)  # the worlds truncate by simulated time themselves
        self.env_class = env_class
        self.envs = [env_class(render_mode=render_mode, **settings) for _ in range(num_envs)]
        first = self.envs[0]
        self.num_envs = num_envs
        self.render_mode = render_mode
        self.metadata = {**type(self).metadata, "render_fps": first.metadata["render_fps"]}
        self.single_observation_space = first.observation_space
        space: Any = first.observation_space
        self._obs_keys = tuple(space.spaces)  # a Dict space's keys, in its order
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._ended = np.zeros(num_envs, dtype=bool)
        self._started = False
        self.closed = False

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every world; `seed` an int (world i gets seed + i), a list, or None.

        options: as `RoleEnv.reset`, plus "reset_mask" (a (num_envs,) bool array: reset only those).
        """
        if seed is None or isinstance(seed, int):
            seeds: list[int | None] = [None if seed is None else seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise EnvOptionsError(f"seed must be an int or {self.num_envs} seeds, got {len(seeds)}")
        options = dict(options or {})
        mask = np.asarray(options.pop("reset_mask", np.ones(self.num_envs, dtype=bool)), dtype=bool)
        if mask.shape != (self.num_envs,):
            raise EnvOptionsError(f"reset_mask must have shape ({self.num_envs},), got {mask.shape}")
        self.envs[0].config.with_options(options)  # an unknown key or bad value: no world is reset
        for i, env in enumerate(self.envs):
            if mask[i] or not self._started:
                env._start(seeds[i], options)
                self._ended[i] = False
        self._started = True
        return self._observations(), self._infos()

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every world with its row of `actions` (checked all at once first).

        Raises:
            ActionError: any row outside the single action space (no world is stepped).
        """
        if not self._started:
            raise EnvError("call reset() before step()")
        first = self.envs[0]
        gaits = [env._gaits() for env in self.envs]
        commands = decode_batch(
            actions,
            first.config.action_type,
            np.array([g.run for g in gaits]),
            np.array([g.walk for g in gaits]),
        )
        live = np.flatnonzero(~self._ended)
        stepped = [self.envs[i] for i in live]
        path_before = np.array([env.match.path_length for env in stepped], dtype=np.float64)
        tallies = []
        for i, env in zip(live.tolist(), stepped, strict=True):
            env._apply(float(commands[i, 0]), float(commands[i, 1]))
            tallies.append(env.match.advance())
        for i in np.flatnonzero(self._ended).tolist():  # autoreset: the ended worlds start again
            self.envs[i]._start(None, None)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        observations = self._observations()
        if stepped:
            matches = [env.match for env in stepped]
            rewards[live] = self.env_class._rewards(matches, tallies, path_before)
            terminated[live] = [env._terminated() for env in stepped]
            truncated[live] = np.array([m.out_of_time for m in matches]) & ~terminated[live]
        self._ended = terminated | truncated
        return observations, rewards, terminated, truncated, self._infos()

    def _observations(self) -> dict[str, np.ndarray]:
        """Every world's observation, built in one pass (fresh arrays, in the space's key order)."""
        obs = self.env_class._observe_worlds([env.match for env in self.envs])
        return {k: obs[k] for k in self._obs_keys}

    def _infos(self) -> dict[str, Any]:
        """Every world's info as Gymnasium's vector infos: one array per key (the dtype of the key's
        value), each with its `_key` mask (all set: every world has every key)."""
        per_world = [env._info() for env in self.envs]
        infos: dict[str, Any] = {}
        for key, value in per_world[0].items():
            infos[key] = np.array([info[key] for info in per_world], dtype=type(value))
            infos[f"_{key}"] = np.ones(self.num_envs, dtype=np.bool_)
        return infos

    def render(self) -> tuple[Any, ...] | None:
        """One top-down frame per world (render_mode "rgb_array"), else None."""
        if self.render_mode != "rgb_array":
            return None
        return tuple(env.render() for env in self.envs)

    def close_extras(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()


class StealthVectorEnv(NativeVectorEnv):
    """`npc_ai/Stealth-v0`'s `vector_entry_point`."""

    def __init__(self, num_envs: int = 1, render_mode: str | None = None, **settings: Any) -> None:
        super().__init__(StealthEnv, num_envs, render_mode, **settings)


class GuardVectorEnv(NativeVectorEnv):
    """`npc_ai/Guard-v0`'s `vector_entry_point`."""

    def __init__(self, num_envs: int = 1, render_mode: str | None = None, **settings: Any) -> None:
        super().__init__(GuardEnv, num_envs, render_mode, **settings)
