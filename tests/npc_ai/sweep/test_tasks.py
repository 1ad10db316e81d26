"""The tasks: every one has a runner and valid defaults; a trial is a row, its failure an error row, its
wall-clock metrics apart from the rest; rows depend on the seed and nothing else."""

from __future__ import annotations

import pytest

from npc_ai.sweep.tasks import RUNNERS, TASKS
from npc_ai.sweep.trial import TrialJob, run_trial


def test_every_task_has_a_runner_and_checked_defaults() -> None:
    assert list(TASKS) == list(RUNNERS) == ["sync", "sim", "crowd", "nav-scen", "run", "env"]
    for info in TASKS.values():
        for p in info.params:
            assert p.doc
            if p.default is not None:
                assert p.check(p.default, "default") == p.default


def test_a_trial_that_raises_is_an_error_row_with_its_message() -> None:
    row = run_trial(TrialJob("sync", "0007", {"routes": 1, "min_route_m": 900.0}, 5))
    assert (row["trial"], row["seed"], row["status"], row["metrics"]) == ("0007", 5, "error", {})
    assert row["error"] == (
        "BenchmarkSettingsError: could only find 0 routes of at least 900.0 m on this navmesh"
    )
    assert row["timings"]["wall_s"] >= 0


def test_env_rollouts_depend_on_the_seed_only() -> None:
    params = {"policy": "random", "episodes": 1, "time_limit_s": 1.0, "guards": 1}
    a, b, c = (run_trial(TrialJob("env", "0000", params, seed)) for seed in (1, 1, 2))
    assert a["status"] == "ok", a["error"]
    assert set(a["metrics"]) == {"return_mean", "success_rate", "steps_mean"}
    assert a["metrics"] == b["metrics"]
    assert a["metrics"] != c["metrics"]


def test_nav_scen_solves_the_map_and_keeps_timings_apart(movingai_dir) -> None:
    row = run_trial(TrialJob("nav-scen", "0000", {"map": str(movingai_dir / "arena.map")}, 0))
    assert row["status"] == "ok", row["error"]
    m = row["metrics"]
    assert m["scenarios"] == 160 and m["success_rate"] == 1.0 and m["fallbacks"] == 0
    # any-angle paths are never longer than the benchmark's octile optimum
    assert m["length_over_octile_mean"] <= 1.0 + 1e-9
    assert {"bake_s", "query_us_median", "query_us_p95", "wall_s"} == set(row["timings"])
    assert not set(row["timings"]) & set(m)


@pytest.mark.parametrize("name", ["scene", "npcs", "seconds"])
def test_a_metric_named_like_a_parameter_is_renamed(name: str) -> None:
    from npc_ai.sweep import trial

    def fake(params, seed, artifacts):
        return {name: 1.0, "other": 2}

    original = trial.RUNNERS["run"]
    trial.RUNNERS["run"] = fake
    try:
        row = run_trial(TrialJob("run", "0000", {}, 0))
    finally:
        trial.RUNNERS["run"] = original
    assert row["metrics"] == {f"metric_{name}": 1.0, "other": 2}
