"""`bench sim`: result shape, JSON, the profile table and the plot (tiny runs, no wall-clock thresholds)."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from npc_ai.bench.sim import (
    CALL_PHASES,
    PHASES,
    call_phase,
    format_profile,
    format_table,
    plot_bench_sim,
    run_bench_sim,
)
from npc_ai.cli.sim import add_bench_sim_arguments, cmd_bench_sim
from npc_ai.errors import BenchmarkSettingsError
from scenes import load_scene
from scenes.depenetration import FEW
from tests.conftest import REPO

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def npc_ai(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "npc_ai", *args], capture_output=True, text=True, cwd=REPO, timeout=120
    )


@pytest.fixture(scope="module")
def results():
    return run_bench_sim(load_scene("arena"), (2, 4), seconds=0.2, warmup_s=0.05)


def test_results(results) -> None:
    assert [r.npcs for r in results] == [2, 4]
    for r in results:
        assert r.ticks == 12 and r.npc_ticks_per_s > 0 and r.pybullet_s > 0
        # PyBullet's time comes from a second (probed) run of the same ticks: on a busy machine one run can
        # be preempted and the other not, so a 12-tick share may pass 1; it is that ratio, exactly
        assert r.pybullet_share == pytest.approx(r.pybullet_s / r.wall_s)
        assert r.build_s > 0 and r.rss_mb > 0
    assert len(format_table(results)) == 3
    with pytest.raises(BenchmarkSettingsError, match="NPC counts must be positive"):
        run_bench_sim(load_scene("arena"), (0,))


def test_phase_times_add_up_to_the_tick(results) -> None:
    for r in results:
        ms = r.ms_per_tick
        assert set(ms) == {*PHASES, "pybullet"}
        assert all(v >= 0 for v in ms.values())
        assert sum(ms[p] for p in PHASES) == pytest.approx(1e3 * r.wall_s / r.ticks, rel=0.2)
        assert 0 < ms["pybullet"] < r.tick_ms


def test_pybullet_calls_per_tick(results) -> None:
    for r in results:
        calls = r.pybullet_calls_per_tick
        assert calls["stepSimulation"] == 1  # one step a tick (substeps are PyBullet's own)
        # every NPC and the player are read once a tick after the step
        assert calls["getBasePositionAndOrientation"] == r.npcs + 1
        assert calls["getBaseVelocity"] == r.npcs + 1
        if r.npcs + 1 > FEW:  # the depenetration pass: every contact of the world at once
            assert calls["performCollisionDetection"] == 1 and calls["getContactPoints"] == 1
        else:  # a few capsules: their closest points to the level's one static body
            assert "performCollisionDetection" not in calls
            assert calls["getClosestPoints"] >= r.npcs + 1
        by_phase = r.calls_per_tick_by_phase()
        assert set(by_phase) == {"perceive", "physics", "other"}
        assert sum(by_phase.values()) == pytest.approx(sum(calls.values()))
        assert by_phase["physics"] >= 2 * (r.npcs + 1) + 3


def test_pybullet_time_is_timed_per_function(results) -> None:
    """The timing run times exactly the functions the measured run called, and nothing else."""
    for r in results:
        assert set(r.pybullet_time) == set(r.pybullet_calls)
        assert r.pybullet_s == pytest.approx(sum(r.pybullet_time.values()))
        assert all(v > 0 for v in r.pybullet_time.values())
        ms = list(r.pybullet_ms_per_tick.values())
        assert ms == sorted(ms, reverse=True) and sum(ms) == pytest.approx(r.ms_per_tick["pybullet"])


def test_timed_pybullet_wraps_the_module_and_restores_it() -> None:
    from npc_ai.bench.sim import timed_pybullet
    from scenes._bullet import new_client, pybullet

    original = pybullet.stepSimulation
    client = new_client()
    try:
        with timed_pybullet() as spent:
            assert pybullet.stepSimulation is not original
            client.stepSimulation()  # through the BulletClient wrapper
            pybullet.stepSimulation(physicsClientId=client._client)  # raw
            pybullet.getNumBodies(physicsClientId=client._client)
        assert set(spent) == {"stepSimulation", "getNumBodies"} and all(v > 0 for v in spent.values())
        assert pybullet.stepSimulation is original
        client.stepSimulation()
        assert set(spent) == {"stepSimulation", "getNumBodies"}  # nothing counted after the block
    finally:
        client.disconnect()


def test_call_phases() -> None:
    assert call_phase("stepSimulation") == "physics" and call_phase("rayTestBatch") == "perceive"
    assert call_phase("getOverlappingObjects") == "perceive" and call_phase("getNumJoints") == "other"
    kinds = [k for ks in CALL_PHASES.values() for k in ks]
    assert len(kinds) == len(set(kinds))


def test_profile_table(results) -> None:
    lines = format_profile(results)
    text = "\n".join(lines)
    assert lines[0].startswith("2 NPCs: ") and "4 NPCs: " in text
    for phase in PHASES:
        assert sum(line.split()[:1] == [phase] for line in lines) == 2
    physics = next(line for line in lines if line.split()[:1] == ["physics"])
    assert "stepSimulation 1," in physics and "getBasePositionAndOrientation 3," in physics
    assert text.count("PyBullet ") >= 2 and "% tick" in text


def test_plot_a_single_size(results, tmp_path: Path) -> None:
    out = plot_bench_sim(results[:1], tmp_path / "one.png", title="one size")
    data = out.read_bytes()
    assert data.startswith(PNG_SIGNATURE) and len(data) > 1024


def test_kinematic_bodies_step_no_capsule_and_read_none_back(tmp_path: Path) -> None:
    p = argparse.ArgumentParser()
    add_bench_sim_arguments(p)
    out = tmp_path / "kinematic.json"
    args = ["--scene", "arena", "--sizes", "3", "--seconds", "0.2", "--bodies", "kinematic", "--quiet"]
    assert cmd_bench_sim(p.parse_args([*args, "--json", str(out)])) == 0
    data = json.loads(out.read_text())
    assert data["bodies"] == "kinematic"
    calls = data["results"][0]["pybullet_calls_per_tick"]
    assert 0 < calls["resetBasePositionAndOrientation"] <= 3  # the NPCs that moved, teleported
    assert calls["getBasePositionAndOrientation"] == 1  # only the player is read back
    assert "resetBaseVelocity" not in calls or calls["resetBaseVelocity"] <= 1  # the player's, if any


def test_json_shape(tmp_path: Path, capsys) -> None:
    p = argparse.ArgumentParser()
    add_bench_sim_arguments(p)
    assert p.parse_args([]).sizes == [10, 100]
    out = tmp_path / "bench.json"
    args = p.parse_args(
        ["--scene", "arena", "--sizes", "1", "3", "--seconds", "0.2", "--json", str(out), "--quiet"]
    )
    assert cmd_bench_sim(args) == 0
    data = json.loads(out.read_text())
    assert set(data) == {"scene", "bodies", "seconds", "seed", "warmup_s", "results", "kernels"}
    assert data["bodies"] == "dynamic"
    kernels = data["kernels"]
    assert set(kernels) == {"compile_s", "compiled", "loaded"} and kernels["compile_s"] >= 0
    assert all(isinstance(kernels[k], int) and kernels[k] >= 0 for k in ("compiled", "loaded"))
    assert (data["scene"], data["seconds"], data["seed"]) == ("arena", 0.2, 0)
    assert [r["npcs"] for r in data["results"]] == [1, 3]
    for r in data["results"]:
        assert {
            "npcs",
            "npc_ticks_per_s",
            "pybullet_share",
            "real_time_factor",
            "realtime_factor",
            "ms_per_tick",
            "rss_mb",
            "pybullet_calls_per_tick",
            "pybullet_calls_per_tick_by_phase",
            "build_s",
        } <= set(r)
        assert isinstance(r["npc_ticks_per_s"], float) and 0 < r["pybullet_share"] < 1
        assert r["real_time_factor"] == r["realtime_factor"] > 0
        assert r["real_time_factor"] == pytest.approx(r["ticks"] * r["dt"] / r["wall_s"], rel=0.01)
        ms = r["ms_per_tick"]
        assert set(ms) == {"perceive", "decide", "locomotion", "physics", "record", "pybullet"}
        tick_ms = 1e3 * r["wall_s"] / r["ticks"]
        assert sum(ms[p] for p in PHASES) == pytest.approx(tick_ms, rel=0.2)
        assert r["rss_mb"] > 0 and r["build_s"] > 0
        assert r["pybullet_calls_per_tick"]["stepSimulation"] == 1
    out_text = capsys.readouterr().out
    assert "npc-ticks/s" in out_text and "% tick" not in out_text  # no profile unless asked


@pytest.mark.slow  # a CLI process that benchmarks: the slow set (CI runs it)
def test_cli_profile_and_plot(tmp_path: Path) -> None:
    png = tmp_path / "sim.png"
    args = ["bench", "sim", "--scene", "arena", "--sizes", "2", "--seconds", "0.2", "--profile"]
    out = npc_ai(*args, "--plot", str(png), "--quiet")
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    lines = out.stdout.splitlines()
    assert lines[0].startswith("simulation benchmark on arena") and "npc-ticks/s" in lines[1]
    assert "2 NPCs: " in out.stdout and "% tick" in out.stdout
    for phase in (*PHASES, "PyBullet"):
        assert any(line.split()[:1] == [phase] for line in lines), phase
    assert f"wrote {png}" in out.stdout
    # a fresh process: every kernel it ran was either compiled or loaded from the disk cache
    used = re.search(r"^compiled kernels: (\d+) (compiled|loaded)", out.stdout, re.MULTILINE)
    assert used is not None and int(used.group(1)) > 0, out.stdout
    data = png.read_bytes()
    assert data.startswith(PNG_SIGNATURE) and len(data) > 1024


@pytest.mark.slow  # CLI processes: the slow set (CI runs it)
def test_cli_refuses_bad_sizes_and_plot_paths(tmp_path: Path) -> None:
    out = npc_ai("bench", "sim", "--sizes", "0")
    assert out.returncode == 2 and "positive integer" in out.stderr
    out = npc_ai("bench", "sim", "--plot", str(tmp_path / "sim.csv"))
    assert out.returncode == 2 and "--plot" in out.stderr and "must end in .png" in out.stderr
