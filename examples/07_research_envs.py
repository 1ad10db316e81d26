"""The research environments (pip install ".[rl]"): a Gymnasium env, its vector form, the PettingZoo env.

`import npc_ai.envs` registers npc_ai/Stealth-v0 (learn the player) and npc_ai/Guard-v0 (learn a guard).
"""

import gymnasium as gym
import numpy as np

import npc_ai.envs
from npc_ai.envs import guards_v0

env = gym.make("npc_ai/Stealth-v0", render_mode="rgb_array", guards=2)
obs, info = env.reset(seed=0, options={"scene": "warehouse", "difficulty": "easy"})
print("observation:", {k: v.shape for k, v in obs.items()})
total, done = 0.0, False
while not done:  # the scripted baseline: walk the navmesh path to each goal, run when seen
    obs, reward, terminated, truncated, info = env.step(npc_ai.envs.scripted_player(obs))
    total += reward
    done = terminated or truncated
print(f"episode: return {total:.2f}, goals {info['goals_reached']}, caught {info['caught']}", end="")
print(f", t {info['time_s']:.1f} s")
print("frame:", env.render().shape)
env.close()

vec = gym.make_vec("npc_ai/Guard-v0", num_envs=3, guards=2)  # the native batched vector env
obs, _ = vec.reset(seed=1)
obs, rewards, *_ = vec.step(np.zeros((3, 2), dtype=np.float32))
print("vector: scan", obs["scan"].shape, "rewards", rewards.shape)
vec.close()

par = guards_v0.parallel_env(guards=2, learning_player=True)
obs, _ = par.reset(seed=2)
obs, rewards, *_ = par.step({a: par.action_space(a).sample() for a in par.agents})
print("guards_v0 agents:", ", ".join(par.agents))
par.close()
