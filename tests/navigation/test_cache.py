"""cached_bake: the second run loads instead of baking; the key covers content and settings."""

from __future__ import annotations

import numpy as np
import pytest

from navigation.cache import cached_bake, content_hash
from navigation.errors import NavMeshError
from navigation.grid_bake import bake_grid
from navigation.movingai import parse_map
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
