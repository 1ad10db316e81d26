"""report.md: means and Student-t intervals over seeds, checked against a hand computation; one plot per
metric with one line per mode."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from npc_ai.sweep import parse_spec
from npc_ai.sweep.report import paired_differences, summarize, write_report

SPEC = """
[sweep]
task = "sync"
seeds = 3
[grid]
mode = ["root_motion", "agent_drives"]
tau = [0.1, 0.4]
[report]
metrics = ["drift_mean_m", "missing_metric"]
"""


def test_interval_is_students_t_over_the_seeds() -> None:
    values = [1.0, 2.0, 4.0, 9.0]
    s = summarize(values)
    half = stats.t.ppf(0.975, 3) * np.std(values, ddof=1) / 2.0  # sqrt(4) = 2
    assert s.n == 4 and s.mean == pytest.approx(4.0)
    assert (s.low, s.high) == pytest.approx((4.0 - half, 4.0 + half))
    # a second method: scipy's own t interval
    assert (s.low, s.high) == pytest.approx(stats.t.interval(0.95, 3, loc=4.0, scale=stats.sem(values)))


def test_one_value_has_no_interval_and_nans_are_left_out() -> None:
    s = summarize([2.0, math.nan])
    assert s.n == 1 and s.mean == 2.0 and math.isnan(s.low)
    assert s.text() == "2 (n=1)"
    assert summarize([]).text() == "–"


def test_report_tables_plots_and_failures(tmp_path) -> None:
    spec = parse_spec(SPEC)
    rows = []
    for t in spec.trials():
        failed = t.params["mode"] == "agent_drives" and t.params["tau"] == 0.4 and t.seed == 2
        drift = t.params["tau"] * (2.0 if t.params["mode"] == "root_motion" else 1.0) + 0.01 * t.seed
        rows.append(
            {
                "trial": t.id,
                "seed": t.seed,
                "params": t.params,
                "status": "error" if failed else "ok",
                "error": "RuntimeError: boom | bang" if failed else "",
                "metrics": {} if failed else {"drift_mean_m": drift, "label": "x"},
                "timings": {"wall_s": 1.0},
            }
        )
    written = write_report(spec, rows, tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert [p.name for p in written] == ["report.md", "plot_drift_mean_m.png"]
    assert "Not found in any trial: missing_metric." in text
    assert "| mode | tau | n | drift_mean_m |" in text
    expected = summarize([0.2, 0.21, 0.22])
    assert f"| root_motion | 0.1 | 3 | 0.21 [{expected.low:.4g}, {expected.high:.4g}] |" in text
    assert "| agent_drives | 0.4 | 2 | 0.405 [" in text  # the failed seed is left out
    assert "| 0011 | 2 | RuntimeError: boom / bang |" in text
    assert (tmp_path / "plot_drift_mean_m.png").read_bytes()[:4] == b"\x89PNG"
    assert "![drift_mean_m against tau](plot_drift_mean_m.png)" in text


def test_paired_differences_cancel_what_the_seeds_share() -> None:
    """metric = a large per-seed offset + 3 * tau: the spread over seeds is wide, the paired difference
    to the first tau is exactly 3 * (tau - 0.1) with a zero-width interval."""
    spec = parse_spec(SPEC)
    offsets = {0: 10.0, 1: -7.0, 2: 31.0}
    rows = [
        {
            "trial": t.id,
            "seed": t.seed,
            "params": t.params,
            "status": "ok",
            "error": "",
            "metrics": {"drift_mean_m": offsets[t.seed] + 3.0 * t.params["tau"]},
            "timings": {},
        }
        for t in spec.trials()
    ]
    spread = summarize([offsets[s] + 1.2 for s in (0, 1, 2)])
    assert spread.high - spread.low > 50
    diffs = paired_differences(spec, rows, "tau", "drift_mean_m")
    assert set(diffs) == {("root_motion", 0.4), ("agent_drives", 0.4)}
    for s in diffs.values():
        assert s.n == 3
        assert (s.mean, s.low, s.high) == pytest.approx((0.9, 0.9, 0.9))
