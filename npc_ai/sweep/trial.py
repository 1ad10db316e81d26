"""One trial, run where a backend puts it (this process, a pool worker, a Ray worker): the task's runner
under the trial's parameters and seed, turned into one JSON-ready row. A trial that raises becomes an
error row with the message; the sweep goes on."""

from __future__ import annotations

import numbers
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from npc_ai.sweep.params import Value
from npc_ai.sweep.tasks import RUNNERS, TASKS

OK, ERROR = "ok", "error"


@dataclass(frozen=True)
class TrialJob:
    """What a worker needs to run one trial (plain data: it is pickled to pool and Ray workers).

    Attributes:
        task: the task's name. trial: the trial id. params: the parameters the spec sets.
        seed: the trial's seed. artifacts: the folder for its files (GIFs), None for none.
    """

    task: str
    trial: str
    params: dict[str, Value]
    seed: int
    artifacts: str | None = None


def _plain(value: Any) -> Value:
    """A metric as a JSON scalar: bools, ints, floats (NaN kept), strings."""
    if isinstance(value, bool | str):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if hasattr(value, "item"):  # a numpy bool
        return _plain(value.item())
    raise TypeError(f"a metric must be a number, a bool or a string, got {type(value).__name__}")


def run_trial(job: TrialJob) -> dict[str, Any]:
    """Run one trial; return its row:

    `{"trial", "seed", "params", "status": "ok" | "error", "error": message or "", "metrics": {...},
    "timings": {"wall_s": ..., the task's timing metrics}}`. Metrics are split from timings by the task's
    `timing_metrics`, so `metrics` depends only on the parameters and the seed.
    """
    info = TASKS[job.task]
    resolved = info.resolve(job.params)
    artifacts = Path(job.artifacts) if job.artifacts is not None else None
    t0 = time.perf_counter()
    metrics: dict[str, Value] = {}
    timings: dict[str, Value] = {}
    try:
        out = RUNNERS[job.task](resolved, job.seed, artifacts)
        taken = {"trial", "seed", "status", "error", *resolved}
        for key, value in out.items():
            name = f"metric_{key}" if key in taken else key  # never two columns of one name
            (timings if key in info.timing_metrics else metrics)[name] = _plain(value)
        status, error = OK, ""
    except Exception as exc:  # the trial's failure is its row; the sweep goes on
        status, error = ERROR, f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        metrics, timings = {}, {}
    wall = time.perf_counter() - t0
    return {
        "trial": job.trial,
        "seed": job.seed,
        "params": dict(job.params),
        "status": status,
        "error": error,
        "metrics": metrics,
        "timings": {"wall_s": wall, **timings},
    }
