"""`guards_v0`: a PettingZoo Parallel env where every guard is an agent ("guard_0" ... "guard_{n-1}"), with
an optional learning player ("player"; otherwise the player is scripted: it wanders and runs for cover).

- Guards observe and act as `npc_ai/Guard-v0`'s learner does (they fire by themselves when aimed), and are
  rewarded the same way; the player as `npc_ai/Stealth-v0`'s (goals, detection, hits).
- The episode ends for everyone at once: terminated when the player is caught (or, when it learns, reaches
  its last goal), truncated at `time_limit_s`. Agents that leave never come back: `agents` is empty until
  the next `reset`.
- `possible_agents` is fixed at construction (`guards` guards, the scene's spawns when None); the "guards"
  reset option may ask for fewer (the first ones play), never more.

Use `parallel_env(**settings)` (or `env(...)` for the AEC form); settings are `EnvConfig` fields.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv  # type: ignore[import-untyped]
from pettingzoo.utils.conversions import parallel_to_aec  # type: ignore[import-untyped]

from npc_ai.envs.actions import Gaits, action_space, decode
from npc_ai.envs.base import RENDER_MODES, make_config
from npc_ai.envs.errors import ActionError, EnvError, EnvOptionsError
from npc_ai.envs.match import PLAYER_SETTINGS, Match, Tally
from npc_ai.envs.observe import guard_rewards, observe, player_reward
from npc_ai.envs.render import TopDown, check_render_mode
from npc_ai.envs.sensing import observation_space

PLAYER = "player"


class GuardsParallelEnv(ParallelEnv):  # type: ignore[misc]
    """Every guard an agent (see the module doc).

    Args:
        render_mode: None, "rgb_array" or "human" (needs a display).
        learning_player: add the "player" agent (else the player is scripted).
        **settings: `EnvConfig` fields; `guards` (>= 1) fixes `possible_agents`.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012
        "name": "guards_v0",
        "render_modes": RENDER_MODES,
        "render_fps": 15,
        "is_parallelizable": True,
    }

    def __init__(
        self, render_mode: str | None = None, learning_player: bool = False, **settings: Any
    ) -> None:
        check_render_mode(render_mode, RENDER_MODES)
        if not isinstance(learning_player, bool):
            raise EnvOptionsError(f"learning_player must be True or False, got {learning_player!r}")
        config = make_config(settings)
        self.match = Match(gui=render_mode == "human")
        if config.guards is None:  # the scene's spawns
            config = make_config(
                {**settings, "guards": min(len(self.match.scene_of(config).npcs), config.max_guards)}
            )
        if config.guards == 0:
            raise EnvOptionsError("guards_v0 needs at least 1 guard (every guard is an agent)")
        config = make_config({**settings, "guards": config.guards, "max_guards": config.guards})
        self.config = config
        self.render_mode = render_mode
        self.learning_player = learning_player
        self.metadata = {**type(self).metadata, "render_fps": 1.0 / config.step_s}
        n = config.guards
        if n is None:
            raise EnvOptionsError("guards_v0 needs a guard count")
        self.possible_agents = [f"guard_{i}" for i in range(n)] + ([PLAYER] if learning_player else [])
        self.agents: list[str] = []
        guard_obs = observation_space(config.rays, config.ray_range, 1, goal=False)
        self._obs_spaces: dict[str, spaces.Space[Any]] = {f"guard_{i}": guard_obs for i in range(n)}
        self._act_spaces: dict[str, spaces.Space[Any]] = {
            a: action_space(config.action_type) for a in self.possible_agents
        }
        if learning_player:
            self._obs_spaces[PLAYER] = observation_space(config.rays, config.ray_range, n, goal=True)
        self._renderer: TopDown | None = None
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The agent's observation space (the same object every call, as PettingZoo asks)."""
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The agent's action space (the same object every call, so seeding it sticks)."""
        return self._act_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Start an episode. options: "scene", "guards" (<= the constructed count), "difficulty"; the key
        "options" is ignored (PettingZoo's API test passes `{"options": 1}` to see that reset takes options).

        Raises:
            EnvOptionsError: an unknown option key or a bad value (the env keeps its previous episode).
        """
        most = len(self._guards_possible())
        if isinstance(options, dict) and "guards" in options:
            g = options["guards"]
            if isinstance(g, bool) or not isinstance(g, int) or not 1 <= g <= most:
                raise EnvOptionsError(f"guards must be an integer in 1..{most} for this env, got {g!r}")
        config = self.config.with_options(options, ignore=("options",))
        if config.guards is None:
            raise EnvOptionsError("guards_v0 needs a guard count")
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        state = self._rng.bit_generator.state
        sim_seed = int(self._rng.integers(0, 2**31 - 1))
        guards = tuple(range(config.guards))
        try:
            self.match.start(config, sim_seed, learning_guards=guards, learning_player=self.learning_player)
        except EnvError:  # as if this reset had not been asked for
            self._rng.bit_generator.state = state
            raise
        self.agents = [f"guard_{i}" for i in guards] + ([PLAYER] if self.learning_player else [])
        self._renderer = None
        obs = self._observe()
        return obs, {a: self._info(a) for a in self.agents}

    def _guards_possible(self) -> list[str]:
        return [a for a in self.possible_agents if a != PLAYER]

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Step with one action per live agent (a missing one stands still).

        Raises:
            ActionError: an action outside its space, or for an agent that is not live (nothing is stepped).
        """
        m = self.match
        if m.sim is None:
            raise EnvError("call reset() before step()")
        stray = sorted(set(actions) - set(self.agents))
        if stray:
            raise ActionError(f"actions for agents that are not live: {', '.join(map(str, stray))}")
        commands: dict[str, tuple[float, float]] = {}
        for agent, action in actions.items():
            commands[agent] = decode(
                action, self.config.action_type, self._gaits(agent), who=f"action of {agent}"
            )
        if not self.agents:
            return {}, {}, {}, {}, {}
        for agent in self.agents:
            cmd = m.player_command if agent == PLAYER else m.commands[int(agent.split("_")[1])]
            if cmd is None:
                raise EnvError(f"{agent} has no command slot: call reset() before step()")
            cmd.speed, cmd.turn_rate = commands.get(agent, (0.0, 0.0))
        path_before = m.path_length
        tally = m.advance()
        obs = self._observe()
        rewards = self._rewards(tally, path_before)
        over = m.caught or (self.learning_player and m.goals_left == 0)
        out_of_time = m.out_of_time and not over
        terminations = dict.fromkeys(self.agents, bool(over))
        truncations = dict.fromkeys(self.agents, bool(out_of_time))
        infos = {a: self._info(a) for a in self.agents}
        if over or out_of_time:
            self.agents = []
        return obs, rewards, terminations, truncations, infos

    def _gaits(self, agent: str) -> Gaits:
        if agent == PLAYER:
            return Gaits(walk=PLAYER_SETTINGS.speed, run=PLAYER_SETTINGS.run_speed)
        sim = self.match.sim
        if sim is None:
            raise EnvError("the env has no world yet: call reset() first")
        s = sim.npcs[int(agent.split("_")[1])].settings
        return Gaits(walk=s.walk_speed, run=s.run_speed)

    def _observe(self) -> dict[str, Any]:
        guards = [int(a.split("_")[1]) for a in self.agents if a != PLAYER]
        by_guard, player = observe(self.match, guards, player=self.learning_player)
        obs: dict[str, Any] = {f"guard_{g}": o for g, o in by_guard.items()}
        if self.learning_player:
            obs[PLAYER] = player
        return obs

    def _rewards(self, tally: Tally, path_before: float) -> dict[str, float]:
        m = self.match
        guards = [int(a.split("_")[1]) for a in self.agents if a != PLAYER]
        credited = np.array([m.just_caught and g in m.caught_by for g in guards], dtype=bool)
        r = guard_rewards(tally.guard_sight_s[guards], tally.hits[guards], credited)  # every guard at once
        rewards = {f"guard_{g}": float(x) for g, x in zip(guards, r.tolist(), strict=True)}
        if self.learning_player:
            rewards[PLAYER] = player_reward(m, tally, path_before)
        return rewards

    def _info(self, agent: str) -> dict[str, Any]:
        m = self.match
        if m.sim is None:
            raise EnvError("the env has no world yet: call reset() first")
        info: dict[str, Any] = {
            "time_s": float(m.sim.time),
            "hits_taken": int(m.hits_taken),
            "caught": m.caught,
        }
        if agent == PLAYER:
            info["goals_reached"] = int(m.goal_index)
        else:
            npc = m.sim.npcs[int(agent.split("_")[1])]
            info.update(shots=int(npc.shots), hits=int(npc.hits), sees=bool(npc.sees))
        return info

    def render(self) -> np.ndarray | None:
        """rgb_array: an (H, W, 3) uint8 top-down frame; human: None."""
        if self.render_mode != "rgb_array" or self.match.sim is None:
            return None
        if self._renderer is None:
            self._renderer = TopDown(self.match)
        return self._renderer.frame()

    def close(self) -> None:
        """Disconnect the env's PyBullet client (safe to call twice)."""
        self.match.close()

    def state(self) -> np.ndarray:
        """A global view for centralised critics: every guard's and the player's feet [m] and facing
        [rad], ((guards + 1) * 4,) float32."""
        sim = self.match.sim
        if sim is None or sim.player is None:
            raise EnvError("call reset() before state()")
        rows = [np.append(n.position, n.yaw) for n in sim.npcs] + [
            np.append(sim.player.position, sim.player.yaw)
        ]
        return np.concatenate(rows).astype(np.float32)


def parallel_env(render_mode: str | None = None, **settings: Any) -> GuardsParallelEnv:
    """The Parallel env (see the module doc)."""
    return GuardsParallelEnv(render_mode=render_mode, **settings)


def env(render_mode: str | None = None, **settings: Any) -> Any:
    """The AEC form of the same env (PettingZoo's `parallel_to_aec`)."""
    return parallel_to_aec(parallel_env(render_mode=render_mode, **settings))
