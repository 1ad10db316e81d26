"""Bad settings, options and actions raise a typed error (an `npc_ai.NpcAiError`) that says what to fix,
and leave the env usable: the next valid call behaves exactly as if the bad one had never been made."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("gymnasium")

from npc_ai.envs import ActionError, EnvError, EnvOptionsError, GuardEnv, StealthEnv
from npc_ai.envs.actions import Gaits, decode
from npc_ai.envs.match import PLAYER_SETTINGS
from npc_ai.errors import NpcAiError

SMALL = {"guards": 2, "rays": 8}
PLAYER_SETTINGS_GAITS = Gaits(PLAYER_SETTINGS.speed, PLAYER_SETTINGS.run_speed)


def same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"scene": "atlantis"}, "cannot load scene 'atlantis'.*not a built-in scene"),
        ({"scene": "missing/level.toml"}, "cannot load scene"),
        ({"scene": "missing.map"}, "cannot load scene"),
        ({"guards": -1}, r"guards must be an integer in 0\.\.8, got -1"),
        ({"guards": 9}, r"guards must be an integer in 0\.\.8"),
        ({"guards": 2.5}, "guards must be an integer"),
        ({"guards": True}, "guards must be an integer"),
        ({"difficulty": "nightmare"}, "difficulty must be one of easy, normal, hard"),
        ({"scene": 42}, "scene must be a scene name"),
    ],
)
def test_bad_reset_options_raise_and_the_episode_goes_on(options: dict, message: str) -> None:
    env, twin = StealthEnv(**SMALL), StealthEnv(**SMALL)
    env.reset(seed=3)
    twin.reset(seed=3)
    env.action_space.seed(0)
    twin.action_space.seed(0)
    with pytest.raises(EnvOptionsError, match=message) as err:
        env.reset(options=options)
    assert isinstance(err.value, NpcAiError) and isinstance(err.value, ValueError)
    action = env.action_space.sample()
    assert same(env.step(action)[0], twin.step(twin.action_space.sample())[0])  # the old episode is intact
    assert same(env.reset()[0], twin.reset()[0])  # the next episode draws what it would have drawn
    obs, _ = env.reset(seed=4)
    assert env.observation_space.contains(obs)
    env.close()
    twin.close()


@pytest.fixture(scope="module")
def stealth():
    env = StealthEnv(**SMALL)
    env.reset(seed=1)
    yield env
    env.close()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    guards=st.one_of(
        st.integers(max_value=-1),
        st.integers(min_value=9),
        st.floats(),
        st.text(max_size=3),
        st.booleans(),
        st.lists(st.integers(), max_size=2),
    )
)
def test_any_bad_guard_count_is_an_options_error(stealth, guards) -> None:
    with pytest.raises(EnvOptionsError, match="guards must be an integer"):
        stealth.reset(options={"guards": guards})
    assert stealth.match.sim is not None  # the episode before is still there


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-. ", min_size=1, max_size=12))
def test_any_unknown_scene_name_is_an_options_error(stealth, name) -> None:
    if name.strip() in ("arena", "warehouse", "compound", "monastery"):
        return
    with pytest.raises(EnvOptionsError, match="cannot load scene"):
        stealth.reset(options={"scene": name})


def test_options_that_are_not_a_dict_raise() -> None:
    env = GuardEnv(**SMALL)
    with pytest.raises(EnvOptionsError, match="options must be a dict"):
        env.reset(options=[("guards", 1)])  # type: ignore[arg-type]
    env.close()


def test_guard_env_needs_a_guard_to_drive() -> None:
    env = GuardEnv(**SMALL)
    with pytest.raises(EnvOptionsError, match="at least 1 guard"):
        env.reset(seed=0, options={"guards": 0})
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    env.close()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"frame_skip": 0}, "frame_skip must be an integer"),
        ({"tick_hz": math.nan}, "tick_hz must be a number"),
        ({"action_type": "hybrid"}, "action_type must be"),
        ({"sceen": "arena"}, "unknown setting.*sceen"),
        ({"rays": 0}, "rays must be an integer"),
    ],
)
def test_bad_constructor_settings_raise(kwargs: dict, message: str) -> None:
    with pytest.raises(EnvOptionsError, match=message):
        StealthEnv(**kwargs)


@pytest.fixture(scope="module")
def pair():
    """An env that gets the bad actions and a twin that never does; both step the same valid actions."""
    env, twin = GuardEnv(**SMALL), GuardEnv(**SMALL)
    env.reset(seed=9)
    twin.reset(seed=9)
    yield env, twin
    env.close()
    twin.close()


bad_continuous = st.one_of(
    st.lists(st.floats(-1, 1), min_size=0, max_size=4).filter(lambda v: len(v) != 2),
    st.tuples(st.floats(allow_nan=True), st.floats(allow_nan=True)).filter(
        lambda v: not all(math.isfinite(x) and abs(x) <= 1.0 + 1e-6 for x in v)
    ),
    st.just("fast"),
    st.just(None),
    st.just([[0.0, 0.0]]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(action=bad_continuous)
def test_malformed_continuous_actions_raise_and_change_nothing(pair, action) -> None:
    env, twin = pair
    with pytest.raises(ActionError):
        env.step(action)
    good = np.array([0.2, -0.3], dtype=np.float32)
    assert same(env.step(good)[0], twin.step(good)[0])


@given(
    action=st.one_of(
        st.integers(max_value=-1), st.integers(min_value=9), st.floats(), st.just("1"), st.just(True)
    )
)
def test_malformed_discrete_actions_raise(action) -> None:
    with pytest.raises(ActionError, match=r"integer in 0\.\.8"):
        decode(action, "discrete", PLAYER_SETTINGS_GAITS)


def test_float64_and_list_actions_inside_the_box_are_accepted() -> None:
    assert decode([1.0, 0.0], "continuous", PLAYER_SETTINGS_GAITS) == (3.5, 0.0)
    assert decode(np.array([-1.0, 1.0]), "continuous", PLAYER_SETTINGS_GAITS) == (0.0, math.pi)
    assert decode(np.int64(5), "discrete", PLAYER_SETTINGS_GAITS) == (2.0, -math.pi)


def test_step_before_reset_is_an_env_error() -> None:
    env = StealthEnv(**SMALL)
    with pytest.raises(EnvError, match="reset"):
        env.step(env.action_space.sample())
    env.close()


@pytest.mark.parametrize("env_id", ["npc_ai/Stealth-v0", "npc_ai/Guard-v0"])
@pytest.mark.parametrize("options", [{"sene": "arena"}, {"guards": 1, "dificulty": "easy"}, {"options": 1}])
def test_unknown_reset_option_keys_raise_and_the_env_stays_usable(env_id: str, options: dict) -> None:
    import warnings

    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    env, twin = gym.make(env_id, **SMALL), gym.make(env_id, **SMALL)
    env.reset(seed=3)
    twin.reset(seed=3)
    with pytest.raises(EnvOptionsError, match=r"unknown reset option.*known: scene, guards, difficulty"):
        env.reset(seed=99, options=options)  # the seed is not taken either
    assert same(env.reset()[0], twin.reset()[0])
    obs, info = env.reset(seed=5, options={"scene": "warehouse", "guards": 1, "difficulty": "easy"})
    assert env.observation_space.contains(obs) and info["guards"] == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    env.close()
    twin.close()


def test_guards_v0_and_the_vector_env_refuse_unknown_option_keys_too() -> None:
    from npc_ai.envs import guards_v0
    from npc_ai.envs.vector import GuardVectorEnv

    par = guards_v0.parallel_env(**SMALL)
    par.reset(seed=0, options={"options": 1})  # PettingZoo's API test probe: the one key ignored
    with pytest.raises(EnvOptionsError, match=r"unknown reset option\(s\) 'guard';"):
        par.reset(options={"guard": 1})
    assert par.reset(options={"guards": 1})[0].keys() == {"guard_0"}
    par.close()
    vec = GuardVectorEnv(num_envs=2, **SMALL)
    vec.reset(seed=0)
    vec.step(np.zeros((2, 2), dtype=np.float32))
    with pytest.raises(EnvOptionsError, match=r"unknown reset option\(s\) 'scenes';"):
        vec.reset(options={"scenes": "warehouse"})
    assert all(env.match.steps == 1 for env in vec.envs)  # no world was reset
    vec.close()
