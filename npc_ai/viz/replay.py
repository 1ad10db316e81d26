"""A top-down replay picture of a simulation (matplotlib, Agg backend).

What is drawn, bottom to top: the level's top surface shaded by height (vertical ray batches against the
static geometry, so meshes such as the monastery are drawn too), the navmesh, the scene's boxes, ramps,
stairs, platforms and bridges (with their legs), view cones at the moments NPCs spotted the player
(a fan of rays from the eye, clipped by walls), lines of sight, shots, NPC trails coloured by state with
their start and end, and the player's path. Every kind of mark has a legend entry. The frame is fitted
to where the action is (trails, NPCs, player), not to the whole level.

The simulation's world must still be open (call it inside `with Simulation(...) as sim:`).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np

from npc_ai.behaviour import STATE_CODES
from npc_ai.sim.simulation import Simulation
from scenes import World, groups
from scenes.build import scene_boxes

STATE_COLORS = {
    "wander": "#52b788",
    "patrol": "#2d6a4f",
    "aim": "#f77f00",
    "shoot": "#d00000",
    "chase": "#9d0208",
    "search": "#7b2cbf",
    "investigate": "#4895ef",
    "cover": "#6c757d",
}
_MAX_CONES = 2  # per NPC: its first sightings
_CONE_RAYS = 64  # rays per view cone
_MAP_CELLS = 360  # height-map cells along the longer side of the frame
_MIN_FRAME = 12.0  # [m] the smallest frame side
_MAX_LABELS = 12  # NPC names are written when there are at most this many NPCs

# Every artist drawn carries its kind as its gid; LABELS gives each kind its legend entry.
LABELS = {
    "height": "level surface (shade: height, bar below)",
    "navmesh": "navmesh (walkable)",
    "box": "wall / box",
    "ramp": "ramp (arrow: up)",
    "stairs": "stairs",
    "platform": "platform / bridge",
    "leg": "support column",
    "cone": "view cone at a sighting (clipped by walls)",
    "sight": "line of sight at a sighting",
    "shot-hit": "shot that hit the player",
    "shot-miss": "shot that missed",
    "suspicion-suspicious": "suspicion: suspicious (looks; dotted: toward the glimpse)",
    "suspicion-investigate": "suspicion: investigates the glimpse",
    "suspicion-hostile": "suspicion: hostile (detected)",
    **{f"trail-{state}": f"NPC trail: {state}" for state in STATE_COLORS},
    "trail-other": "NPC trail: other state",
    "npc-start": "NPC start",
    "npc-end": "NPC at the end (points where it faces; colour: state)",
    "player": "player's path",
    "player-start": "player start",
    "player-end": "player at the end",
}
_LEVEL: dict[str, dict[str, Any]] = {
    "box": {"facecolor": "#8d7b68", "edgecolor": "#4a3f33"},
    "ramp": {"facecolor": "#e9c46a", "edgecolor": "#8a6d1f", "hatch": "///"},
    "stairs": {"facecolor": "#f4a261", "edgecolor": "#8a5a2b"},
    "platform": {"facecolor": "#457b9d", "edgecolor": "#1d3557"},
    "leg": {"facecolor": "#1d3557", "edgecolor": "#1d3557"},
}
_NAVMESH: dict[str, Any] = {"facecolor": "#95d5b2", "edgecolor": "#52b788"}
_CONE_COLOR = "#f77f00"
# the suspicion levels a gradual-detection NPC reached (`suspicion` events), marked where it stood
SUSPICION_COLORS = {"suspicious": "#ffd60a", "investigate": "#fb8500", "hostile": "#d00000"}
_PLAYER_COLOR = "#1d3557"


# -- geometry --------------------------------------------------------------------------------------------
def view_cone(
    world: World, eye: Any, yaw: float, radius: float, half_angle_deg: float, *, rays: int = _CONE_RAYS
) -> np.ndarray:
    """The part of a view cone an NPC can see: a fan of horizontal rays from `eye` against the static level.

    Args:
        world: an open world. eye: (3,) eye position [m]. yaw: facing [rad]. radius: sight radius [m].
        half_angle_deg: half of the cone [deg]. rays: rays in the fan [>= 2].
    Returns:
        (rays + 1, 2) polygon: the eye, then each ray's end (its first wall hit, else the sight radius),
        counter-clockwise.
    """
    e = np.asarray(eye, dtype=np.float64).reshape(3)
    half = math.radians(half_angle_deg)
    angles = yaw + np.linspace(-half, half, max(int(rays), 2))
    ends = np.repeat(e[None], len(angles), axis=0)
    ends[:, 0] += radius * np.cos(angles)
    ends[:, 1] += radius * np.sin(angles)
    hits = world.ray_test(np.repeat(e[None], len(angles), axis=0), ends, mask=groups.STATIC)
    return np.vstack([e[None, :2], np.asarray(hits.point)[:, :2]])


def height_map(world: World, lo: Any, hi: Any, *, cells: int = _MAP_CELLS) -> tuple[np.ndarray, tuple]:
    """Height of the level's top surface over the rectangle [lo, hi] (x, y) [m], from vertical ray batches.

    Returns:
        (heights (ny, nx) [m], NaN where nothing is below; extent (x0, x1, y0, y1) for `imshow`).
    """
    lo, hi = np.asarray(lo, dtype=np.float64)[:2], np.asarray(hi, dtype=np.float64)[:2]
    size = float(max(hi - lo)) / max(int(cells), 1)
    nx, ny = (max(math.ceil((hi[i] - lo[i]) / size), 1) for i in (0, 1))
    x = lo[0] + (np.arange(nx) + 0.5) * size
    y = lo[1] + (np.arange(ny) + 0.5) * size
    gx, gy = np.meshgrid(x, y)
    blo, bhi = world.static_bounds()
    starts = np.column_stack([gx.ravel(), gy.ravel(), np.full(gx.size, bhi[2] + 1.0)])
    ends = starts.copy()
    ends[:, 2] = blo[2] - 1.0
    z = np.full(gx.size, np.nan)
    step = 16_383  # PyBullet's batch limit
    for i in range(0, len(starts), step):
        hits = world.ray_test(starts[i : i + step], ends[i : i + step], mask=groups.STATIC)
        hit = np.asarray(hits.body) >= 0
        z[i : i + step][hit] = np.asarray(hits.point)[hit, 2]
    return z.reshape(ny, nx), (lo[0], lo[0] + nx * size, lo[1], lo[1] + ny * size)


def _footprint(box: Any) -> np.ndarray:
    """(k, 2) top-down outline of a (possibly pitched) static box: the hull of its corners, CCW."""
    x, y, z, w = box.quaternion
    rot = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
    pts = (signs * np.asarray(box.half_extents)) @ rot.T + np.asarray(box.center)
    return _hull(pts[:, :2])


def _hull(pts: np.ndarray) -> np.ndarray:
    """Convex hull of 2-D points (Andrew's monotone chain), CCW, no repeated point."""
    p = sorted({(round(float(a), 9), round(float(b), 9)) for a, b in pts})
    if len(p) < 3:
        return np.asarray(p)

    def half(points: list) -> list:
        out: list = []
        for q in points:
            while (
                len(out) >= 2
                and (
                    (out[-1][0] - out[-2][0]) * (q[1] - out[-2][1])
                    - (out[-1][1] - out[-2][1]) * (q[0] - out[-2][0])
                )
                <= 0
            ):
                out.pop()
            out.append(q)
        return out

    lower, upper = half(p), half(p[::-1])
    return np.asarray(lower[:-1] + upper[:-1])


def level_outlines(scene: Any) -> dict[str, list[np.ndarray]]:
    """Top-down outlines of the scene's primitives by kind: box, ramp, stairs, platform, leg."""
    empty = dataclasses.replace(scene, floor=None, boxes=(), ramps=(), stairs=(), platforms=())
    out: dict[str, list[np.ndarray]] = {}
    out["box"] = [_footprint(b) for b in scene_boxes(dataclasses.replace(empty, boxes=scene.boxes))]
    out["ramp"] = [_footprint(b) for b in scene_boxes(dataclasses.replace(empty, ramps=scene.ramps))]
    out["stairs"] = [_footprint(b) for b in scene_boxes(dataclasses.replace(empty, stairs=scene.stairs))]
    slabs = scene_boxes(dataclasses.replace(empty, platforms=scene.platforms))
    out["platform"] = [_footprint(b) for b in slabs if b.name != "leg"]
    out["leg"] = [_footprint(b) for b in slabs if b.name == "leg"]
    return {k: v for k, v in out.items() if v}


def action_bounds(sim: Simulation, *, margin: float = 3.0) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) x, y corners [m] of the frame: every trail point, NPC and player position, plus a margin,
    at least `_MIN_FRAME` on a side, and no larger than the level (its static bounds) needs."""
    tr = sim.trace.arrays()
    parts = [tr["positions"].reshape(-1, 3)[:, :2], tr["player"].reshape(-1, 3)[:, :2]]
    parts += [np.array([n.position[:2] for n in sim.npcs]).reshape(-1, 2)]
    if sim.player is not None:
        parts.append(np.asarray(sim.player.position, dtype=float)[None, :2])
    pts = np.vstack(parts)
    pts = pts[np.isfinite(pts).all(axis=1)]
    level_lo, level_hi = (np.asarray(b, dtype=float)[:2] for b in sim.world.static_bounds())
    if not len(pts):
        return level_lo, level_hi
    level_lo, level_hi = (
        np.minimum(level_lo, pts.min(axis=0)) - 0.5,
        np.maximum(level_hi, pts.max(axis=0)) + 0.5,
    )
    lo, hi = pts.min(axis=0) - margin, pts.max(axis=0) + margin
    grow = np.maximum(_MIN_FRAME - (hi - lo), 0.0) / 2
    lo, hi = lo - grow, hi + grow
    shift = np.maximum(level_lo - lo, 0.0) - np.maximum(hi - level_hi, 0.0)  # slide a small frame inside
    return np.maximum(lo + shift, level_lo), np.minimum(hi + shift, level_hi)


# -- drawing ---------------------------------------------------------------------------------------------
def draw_replay(sim: Simulation, ax: Any = None, *, title: str | None = None) -> Any:
    """Draw `sim`'s history on `ax` (a new figure when None); return the Axes.

    Every artist drawn carries its kind as its gid (`artist.get_gid()`, a key of `LABELS`), and the legend
    has the entry `LABELS[kind]` for every kind drawn.
    """
    import matplotlib

    if ax is None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection
    from matplotlib.colors import to_rgba
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Polygon

    if ax is None:
        _, ax = plt.subplots(figsize=(11, 9))
    legend: dict[str, Any] = {}  # kind -> legend handle, in drawing order

    def mark(artist: Any, kind: str, handle: type = Line2D, **style: Any) -> None:
        artist.set_gid(kind)
        if kind not in legend:
            legend[kind] = (
                handle([], [], label=LABELS[kind], **style)
                if handle is Line2D
                else handle(label=LABELS[kind], **style)
            )

    lo, hi = action_bounds(sim)
    _draw_level(sim, ax, lo, hi, mark)
    tr = sim.trace.arrays()
    names = sim.trace.names
    codes = {v: k for k, v in STATE_CODES.items()}
    pos, states, yaws = tr["positions"], tr["states"], tr["yaws"]
    index = {n: i for i, n in enumerate(names)}
    by_name = {n.name: n for n in sim.npcs}
    # view cones (clipped by walls) and lines of sight at each NPC's first sightings, shots
    cones: dict[str, int] = {}
    for e in sim.events:
        d = e.data
        npc = by_name.get(d.get("npc", ""))
        if npc is None or "position" not in d:
            continue
        p = np.asarray(d["position"], dtype=float)
        if e.event == "spotted" and cones.get(npc.name, 0) < _MAX_CONES:
            yaw = float(npc.yaw)
            if len(tr["times"]) and npc.name in index:
                yaw = float(yaws[int(np.argmin(np.abs(tr["times"] - e.t))), index[npc.name]])
            s = npc.settings
            cone = view_cone(sim.world, p + (0.0, 0.0, s.eye_height), yaw, s.sight_radius, s.half_angle_deg)
            style = {"facecolor": to_rgba(_CONE_COLOR, 0.1), "edgecolor": to_rgba(_CONE_COLOR, 0.7)}
            patch = Polygon(cone, closed=True, lw=0.7, zorder=3, **style)
            ax.add_patch(patch)
            mark(patch, "cone", Patch, **style)
            if "target" in d:
                q = d["target"]
                (line,) = ax.plot([p[0], q[0]], [p[1], q[1]], ":", color=_CONE_COLOR, lw=1.0, zorder=4)
                mark(line, "sight", ls=":", color=_CONE_COLOR)
            cones[npc.name] = cones.get(npc.name, 0) + 1
        elif e.event == "suspicion" and d.get("level") in SUSPICION_COLORS:
            kind, color = f"suspicion-{d['level']}", SUSPICION_COLORS[d["level"]]
            ring: dict[str, Any] = {"marker": "o", "ms": 9, "mfc": "none", "mec": color, "mew": 1.8, "ls": ""}
            (dot,) = ax.plot(p[0], p[1], zorder=6, **ring)
            mark(dot, kind, **ring)
            if "target" in d:
                q = d["target"]
                (line,) = ax.plot([p[0], q[0]], [p[1], q[1]], ":", color=color, lw=1.0, zorder=4)
                mark(line, kind, **ring)
        elif e.event == "shoot" and "point" in d:
            q = d["point"]
            kind = "shot-hit" if d.get("hit") else "shot-miss"
            color = "#d00000" if d.get("hit") else "#8d99ae"
            (line,) = ax.plot([p[0], q[0]], [p[1], q[1]], "-", color=color, lw=0.6, alpha=0.7, zorder=4)
            mark(line, kind, color=color)
    # NPC trails coloured by state (one collection per NPC and state), where they started and ended
    n_npcs = pos.shape[1] if pos.ndim == 3 else 0
    for i in range(n_npcs):
        xy = pos[:, i, :2]
        if len(xy) >= 2:
            segs = np.stack([xy[:-1], xy[1:]], axis=1)
            kinds = np.array([codes.get(int(c), "") for c in states[1:, i]], dtype=object)
            for state in dict.fromkeys(kinds.tolist()):
                kind = f"trail-{state}" if state in STATE_COLORS else "trail-other"
                color = STATE_COLORS.get(state, "#888888")
                trail = LineCollection(segs[kinds == state], colors=color, linewidths=1.8, zorder=5)
                ax.add_collection(trail, autolim=False)
                mark(trail, kind, color=color, lw=2)
        if len(xy):
            (start,) = ax.plot(*xy[0], "o", color="#222222", ms=4, zorder=6)
            mark(start, "npc-start", marker="o", ls="", color="#222222")
            facing = math.degrees(float(yaws[-1, i])) - 90.0  # the triangle marker points up at angle 0
            color = STATE_COLORS.get(codes.get(int(states[-1, i]), ""), "#888888")
            edge: dict[str, Any] = {"markeredgecolor": "#222222", "ls": ""}
            (end,) = ax.plot(*xy[-1], marker=(3, 0, facing), ms=9, color=color, zorder=6, **edge)
            mark(end, "npc-end", marker=(3, 0, 0), ms=8, color="#bbbbbb", **edge)
            if n_npcs <= _MAX_LABELS:
                ax.annotate(names[i], xy[0], fontsize=7, xytext=(3, 3), textcoords="offset points", zorder=7)
    player = tr["player"]
    path = player[np.isfinite(player).all(axis=1)] if len(player) else player
    if len(path):
        (line,) = ax.plot(path[:, 0], path[:, 1], "--", color=_PLAYER_COLOR, lw=1.2, zorder=5)
        mark(line, "player", ls="--", color=_PLAYER_COLOR)
        (first,) = ax.plot(*path[0, :2], "s", color=_PLAYER_COLOR, ms=6, zorder=6)
        mark(first, "player-start", marker="s", ls="", color=_PLAYER_COLOR)
        (last,) = ax.plot(*path[-1, :2], "*", color=_PLAYER_COLOR, ms=11, zorder=6)
        mark(last, "player-end", marker="*", ls="", ms=10, color=_PLAYER_COLOR)
    order = list(LABELS)
    handles = [legend[k] for k in sorted(legend, key=order.index)]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, borderaxespad=0)
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    t = sim.world.time
    ax.set_title(
        title or f"{sim.scene.name}: {len(sim.npcs)} NPCs, {t:.1f} s simulated, seed {sim.world.seed}"
    )
    return ax


def _draw_level(sim: Simulation, ax: Any, lo: np.ndarray, hi: np.ndarray, mark: Any) -> None:
    """The level under the action: the top surface by height, the navmesh, the scene's primitives."""
    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.collections import PolyCollection
    from matplotlib.colors import LightSource, ListedColormap, PowerNorm
    from matplotlib.patches import FancyArrow, Patch

    # light grey (the lowest floor) to mid grey (the highest top), so marks stay readable on any height;
    # hill-shaded from the north-west, so walls and steps stand out from the floor at any height range
    cmap = ListedColormap(colormaps["Greys"](np.linspace(0.08, 0.6, 256)), name="level-greys")
    heights, extent = height_map(sim.world, lo, hi)
    found = np.isfinite(heights)
    if found.any():
        zmin, zmax = float(heights[found].min()), float(heights[found].max())
        zmax = max(zmax, zmin + 1.0)
        norm = PowerNorm(0.5, zmin, zmax)  # low walls stand out under high roofs
        filled = np.where(found, heights, zmin)
        cell = (extent[1] - extent[0]) / heights.shape[1]
        rgb = LightSource(azdeg=315, altdeg=40).shade(
            filled, cmap=cmap, norm=norm, blend_mode="overlay", vert_exag=1.0, dx=cell, dy=cell
        )
        rgb[..., 3] = found  # nothing below: transparent
        image = ax.imshow(rgb, origin="lower", extent=extent, interpolation="nearest", zorder=0)
        mark(image, "height", Patch, facecolor=cmap(0.5))
        bar = ax.figure.colorbar(
            ScalarMappable(norm=norm, cmap=cmap),
            ax=ax,
            orientation="horizontal",
            fraction=0.03,
            pad=0.08,
            shrink=0.5,
        )
        bar.set_label("height of the level's top surface [m] (hill-shaded)")
        ticks: list[float] = []
        last = -1.0
        for t in (0, 0.5, 1, 2, 3, 5, 10, 20, 30, 50, 100):  # spread out on the square-root scale
            at = float(norm(t)) if zmin <= t <= zmax else -1.0
            if at >= 0 and at - last >= 0.12:
                ticks.append(t)
                last = at
        bar.set_ticks(ticks or [zmin, zmax])
    mesh = sim.query.mesh
    polys = [mesh.polygon_xy(p) for p in range(mesh.polygon_count)]
    if polys:
        nav = PolyCollection(polys, linewidths=0.3, alpha=0.25, zorder=1, **_NAVMESH)
        ax.add_collection(nav, autolim=False)
        mark(nav, "navmesh", Patch, alpha=0.6, **_NAVMESH)
    for kind, outlines in level_outlines(sim.scene).items():
        alpha = 0.45 if kind == "platform" else 0.9
        coll = PolyCollection(outlines, linewidths=0.8, alpha=alpha, zorder=2, **_LEVEL[kind])
        ax.add_collection(coll, autolim=False)
        mark(coll, kind, Patch, alpha=alpha, **_LEVEL[kind])
    for r in sim.scene.ramps:  # an arrow up each ramp
        (x0, y0, _), (x1, y1, _) = r.start, r.end
        dx, dy = x1 - x0, y1 - y0
        arrow = FancyArrow(
            x0 + 0.2 * dx,
            y0 + 0.2 * dy,
            0.6 * dx,
            0.6 * dy,
            width=0.08,
            head_width=min(0.5 * r.width, 1.2),
            length_includes_head=True,
            color=_LEVEL["ramp"]["edgecolor"],
            zorder=2.2,
        )
        ax.add_patch(arrow)
        mark(arrow, "ramp", Patch, **_LEVEL["ramp"])


def plot_replay(sim: Simulation, out: str | Path, *, title: str | None = None) -> Path:
    """Draw `sim`'s history (see `draw_replay`) to `out` (.png, .svg or .pdf); return the path."""
    import matplotlib.pyplot as plt

    ax = draw_replay(sim, title=title)
    path = Path(out)
    ax.figure.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(ax.figure)
    return path
