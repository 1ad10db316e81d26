"""Top-down picture of a navmesh: polygons, portals, and optionally a path (matplotlib, Agg backend)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from navigation.navmesh import FLAG_ISLAND, NavMesh


def plot_navmesh(
    mesh: NavMesh,
    path: Any = None,
    *,
    ax: Any = None,
    out: str | Path | None = None,
    title: str | None = None,
) -> Any:
    """Draw polygons (islands in grey), portals (thin blue) and a path ((k, 2|3) array or PathResult).

    Returns the matplotlib Axes; writes a PNG when `out` is given (and closes the figure it created).
    """
    import matplotlib

    if ax is None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection, PolyCollection

    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 8))
    polys = [mesh.polygon_xy(p) for p in range(mesh.polygon_count)]
    colors = ["#d9d9d9" if mesh.flags[p] & FLAG_ISLAND else "#b7e4c7" for p in range(mesh.polygon_count)]
    ax.add_collection(PolyCollection(polys, facecolors=colors, edgecolors="#2d6a4f", linewidths=0.4))
    portals = mesh.portals
    if len(portals):
        segs = [mesh.portal_segment(int(a), int(ea))[:, :2] for a, ea, _, _ in portals]
        ax.add_collection(LineCollection(segs, colors="#4895ef", linewidths=0.6))
    if path is not None:
        pts = np.asarray(getattr(path, "points", path), dtype=float)
        if len(pts):
            ax.plot(pts[:, 0], pts[:, 1], "-o", color="#d00000", lw=1.5, ms=3)
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
