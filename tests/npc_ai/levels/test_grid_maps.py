"""MovingAI grids as scenes, and `load_level` over every kind of level."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from navigation import MapFormatError
from npc_ai import LevelError
from npc_ai.levels import blocked_rectangles, load_level
from scenes import SceneError, World, load_scene


def test_movingai_map_blocked_cells_become_walls(movingai_dir: Path) -> None:
    scene = load_level(movingai_dir / "arena.map")
    from navigation.movingai import read_map

    grid = read_map(movingai_dir / "arena.map")
    with World(scene) as w:
        ys, xs = np.mgrid[0 : grid.height, 0 : grid.width]
        centres = np.c_[xs.ravel() + 0.5, ys.ravel() + 0.5]
        starts = np.c_[centres, np.full(len(centres), 5.0)]
        hits = w.ray_test(starts, starts - [0, 0, 6.0])
        top = hits.point[:, 2].reshape(grid.height, grid.width)
        np.testing.assert_allclose(top[grid.blocked], 2.0, atol=1e-5)
        np.testing.assert_allclose(top[~grid.blocked], 0.0, atol=1e-5)


def test_blocked_rectangles_cover_exactly_the_blocked_cells() -> None:
    rng = np.random.default_rng(7)
    grid = rng.random((23, 31)) < 0.4
    cover = np.zeros(grid.shape, dtype=int)
    for x0, y0, x1, y1 in blocked_rectangles(grid):
        cover[y0:y1, x0:x1] += 1
    np.testing.assert_array_equal(cover, grid.astype(int))


def test_bad_movingai_map_is_a_map_format_error(tmp_path: Path) -> None:
    f = tmp_path / "bad.map"
    f.write_text("type octile\nheight 2\nwidth 3\nmap\n...\n.X.\n")
    with pytest.raises(MapFormatError, match=r"bad\.map.*unknown map characters"):
        load_level(f)


def test_a_map_without_a_walkable_cell_is_a_level_error(tmp_path: Path) -> None:
    f = tmp_path / "walls.map"
    f.write_text("type octile\nheight 2\nwidth 3\nmap\n@@@\n@@@\n")
    with pytest.raises(LevelError, match=r"walls\.map: the map has no walkable cell"):
        load_level(f)


def test_scenes_refuses_a_map_and_names_the_loader_that_reads_it(tmp_path: Path) -> None:
    f = tmp_path / "m.map"
    f.write_text("type octile\nheight 1\nwidth 1\nmap\n.\n")
    with pytest.raises(SceneError, match=r"load it with npc_ai.load_level"):
        load_scene(f)


def test_load_level_reads_builtin_names_and_scene_files_too() -> None:
    assert load_level("arena") == load_scene("arena")
