"""`bench sim`: result shape and JSON."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from npc_ai.bench.sim import format_table, run_bench_sim
from npc_ai.cli.sim import add_bench_sim_arguments, cmd_bench_sim
from npc_ai.errors import BenchmarkSettingsError
from scenes import load_scene


def test_results() -> None:
    results = run_bench_sim(load_scene("arena"), (2, 4), seconds=0.2, warmup_s=0.05)
    assert [r.npcs for r in results] == [2, 4]
    for r in results:
        assert r.ticks == 12 and r.npc_ticks_per_s > 0 and 0 < r.pybullet_share < 1
    assert len(format_table(results)) == 3
    with pytest.raises(BenchmarkSettingsError, match="NPC counts must be positive"):
        run_bench_sim(load_scene("arena"), (0,))


def test_json_shape(tmp_path: Path, capsys) -> None:
    p = argparse.ArgumentParser()
    add_bench_sim_arguments(p)
    out = tmp_path / "bench.json"
    args = p.parse_args(["--scene", "arena", "--sizes", "1", "3", "--seconds", "0.1", "--json", str(out)])
    assert cmd_bench_sim(args) == 0
    data = json.loads(out.read_text())
    assert list(data) == ["results"]
    assert [r["npcs"] for r in data["results"]] == [1, 3]
    for r in data["results"]:
        assert {"npcs", "npc_ticks_per_s", "pybullet_share"} <= set(r)
        assert isinstance(r["npc_ticks_per_s"], float) and 0 < r["pybullet_share"] < 1
    assert "npc-ticks/s" in capsys.readouterr().out
