"""The baseline policies and the command that measures them (docs/envs.md's table)."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from npc_ai.envs import GuardEnv, StealthEnv, scripted_guard, scripted_player
from npc_ai.envs.baselines import main


@pytest.mark.parametrize("cls, policy", [(StealthEnv, scripted_player), (GuardEnv, scripted_guard)])
def test_scripted_policies_act_inside_the_action_space(cls, policy) -> None:
    env = cls(rays=8, time_limit_s=3.0)
    obs, _ = env.reset(seed=0)
    for _ in range(45):
        action = policy(obs)
        assert env.action_space.contains(action)
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
    env.close()


def test_the_scripted_player_heads_for_the_path_corner() -> None:
    obs = {"goal": np.array([9.0, 0.0, 9.0, 0.0, 4.0, 1.0], np.float32), "self": np.zeros(6, np.float32)}
    speed, turn = scripted_player(obs)
    assert speed == -1.0 and turn == 1.0  # the corner is on its left, 90 degrees off: turn on the spot
    obs["goal"][3:5] = (4.0, 0.0)
    speed, turn = scripted_player(obs)
    assert speed > -1.0 and turn == 0.0


def test_the_baselines_command_prints_one_row_per_env_and_policy(capsys) -> None:
    assert main(["--episodes", "1", "--time-limit", "1", "--guards", "1"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(
        r"^(\S+) (?:\(\d+ g\))?\s+(scripted|random)\s+-?\d+\.\d+\s+\d+%\s+\d+$", out, re.MULTILINE
    )
    assert [r[1] for r in rows] == ["scripted", "random"] * 3
