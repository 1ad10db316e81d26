"""The documented rewards and endings, provoked on purpose: goals reached, a player caught, a guard's hits."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from npc_ai.envs import GuardEnv, RewardWeights, StealthEnv

W = RewardWeights()
STAND = np.array([-1.0, 0.0], dtype=np.float32)


def test_reaching_each_goal_pays_and_the_last_one_ends_the_episode() -> None:
    env = StealthEnv(guards=0, goals=2, rays=4)
    obs, _ = env.reset(seed=3)
    m = env.match
    assert obs["goal"][5] == 2 and obs["goal"][2] == pytest.approx(m.path_length)
    m.sim.player.warp(m.goals[0])
    obs, reward, terminated, truncated, info = env.step(STAND)
    assert reward == pytest.approx(W.goal)  # no progress term on the step a goal is reached
    assert (info["goals_reached"], terminated, obs["goal"][5]) == (1, False, 1)
    before = m.path_length
    obs, reward, *_ = env.step(np.array([0.0, 0.0], dtype=np.float32))  # walk on: progress is paid per metre
    assert reward == pytest.approx(W.progress * (before - m.path_length))
    m.sim.player.warp(m.goals[1])
    obs, reward, terminated, truncated, info = env.step(STAND)
    assert terminated and not truncated and info["success"] and reward == pytest.approx(W.goal)
    assert not obs["goal"].any()  # no goal left
    env.close()


def _face_to_face(env, distance: float) -> None:
    """The player `distance` m east of guard 0, each facing the other."""
    sim = env.match.sim
    npc, player = sim.npcs[0], sim.player
    npc.locomotor.warp((0.0, -8.0, 0.0))
    player.warp((distance, -8.0, 0.0))
    npc.locomotor.batch.yaw[npc.index] = 0.0
    for _ in range(30):  # the player turns to face west
        player.move(0.0, math.pi)
        sim.step()


def test_a_player_in_plain_sight_is_seen_shot_and_caught_once() -> None:
    env = StealthEnv(
        guards=1, hits_to_catch=1, catch_radius=0.0, difficulty="hard", rays=4, time_limit_s=30.0
    )
    env.reset(seed=0)
    _face_to_face(env, 6.0)
    rewards, seen_steps = [], 0
    for _ in range(60):
        obs, reward, terminated, _, info = env.step(STAND)
        rewards.append(reward)
        seen_steps += obs["self"][5] > 0
        if terminated:
            break
    assert terminated and info["caught"] and info["hits_taken"] >= 1 and not info["success"]
    assert seen_steps > 0
    assert rewards[-1] <= -(W.caught + W.hit) + 1e-9  # caught and hit on the last step
    assert sum(r <= -W.caught for r in rewards) == 1  # the catch is paid once
    assert obs["targets"][0][4] == 1 and obs["targets"][0][5] == 1  # the player sees that guard
    env.close()


def test_a_learning_guard_that_faces_the_player_fires_and_is_paid_for_hits() -> None:
    env = GuardEnv(guards=1, hits_to_catch=2, rays=4, time_limit_s=30.0)
    env.reset(seed=0)
    sim = env.match.sim
    sim.player.controller = lambda player, time, watchers: player.stop()  # a still target
    _face_to_face(env, 6.0)
    total, sight = 0.0, 0
    for _ in range(90):
        obs, reward, terminated, _, info = env.step(STAND)
        total += reward
        sight += obs["self"][5] > 0
        if terminated:
            break
    assert info["shots"] >= 1 and info["hits"] >= 1 and info["caught"] and terminated
    assert sight > 0 and obs["targets"][0][5] == 1  # it knows where the player is
    assert total >= W.guard_hit * info["hits"] + W.catch  # hits and the catch it is credited with
    env.close()
