"""plot_navmesh: polygons coloured by height, islands, portals, a path, and a legend of every mark."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from navigation.grid_bake import bake_grid
from navigation.movingai import parse_map
from navigation.navmesh import build_navmesh
from navigation.plot import LABELS, plot_navmesh, polygon_heights
from navigation.query import NavMeshQuery


def two_levels():
    """A walkway at z = 0 (x 0..6, y 0..2), a ramp up to z = 3 (x 6..8), a landing and a deck, a corridor
    back west (y 4..6) and a bridge (x 2..4, y -2..4) that crosses over the walkway at z = 3."""
    v = [
        (0, 0, 0), (6, 0, 0), (6, 2, 0), (0, 2, 0),  # 0-3 walkway
        (8, 0, 3), (8, 2, 3), (10, 0, 3), (10, 2, 3),  # 4-7 ramp top, landing
        (10, 4, 3), (8, 4, 3), (10, 6, 3), (8, 6, 3),  # 8-11 deck
        (4, 6, 3), (4, 4, 3), (2, 6, 3), (2, 4, 3),  # 12-15 corridor
        (2, -2, 3), (4, -2, 3),  # 16-17 bridge
    ]  # fmt: skip
    polys = [
        [0, 1, 2, 3],  # 0 walkway
        [1, 4, 5, 2],  # 1 ramp
        [4, 6, 7, 5],  # 2 landing
        [5, 7, 8, 9],  # 3 deck
        [9, 8, 10, 11],  # 4 deck
        [13, 9, 11, 12],  # 5 corridor
        [15, 13, 12, 14],  # 6 corridor
        [16, 17, 13, 15],  # 7 bridge, over the walkway
    ]
    return build_navmesh(np.array(v, dtype=float), polys)


def legend_matches_artists(ax) -> None:
    artists = [*ax.collections, *ax.lines, *ax.patches, *ax.images]
    kinds = {a.get_gid() for a in artists}
    assert None not in kinds
    labels = {t.get_text() for t in ax.get_legend().get_texts()}
    assert labels == {LABELS[k] for k in kinds}


def test_flat_grid_mesh_has_one_colour_a_path_and_a_full_legend(tmp_path) -> None:
    mesh = bake_grid(parse_map("type octile\nheight 3\nwidth 4\nmap\n....\n.@..\n....\n"))
    path = NavMeshQuery(mesh).find_path((0.5, 0.5), (3.5, 2.5))
    ax = plot_navmesh(mesh, path, out=tmp_path / "mesh.png")
    assert (tmp_path / "mesh.png").stat().st_size > 1000
    kinds = {a.get_gid() for a in [*ax.collections, *ax.lines]}
    assert kinds == {"polygons", "portals", "path", "path-start", "path-goal"}
    legend_matches_artists(ax)
    faces = ax.collections[0].get_facecolors()
    assert len(np.unique(faces.round(6), axis=0)) == 1
    assert len(ax.figure.axes) == 1  # no colour bar for one level


def test_levels_get_different_colours_and_upper_levels_are_drawn_on_top() -> None:
    mesh = two_levels()
    heights = polygon_heights(mesh)
    np.testing.assert_allclose(heights, [0, 1.5, 3, 3, 3, 3, 3, 3], atol=1e-9)
    ax = plot_navmesh(mesh)
    polys = ax.collections[0]
    assert polys.get_gid() == "polygons-by-height"
    faces = polys.get_facecolors()
    order = np.argsort(heights, kind="stable")
    drawn_height = heights[order]
    assert np.all(np.diff(drawn_height) >= 0)  # the bridge is drawn after the walkway under it
    walkway, bridge = faces[list(order).index(0)], faces[list(order).index(7)]
    assert not np.allclose(walkway, bridge)
    ramp = faces[list(order).index(1)]
    assert not np.allclose(ramp, walkway) and not np.allclose(ramp, bridge)  # in between
    assert len(ax.figure.axes) == 2  # the colour bar
    legend_matches_artists(ax)
    plt.close(ax.figure)


def test_a_path_over_a_bridge_is_coloured_by_its_height() -> None:
    mesh = two_levels()
    path = NavMeshQuery(mesh).find_path((3.0, -1.0, 3.0), (1.0, 1.0, 0.0))  # from the bridge, down
    assert path.ok
    ax = plot_navmesh(mesh, path)
    line = next(c for c in ax.collections if c.get_gid() == "path-by-height")
    colors = line.get_colors()
    z = np.asarray(path.points)[:, 2]
    assert z.min() == pytest.approx(0.0, abs=1e-9) and z.max() == pytest.approx(3.0)
    assert not np.allclose(colors[0], colors[-1])  # under the bridge and on it: told apart
    # drawn from low to high, not in walking order: the bridge leg (walked first) is drawn over the
    # walkway leg (walked last) that it crosses in x, y
    walkway_leg = next(i for i, s in enumerate(line.get_segments()) if np.allclose(s[1], (1.0, 1.0)))
    bridge_leg = next(i for i, s in enumerate(line.get_segments()) if np.allclose(s[0], (3.0, -1.0)))
    assert walkway_leg == 0 and bridge_leg > walkway_leg
    legend_matches_artists(ax)
    plt.close(ax.figure)


def test_islands_are_marked_and_listed() -> None:
    v = [(0, 0, 0), (2, 0, 0), (2, 2, 0), (0, 2, 0), (5, 0, 1), (6, 0, 1), (6, 1, 1), (5, 1, 1)]
    mesh = build_navmesh(np.array(v, dtype=float), [[0, 1, 2, 3], [4, 5, 6, 7]])
    ax = plot_navmesh(mesh)
    islands = next(c for c in ax.collections if c.get_gid() == "islands")
    assert len(islands.get_paths()) == 1
    legend_matches_artists(ax)
    plt.close(ax.figure)
