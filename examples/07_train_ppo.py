"""Train the player of npc_ai/Stealth-v0 with Stable-Baselines3's PPO (pip install stable-baselines3).

Not run by the tests: stable-baselines3 (and torch) are not dependencies of npc-ai. On a machine without a
GPU, install torch's CPU build first (pip install torch --index-url https://download.pytorch.org/whl/cpu).
The Dict observation needs PPO's "MultiInputPolicy". Checked with torch 2.13.0 (CPU) and
stable-baselines3 2.9.2: 4 workers collect about 240 steps/s on two cores, so 100k steps take 7-15 minutes.
"""

import gymnasium as gym
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv

import npc_ai.envs  # noqa: F401 - registers the ids

SETTINGS = {"guards": 2, "difficulty": "easy", "time_limit_s": 30.0}

if __name__ == "__main__":  # SubprocVecEnv starts worker processes
    venv = make_vec_env("npc_ai/Stealth-v0", n_envs=4, seed=0, vec_env_cls=SubprocVecEnv, env_kwargs=SETTINGS)
    model = PPO("MultiInputPolicy", venv, n_steps=512, batch_size=512, learning_rate=3e-4, verbose=1, seed=0)
    model.learn(total_timesteps=100_000)
    model.save("stealth_ppo")
    venv.close()

    env = gym.make("npc_ai/Stealth-v0", **SETTINGS)
    for episode in range(5):
        obs, info = env.reset(seed=1000 + episode)
        total, done = 0.0, False
        while not done:
            action, _ = model.predict(obs, deterministic=True)
            obs, reward, terminated, truncated, info = env.step(action)
            total += float(reward)
            done = terminated or truncated
        print(f"episode {episode}: return {total:.2f}, goals {info['goals_reached']}, won {info['success']}")
    env.close()
