"""Scripted and random baselines, and the command that measures them (the scores in docs/envs.md):

    python -m npc_ai.envs.baselines [--episodes 5] [--scene arena] [--difficulty normal] [--guards 3]

Scripted policies read only their observation (continuous actions):
- player: walk (silently) along the navmesh path's next corner ("goal" fields 3-4), turning toward it;
  run while any guard sees it (it is heard then, but crosses the view cone sooner). Turning away from the
  guards that look its way did worse in trials: it loses time in their view.
- guard: when it sees the player, stand and turn to face it (it fires by itself); when it only knows a
  last position, run there; otherwise walk, turning away from whatever the forward scan rays hit.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from npc_ai.envs.actions import MAX_TURN_RATE

Policy = Callable[[dict[str, Any]], np.ndarray]


def _steer(angle: float, gain: float = 4.0) -> float:
    """Turn action in [-1, 1] toward an egocentric angle [rad]."""
    return float(np.clip(gain * angle / MAX_TURN_RATE, -1.0, 1.0))


def scripted_player(obs: dict[str, Any]) -> np.ndarray:
    """The scripted Stealth policy (see the module doc); walk 2.0 m/s = action -1 + 2 * 2.0 / 3.5."""
    goal = obs["goal"]
    angle = math.atan2(float(goal[4]), float(goal[3]))
    seen = obs["self"][5] > 0
    speed = 1.0 if seen else 2.0 * 2.0 / 3.5 - 1.0
    if abs(angle) > 1.2:  # face the corner before walking off
        speed = -1.0
    return np.array([speed, _steer(angle)], dtype=np.float32)


def scripted_guard(obs: dict[str, Any]) -> np.ndarray:
    """The scripted Guard policy (see the module doc)."""
    t = obs["targets"][0]
    if t[5] > 0:  # known
        angle = math.atan2(float(t[1]), float(t[0]))
        if t[4] > 0:  # visible: stand and aim
            return np.array([-1.0, _steer(angle, 8.0)], dtype=np.float32)
        if t[2] > 1.0:
            return np.array([1.0 if abs(angle) < 0.8 else -1.0, _steer(angle)], dtype=np.float32)
    scan = obs["scan"]
    rays = len(scan)
    ahead = scan[[0, 1 % rays, -1 % rays]].min()
    if ahead < 2.0:  # turn toward the freer side
        left, right = scan[1 : rays // 2].mean(), scan[rays // 2 + 1 :].mean()
        return np.array([-1.0, 1.0 if left >= right else -1.0], dtype=np.float32)
    return np.array([-0.45, 0.0], dtype=np.float32)  # walk (~0.98 m/s of 3.56)


def run_gym(env_id: str, policy: Policy | None, episodes: int, **settings: Any) -> dict[str, float]:
    """Mean return, success rate and length of `episodes` episodes (seeds 0..episodes-1); None = random."""
    import gymnasium as gym

    import npc_ai.envs  # noqa: F401 - registers the ids

    env = gym.make(env_id, **settings)
    env.action_space.seed(0)
    ret, success, steps = rollout(env, policy, episodes, 0)
    return {"return": ret, "success": success, "steps": steps}


def rollout(env: Any, policy: Policy | None, episodes: int, first_seed: int) -> tuple[float, float, float]:
    """(mean return, success rate, mean length) of `episodes` episodes of a Gymnasium env, reset with seeds
    first_seed, first_seed + 1, ...; `policy` None samples the action space (seed it first). Closes the
    env."""
    returns, successes, lengths = [], [], []
    try:
        for ep in range(episodes):
            obs, info = env.reset(seed=first_seed + ep)
            total, steps, done = 0.0, 0, False
            while not done:
                action = env.action_space.sample() if policy is None else policy(obs)
                obs, reward, terminated, truncated, info = env.step(action)
                total += float(reward)
                steps += 1
                done = terminated or truncated
            returns.append(total)
            lengths.append(steps)
            successes.append(bool(info["success"]))
    finally:
        env.close()
    return float(np.mean(returns)), float(np.mean(successes)), float(np.mean(lengths))


def run_guards_v0(policy: Policy | None, episodes: int, **settings: Any) -> dict[str, float]:
    """Mean team return (summed over guards), catch rate and length for guards_v0 (scripted player)."""
    from npc_ai.envs import guards_v0

    env = guards_v0.parallel_env(**settings)
    for a in env.possible_agents:
        env.action_space(a).seed(0)
    returns, caught, lengths = [], [], []
    try:
        for ep in range(episodes):
            obs, infos = env.reset(seed=ep)
            total, steps = 0.0, 0
            while env.agents:
                actions = {
                    a: env.action_space(a).sample() if policy is None else policy(obs[a]) for a in env.agents
                }
                obs, rewards, _, _, infos = env.step(actions)
                total += sum(rewards.values())
                steps += 1
            returns.append(total)
            lengths.append(steps)
            caught.append(any(i["caught"] for i in infos.values()))
    finally:
        env.close()
    return {
        "return": float(np.mean(returns)),
        "success": float(np.mean(caught)),
        "steps": float(np.mean(lengths)),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m npc_ai.envs.baselines", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--episodes", type=int, default=5)
    parser.add_argument("--scene", default="arena")
    parser.add_argument("--difficulty", default="normal")
    parser.add_argument("--guards", type=int, default=3, help="guards in Stealth-v0 and guards_v0")
    parser.add_argument(
        "--guard-env-guards", type=int, default=1, help="guards in Guard-v0 (the learner first)"
    )
    parser.add_argument("--time-limit", type=float, default=60.0, help="episode length [simulated s]")
    args = parser.parse_args(argv)
    common = {"scene": args.scene, "difficulty": args.difficulty, "time_limit_s": args.time_limit}
    many = {**common, "guards": args.guards}
    alone = {**common, "guards": args.guard_env_guards}
    n = args.episodes
    print(f"scene {args.scene}, difficulty {args.difficulty}, {n} episodes (seeds 0..{n - 1})")
    print(f"{'env':<26} {'policy':<9} {'mean return':>12} {'success':>8} {'mean steps':>11}")
    stealth, guard = "npc_ai/Stealth-v0", "npc_ai/Guard-v0"
    rows: list[tuple[str, str, Callable[[], dict[str, float]]]] = [
        (f"{stealth} ({args.guards} g)", "scripted", lambda: run_gym(stealth, scripted_player, n, **many)),
        (f"{stealth} ({args.guards} g)", "random", lambda: run_gym(stealth, None, n, **many)),
        (
            f"{guard} ({args.guard_env_guards} g)",
            "scripted",
            lambda: run_gym(guard, scripted_guard, n, **alone),
        ),
        (f"{guard} ({args.guard_env_guards} g)", "random", lambda: run_gym(guard, None, n, **alone)),
        (f"guards_v0 ({args.guards} g)", "scripted", lambda: run_guards_v0(scripted_guard, n, **many)),
        (f"guards_v0 ({args.guards} g)", "random", lambda: run_guards_v0(None, n, **many)),
    ]
    for name, policy, measure in rows:
        r = measure()
        print(
            f"{name:<26} {policy:<9} {r['return']:>12.2f} {r['success']:>8.0%} {r['steps']:>11.0f}",
            flush=True,
        )
    print("success: Stealth = every goal reached uncaught; Guard-v0 and guards_v0 = the player caught")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
