"""The same spec gives a byte-identical results.csv in this process, in a 2-worker pool and on Ray: every
trial builds its own world from its seed, and wall-clock values live in timings.csv."""

from __future__ import annotations

import sys

import pytest

from npc_ai.sweep import BackendError, parse_spec, run_sweep
from npc_ai.sweep.backends import run_jobs
from tests.npc_ai.sweep.conftest import TINY_SPEC


@pytest.fixture(scope="module")
def in_process(tmp_path_factory: pytest.TempPathFactory):
    """The reference: the tiny spec run trial after trial in this process."""
    out = tmp_path_factory.mktemp("workers1")
    result = run_sweep(parse_spec(TINY_SPEC), out, workers=1)
    return out, result


def test_the_reference_run_has_ok_and_error_rows(in_process) -> None:
    out, result = in_process
    assert (result.trials, result.ran, result.skipped, result.failed) == (8, 8, 0, 4)
    lines = (out / "results.csv").read_text().splitlines()
    assert lines[0].startswith("trial,scene,npcs,seconds,player,seed,status,error,")
    assert [line.split(",")[0] for line in lines[1:]] == [f"{i:04d}" for i in range(8)]
    failed = [line for line in lines[1:] if ",error," in line]
    assert len(failed) == 4 and all("no_such_scene" in line for line in failed)
    # seeds give different runs: the two 3-NPC arena trials differ beyond their seed column
    rows = {line.split(",")[0]: line.split(",")[6:] for line in lines[1:]}
    assert rows["0002"] != rows["0003"]
    assert (out / "timings.csv").read_text().splitlines()[0] == "trial,wall_s"
    assert "| arena | 3 | 2 |" in (out / "report.md").read_text()


def test_a_two_worker_pool_writes_the_same_bytes(in_process, tmp_path) -> None:
    reference, _ = in_process
    run_sweep(parse_spec(TINY_SPEC), tmp_path, workers=2)
    assert (tmp_path / "results.csv").read_bytes() == (reference / "results.csv").read_bytes()
    assert (tmp_path / "report.md").read_bytes() == (reference / "report.md").read_bytes()


def test_ray_writes_the_same_bytes(in_process, tmp_path) -> None:
    ray = pytest.importorskip("ray")
    reference, _ = in_process
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        result = run_sweep(parse_spec(TINY_SPEC), tmp_path, backend="ray", workers=2)
        assert ray.is_initialized()  # a Ray the caller started is left to the caller
    finally:
        ray.shutdown()
    assert result.ran == 8
    assert (tmp_path / "results.csv").read_bytes() == (reference / "results.csv").read_bytes()


def test_bad_backends_are_refused(monkeypatch) -> None:
    with pytest.raises(BackendError, match="unknown backend 'spark'; choose from local, ray"):
        run_jobs([], backend="spark")
    with pytest.raises(BackendError, match="workers must be a positive integer, got 0"):
        run_jobs([], workers=0)
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the extra were not installed
    with pytest.raises(BackendError, match=r'pip install "npc-ai\[ray\]"'):
        list(run_jobs([], backend="ray"))
