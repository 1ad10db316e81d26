"""Top-down picture of a navmesh: polygons coloured by height, islands, portals, and optionally a path
(matplotlib, Agg backend)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from navigation.navmesh import FLAG_ISLAND, NavMesh

HEIGHT_CMAP = "viridis"
FLAT_COLOR = "#b7e4c7"  # every polygon at one height: no colour scale
_FLAT_SPAN = 0.05  # [m] polygon heights within this span count as one level
# Every artist drawn carries its kind as its gid; LABELS gives each kind its legend entry.
LABELS = {
    "polygons": "walkable polygon",
    "polygons-by-height": "walkable polygon (colour: height, bar at the side)",
    "islands": "island, not reachable from the main area (washed out)",
    "portals": "portal (edge shared by two polygons)",
    "path": "path",
    "path-by-height": "path (colour: height)",
    "path-start": "path start",
    "path-goal": "path goal",
}


def polygon_heights(mesh: NavMesh) -> np.ndarray:
    """(np,) height of each polygon's plane at its centre [m]."""
    if not mesh.polygon_count:
        return np.zeros(0)
    c = mesh.centroids()
    a, b, d = mesh.planes[:, 0], mesh.planes[:, 1], mesh.planes[:, 2]
    heights: np.ndarray = a * c[:, 0] + b * c[:, 1] + d
    return heights


def plot_navmesh(
    mesh: NavMesh,
    path: Any = None,
    *,
    ax: Any = None,
    out: str | Path | None = None,
    title: str | None = None,
) -> Any:
    """Draw polygons coloured by height (a colour bar when there is more than one level; upper levels drawn
    over lower ones, so a bridge covers the walkway beneath it), islands hatched, portals (thin blue) and a
    path ((k, 2|3) array or PathResult) with its start and goal, and a legend of every kind of mark.

    Every artist drawn carries its kind as its gid (a key of `LABELS`). Returns the matplotlib Axes; writes
    the figure when `out` is given (.png, .svg, .pdf; and closes the figure it created).
    """
    import matplotlib

    if ax is None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib import patheffects
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.colors import Normalize
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(9, 8))
    handles: list[Any] = []
    heights = polygon_heights(mesh)
    island_mask = (mesh.flags & FLAG_ISLAND).astype(bool)
    main = heights[~island_mask] if (~island_mask).any() else heights  # islands (roofs) may not stretch it
    layered = len(main) > 0 and float(np.ptp(main)) > _FLAT_SPAN
    order = np.argsort(heights, kind="stable")  # upper levels last, drawn on top
    polys = [mesh.polygon_xy(int(p)) for p in order]
    if layered:
        lo, hi = float(main.min()), float(main.max())
        norm = Normalize(lo, hi, clip=True)
        cmap = plt.get_cmap(HEIGHT_CMAP)
        colors = cmap(norm(heights[order]))
        kind = "polygons-by-height"
        sample: tuple[float, float, float, float] | str = cmap(0.6)
    else:
        colors = np.tile(matplotlib.colors.to_rgba(FLAT_COLOR), (len(order), 1))
        kind = "polygons"
        sample = FLAT_COLOR
    coll = PolyCollection(polys, facecolors=colors, edgecolors="#1b4332", linewidths=0.4)
    coll.set_gid(kind)
    ax.add_collection(coll)
    if len(polys):
        handles.append(Patch(facecolor=sample, edgecolor="#1b4332", label=LABELS[kind]))
    if layered:
        beyond = (heights.min() < lo - 1e-9, heights.max() > hi + 1e-9)
        extend = {(True, True): "both", (True, False): "min", (False, True): "max"}.get(beyond, "neither")
        mappable = plt.cm.ScalarMappable(norm=Normalize(lo, hi), cmap=cmap)
        bar = ax.figure.colorbar(mappable, ax=ax, fraction=0.04, pad=0.02, extend=extend)
        bar.set_label("polygon height [m]" + (" (of the main area)" if extend != "neither" else ""))
    island = [mesh.polygon_xy(int(p)) for p in np.flatnonzero(island_mask)]
    if island:
        # a white wash over them (not a hatch: Agg hatches thousands of polygons very slowly)
        wash = PolyCollection(island, facecolors=(1, 1, 1, 0.6), edgecolors="#6c757d", linewidths=0.4)
        wash.set_gid("islands")
        ax.add_collection(wash)
        handles.append(Patch(facecolor="#d9d9d9", edgecolor="#6c757d", label=LABELS["islands"]))
    portals = mesh.portals
    if len(portals):
        segs = [mesh.portal_segment(int(a), int(ea))[:, :2] for a, ea, _, _ in portals]
        lines = LineCollection(segs, colors="#4895ef", linewidths=0.5, alpha=0.8)
        lines.set_gid("portals")
        ax.add_collection(lines)
        handles.append(Line2D([], [], color="#4895ef", lw=1.0, label=LABELS["portals"]))
    if path is not None:
        pts = np.asarray(getattr(path, "points", path), dtype=float)
        if len(pts):
            outline = [
                patheffects.Stroke(linewidth=6.0, foreground="black"),
                patheffects.Stroke(linewidth=4.2, foreground="white"),
                patheffects.Normal(),
            ]
            by_height = layered and pts.shape[1] >= 3 and len(pts) >= 2
            if by_height:  # the path in the polygons' colours: on the bridge or under it, you can tell
                mid = (pts[:-1, 2] + pts[1:, 2]) / 2
                up = np.argsort(mid, kind="stable")  # where it crosses itself, the upper leg is on top
                path_segs = np.stack([pts[:-1, :2], pts[1:, :2]], axis=1)[up]
                seg_colors = cmap(norm(mid[up]))
                line = LineCollection(
                    list(path_segs), colors=seg_colors, linewidths=2.2, zorder=3, path_effects=outline
                )
                ax.add_collection(line)
                line.set_gid("path-by-height")
                handles.append(
                    Line2D(
                        [], [], color=cmap(0.6), lw=2.2, path_effects=outline, label=LABELS["path-by-height"]
                    )
                )
            else:
                (line,) = ax.plot(pts[:, 0], pts[:, 1], "-", color="#d00000", lw=1.8, zorder=3)
                line.set_gid("path")
                handles.append(Line2D([], [], color="#d00000", lw=1.8, label=LABELS["path"]))
            marks: dict[str, Any] = {"color": "white", "mec": "black", "mew": 1.2, "ls": "", "zorder": 4}
            (start,) = ax.plot(*pts[0, :2], marker="o", ms=8, **marks)
            start.set_gid("path-start")
            (goal,) = ax.plot(*pts[-1, :2], marker="*", ms=14, **marks)
            goal.set_gid("path-goal")
            handles.append(Line2D([], [], marker="o", ms=7, label=LABELS["path-start"], **marks))
            handles.append(Line2D([], [], marker="*", ms=12, label=LABELS["path-goal"], **marks))
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.0, -0.1), ncol=2, fontsize=8)
    ax.set_aspect("equal")
    ax.autoscale_view()
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title(title or f"navmesh: {mesh.polygon_count} polygons")
    if out is not None:
        (fig or ax.figure).savefig(Path(out), dpi=120, bbox_inches="tight")
        if fig is not None:
            plt.close(fig)
    return ax
