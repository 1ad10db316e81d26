"""`npc_ai.bench.carve`: the report's keys and counts on a small level, every path equal to the full
carve's, and settings out of range refused."""

from __future__ import annotations

import pytest
from shapely.geometry import box

from navigation.grid_bake import bake_polygons
from navigation.settings import CarveSettings
from npc_ai.bench.carve import CarveBenchSettings, format_report, run_carve_benchmark
from npc_ai.errors import BenchmarkSettingsError

ROOM = [(0.0, 0.0), (24.0, 0.0), (24.0, 16.0), (0.0, 16.0)]
SHELVES = [box(3, 4, 10, 5), box(13, 4, 21, 5), box(3, 10, 10, 11), box(13, 10, 21, 11)]


def test_every_update_matches_the_full_carve() -> None:
    base = bake_polygons(ROOM, SHELVES)
    seen = []
    report = run_carve_benchmark(
        base,
        CarveSettings(agent_radius=0.4),
        CarveBenchSettings(updates=12, paths_per_update=3, max_obstacles=4, seed=5),
        progress=lambda stage, done, total: seen.append((stage, done, total)),
    )
    assert report["updates"] == 12 and sum(report["changes"].values()) == 12
    assert report["paths_compared"] == 36 == report["paths_equal_to_full_rebake"]
    assert sum(report["path_statuses"].values()) == 36
    assert report["meshes_identical"] == 12 and report["max_length_difference_m"] == 0.0
    for key in ("rebuild_ms_median", "rebuild_ms_p95", "full_rebuild_ms_median", "query_ms_median"):
        assert report[key] > 0.0
    assert report["rebuild_ms_p95"] >= report["rebuild_ms_median"]
    assert report["base_polygons"] == base.polygon_count and report["rebuilt_polygons_median"] >= 1
    assert seen[-1] == ("changes", 12, 12)
    text = "\n".join(format_report(report, "room"))
    assert "36 of 36 equal to the full rebuild's" in text and "[met] paths equal" in text


def test_the_same_seed_makes_the_same_changes() -> None:
    base = bake_polygons(ROOM, SHELVES)
    s = CarveBenchSettings(updates=6, paths_per_update=2, seed=3)
    a = run_carve_benchmark(base, CarveSettings(), s)
    b = run_carve_benchmark(base, CarveSettings(), s)
    assert a["changes"] == b["changes"] and a["path_statuses"] == b["path_statuses"]


@pytest.mark.parametrize(
    "field, value",
    [("updates", 0), ("updates", 2.5), ("paths_per_update", 0), ("max_obstacles", True), ("seed", -1)],
)
def test_bad_settings_are_refused(field: str, value: object) -> None:
    with pytest.raises(BenchmarkSettingsError, match=f"{field} must be an integer in"):
        CarveBenchSettings(**{field: value})
    with pytest.raises(BenchmarkSettingsError, match="settings must be CarveBenchSettings"):
        run_carve_benchmark(bake_polygons(ROOM, SHELVES), CarveSettings(), {"updates": 3})  # type: ignore[arg-type]


def test_the_raster_comparison_re_bakes_with_real_boxes() -> None:
    from npc_ai.bench.carve import raster_comparison
    from npc_ai.levels import load_level
    from npc_ai.levels.navmesh import bake_settings, scene_navmesh
    from scenes import World

    scene = load_level("warehouse")
    with World(scene, seed=0) as world:
        base, _ = scene_navmesh(world)
    bake = bake_settings(scene.navmesh)
    carve = CarveSettings(agent_radius=bake.agent_radius, agent_height=bake.agent_height)
    r = raster_comparison(scene, base, carve, worlds=1, paths=4, seed=2)
    assert r["worlds"] == 1 and r["paths"] == 4 and 0 <= r["same_status"] <= 4
    assert 0 <= r["both_complete"] <= 4 and r["bake_s_median"] > 0
    if r["both_complete"]:  # the carve and the re-bake agree to a few cells on this level
        assert 0.0 <= r["length_ratio_median"] <= r["length_ratio_max"]
