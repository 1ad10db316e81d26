"""`npc_ai.bench.nav`: the MovingAI table, its fallback count, the optional peer and bad settings."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from npc_ai.bench.nav import (
    CPP_POLYANYA_US,
    MAPS,
    MapResult,
    default_data_dir,
    format_table,
    peer_available,
    report_json,
    run_nav_benchmark,
)
from npc_ai.errors import BenchmarkSettingsError


def _data() -> Path:
    d = default_data_dir()
    if not (d / "arena.map").is_file():
        pytest.fail(f"benchmark data {d} is missing: the tests expect ../shared beside the repository")
    return d


def test_every_map_of_the_table_is_in_the_data_and_has_its_reference() -> None:
    data = _data()
    assert sorted(MAPS) == sorted(p.name[: -len(".map")] for p in data.glob("*.map"))
    assert set(CPP_POLYANYA_US) == set(MAPS) - {"battleground"}


def test_arena_row_is_complete_exact_search_and_timed() -> None:
    (row,) = run_nav_benchmark(["arena"], _data(), repeat=1, peer=False)
    assert row.name == "arena" and row.scenarios == 160 and row.polygons > 0
    assert row.fallbacks == 0 and row.incomplete == 0
    assert 0 < row.median_us <= row.p95_us and 0 < row.best_median_us <= row.median_us
    assert row.peer_scenarios == 0 and math.isnan(row.peer_median_us) and row.faster_than_peer is None
    assert row.cpp_us == 1.2 and row.within_10x_cpp is (row.median_us <= 12.0)
    lines = format_table([row], peer_note="pynavmesh: not run")
    assert lines[0].startswith("| map | polygons | npc-ai median (p95) [us] | best-of-passes median [us] |")
    assert lines[2].startswith("| arena | 47 | ") and lines[-1] == "pynavmesh: not run"
    doc = report_json([row])
    assert doc["maps"][0]["peer_median_us"] is None and doc["maps"][0]["fallbacks"] == 0


@pytest.mark.skipif(not peer_available(), reason="pynavmesh is not installed (pip install 'npc-ai[peers]')")
def test_the_peer_runs_on_the_same_points_and_is_never_shorter() -> None:
    (row,) = run_nav_benchmark(["combat"], _data(), repeat=1, peer_sample=20)
    assert row.peer_scenarios == 20 and row.peer_failed == 0
    assert row.peer_ratio_mean >= 1.0 - 1e-9 and row.peer_ratio_max >= row.peer_ratio_mean  # ours are exact
    assert row.peer_median_us > 0 and row.faster_than_peer is not None


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"maps": ["nowhere"]}, "nowhere.map: no such MovingAI file"),
        ({"maps": ["arena"], "repeat": 0}, "repeat and peer_sample must be >= 1"),
        ({"maps": ["arena"], "peer_sample": 0}, "repeat and peer_sample must be >= 1"),
    ],
)
def test_bad_settings_raise(kwargs: dict, message: str) -> None:
    maps = kwargs.pop("maps")
    with pytest.raises(BenchmarkSettingsError, match=message):
        run_nav_benchmark(maps, _data(), **kwargs)


def test_a_row_without_references_says_so() -> None:
    row = MapResult("battleground", 10, 5, 3.0, 4.0, 0, 0, 0.1)
    assert row.within_10x_cpp is None and row.faster_than_peer is None
    assert "| battleground | 10 | 3.0 (4.0) | - | 0 | 0 | - | - | - | - | - |" in format_table([row])


def test_a_peer_that_failed_on_a_map_says_why() -> None:
    row = MapResult("Aurora", 10, 5, 3.0, 4.0, 0, 0, 0.1, peer_error="RecursionError: too deep")
    assert "| failed (RecursionError: too deep) |" in format_table([row])[2]
    assert report_json([row])["maps"][0]["peer_error"] == "RecursionError: too deep"
