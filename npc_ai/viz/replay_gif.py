"""An animated top-down replay of a simulation, as a GIF (matplotlib animation, Pillow writer, Agg backend).

The level is drawn once, as in the PNG replay (`npc_ai.viz.replay`: the top surface shaded by height, the
navmesh, the scene's primitives, fitted to where the action is); over it, frame by frame, each NPC is a
triangle pointing where it faces, coloured by its state, with the last seconds of its trail behind it,
and the player a star with its own trail. The simulated time is played back sped up, so any run fits in
`duration_s` (a few seconds); at the default size a GIF is well under a few MB.

The simulation's world must still be open (call it inside `with Simulation(...) as sim:`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from npc_ai.behaviour import STATE_CODES
from npc_ai.sim.simulation import Simulation
from npc_ai.viz.replay import _PLAYER_COLOR, STATE_COLORS, _draw_level, action_bounds

TAIL_S = 3.0  # [s] of simulated time each trail shows behind its NPC


def write_replay_gif(
    sim: Simulation,
    out: str | Path,
    *,
    duration_s: float = 6.0,
    fps: int = 12,
    width_px: int = 640,
    title: str | None = None,
) -> Path:
    """Animate `sim`'s recorded trace to the GIF `out`; return its path.

    Args:
        duration_s: length of the animation [s, > 0]; the run is sped up (or slowed) to fit.
        fps: frames per second of the GIF [1..50].
        width_px: width of the image [px, 200..2000].
    Raises:
        ValueError: an out-of-range setting, or a trace with no samples (nothing simulated yet).
    """
    if not (math.isfinite(duration_s) and 0 < duration_s <= 60):
        raise ValueError(f"duration_s must be in (0, 60] seconds, got {duration_s!r}")
    if not (isinstance(fps, int) and 1 <= fps <= 50):
        raise ValueError(f"fps must be an integer in 1..50, got {fps!r}")
    if not (isinstance(width_px, int) and 200 <= width_px <= 2000):
        raise ValueError(f"width_px must be an integer in 200..2000, got {width_px!r}")
    tr = sim.trace.arrays()
    times = np.asarray(tr["times"], dtype=float)
    if not len(times):
        raise ValueError("the simulation has no trace samples yet: run it before writing a replay")
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation, PillowWriter

    pos, yaws, states, player = tr["positions"], tr["yaws"], tr["states"], tr["player"]
    n_npcs = pos.shape[1] if pos.ndim == 3 else 0
    codes = {v: k for k, v in STATE_CODES.items()}
    lo, hi = action_bounds(sim)
    aspect = float((hi[1] - lo[1]) / max(hi[0] - lo[0], 1e-6))
    dpi = 80
    fig, ax = plt.subplots(figsize=(width_px / dpi, max(width_px * min(aspect, 1.5) / dpi, 2.5)), dpi=dpi)
    _draw_level(sim, ax, lo, hi, lambda *a, **k: None)
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_aspect("equal", adjustable="box")
    ax.set_xticks([])
    ax.set_yticks([])
    head = title or f"{sim.scene.name}: {n_npcs} NPCs, seed {sim.world.seed}"
    ax.set_title(head, fontsize=9)
    seen = [codes[c] for c in sorted({int(c) for c in np.unique(states)} & set(codes))] if n_npcs else []
    if seen:
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], color=STATE_COLORS.get(s, "#888888"), lw=2, label=s) for s in seen]
        handles.append(Line2D([], [], marker="*", ls="--", color=_PLAYER_COLOR, label="player"))
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    # The still part (level, colour bar, legend, title) is drawn once into an image; every frame then
    # draws that image and the moving marks only (a full redraw per frame costs ~20x more).
    canvas: Any = fig.canvas  # the Agg canvas (matplotlib.use("Agg") above)
    canvas.draw()
    still = np.asarray(canvas.buffer_rgba()).copy()
    box = ax.get_position()
    plt.close(fig)
    fig = plt.figure(figsize=(still.shape[1] / dpi, still.shape[0] / dpi), dpi=dpi)
    back = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    back.imshow(still, interpolation="none", aspect="auto")
    back.set_axis_off()
    ax = fig.add_axes((box.x0, box.y0, box.width, box.height))
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_axis_off()
    ax.patch.set_visible(False)
    label = ax.text(0.01, 0.99, "", transform=ax.transAxes, va="top", fontsize=9, zorder=7,
                    bbox={"facecolor": "white", "alpha": 0.7, "edgecolor": "none"})  # fmt: skip
    trails = [ax.plot([], [], "-", lw=1.5, alpha=0.7, zorder=5)[0] for _ in range(n_npcs)]
    bodies = [ax.plot([], [], ls="", ms=11, markeredgecolor="#222222", zorder=6)[0] for _ in range(n_npcs)]
    (player_trail,) = ax.plot([], [], "--", color=_PLAYER_COLOR, lw=1.0, zorder=5)
    (player_dot,) = ax.plot([], [], "*", color=_PLAYER_COLOR, ms=12, zorder=6)
    frames = max(2, round(duration_s * fps))
    # a run with fewer trace samples than frames shows a sample for several frames: the GIF keeps its length
    picks = np.round(np.linspace(0, len(times) - 1, frames)).astype(int)

    def draw(k: int) -> list[Any]:
        i = int(picks[k])
        t = times[i]
        first = int(np.searchsorted(times, t - TAIL_S))
        for j in range(n_npcs):
            xy = pos[first : i + 1, j, :2]
            state = codes.get(int(states[i, j]), "")
            color = STATE_COLORS.get(state, "#888888")
            trails[j].set_data(xy[:, 0], xy[:, 1])
            trails[j].set_color(color)
            bodies[j].set_data([pos[i, j, 0]], [pos[i, j, 1]])
            bodies[j].set_marker((3, 0, round(math.degrees(float(yaws[i, j]))) - 90))
            bodies[j].set_color(color)
            bodies[j].set_markeredgecolor("#222222")
        if len(player):
            path = player[first : i + 1]
            path = path[np.isfinite(path).all(axis=1)]
            player_trail.set_data(path[:, 0], path[:, 1])
            here = player[i]
            if np.isfinite(here).all():
                player_dot.set_data([here[0]], [here[1]])
            else:
                player_dot.set_data([], [])
        label.set_text(f"t = {t:5.1f} s")
        return [*trails, *bodies, player_trail, player_dot, label]

    path = Path(out)
    anim = FuncAnimation(fig, draw, frames=len(picks), blit=False)
    anim.save(str(path), writer=PillowWriter(fps=fps))
    plt.close(fig)
    return path
