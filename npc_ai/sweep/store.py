"""The output folder of a sweep, DIR:

- `spec.json`: the spec (its plan decides the trials; `--resume` refuses another plan), `spec.toml` a copy
  of the file as given;
- `trials/<id>.json`: one row per finished trial, written atomically (a temporary file, then a rename) as
  the trial finishes, so a killed sweep loses at most the trials in flight;
- `results.csv`: one row per trial, sorted by trial id: `trial`, the parameters the spec sets, `seed`,
  `status`, `error`, the metrics. Only values that depend on the parameters and the seed: the same spec
  gives a byte-identical file on any backend and worker count;
- `timings.csv`: `trial`, `wall_s` (the trial's wall time [s]) and the task's wall-clock metrics;
- `results.parquet`: results and timings joined, when pyarrow is importable;
- `report.md` and its plots (`npc_ai.sweep.report`); `artifacts/<id>/` files trials write (GIFs).

Both CSV files are rebuilt from `trials/` at the end of every run.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from npc_ai.sweep.errors import ResumeError
from npc_ai.sweep.spec import SweepSpec, Trial, canonical

TRIALS = "trials"
FIXED_COLUMNS = ("status", "error")


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file in the same folder and a rename: a reader (or a
    resumed sweep) sees the old file or the whole new one, never a part."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic_bytes(path: Path, write: Callable[[Any], None]) -> None:
    """`write_atomic` for a binary writer: `write(file)` fills a temporary file that is then renamed."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class SweepStore:
    """The files of one sweep in `folder` (module doc)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.trials_dir = self.folder / TRIALS

    def open(self, spec: SweepSpec, spec_text: str | None, *, resume: bool) -> None:
        """Make the folder ready for `spec`, or raise `ResumeError` having changed nothing.

        A new or empty folder takes any spec. A folder with a sweep in it takes only `--resume` with the
        same plan (task, parameters, seeds); a different plan, or no `--resume`, is refused.
        """
        stored = self.folder / "spec.json"
        held = self.finished_ids()
        if stored.exists():
            try:
                old = json.loads(stored.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ResumeError(f"{stored} is unreadable ({exc}); use another --out folder") from None
            if canonical(old.get("plan", {})) != canonical(spec.plan()):
                raise ResumeError(
                    f"{self.folder} holds a sweep of another spec (task, parameters or seeds differ); "
                    "use another --out folder, or the spec stored there (spec.toml)"
                )
            if not resume:
                raise ResumeError(
                    f"{self.folder} already holds this sweep ({len(held)} trials done); "
                    "pass --resume to finish it, or use another --out folder"
                )
        elif held:
            raise ResumeError(f"{self.folder} holds trial rows but no spec.json; use another --out folder")
        self.trials_dir.mkdir(parents=True, exist_ok=True)
        for stale in self.trials_dir.glob(".*.tmp"):  # a row being written when the sweep was killed
            stale.unlink(missing_ok=True)
        doc = {"plan": spec.plan(), "spec": spec.to_json()}
        write_atomic(stored, json.dumps(doc, indent=2, sort_keys=True) + "\n")
        if spec_text is not None:
            write_atomic(self.folder / "spec.toml", spec_text)

    def finished_ids(self) -> set[str]:
        """The ids of the trials with a row in `trials/`."""
        if not self.trials_dir.is_dir():
            return set()
        return {p.stem for p in self.trials_dir.glob("*.json")}

    def write_row(self, row: dict[str, Any]) -> None:
        write_atomic(self.trials_dir / f"{row['trial']}.json", json.dumps(row, sort_keys=True) + "\n")

    def rows(self, trials: Sequence[Trial]) -> list[dict[str, Any]]:
        """The rows of `trials` that have one, in trial order."""
        out = []
        for t in trials:
            path = self.trials_dir / f"{t.id}.json"
            if path.exists():
                out.append(json.loads(path.read_text(encoding="utf-8")))
        return out

    def write_tables(self, spec: SweepSpec, rows: Sequence[dict[str, Any]]) -> list[Path]:
        """results.csv, timings.csv and (with pyarrow) results.parquet; returns the paths written."""
        params = spec.columns
        metrics = _keys(r["metrics"] for r in rows)
        timings = _keys(r["timings"] for r in rows)
        header = ["trial", *params, "seed", *FIXED_COLUMNS, *metrics]
        table = [
            [r["trial"], *(r["params"].get(p, "") for p in params), r["seed"], r["status"], r["error"]]
            + [r["metrics"].get(m, "") for m in metrics]
            for r in rows
        ]
        written = [self.folder / "results.csv", self.folder / "timings.csv"]
        write_atomic(written[0], _csv(header, table))
        times = [[r["trial"], *(r["timings"].get(t, "") for t in timings)] for r in rows]
        write_atomic(written[1], _csv(["trial", *timings], times))
        parquet = self._parquet(header, table, timings, times)
        return written + ([parquet] if parquet is not None else [])

    def _parquet(
        self, header: list[str], table: list[list[Any]], timings: list[str], times: list[list[Any]]
    ) -> Path | None:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            return None
        columns: dict[str, list[Any]] = (
            {
                h: [None if v == "" else v for v in col]
                for h, col in zip(header, zip(*table, strict=True), strict=True)
            }
            if table
            else {}
        )
        for h, col in zip(timings, list(zip(*times, strict=True))[1:], strict=True):
            columns[h] = [None if v == "" else v for v in col]
        path = self.folder / "results.parquet"
        try:
            table = pa.table({k: pa.array(v) for k, v in columns.items()})
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:  # a column mixing strings and numbers
            warnings.warn(f"results.parquet not written: {exc}", stacklevel=2)
            return None
        write_atomic_bytes(path, lambda f: pq.write_table(table, f))
        return path


def _keys(dicts: Iterable[dict[str, Any]]) -> list[str]:
    """Every key, in order of first appearance (rows come in trial order, so this order is fixed)."""
    return list(dict.fromkeys(k for d in dicts for k in d))


def _csv(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for row in rows:
        w.writerow([repr(v) if isinstance(v, float) else v for v in row])
    return buf.getvalue()
