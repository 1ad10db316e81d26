"""`npc-ai sweep` as a user runs it: a real process killed half-way and resumed gives the same results.csv
as an uninterrupted run; bad input is one line, exit status 2, and no result in the folder is lost."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from npc_ai.sweep import parse_spec, run_sweep
from tests.npc_ai.sweep.conftest import TINY_SPEC

# trials that fail at once (no such scene): the refusals below need a folder with results, not a simulation
FAILING_SPEC = """
[sweep]
task = "run"
seeds = 2

[grid]
scene = ["no_such_scene", "nowhere"]
"""

# eight trials of a few tenths of a second each, so the kill lands half-way
SLOW_SPEC = """
[sweep]
task = "run"
seeds = 4

[params]
scene = "arena"
player = "wander"
npcs = 3

[grid]
seconds = [3.0, 4.0]

[report]
metrics = ["shots"]
"""


def sweep(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "npc_ai", "sweep", *args], cwd=cwd, capture_output=True, text=True, timeout=240
    )


def test_killed_and_resumed_equals_uninterrupted(tmp_path) -> None:
    spec_file = tmp_path / "slow.toml"
    spec_file.write_text(SLOW_SPEC)
    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-m", "npc_ai", "sweep", str(spec_file), "--out", str(out), "--workers", "1"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 180
        while len(list((out / "trials").glob("*.json"))) < 2 and proc.poll() is None:
            assert time.monotonic() < deadline, "the sweep wrote no trial rows in 180 s"
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the sweep finished before it could be killed"
    done = len(list((out / "trials").glob("*.json")))
    assert 2 <= done < 8
    assert not (out / "results.csv").exists()

    # one worker, as the killed run had: resuming is the store's work, whatever runs the trials (a pool
    # writing the same bytes as one process is test_backends' check), and a pool would only add the
    # start-up of two more processes
    resumed = sweep(str(spec_file), "--out", str(out), "--resume", "--quiet", "--workers", "1", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert f"8 trials ({done} already done, {8 - done} run now, 0 failed)" in resumed.stdout

    whole = tmp_path / "whole"
    run_sweep(parse_spec(SLOW_SPEC), whole, workers=1)
    assert (out / "results.csv").read_bytes() == (whole / "results.csv").read_bytes()


def test_bad_input_is_one_line_and_keeps_the_results(tmp_path) -> None:
    spec_file = tmp_path / "failing.toml"
    spec_file.write_text(FAILING_SPEC)
    out = tmp_path / "out"
    first = run_sweep(parse_spec(FAILING_SPEC), out, workers=1, spec_text=FAILING_SPEC)
    assert (first.ran, first.failed) == (4, 4)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}

    again = sweep(str(spec_file), "--out", str(out), cwd=tmp_path)
    assert again.returncode == 2
    assert again.stderr.strip().splitlines() == [
        f"npc-ai: error: {out} already holds this sweep (4 trials done); pass --resume to finish it, "
        "or use another --out folder"
    ]
    other = tmp_path / "other.toml"
    other.write_text(FAILING_SPEC.replace("seeds = 2", "seeds = 3"))
    changed = sweep(str(other), "--out", str(out), "--resume", cwd=tmp_path)
    assert changed.returncode == 2 and "holds a sweep of another spec" in changed.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text(FAILING_SPEC.replace("[grid]", '[params]\nplayer = "ghost"\n[grid]'))
    refused = sweep(str(bad), "--out", str(out), "--resume", cwd=tmp_path)
    assert refused.returncode == 2
    assert "params: player must be one of auto, route, wander, still, none, got 'ghost'" in refused.stderr
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before

    resumed = run_sweep(parse_spec(FAILING_SPEC), out, resume=True)
    assert (resumed.skipped, resumed.ran, resumed.failed) == (4, 0, 4)
    assert "no_such_scene" in (out / "results.csv").read_text()


def test_ray_missing_is_refused_before_the_folder_is_touched(tmp_path) -> None:
    spec_file = tmp_path / "tiny.toml"
    spec_file.write_text(TINY_SPEC)
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "from npc_ai.cli import main\n"
        f"sys.exit(main(['sweep', {str(spec_file)!r}, '--out', 'o', '--backend', 'ray']))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert 'the ray backend needs Ray: pip install "npc-ai[ray]"' in proc.stderr
    assert not (tmp_path / "o").exists()
