"""Throughput, measured with Gymnasium's own benchmark (the figures in docs/envs.md):

    python -m npc_ai.envs.throughput [--guards 8] [--frame-skip 4] [--seconds 5] [--vector 4]

For each env id: `gymnasium.utils.performance.benchmark_step` (random actions, one process, no rendering,
60 Hz ticks), then where the time goes in one episode: the simulation's ticks (wall clock around
`Simulation.step`) against the env's own work (observations, rewards, the navmesh path to the goal).
With `--vector N`, the native vector env of N worlds with `benchmark_vector_step` (env-steps/s counts every
world's step).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
from gymnasium.utils.performance import benchmark_step

import npc_ai.envs


def measure(env_id: str, seconds: float, **settings: Any) -> tuple[float, float, float]:
    """(env-steps/s, ms per simulation tick, ms of env work per step) for one id."""
    env = gym.make(env_id, **settings)
    rate = benchmark_step(env, target_duration=seconds, seed=0)  # type: ignore[arg-type]
    inner: Any = env.unwrapped
    inner.action_space.seed(0)
    inner.reset(seed=1)
    sim = inner.match.sim
    tick = sim.step
    clock = {"s": 0.0, "ticks": 0}

    def timed_tick() -> None:  # the whole tick, wall clock (Simulation.timings leaves gaps between phases)
        a = time.perf_counter()
        tick()
        clock["s"] += time.perf_counter() - a
        clock["ticks"] += 1

    sim.step = timed_tick
    t0, steps = time.perf_counter(), 0
    while time.perf_counter() - t0 < seconds / 2:
        *_, terminated, truncated, _ = inner.step(inner.action_space.sample())
        steps += 1
        if terminated or truncated:
            break
    wall = time.perf_counter() - t0
    env.close()
    spent = clock["s"]
    tick_ms = 1e3 * spent / max(clock["ticks"], 1)
    return rate, tick_ms, 1e3 * (wall - spent) / max(steps, 1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m npc_ai.envs.throughput", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--guards", type=int, default=8)
    parser.add_argument("--frame-skip", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--vector", type=int, default=0, help="also time the native vector env of N worlds")
    parser.add_argument("--scene", default="arena")
    args = parser.parse_args(argv)
    settings = {"scene": args.scene, "guards": args.guards, "frame_skip": args.frame_skip, "tick_hz": 60.0}
    print(f"scene {args.scene}, {args.guards} guards, frame skip {args.frame_skip}, 60 Hz, one process")
    for env_id in npc_ai.envs.IDS:
        rate, tick_ms, env_ms = measure(env_id, args.seconds, **settings)
        print(
            f"{env_id:<18} {rate:7.1f} env-steps/s  (a tick {tick_ms:.2f} ms x {args.frame_skip}, "
            f"the env's own work {env_ms:.2f} ms per step)",
            flush=True,
        )
    if args.vector:
        from gymnasium.utils.performance import benchmark_vector_step

        for env_id in npc_ai.envs.IDS:
            vec = gym.make_vec(env_id, num_envs=args.vector, **settings)
            rate = benchmark_vector_step(vec, target_duration=int(max(1, args.seconds)), seed=0)
            vec.close()
            print(f"{env_id:<18} native vector x{args.vector}: {rate:7.1f} env-steps/s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
