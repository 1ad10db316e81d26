"""`npc_ai/Stealth-v0`: the learner is the player. Reach the goal points in turn through a level patrolled
by scripted guards (Wander / Patrol / Aim / Chase / Shoot / Search) without being caught.

- Observation: `npc_ai.envs.sensing` with "goal"; the target slots are the guards (slot i = guard i).
- Action: speed and turn rate (`npc_ai.envs.actions`); top speed 3.5 m/s (running is heard above
  2.5 m/s), walk 2.0 m/s.
- Reward: `npc_ai.envs.observe` (progress, goals, detection, hits, caught).
- Terminates when the last goal is reached or the player is caught (`hits_to_catch` hits, or a guard that
  sees it within `catch_radius`); truncates at `time_limit_s`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from npc_ai.envs.actions import Gaits
from npc_ai.envs.base import RoleEnv
from npc_ai.envs.errors import EnvError
from npc_ai.envs.match import PLAYER_SETTINGS, Match, Tally
from npc_ai.envs.observe import player_observations, player_reward, player_rewards, read
from npc_ai.envs.sensing import observation_space


class StealthEnv(RoleEnv):
    """The player's side (see the module doc). Keywords: `EnvConfig` fields."""

    learning_player: ClassVar[bool] = True

    def _observation_space(self) -> gym.spaces.Dict:
        c = self.config
        return observation_space(c.rays, c.ray_range, c.max_guards, goal=True)

    def _gaits(self) -> Gaits:
        return Gaits(walk=PLAYER_SETTINGS.speed, run=PLAYER_SETTINGS.run_speed)

    def _apply(self, speed: float, turn_rate: float) -> None:
        cmd = self.match.player_command
        if not (cmd is not None):
            raise EnvError("the env's world is not ready: call reset() first")
        cmd.speed, cmd.turn_rate = speed, turn_rate

    @staticmethod
    def _observe_worlds(matches: Sequence[Match]) -> dict[str, np.ndarray]:
        return player_observations([read(m, [], player=True) for m in matches])

    def _reward(self, tally: Tally, path_before: float) -> float:
        return player_reward(self.match, tally, path_before)

    @staticmethod
    def _rewards(matches: Sequence[Match], tallies: Sequence[Tally], path_before: np.ndarray) -> np.ndarray:
        return player_rewards(
            path_before,
            np.array([m.path_length for m in matches]),
            np.array([t.goals for t in tallies]),
            np.array([t.seen_s for t in tallies]),
            np.array([int(t.hits.sum()) for t in tallies]),
            np.array([m.just_caught for m in matches]),
        )

    def _terminated(self) -> bool:
        return self.match.caught or self.match.goals_left == 0

    def _info(self) -> dict[str, Any]:
        info = super()._info()
        info["success"] = self.match.goals_left == 0 and not self.match.caught
        info["path_to_goal_m"] = float(self.match.path_length)
        return info
