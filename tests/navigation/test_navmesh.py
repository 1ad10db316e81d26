"""NavMesh: read-only arrays, save/load round trip, bad files."""

from __future__ import annotations

import numpy as np
import pytest

from navigation.errors import NavMeshError
from navigation.grid_bake import bake_grid
from navigation.movingai import parse_map
from navigation.navmesh import NavMesh, build_navmesh

GRID = parse_map("type octile\nheight 3\nwidth 4\nmap\n....\n.@..\n....\n")


def test_arrays_are_read_only() -> None:
    mesh = bake_grid(GRID)
    with pytest.raises(ValueError):
        mesh.vertices[0, 0] = 1.0
    with pytest.raises(AttributeError):
        mesh.vertices = np.zeros((1, 3))  # type: ignore[misc]


def test_save_load_round_trip(tmp_path) -> None:
    mesh = bake_grid(GRID)
    mesh.save(tmp_path / "m.npz")
    back = NavMesh.load(tmp_path / "m.npz")
    for name in (
        "vertices",
        "poly_offsets",
        "poly_verts",
        "poly_neighbors",
        "planes",
        "areas",
        "islands",
        "flags",
    ):
        np.testing.assert_array_equal(getattr(mesh, name), getattr(back, name))
    assert back.meta == mesh.meta


def test_bad_files(tmp_path) -> None:
    with pytest.raises(NavMeshError, match="no such"):
        NavMesh.load(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(NavMeshError, match="not a navmesh"):
        NavMesh.load(tmp_path / "junk.npz")
    np.savez(tmp_path / "old.npz", version=np.array(0))
    with pytest.raises(NavMeshError, match="version"):
        NavMesh.load(tmp_path / "old.npz")
    np.savez(tmp_path / "part.npz", version=np.array(1), meta=np.array("{}"))
    with pytest.raises(NavMeshError, match="corrupt"):
        NavMesh.load(tmp_path / "part.npz")


def test_build_rejects_bad_polygons() -> None:
    v = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    with pytest.raises(NavMeshError, match="counter-clockwise"):
        build_navmesh(v, [[0, 3, 2, 1]])
    with pytest.raises(NavMeshError, match="twice"):
        build_navmesh(v, [[0, 1, 2], [0, 1, 3]])
    with pytest.raises(NavMeshError, match="vertices"):
        build_navmesh(np.zeros((3, 4)), [[0, 1, 2]])
