"""A top-down replay picture of a simulation: navmesh, obstacles, NPC trails coloured by state, view cones
at the moments NPCs spotted the player, shots, and the player's path (matplotlib, Agg backend)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from npc_ai.sim.simulation import STATE_CODES, Simulation

STATE_COLORS = {
    "wander": "#52b788",
    "patrol": "#2d6a4f",
    "aim": "#f77f00",
    "shoot": "#d00000",
    "chase": "#9d0208",
    "search": "#7b2cbf",
    "investigate": "#4895ef",
}
_MAX_CONES = 3  # per NPC: its first sightings


def _box_corners(center: tuple, half: tuple, yaw_deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    hx, hy = half[0], half[1]
    local = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
    rot = np.array([[c, -s], [s, c]])
    return local @ rot.T + np.asarray(center[:2])


def plot_replay(sim: Simulation, out: str | Path, *, title: str | None = None) -> Path:
    """Draw `sim`'s history to a PNG at `out`; return the path."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Wedge

    fig, ax = plt.subplots(figsize=(10, 9))
    mesh = sim.query.mesh
    polys = [mesh.polygon_xy(p) for p in range(mesh.polygon_count)]
    ax.add_collection(PolyCollection(polys, facecolors="#edf6f9", edgecolors="#cfe1e6", linewidths=0.3))
    boxes = [_box_corners(b.center, b.half_extents, b.yaw_deg) for b in sim.scene.boxes]
    if boxes:
        ax.add_collection(PolyCollection(boxes, facecolors="#8d7b68", edgecolors="#5c4d3c", linewidths=0.5))
    tr = sim.trace.arrays()
    names = sim.trace.names
    codes = {v: k for k, v in STATE_CODES.items()}
    pos, states = tr["positions"], tr["states"]
    for i in range(pos.shape[1] if pos.ndim == 3 else 0):
        xy = pos[:, i, :2]
        if len(xy) < 2:
            continue
        segs = np.stack([xy[:-1], xy[1:]], axis=1)
        colors = [STATE_COLORS.get(codes.get(int(c), ""), "#888888") for c in states[1:, i]]
        ax.add_collection(LineCollection(segs, colors=colors, linewidths=1.6))
        ax.plot(*xy[0], "o", color="#333333", ms=4)
        ax.annotate(names[i], xy[0], fontsize=7, xytext=(3, 3), textcoords="offset points")
    player = tr["player"]
    if len(player) and np.isfinite(player).all():
        ax.plot(player[:, 0], player[:, 1], "--", color="#1d3557", lw=1.0, label="player")
        ax.plot(*player[0, :2], "s", color="#1d3557", ms=5)
    # view cones at the moments of sighting, shots as lines
    cones: dict[str, int] = {}
    by_name = {n.name: n for n in sim.npcs}
    for e in sim.events:
        d = e.data
        npc = by_name.get(d.get("npc", ""))
        if npc is None:
            continue
        if e.event == "spotted" and cones.get(npc.name, 0) < _MAX_CONES:
            p, target = d["position"], d["target"]
            k = int(np.argmin(np.abs(tr["times"] - e.t))) if len(tr["times"]) else 0
            yaw = float(tr["yaws"][k, list(by_name).index(npc.name)]) if len(tr["times"]) else 0.0
            s = npc.settings
            ax.add_patch(
                Wedge(
                    (p[0], p[1]),
                    s.sight_radius,
                    math.degrees(yaw) - s.half_angle_deg,
                    math.degrees(yaw) + s.half_angle_deg,
                    facecolor="#f77f00",
                    alpha=0.1,
                    edgecolor="#f77f00",
                    lw=0.6,
                )
            )
            ax.plot([p[0], target[0]], [p[1], target[1]], ":", color="#f77f00", lw=0.8)
            cones[npc.name] = cones.get(npc.name, 0) + 1
        elif e.event == "shoot" and "point" in d:
            p, q = d["position"], d["point"]
            ax.plot([p[0], q[0]], [p[1], q[1]], "-", color="#d00000" if d.get("hit") else "#999999", lw=0.7)
    handles: list[Any] = [Line2D([], [], color=c, lw=2, label=n) for n, c in STATE_COLORS.items()]
    handles.append(Line2D([], [], color="#1d3557", ls="--", label="player"))
    ax.legend(handles=handles, loc="upper right", fontsize=7, framealpha=0.8)
    ax.set_aspect("equal")
    ax.autoscale_view()
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    t = sim.world.time
    ax.set_title(
        title or f"{sim.scene.name}: {len(sim.npcs)} NPCs, {t:.1f} s simulated, seed {sim.world.seed}"
    )
    path = Path(out)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path
