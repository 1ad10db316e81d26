"""`npc_ai/Guard-v0`: the learner is one guard (guard 0): its movement and facing. Its perception is its
observation; it fires by itself, as a scripted guard does, once it has seen the player for its reaction
time and faces it within its aim tolerance. The player is scripted (it wanders the level and runs for cover
when seen); the other guards, if any (`guards` > 1; the default is the learner alone), keep their state
machines. The difficulty applies to the scripted guards only.

- Observation: `npc_ai.envs.sensing` without "goal"; one target row: the player (its last known position
  from sight, hearing or an ally's alert, with its age).
- Action: speed and turn rate (`npc_ai.envs.actions`); top speed is the guard's run speed, walk its walk
  speed.
- Reward: `npc_ai.envs.observe` (sight, own hits, the team's catch).
- Terminates when the player is caught; truncates at `time_limit_s`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from npc_ai.envs.actions import Gaits
from npc_ai.envs.base import RoleEnv
from npc_ai.envs.errors import EnvError
from npc_ai.envs.match import Match, Tally
from npc_ai.envs.observe import guard_observations, guard_rewards, read
from npc_ai.envs.sensing import observation_space


class GuardEnv(RoleEnv):
    """Guard 0's side (see the module doc). Keywords: `EnvConfig` fields (at least 1 guard; 1 by default:
    the learner alone against the player)."""

    learning_guards: ClassVar[tuple[int, ...]] = (0,)
    # alone by default: with scripted allies the player is mostly caught by them, whatever the learner does
    defaults: ClassVar[dict[str, Any]] = {"guards": 1}

    def _observation_space(self) -> gym.spaces.Dict:
        c = self.config
        return observation_space(c.rays, c.ray_range, 1, goal=False)

    def _gaits(self) -> Gaits:
        sim = self.match.sim
        if not (sim is not None):
            raise EnvError("the env's world is not ready: call reset() first")
        s = sim.npcs[0].settings
        return Gaits(walk=s.walk_speed, run=s.run_speed)

    def _apply(self, speed: float, turn_rate: float) -> None:
        cmd = self.match.commands[0]
        cmd.speed, cmd.turn_rate = speed, turn_rate

    @staticmethod
    def _observe_worlds(matches: Sequence[Match]) -> dict[str, np.ndarray]:
        return guard_observations([read(m, [0], player=False) for m in matches])

    def _reward(self, tally: Tally, path_before: float) -> float:
        m = self.match
        credited = m.just_caught and 0 in m.caught_by
        return float(guard_rewards(float(tally.guard_sight_s[0]), int(tally.hits[0]), credited))

    @staticmethod
    def _rewards(matches: Sequence[Match], tallies: Sequence[Tally], path_before: np.ndarray) -> np.ndarray:
        return guard_rewards(
            np.array([t.guard_sight_s[0] for t in tallies]),
            np.array([t.hits[0] for t in tallies]),
            np.array([m.just_caught and 0 in m.caught_by for m in matches]),
        )

    def _terminated(self) -> bool:
        return self.match.caught

    def _info(self) -> dict[str, Any]:
        info = super()._info()
        sim = self.match.sim
        if not (sim is not None):
            raise EnvError("the env's world is not ready: call reset() first")
        npc = sim.npcs[0]
        info.update(shots=int(npc.shots), hits=int(npc.hits), sees=bool(npc.sees))
        info["success"] = bool(self.match.caught)  # the guards' side won
        return info
