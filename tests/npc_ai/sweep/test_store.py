"""The output folder: rows written atomically, tables sorted by trial id whatever the completion order,
a folder holding another sweep refused without a change."""

from __future__ import annotations

import json
import random

import pytest

from npc_ai.sweep import ResumeError, parse_spec
from npc_ai.sweep.store import SweepStore, write_atomic

SPEC = '[sweep]\ntask = "sync"\nseeds = 2\n[grid]\ntau = [0.1, 0.2, 0.4]\n'


def fake_row(trial, status="ok") -> dict:
    """A row as `run_trial` makes it, with metrics derived from the trial (not a real run)."""
    k = int(trial.id)
    metrics = {"drift_mean_m": 0.1 * k, "success_rate": 1.0, "wall_contacts": k} if status == "ok" else {}
    return {
        "trial": trial.id,
        "seed": trial.seed,
        "params": trial.params,
        "status": status,
        "error": "" if status == "ok" else "BenchmarkSettingsError: no route",
        "metrics": metrics,
        "timings": {"wall_s": random.random()},
    }


def test_tables_do_not_depend_on_completion_order(tmp_path) -> None:
    spec = parse_spec(SPEC)
    trials = spec.trials()
    texts = []
    for shuffle_seed in (1, 2):
        folder = tmp_path / str(shuffle_seed)
        store = SweepStore(folder)
        store.open(spec, SPEC, resume=False)
        order = list(trials)
        random.Random(shuffle_seed).shuffle(order)
        for t in order:
            store.write_row(fake_row(t, "error" if t.id == "0003" else "ok"))
        store.write_tables(spec, store.rows(trials))
        texts.append((folder / "results.csv").read_text())
    assert texts[0] == texts[1]
    lines = texts[0].splitlines()
    assert lines[0] == "trial,tau,seed,status,error,drift_mean_m,success_rate,wall_contacts"
    assert [line.split(",")[0] for line in lines[1:]] == [t.id for t in trials]
    assert lines[4] == "0003,0.2,1,error,BenchmarkSettingsError: no route,,,"
    assert lines[2] == "0001,0.1,1,ok,,0.1,1.0,1"
    # the wall-clock column is in its own file
    assert (tmp_path / "1" / "timings.csv").read_text().splitlines()[0] == "trial,wall_s"


def test_a_folder_with_a_sweep_needs_resume_and_the_same_plan(tmp_path) -> None:
    spec = parse_spec(SPEC)
    store = SweepStore(tmp_path)
    store.open(spec, SPEC, resume=False)
    store.write_row(fake_row(spec.trials()[0]))
    before = {p.name: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    with pytest.raises(ResumeError, match=r"already holds this sweep .1 trials done.; pass --resume"):
        store.open(spec, SPEC, resume=False)
    other = parse_spec(SPEC.replace("seeds = 2", "seeds = 3"))
    with pytest.raises(ResumeError, match="holds a sweep of another spec"):
        SweepStore(tmp_path).open(other, None, resume=True)
    assert {p.name: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
    # the same plan with another report section resumes, and a row half-written when killed is dropped
    (tmp_path / "trials" / ".0001.json.x1y2.tmp").write_text('{"trial": "00')
    SweepStore(tmp_path).open(parse_spec(SPEC + '[report]\nx = "tau"\n'), None, resume=True)
    assert sorted(p.name for p in (tmp_path / "trials").iterdir()) == ["0000.json"]
    assert json.loads((tmp_path / "spec.json").read_text())["spec"]["report"]["x"] == "tau"
    assert SweepStore(tmp_path).finished_ids() == {"0000"}


def test_rows_without_a_spec_are_not_taken_over(tmp_path) -> None:
    (tmp_path / "trials").mkdir()
    (tmp_path / "trials" / "0000.json").write_text("{}")
    with pytest.raises(ResumeError, match=r"holds trial rows but no spec\.json"):
        SweepStore(tmp_path).open(parse_spec(SPEC), None, resume=True)


def test_write_atomic_leaves_the_old_file_when_writing_fails(tmp_path) -> None:
    target = tmp_path / "row.json"
    target.write_text("old")

    with pytest.raises(TypeError):
        write_atomic(target, 42)  # type: ignore[arg-type]
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["row.json"]  # no temporary file left


def test_parquet_joins_results_and_timings_when_pyarrow_is_there(tmp_path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    spec = parse_spec(SPEC)
    store = SweepStore(tmp_path)
    store.open(spec, None, resume=False)
    for t in spec.trials():
        store.write_row(fake_row(t, "error" if t.id == "0002" else "ok"))
    written = store.write_tables(spec, store.rows(spec.trials()))
    assert written[-1] == tmp_path / "results.parquet"
    table = pq.read_table(written[-1]).to_pydict()
    assert table["trial"] == [t.id for t in spec.trials()]
    assert table["drift_mean_m"][2] is None and table["drift_mean_m"][3] == pytest.approx(0.3)
    assert len(table["wall_s"]) == 6
