"""`run_sweep`: check the output folder, run the trials not yet done on a backend, write each row as it
finishes, then rebuild the tables and the report from every row in the folder."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from npc_ai.sweep.backends import run_jobs
from npc_ai.sweep.report import write_report
from npc_ai.sweep.spec import SweepSpec
from npc_ai.sweep.store import SweepStore
from npc_ai.sweep.trial import OK, TrialJob

Progress = Callable[[int, int, int], None]
"""`progress(done, total, failed)`: told after every finished trial."""


@dataclass(frozen=True)
class SweepResult:
    """What a run did: trials in the spec, skipped (already in DIR), run now, failed (in all), the files
    written, the wall time [s]."""

    trials: int
    skipped: int
    ran: int
    failed: int
    written: tuple[Path, ...]
    seconds: float


def run_sweep(
    spec: SweepSpec,
    out: str | Path,
    *,
    backend: str = "local",
    workers: int | None = None,
    resume: bool = False,
    spec_text: str | None = None,
    progress: Progress | None = None,
) -> SweepResult:
    """Run `spec` into the folder `out` (layout: `npc_ai.sweep.store`).

    Args:
        backend: "local" or "ray" (`npc_ai.sweep.backends`). workers: processes (default: one per core).
        resume: finish the sweep already in `out` (same plan), skipping its finished trials.
        spec_text: the spec file's text, kept as out/spec.toml.
        progress: told after each trial (see `Progress`).
    Raises:
        ResumeError: `out` holds another sweep, or this one without `resume` (nothing is changed).
        BackendError: an unknown backend, Ray missing, a worker pool that broke (finished rows kept).
    """
    t0 = time.perf_counter()
    store = SweepStore(out)
    store.open(spec, spec_text, resume=resume)
    trials = spec.trials()
    finished = store.finished_ids()
    artifacts = store.folder / "artifacts"
    jobs = [
        TrialJob(spec.task, t.id, t.params, t.seed, str((artifacts / t.id).resolve()))
        for t in trials
        if t.id not in finished
    ]
    skipped = len(trials) - len(jobs)
    failed_now = 0
    for n, row in enumerate(run_jobs(jobs, backend=backend, workers=workers), 1):
        store.write_row(row)
        failed_now += row["status"] != OK
        if progress is not None:
            progress(n, len(jobs), failed_now)
    rows = store.rows(trials)
    written = store.write_tables(spec, rows)
    written += write_report(spec, rows, store.folder)
    return SweepResult(
        trials=len(trials),
        skipped=skipped,
        ran=len(jobs),
        failed=sum(r["status"] != OK for r in rows),
        written=tuple(written),
        seconds=time.perf_counter() - t0,
    )


class SweepProgress:
    """Trials done on stderr with an ETA: a tqdm bar on a terminal, else one line per trial; nothing
    when `quiet`."""

    def __init__(self, *, quiet: bool = False, stream: TextIO | None = None) -> None:
        self.quiet = quiet
        self.stream = stream if stream is not None else sys.stderr
        self._bar: Any = None
        self._t0 = time.perf_counter()

    def __call__(self, done: int, total: int, failed: int) -> None:
        if self.quiet:
            return
        if self.stream.isatty():
            if self._bar is None:
                from tqdm import tqdm

                self._bar = tqdm(total=total, desc="npc-ai sweep", unit="trial", file=self.stream)
            self._bar.set_postfix(failed=failed)
            self._bar.update(done - self._bar.n)
            return
        spent = time.perf_counter() - self._t0
        eta = spent / done * (total - done)
        print(
            f"npc-ai: sweep: {done}/{total} trials ({failed} failed), {spent:.0f} s, ETA {eta:.0f} s",
            file=self.stream,
            flush=True,
        )

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
