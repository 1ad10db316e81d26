"""Vectorisation: the native batched vector env (`vector_entry_point`) and Gymnasium's async mode."""

from __future__ import annotations

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

import npc_ai.envs  # noqa: E402
from npc_ai.envs import ActionError, GuardEnv, NativeVectorEnv  # noqa: E402

SMALL = {"guards": 2, "rays": 8}


def test_make_vec_uses_the_native_vector_env_and_matches_single_envs() -> None:
    vec = gym.make_vec("npc_ai/Guard-v0", num_envs=3, **SMALL)
    assert isinstance(vec.unwrapped, NativeVectorEnv)
    obs, infos = vec.reset(seed=10)
    assert obs["scan"].shape == (3, 8) and infos["guards"].tolist() == [2, 2, 2]
    single = GuardEnv(**SMALL)
    one, _ = single.reset(seed=11)  # world 1 got seed 10 + 1
    for k in one:
        assert np.array_equal(obs[k][1], one[k])
    actions = np.tile(np.array([[0.5, 0.25]], dtype=np.float32), (3, 1))
    obs, rewards, _term, _trunc, infos = vec.step(actions)
    one, r, *_ = single.step(actions[1])
    for k in one:
        assert np.array_equal(obs[k][1], one[k])
    assert rewards.shape == (3,) and rewards[1] == r
    assert vec.observation_space.contains(obs)
    vec.close()
    single.close()


def test_native_vector_env_autoresets_on_the_next_step() -> None:
    vec = gym.make_vec("npc_ai/Stealth-v0", num_envs=2, vectorization_mode="vector_entry_point",
                       time_limit_s=0.3, **SMALL)  # fmt: skip
    vec.reset(seed=0)
    done_at = None
    for step in range(8):
        _obs, rewards, term, trunc, infos = vec.step(vec.action_space.sample())
        if done_at is None and (term | trunc).all():
            done_at = step
        elif done_at is not None:
            assert step == done_at + 1
            assert not (term | trunc).any() and (rewards == 0).all()  # the reset step
            assert (infos["time_s"] < 0.05).all()
            break
    assert done_at is not None
    vec.close()


def test_a_bad_action_row_raises_before_any_world_steps() -> None:
    vec = npc_ai.envs.vector.GuardVectorEnv(num_envs=2, **SMALL)
    vec.reset(seed=0)
    with pytest.raises(ActionError, match=r"actions\[1\]"):
        vec.step(np.array([[0.0, 0.0], [0.0, 2.0]]))
    with pytest.raises(ActionError, match="shape"):
        vec.step(np.zeros(2))
    assert all(env.match.steps == 0 for env in vec.envs)
    vec.close()


def test_async_vectorisation_runs_the_envs_in_subprocesses() -> None:
    vec = gym.make_vec("npc_ai/Stealth-v0", num_envs=2, vectorization_mode="async", **SMALL)
    obs, _ = vec.reset(seed=3)
    obs, rewards, *_ = vec.step(vec.action_space.sample())
    assert obs["goal"].shape == (2, 6) and rewards.shape == (2,)
    vec.close()
