"""plot_navmesh writes a PNG with polygons, portals and a path."""

from __future__ import annotations

from navigation.grid_bake import bake_grid
from navigation.movingai import parse_map
from navigation.plot import plot_navmesh
from navigation.query import NavMeshQuery


def test_plot_writes_png(tmp_path) -> None:
    mesh = bake_grid(parse_map("type octile\nheight 3\nwidth 4\nmap\n....\n.@..\n....\n"))
    path = NavMeshQuery(mesh).find_path((0.5, 0.5), (3.5, 2.5))
    ax = plot_navmesh(mesh, path, out=tmp_path / "mesh.png")
    assert (tmp_path / "mesh.png").stat().st_size > 1000
    assert len(ax.collections) == 2 and len(ax.lines) == 1
