"""Grid and polygon bakes: convex CCW polygons that tile the free space exactly, portals on shared edges."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from nav_helpers import data_file
from shapely.geometry import Polygon

from navigation.errors import NavMeshError, NavSettingsError
from navigation.grid_bake import bake_grid, bake_polygons, grid_free_geometry
from navigation.movingai import GridMap, parse_map, read_map
from navigation.navmesh import NavMesh


def assert_valid_mesh(mesh: NavMesh, free: shapely.Geometry | None = None, max_verts: int | None = 6) -> None:
    polys = [Polygon(mesh.polygon_xy(p)) for p in range(mesh.polygon_count)]
    for p, poly in enumerate(polys):
        xy = mesh.polygon_xy(p)
        e1 = np.roll(xy, -1, axis=0) - xy
        e2 = np.roll(e1, -1, axis=0)
        assert (e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0] >= -1e-9).all(), f"polygon {p} not convex CCW"
        assert poly.area == pytest.approx(mesh.areas[p]) and mesh.areas[p] > 0
    tree = shapely.STRtree(polys)
    for i, j in zip(*tree.query(polys, predicate="intersects"), strict=True):
        if i < j:
            assert polys[i].intersection(polys[j]).area <= 1e-9, (i, j)
    # portals: each shared by exactly two polygons, over the same segment
    for a, ea, b, eb in mesh.portals:
        sa, sb = mesh.portal_segment(a, ea)[:, :2], mesh.portal_segment(b, eb)[:, :2]
        np.testing.assert_allclose(sa, sb[::-1])
        assert mesh.neighbors(a)[ea] == b and mesh.neighbors(b)[eb] == a
    if free is not None:
        assert mesh.total_area == pytest.approx(free.area, rel=1e-12, abs=1e-9)
        assert shapely.union_all(polys).symmetric_difference(free).area <= 1e-9
    if max_verts is not None:
        assert max(len(mesh.polygon(p)) for p in range(mesh.polygon_count)) <= max_verts


@pytest.mark.parametrize("name", ["arena", "den312d"])
def test_benchmark_maps_bake_to_a_valid_exact_mesh(name: str) -> None:
    grid = read_map(data_file(f"{name}.map"))
    mesh = bake_grid(grid)
    assert_valid_mesh(mesh, grid_free_geometry(grid))
    assert mesh.total_area == pytest.approx(float((~grid.blocked).sum()))


def test_corner_touching_blocked_cells_form_a_wall() -> None:
    grid = parse_map("type octile\nheight 2\nwidth 2\nmap\n.@\n@.\n")
    mesh = bake_grid(grid)
    assert mesh.islands.max() == 1  # the two free cells share only a point: two islands
    assert len(mesh.portals) == 0


def test_scale_and_radius() -> None:
    grid = parse_map("type octile\nheight 3\nwidth 4\nmap\n....\n.@..\n....\n")
    m2 = bake_grid(grid, scale=2.0)
    assert m2.total_area == pytest.approx(4.0 * 11)
    eroded = bake_grid(grid, scale=2.0, agent_radius=0.5)
    assert eroded.total_area < m2.total_area
    free = grid_free_geometry(grid, 2.0)
    walls = free.boundary
    for p in range(eroded.polygon_count):
        for xy in eroded.polygon_xy(p):
            assert walls.distance(shapely.Point(xy)) >= 0.5 - 1e-6


def test_polygons_with_obstacles() -> None:
    boundary = [(0, 0), (10, 0), (10, 10), (0, 10)]
    obstacles = [[(2, 2), (4, 2), (4, 4), (2, 4)], Polygon([(6, 5), (8, 7), (6, 9)])]
    mesh = bake_polygons(boundary, obstacles)
    free = Polygon(boundary).difference(shapely.union_all([Polygon(o) for o in obstacles]))
    assert_valid_mesh(mesh, free)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"agent_radius": -1.0}, "agent_radius"),
        ({"scale": 0.0}, "scale"),
        ({"max_verts_per_poly": 2}, "max_verts"),
    ],
)
def test_bad_bake_arguments(kwargs: dict, message: str) -> None:
    grid = parse_map("type octile\nheight 1\nwidth 2\nmap\n..\n")
    with pytest.raises(NavSettingsError, match=message):
        bake_grid(grid, **kwargs)


def test_nothing_walkable_is_an_error() -> None:
    with pytest.raises(NavMeshError, match="no walkable area"):
        bake_grid(parse_map("type octile\nheight 1\nwidth 2\nmap\n@@\n"))
    with pytest.raises(NavMeshError, match="not a valid polygon"):
        bake_polygons([(0, 0), (1, 1), (1, 0), (0, 1)])


@settings(max_examples=40, deadline=None)
@given(
    arrays(bool, st.tuples(st.integers(1, 9), st.integers(1, 9)), elements=st.booleans()), st.integers(3, 8)
)
def test_random_grids_tile_the_free_space(blocked: np.ndarray, max_verts: int) -> None:
    if blocked.all():
        return
    grid = GridMap(blocked)
    mesh = bake_grid(grid, max_verts_per_poly=max_verts)
    assert_valid_mesh(mesh, grid_free_geometry(grid), max_verts=None)
    # 4-connected components of free cells == mesh islands (corner contact is no connection)
    from scipy import ndimage

    assert mesh.islands.max() + 1 == ndimage.label(~blocked)[1]
