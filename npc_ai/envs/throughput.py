"""Throughput, measured with Gymnasium's own benchmark (the figures in docs/envs.md):

    python -m npc_ai.envs.throughput [--guards 8] [--frame-skip 4] [--seconds 5] [--vector 4]
        [--bodies dynamic|kinematic]

For each env id: `gymnasium.utils.performance.benchmark_step` (random actions, one process, no rendering,
60 Hz ticks; wall clock), then where the time goes in one episode: the simulation's ticks (around
`Simulation.step`) against the env's own work (observations, rewards, the navmesh path to the goal), in
this thread's CPU time, so that other processes on a shared machine do not count (the actions are drawn
before the clock starts: sampling them is the benchmark's work, not the env's). With `--vector N`, the
native vector env of N worlds with `benchmark_vector_step` (env-steps/s counts every world's step), and
the same steps in CPU time.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
from gymnasium.utils.performance import benchmark_step

import npc_ai.envs

clock = time.thread_time  # CPU time of this thread [s]


def measure(env_id: str, seconds: float, **settings: Any) -> tuple[float, float, float]:
    """(env-steps/s (wall clock), CPU ms per simulation tick, CPU ms of env work per step) for one id."""
    env = gym.make(env_id, **settings)
    rate = benchmark_step(env, target_duration=seconds, seed=0)  # type: ignore[arg-type]
    inner: Any = env.unwrapped
    inner.action_space.seed(0)
    actions = [inner.action_space.sample() for _ in range(10_000)]
    inner.reset(seed=1)
    sim = inner.match.sim
    tick = sim.step
    spent = {"s": 0.0, "ticks": 0}

    def timed_tick() -> None:  # the whole tick (Simulation.timings leaves gaps between phases)
        a = clock()
        tick()
        spent["s"] += clock() - a
        spent["ticks"] += 1

    sim.step = timed_tick
    t0, steps = clock(), 0
    for action in actions:
        *_, terminated, truncated, _ = inner.step(action)
        steps += 1
        if terminated or truncated or clock() - t0 > seconds / 2:
            break
    total = clock() - t0
    env.close()
    tick_ms = 1e3 * spent["s"] / max(spent["ticks"], 1)
    return rate, tick_ms, 1e3 * (total - spent["s"]) / max(steps, 1)


def measure_vector(env_id: str, num_envs: int, seconds: float, **settings: Any) -> tuple[float, float]:
    """(env-steps/s, wall clock (`benchmark_vector_step`), and in CPU time) of the native vector env."""
    from gymnasium.utils.performance import benchmark_vector_step

    vec = gym.make_vec(env_id, num_envs=num_envs, **settings)
    rate = benchmark_vector_step(vec, target_duration=int(max(1, seconds)), seed=0)
    vec.action_space.seed(0)
    actions = [vec.action_space.sample() for _ in range(2_000)]
    vec.reset(seed=1)
    t0, steps = clock(), 0
    for action in actions:
        vec.step(action)
        steps += 1
        if clock() - t0 > seconds / 2:
            break
    cpu_rate = steps * num_envs / (clock() - t0)
    vec.close()
    return rate, cpu_rate


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m npc_ai.envs.throughput", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--guards", type=int, default=8)
    parser.add_argument("--frame-skip", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--vector", type=int, default=0, help="also time the native vector env of N worlds")
    parser.add_argument("--scene", default="arena")
    parser.add_argument("--bodies", choices=("dynamic", "kinematic"), default="dynamic", help="guard bodies")
    args = parser.parse_args(argv)
    settings = {
        "scene": args.scene,
        "guards": args.guards,
        "frame_skip": args.frame_skip,
        "tick_hz": 60.0,
        "bodies": args.bodies,
    }
    print(
        f"scene {args.scene}, {args.guards} guards ({args.bodies} bodies), frame skip {args.frame_skip}, "
        "60 Hz, one process"
    )
    for env_id in npc_ai.envs.IDS:
        rate, tick_ms, env_ms = measure(env_id, args.seconds, **settings)
        print(
            f"{env_id:<18} {rate:7.1f} env-steps/s  (CPU time: a tick {tick_ms:.2f} ms x {args.frame_skip}, "
            f"the env's own work {env_ms:.2f} ms per step; "
            f"{1e3 / (tick_ms * args.frame_skip + env_ms):.0f} env-steps/s)",
            flush=True,
        )
    if args.vector:
        for env_id in npc_ai.envs.IDS:
            rate, cpu_rate = measure_vector(env_id, args.vector, args.seconds, **settings)
            print(
                f"{env_id:<18} native vector x{args.vector}: {rate:7.1f} env-steps/s "
                f"(CPU time: {cpu_rate:.0f} env-steps/s)",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
