"""report.md of a sweep: per combination of the swept parameters, the mean of each metric over the seeds
with its 95 % confidence interval (Student's t: mean ± t(0.975, n - 1) · s / √n, s the sample standard
deviation; no interval for a single seed); the same for the differences to the first x value paired by
seed; and one PNG per metric: the metric against the x parameter, one line per value of the other swept
parameters, the intervals as error bars. Matplotlib's Agg backend.

Only the trials with status "ok" enter the statistics; failed trials are listed with their messages.
The report depends only on the rows, so it is the same on any backend.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from npc_ai.sweep.spec import SweepSpec

CONFIDENCE = 0.95
MAX_DEFAULT_METRICS = 8  # without report.metrics, the first this many numeric metrics


@dataclass(frozen=True)
class Summary:
    """A metric over the seeds of one combination: n values, mean, 95 % CI (NaN when n < 2)."""

    n: int
    mean: float
    low: float
    high: float

    def text(self) -> str:
        if self.n == 0:
            return "–"
        if self.n < 2 or not math.isfinite(self.low):
            return f"{_g(self.mean)} (n={self.n})"
        return f"{_g(self.mean)} [{_g(self.low)}, {_g(self.high)}]"


def _g(v: float) -> str:
    return f"{v:.4g}"


def summarize(values: Sequence[float]) -> Summary:
    """Mean and Student-t 95 % interval of `values` (NaNs left out)."""
    import numpy as np
    from scipy import stats

    x = np.array([v for v in values if math.isfinite(v)], dtype=float)
    n = len(x)
    if n == 0:
        return Summary(0, math.nan, math.nan, math.nan)
    mean = float(x.mean())
    if n < 2:
        return Summary(1, mean, math.nan, math.nan)
    half = float(stats.t.ppf(0.5 + CONFIDENCE / 2, n - 1) * x.std(ddof=1) / math.sqrt(n))
    return Summary(n, mean, mean - half, mean + half)


def _numeric(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def chosen_metrics(spec: SweepSpec, rows: Sequence[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """(metrics to report, metrics asked for that no trial has)."""
    numeric = list(
        dict.fromkeys(k for r in rows if r["status"] == "ok" for k, v in r["metrics"].items() if _numeric(v))
    )
    if spec.metrics:
        return [m for m in spec.metrics if m in numeric], [m for m in spec.metrics if m not in numeric]
    return numeric[:MAX_DEFAULT_METRICS], []


def combinations(spec: SweepSpec, rows: Sequence[dict[str, Any]]) -> dict[tuple, list[dict[str, Any]]]:
    """The ok rows grouped by the swept parameters' values, in trial order."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for r in rows:
        key = tuple(r["params"].get(p) for p in spec.swept)
        groups.setdefault(key, [])
        if r["status"] == "ok":
            groups[key].append(r)
    return groups


def x_parameter(spec: SweepSpec) -> str | None:
    """The plots' x axis: report.x, else the first swept parameter whose values are all numbers."""
    if spec.x is not None:
        return spec.x
    values: dict[str, list[Any]] = {n: list(v) for n, v in spec.grid}
    for case in spec.cases:
        for n, v in case:
            values.setdefault(n, []).append(v)
    for name in spec.swept:
        if values.get(name) and all(_numeric(v) for v in values[name]):
            return name
    return None


def write_report(spec: SweepSpec, rows: Sequence[dict[str, Any]], folder: Path) -> list[Path]:
    """Write folder/report.md and its plots; return the paths written."""
    from npc_ai.sweep.store import write_atomic

    metrics, missing = chosen_metrics(spec, rows)
    groups = combinations(spec, rows)
    failed = [r for r in rows if r["status"] != "ok"]
    title = spec.title or f"Sweep: task {spec.task}"
    lines = [f"# {title}", ""]
    fixed = ", ".join(f"{k} = {v!r}" for k, v in spec.params) or "none"
    lines += [
        f"Task `{spec.task}` ({spec.info.doc}); {len(rows)} of {spec.trial_count} trials done, "
        f"{len(failed)} failed; seeds {_seeds(spec.seeds)}; fixed parameters: {fixed}.",
        "",
        f"Each cell: the mean over the seeds, and its {CONFIDENCE:.0%} confidence interval in brackets "
        "(Student's t over the seeds; n = 1: no interval).",
        "",
    ]
    if missing:
        lines += [f"Not found in any trial: {', '.join(missing)}.", ""]
    summaries = {key: {m: summarize([r["metrics"].get(m, math.nan) for r in g]) for m in metrics}
                 for key, g in groups.items()}  # fmt: skip
    head = [*spec.swept, "n", *metrics]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join("---" for _ in head) + "|")
    for key, g in groups.items():
        cells = [str(v) for v in key] + [str(len(g))] + [summaries[key][m].text() for m in metrics]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    written = [folder / "report.md"]
    x = x_parameter(spec)
    if x is not None and metrics and len(spec.seeds) > 1:
        lines += _paired_table(spec, rows, x, metrics)
    if x is not None and metrics:
        lines += ["## Plots", ""]
        for m in metrics:
            png = _plot(spec, summaries, x, m, folder / f"plot_{_file_name(m)}.png")
            if png is not None:
                written.append(png)
                lines += [f"![{m} against {x}]({png.name})", ""]
    if failed:
        lines += ["## Failed trials", "", "| trial | seed | error |", "|---|---|---|"]
        for r in failed:
            lines.append(f"| {r['trial']} | {r['seed']} | {r['error'].replace('|', '/')} |")
        lines.append("")
    write_atomic(folder / "report.md", "\n".join(lines).rstrip("\n") + "\n")
    return written


def paired_differences(
    spec: SweepSpec, rows: Sequence[dict[str, Any]], x: str, metric: str
) -> dict[tuple, Summary]:
    """Per combination whose `x` is not the first value: the metric minus the same seed's value at the
    first `x` (everything else equal), summarised over the seeds that both ran. The same seed means the
    same routes and worlds, so the seed-to-seed spread cancels out of the difference."""
    xi = spec.swept.index(x)
    ok = {(tuple(r["params"].get(p) for p in spec.swept), r["seed"]): r for r in rows if r["status"] == "ok"}
    firsts: dict[tuple, Any] = {}
    for key, _ in ok:
        rest = key[:xi] + key[xi + 1 :]
        if rest not in firsts:
            firsts[rest] = key[xi]  # rows come in trial order: the first x value seen is the spec's first
    out: dict[tuple, Summary] = {}
    for key in dict.fromkeys(k for k, _ in ok):
        rest = key[:xi] + key[xi + 1 :]
        if key[xi] == firsts[rest]:
            continue
        base = key[:xi] + (firsts[rest],) + key[xi + 1 :]
        diffs = [
            ok[(key, s)]["metrics"].get(metric, math.nan) - ok[(base, s)]["metrics"].get(metric, math.nan)
            for s in spec.seeds
            if (key, s) in ok and (base, s) in ok and _numeric(ok[(key, s)]["metrics"].get(metric))
            and _numeric(ok[(base, s)]["metrics"].get(metric))
        ]  # fmt: skip
        out[key] = summarize(diffs)
    return out


def _paired_table(spec: SweepSpec, rows: Sequence[dict[str, Any]], x: str, metrics: list[str]) -> list[str]:
    diffs = {m: paired_differences(spec, rows, x, m) for m in metrics}
    keys = list(dict.fromkeys(k for d in diffs.values() for k in d))
    if not keys:
        return []
    out = [
        f"## Differences to the first {x}, paired by seed",
        "",
        f"Each cell: the metric minus its value at the first {x} with the same seed (same routes and worlds) "
        f"and the other parameters equal, mean over the seeds and {CONFIDENCE:.0%} CI; an interval that "
        "excludes 0 is a difference the seeds agree on.",
        "",
        "| " + " | ".join([*spec.swept, *(f"Δ {m}" for m in metrics)]) + " |",
        "|" + "|".join("---" for _ in range(len(spec.swept) + len(metrics))) + "|",
    ]
    for key in keys:
        cells = [str(v) for v in key] + [diffs[m][key].text() if key in diffs[m] else "–" for m in metrics]
        out.append("| " + " | ".join(cells) + " |")
    return [*out, ""]


def _seeds(seeds: Sequence[int]) -> str:
    if list(seeds) == list(range(seeds[0], seeds[0] + len(seeds))) and len(seeds) > 2:
        return f"{seeds[0]}..{seeds[-1]}"
    return ", ".join(map(str, seeds))


def _file_name(metric: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in metric)


def _plot(
    spec: SweepSpec, summaries: dict[tuple, dict[str, Summary]], x: str, metric: str, out: Path
) -> Path | None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xi = spec.swept.index(x)
    others = [p for p in spec.swept if p != x]
    lines: dict[tuple, list[tuple[float, Summary]]] = {}
    for key, by_metric in summaries.items():
        s = by_metric[metric]
        if s.n == 0 or not _numeric(key[xi]):
            continue
        label = tuple(v for p, v in zip(spec.swept, key, strict=True) if p != x)
        lines.setdefault(label, []).append((float(key[xi]), s))
    if not lines:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.5))
    every_x = [p for points in lines.values() for p, _ in points]
    span = (max(every_x) - min(every_x)) or 1.0
    for k, (label, points) in enumerate(lines.items()):
        points.sort(key=lambda p: p[0])
        dodge = (k - (len(lines) - 1) / 2) * 0.008 * span  # error bars side by side, not on top
        xs = [p + dodge for p, _ in points]
        ys = [s.mean for _, s in points]
        lo = [s.mean - s.low if math.isfinite(s.low) else 0.0 for _, s in points]
        hi = [s.high - s.mean if math.isfinite(s.high) else 0.0 for _, s in points]
        name = ", ".join(f"{p}={v}" for p, v in zip(others, label, strict=True)) or metric
        ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=name)
    ax.set_xlabel(x)
    ax.set_ylabel(metric)
    ax.set_title(f"{metric} against {x} (mean, {CONFIDENCE:.0%} CI over seeds)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
