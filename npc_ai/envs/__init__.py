"""Research environments (the `rl` extra: gymnasium, pettingzoo). Importing this package registers:

- `npc_ai/Stealth-v0` (`StealthEnv`): the learner is the player, against scripted guards.
- `npc_ai/Guard-v0` (`GuardEnv`): the learner is one guard, against a scripted player.

and offers `npc_ai.envs.guards_v0`, a PettingZoo Parallel env where every guard is an agent (with an
optional learning player). Both ids have a native batched vector env (`gym.make_vec(id, n)` or
`vectorization_mode="vector_entry_point"`, see `NativeVectorEnv`) and work with
`vectorization_mode="async"`. Settings are `EnvConfig` fields; observations and rewards are documented in
`npc_ai.envs.sensing` and `npc_ai.envs.observe`, and in docs/envs.md.
"""

from __future__ import annotations

import gymnasium as gym

from npc_ai.envs.actions import MAX_TURN_RATE
from npc_ai.envs.baselines import scripted_guard, scripted_player
from npc_ai.envs.config import DIFFICULTIES, EnvConfig
from npc_ai.envs.errors import ActionError, EnvError, EnvOptionsError, RenderModeError
from npc_ai.envs.guard import GuardEnv
from npc_ai.envs.observe import RewardWeights
from npc_ai.envs.sensing import GOAL_FIELDS, SELF_FIELDS, TARGET_FIELDS
from npc_ai.envs.stealth import StealthEnv
from npc_ai.envs.vector import NativeVectorEnv

IDS = ("npc_ai/Stealth-v0", "npc_ai/Guard-v0")

for _id, _cls in zip(IDS, ("StealthEnv", "GuardEnv"), strict=True):
    if _id not in gym.registry:
        gym.register(
            id=_id,
            entry_point=f"npc_ai.envs.{_cls.replace('Env', '').lower()}:{_cls}",
            vector_entry_point=f"npc_ai.envs.vector:{_cls.replace('Env', 'VectorEnv')}",
        )

__all__ = [
    "DIFFICULTIES",
    "GOAL_FIELDS",
    "IDS",
    "MAX_TURN_RATE",
    "SELF_FIELDS",
    "TARGET_FIELDS",
    "ActionError",
    "EnvConfig",
    "EnvError",
    "EnvOptionsError",
    "GuardEnv",
    "NativeVectorEnv",
    "RenderModeError",
    "RewardWeights",
    "StealthEnv",
    "scripted_guard",
    "scripted_player",
]
