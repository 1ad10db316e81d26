"""guards_v0, the PettingZoo Parallel env: PettingZoo's API and seed tests, agents that never come back,
the optional learning player."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from pettingzoo.test import parallel_api_test, parallel_seed_test

from npc_ai.envs import ActionError, EnvOptionsError, guards_v0

# a short time limit, so parallel_api_test's 1,000 cycles span whole episodes, ends included
SMALL = {"guards": 2, "rays": 8, "time_limit_s": 8.0}


@pytest.mark.parametrize(
    "learning_player, settings",
    [
        (False, SMALL),
        (True, SMALL),
        pytest.param(True, {"guards": 3}, marks=pytest.mark.slow, id="default-time-limit"),
    ],
)
def test_pettingzoo_parallel_api_test_passes(learning_player: bool, settings: dict) -> None:
    env = guards_v0.parallel_env(learning_player=learning_player, **settings)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PettingZoo reports API slips as warnings
        parallel_api_test(env, num_cycles=1000)
    env.close()


def test_pettingzoo_parallel_seed_test_passes() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parallel_seed_test(lambda: guards_v0.parallel_env(learning_player=True, **SMALL))


def test_agents_leave_together_and_never_come_back() -> None:
    env = guards_v0.parallel_env(**SMALL)
    assert env.possible_agents == ["guard_0", "guard_1"]
    obs, infos = env.reset(seed=1)
    assert env.agents == ["guard_0", "guard_1"] and set(obs) == set(infos) == set(env.agents)
    steps = 0
    while env.agents:
        obs, _rewards, terms, truncs, infos = env.step({a: env.action_space(a).sample() for a in env.agents})
        steps += 1
    assert set(terms) == set(env.possible_agents)
    assert all(terms.values()) or all(truncs.values())
    assert env.step({}) == ({}, {}, {}, {}, {})  # nobody left to act
    with pytest.raises(ActionError, match="not live"):
        env.step({"guard_0": np.zeros(2, dtype=np.float32)})
    assert env.agents == []
    assert steps <= 120  # 8 s at 15 steps/s
    env.close()


def test_fewer_guards_by_option_and_a_clear_error_for_more() -> None:
    env = guards_v0.parallel_env(**SMALL)
    obs, _ = env.reset(seed=0, options={"guards": 1})
    assert env.agents == ["guard_0"] and list(obs) == ["guard_0"]
    with pytest.raises(EnvOptionsError, match=r"guards must be an integer in 1\.\.2"):
        env.reset(options={"guards": 3})
    with pytest.raises(EnvOptionsError, match="needs at least 1 guard"):
        guards_v0.parallel_env(guards=0)
    assert env.state().shape == (8,)  # 1 guard + the player, 4 numbers each
    env.close()


def test_the_learning_player_sees_the_guards_and_has_goals() -> None:
    env = guards_v0.parallel_env(learning_player=True, **SMALL)
    obs, _ = env.reset(seed=4)
    assert env.agents[-1] == "player"
    assert obs["player"]["targets"].shape == (2, 9) and obs["player"]["goal"][5] >= 1
    assert obs["guard_0"]["targets"].shape == (1, 9)
    env.close()


def test_the_aec_form_wraps_the_same_env() -> None:
    aec = guards_v0.env(**SMALL)
    aec.reset(seed=0)
    for agent in aec.agent_iter(6):
        _, _, term, trunc, _ = aec.last()
        aec.step(None if term or trunc else aec.action_space(agent).sample())
    aec.close()
