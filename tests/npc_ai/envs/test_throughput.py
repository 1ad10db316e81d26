"""The throughput command runs and prints one line per id, its CPU-time split included."""

from __future__ import annotations

import pytest

pytest.importorskip("gymnasium")

from npc_ai.envs import IDS
from npc_ai.envs.throughput import main


def test_throughput_prints_a_line_per_env(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--seconds", "0.2", "--guards", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("scene arena, 2 guards")
    for env_id, line in zip(IDS, out[1:], strict=True):
        assert line.startswith(env_id) and "CPU time: a tick" in line and "the env's own work" in line
