"""Where trials run. A backend takes the jobs and yields each finished trial's row as soon as it is done (in
completion order; the store sorts by trial id), so the runner writes every row the moment it exists.

- `local` (default): one worker process per core (`workers`, default `os.cpu_count()`), started with the
  "spawn" method: a PyBullet client and numba's threads do not survive a fork, and spawn is what
  `bench sync` uses. `workers=1` runs the trials in this process, one after the other (no start-up cost);
  the rows are the same either way, because every trial builds its own world from its seed.
- `ray` (the `ray` extra): one Ray task per trial. `ray.init()` connects to the cluster at `RAY_ADDRESS`
  when it is set, else starts a local one with `num_cpus=workers`; a Ray already initialised by the caller
  is used as it is. What the backend started it shuts down. Ray 2.x has no `local_mode`; none is used.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from npc_ai.sweep.errors import BackendError
from npc_ai.sweep.trial import TrialJob, run_trial

BACKENDS = ("local", "ray")
RAY_MISSING = 'the ray backend needs Ray: pip install "npc-ai[ray]" (or pip install "ray>=2.9")'


def default_workers() -> int:
    """One worker per core."""
    return os.cpu_count() or 1


def run_jobs(
    jobs: Sequence[TrialJob], *, backend: str = "local", workers: int | None = None
) -> Iterator[dict]:
    """Run `jobs` on `backend` with `workers` processes; yield each row as its trial finishes."""
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
    n = workers if workers is not None else default_workers()
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise BackendError(f"workers must be a positive integer, got {workers!r}")
    if backend == "ray":
        return _run_ray(jobs, n)
    return _run_local(jobs, n)


def _exit_with_parent(parent: int, period_s: float = 0.5) -> None:
    """A pool worker's initializer: a daemon thread ends the worker once the sweep process is gone
    (killed, even with SIGKILL), so no orphan goes on burning a core on a trial nobody will collect."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(period_s)
        os._exit(1)

    threading.Thread(target=watch, name="npc-ai-sweep-parent-watch", daemon=True).start()


def _run_local(jobs: Sequence[TrialJob], workers: int) -> Iterator[dict]:
    if workers == 1 or len(jobs) <= 1:
        for job in jobs:
            yield run_trial(job)
        return
    context = mp.get_context("spawn")
    pool = ProcessPoolExecutor(
        max_workers=min(workers, len(jobs)),
        mp_context=context,
        initializer=_exit_with_parent,
        initargs=(os.getpid(),),
    )
    finished = False
    try:
        pending = {pool.submit(run_trial, job) for job in jobs}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
        finished = True
    except BrokenProcessPool as exc:
        raise BackendError(
            f"a worker process died ({exc}); the finished trials are kept: run again with --resume"
        ) from None
    finally:
        # interrupted: do not wait for the trials in flight (their workers end with this process)
        pool.shutdown(wait=finished, cancel_futures=True)


def import_ray() -> Any:
    """The `ray` module, or `BackendError` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise BackendError(RAY_MISSING) from None
    return ray


def _run_ray(jobs: Sequence[TrialJob], workers: int) -> Iterator[dict]:
    ray = import_ray()
    started = False
    if not ray.is_initialized():
        if os.environ.get("RAY_ADDRESS"):
            ray.init(address=os.environ["RAY_ADDRESS"], log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        started = True
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(run_trial)
        refs = {remote.remote(job): job for job in jobs}
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                try:
                    yield ray.get(ref)
                except Exception as exc:  # the worker died (run_trial itself never raises)
                    job = refs[ref]
                    why = " ".join(str(exc).split())[:300]
                    yield {
                        "trial": job.trial,
                        "seed": job.seed,
                        "params": dict(job.params),
                        "status": "error",
                        "error": f"Ray worker failed: {type(exc).__name__}: {why}",
                        "metrics": {},
                        "timings": {"wall_s": 0.0},
                    }
    finally:
        if started:
            ray.shutdown()
