"""What the sync benchmark shows: the table, the CSV / JSON files, and the plots (the tau sweep, sliding per
phase per mode, one route's foot trails)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from npc_ai.bench.sync_metrics import PHASES

if TYPE_CHECKING:
    from npc_ai.bench.sync import SyncReport


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_tau_sweep(report: SyncReport, out: Path) -> Path:
    """Planted-foot sliding against mean drift for each tau of the root_motion offset filter."""
    plt = _pyplot()
    taus = sorted(report.taus)
    rows = [report.taus[t].to_json() for t in taus]
    fig, ax = plt.subplots(figsize=(6, 4.5))
    x = [r["drift_mean_m"] for r in rows]
    y = [r["planted_slide_cm_per_m"] for r in rows]
    ax.plot(x, y, "o-", color="tab:blue")
    for t, xi, yi in zip(taus, x, y, strict=True):
        ax.annotate(f"tau {t:g} s", (xi, yi), textcoords="offset points", xytext=(6, 4), fontsize=8)
    ax.set_xlabel("mean agent-character drift [m]")
    ax.set_ylabel("planted-foot sliding [cm per m travelled]")
    ax.set_title(f"root_motion tau sweep on {report.scenes[0].scene} ({len(report.scenes[0].routes)} routes)")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def plot_phases(report: SyncReport, out: Path) -> Path:
    """Planted-foot sliding [cm/s] in each phase (start / steady / turn / stop), one bar group per mode."""
    plt = _pyplot()
    modes = report.modes
    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.8 / max(1, len(modes))
    for k, (name, rep) in enumerate(modes.items()):
        j = rep.to_json()
        values = [j[f"{p}_slide_cmps"] for p in PHASES]
        ax.bar(np.arange(len(PHASES)) + k * width, values, width, label=name)
    ax.set_xticks(np.arange(len(PHASES)) + width * (len(modes) - 1) / 2, PHASES)
    ax.set_ylabel("planted-foot sliding [cm/s]")
    ax.set_title(f"sliding per phase, {report.scene} ({len(report.routes)} routes)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def plot_foot_trails(report: SyncReport, out: Path, route: int = 0) -> Path:
    """The first route's feet seen from above under each mode; planted samples drawn as dots."""
    plt = _pyplot()
    modes = report.scenes[0].modes
    fig, axes = plt.subplots(1, len(modes), figsize=(4 * len(modes), 4.2), squeeze=False)
    for ax, (name, rep) in zip(axes[0], modes.items(), strict=True):
        tr = rep.runs[route].trace
        ax.plot(tr.position[:, 0], tr.position[:, 1], color="0.6", lw=1, label="body")
        for foot, colour in ((0, "tab:blue"), (1, "tab:red")):
            xy = tr.feet[:, foot, :2]
            ax.plot(xy[:, 0], xy[:, 1], color=colour, lw=0.6, alpha=0.6)
            down = tr.planted[:, foot] >= 0.5
            ax.plot(xy[down, 0], xy[down, 1], ".", ms=2, color=colour)
        ax.set_aspect("equal")
        ax.set_title(f"{name}\n{rep.runs[route].metrics.cm_per_m:.2f} cm/m", fontsize=9)
        ax.grid(alpha=0.3)
    fig.suptitle(f"foot trails on {report.scenes[0].scene}, route {route} (dots: planted)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def format_table(report: SyncReport) -> str:
    """A fixed-width table per scene (and pooled): planted-foot sliding first, then navigation."""
    head = (
        f"{'mode':<28}{'cm/m':>6}{'cm/s':>6}{'slip%':>6}{'excess':>7}{'start':>6}{'stop':>6}{'steady':>7}"
        f"{'GMD%':>6}{'gaits':>6}{'IK mm':>6}{'drift':>6}{'path x':>7}{'success':>8}{'walls':>6}"
    )
    lines = []
    blocks = [(s.scene, s.modes) for s in report.scenes]
    if len(report.scenes) > 1:
        blocks.append(("all scenes", report.modes))
    for title, modes in blocks:
        lines += [f"{title} ({len(next(iter(modes.values())).routes)} routes)", head, "-" * len(head)]
        for name, rep in modes.items():
            j = rep.to_json()
            lines.append(
                f"{name:<28}{j['planted_slide_cm_per_m']:>6.2f}{j['planted_slide_cmps']:>6.2f}"
                f"{100 * j['planted_slip_share']:>6.1f}{j['coupling_excess_cmps']:>7.2f}"
                f"{j['start_slide_cmps']:>6.2f}{j['stop_slide_cmps']:>6.2f}{j['steady_slide_cmps']:>7.2f}"
                f"{100 * j['gmd20_skate_ratio']:>6.2f}{j['gait_changes']:>6.1f}"
                f"{1000 * j['ik_max_stretch_m']:>6.1f}{j['drift_max_m']:>6.2f}{j['path_ratio']:>7.3f}"
                f"{j['success_rate']:>8.2f}{j['wall_contacts']:>6d}"
            )
        lines.append("")
    return "\n".join(lines).rstrip()


def write_outputs(report: SyncReport, out_dir: Path) -> list[Path]:
    """Write sync_modes.csv, sync_tau.csv, sync.json and the plots (tau_sweep.png, sliding_by_phase.png,
    foot_trails.png) into `out_dir`; return the paths."""
    import csv
    import json

    out_dir.mkdir(parents=True, exist_ok=True)
    data = report.to_json()
    written = []
    modes_csv = out_dir / "sync_modes.csv"
    with modes_csv.open("w", newline="", encoding="utf-8") as f:
        keys = list(next(iter(data["modes"].values())).keys())
        w = csv.writer(f)
        w.writerow(["mode", *keys])
        for name, row in data["modes"].items():
            w.writerow([name, *(row[k] for k in keys)])
    written.append(modes_csv)
    if data["tau_sweep"]:
        tau_csv = out_dir / "sync_tau.csv"
        with tau_csv.open("w", newline="", encoding="utf-8") as f:
            keys = list(data["tau_sweep"][0].keys())
            w = csv.writer(f)
            w.writerow(keys)
            for row in data["tau_sweep"]:
                w.writerow([row[k] for k in keys])
        written.append(tau_csv)
        written.append(plot_tau_sweep(report, out_dir / "tau_sweep.png"))
    written.append(plot_phases(report, out_dir / "sliding_by_phase.png"))
    written.append(plot_foot_trails(report, out_dir / "foot_trails.png"))
    js = out_dir / "sync.json"
    js.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
    written.append(js)
    return written
