"""Run every env for 1,000 steps with seeded actions and print one sha256 per env of every observation,
reward, flag and info (tests/npc_ai/envs/test_determinism.py runs this in two processes)."""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

import numpy as np


def feed(h: Any, obs: object) -> None:
    if isinstance(obs, dict):
        for k in sorted(obs):
            h.update(str(k).encode())
            feed(h, obs[k])
    else:
        a = np.ascontiguousarray(obs)
        h.update(str(a.dtype).encode() + a.tobytes())


def main(steps: int) -> None:
    import gymnasium as gym

    import npc_ai.envs
    from npc_ai.envs import guards_v0

    settings = {"guards": 2, "frame_skip": 1, "rays": 8}
    for env_id in npc_ai.envs.IDS:
        env = gym.make(env_id, **settings)
        env.action_space.seed(7)
        h = hashlib.sha256()
        obs, info = env.reset(seed=11)
        for _ in range(steps):
            obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
            feed(h, obs)
            h.update(repr((float(reward), terminated, truncated)).encode())
            h.update(json.dumps(info, sort_keys=True).encode())
            if terminated or truncated:
                obs, info = env.reset()
        env.close()
        print(env_id, h.hexdigest())
    par = guards_v0.parallel_env(learning_player=True, **settings)
    for a in par.possible_agents:
        par.action_space(a).seed(7)
    h = hashlib.sha256()
    par.reset(seed=11)
    for _ in range(steps):
        if not par.agents:
            par.reset()
        out = par.step({a: par.action_space(a).sample() for a in par.agents})
        feed(h, out[0])
        h.update(json.dumps(out[1:], sort_keys=True).encode())
    par.close()
    print("guards_v0", h.hexdigest())


if __name__ == "__main__":
    main(int(sys.argv[1]))
