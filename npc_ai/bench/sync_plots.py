"""The sync benchmark's plots: the tau sweep, sliding per phase per mode, one route's foot trails."""

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
