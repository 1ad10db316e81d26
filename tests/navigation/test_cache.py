"""cached_bake: the second run loads instead of baking; the key covers content and settings."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from navigation.cache import cached_bake, content_hash
from navigation.errors import CacheWarning, NavMeshError
from navigation.grid_bake import bake_grid
from navigation.movingai import parse_map
from navigation.navmesh import NavMesh
from navigation.settings import BakeSettings

GRID = parse_map("type octile\nheight 2\nwidth 3\nmap\n...\n.@.\n")


def test_second_run_does_not_bake(tmp_path) -> None:
    calls = []

    def bake():
        calls.append(1)
        return bake_grid(GRID)

    key = (GRID.blocked, BakeSettings())
    a = cached_bake(key, bake, tmp_path)
    b = cached_bake(key, bake, tmp_path)
    assert len(calls) == 1
    np.testing.assert_array_equal(a.vertices, b.vertices)
    assert b.meta["content_hash"] == content_hash(*key)
    cached_bake((GRID.blocked, BakeSettings(agent_radius=0.1)), bake, tmp_path)
    assert len(calls) == 2


def test_corrupt_cache_file_is_rebaked(tmp_path) -> None:
    key = (b"scene bytes", BakeSettings())
    cached_bake(key, lambda: bake_grid(GRID), tmp_path)
    for f in tmp_path.glob("navmesh-*.npz"):
        f.write_bytes(b"garbage")
    assert cached_bake(key, lambda: bake_grid(GRID), tmp_path).polygon_count > 0


def test_hash_is_content_sensitive() -> None:
    assert content_hash(b"a", 1.0) != content_hash(b"a", 2.0)
    assert content_hash(np.zeros(3)) != content_hash(np.zeros(4))
    with pytest.raises(NavMeshError, match="cannot hash"):
        content_hash(object())


def _bake_warnings(
    key: tuple[object, ...], cache_dir: Path, times: int = 2
) -> tuple[list[NavMesh], list[str]]:
    """Bake `times` times into cache_dir; the meshes and the text of every warning (none filtered out)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # count our warnings, not Python's once-per-location filter
        meshes = [cached_bake(key, lambda: bake_grid(GRID), cache_dir) for _ in range(times)]
    assert all(issubclass(w.category, CacheWarning) for w in caught), [str(w.message) for w in caught]
    return meshes, [str(w.message) for w in caught]


def _unusable(tmp_path: Path, case: str) -> tuple[Path, str]:
    """A cache folder that cannot be used, and what the warning says about it."""
    (tmp_path / "notes.txt").write_text("a file\n")
    return {
        "a file": (tmp_path / "notes.txt", "not a folder"),
        "under a file": (tmp_path / "notes.txt" / "cache", "cannot create"),
        "uncreatable": (Path("/proc/npc-ai-test-cache"), "cannot create"),
    }[case]


@pytest.mark.parametrize("case", ["a file", "under a file", "uncreatable"])
def test_an_unusable_cache_folder_bakes_without_the_cache_and_warns_once(tmp_path: Path, case: str) -> None:
    """Issue 10: NPC_AI_CACHE naming a file or an uncreatable path raised FileExistsError and the like."""
    folder, says = _unusable(tmp_path, case)
    key = (GRID.blocked, BakeSettings(), case)
    meshes, messages = _bake_warnings(key, folder)
    assert [m.polygon_count for m in meshes] == [bake_grid(GRID).polygon_count] * 2
    assert len(messages) == 1  # once per folder and process, not once per bake
    assert str(folder) in messages[0] and says in messages[0]
    assert "without the cache" in messages[0]


def test_a_cache_entry_that_is_a_folder_bakes_and_warns_once(tmp_path: Path) -> None:
    key = (GRID.blocked, BakeSettings(), "entry is a folder")
    entry = tmp_path / f"navmesh-{content_hash(*key)[:24]}.npz"
    entry.mkdir()
    (entry / "keep").write_text("not empty\n")
    meshes, messages = _bake_warnings(key, tmp_path)
    assert [m.polygon_count for m in meshes] == [bake_grid(GRID).polygon_count] * 2
    assert len(messages) == 1 and str(entry) in messages[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == [entry.name]  # no temporary file left behind
    assert (entry / "keep").exists()  # nothing of the user's removed


def test_a_usable_cache_never_warns(tmp_path: Path) -> None:
    _, messages = _bake_warnings((GRID.blocked, "fine"), tmp_path / "new" / "cache")
    assert messages == []


def test_save_writes_exactly_the_path_it_is_given(tmp_path: Path) -> None:
    """Issue 10: `save("mesh.bin")` wrote `mesh.bin.npz` (numpy appends .npz) while callers reported
    `mesh.bin`. The cache's temporary files rely on the exact name too (they are renamed into place)."""
    mesh = bake_grid(GRID)
    for name in ("mesh.npz", "mesh.bin", "mesh"):
        written = mesh.save(tmp_path / name)
        assert written == tmp_path / name and written.is_file()
        assert NavMesh.load(written).polygon_count == mesh.polygon_count
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mesh", "mesh.bin", "mesh.npz"]
