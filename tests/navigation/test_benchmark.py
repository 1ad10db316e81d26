"""Path quality on MovingAI maps: complete, valid, never longer than octile, and the exact any-angle length
(within 1e-6 of a visibility graph's, measured independently) with no fallback path."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from nav_helpers import VisibilityGraph, data_file, octile_lengths
from shapely.geometry import LineString

from navigation.benchmark import ROW_FIELDS, solve_scenarios
from navigation.grid_bake import grid_free_geometry
from navigation.movingai import read_map, read_scenarios
from navigation.query import QueryStatus


def _check_map(name: str, step: int = 1) -> dict[str, float]:
    grid = read_map(data_file(f"{name}.map"))
    scen = read_scenarios(data_file(f"{name}.map.scen"))[::step]
    report = solve_scenarios(grid, scen)
    assert report.fallbacks == 0  # every path came from the exact search
    free = grid_free_geometry(grid)
    covered = free.buffer(1e-7)
    shapely.prepare(covered)
    vg = VisibilityGraph(free, snap=1.0)
    octile = octile_lengths(grid.blocked, [(s.start, s.goal) for s in scen])
    np.testing.assert_allclose(octile, [s.optimal_length for s in scen], atol=1e-3)  # file rounds
    query = report.mesh
    assert query.polygon_count == report.polygon_count
    ratios, gaps = [], []
    for sc, row, oct_len in zip(scen, report.rows, octile, strict=True):
        assert row.status == QueryStatus.SUCCESS.value, sc
        straight = float(np.hypot(sc.goal[0] - sc.start[0], sc.goal[1] - sc.start[1]))
        assert straight - 1e-9 <= row.length <= oct_len + 1e-6, (sc, row.length, oct_len)
        exact = vg.length(sc.start_point, sc.goal_point, bound=oct_len)  # an octile path is a path
        ratios.append(row.length / exact if exact > 0 else 1.0)
        gaps.append(row.length - exact)
    res = solve_scenarios(grid, scen[:50], mesh=report.mesh)  # same mesh, paths again for geometry checks
    from navigation.query import NavMeshQuery

    q = NavMeshQuery(report.mesh)
    for sc in scen:
        pts = q.find_path(sc.start_point, sc.goal_point).points[:, :2]
        if len(pts) > 1:
            assert covered.covers(LineString(pts)), sc
    r = np.asarray(ratios)
    us = np.array([row.micros for row in report.rows])
    stats = {
        "mean": float(r.mean()),
        "worst": float(r.max()),
        "best": float(r.min()),
        "median_us": float(np.median(us)),
        "p95_us": float(np.percentile(us, 95)),
        "bake_s": report.bake_seconds,
        "polygons": report.polygon_count,
    }
    print(
        f"\n{name}: {len(scen)} scenarios, ratio mean {r.mean():.6f} worst {r.max():.6f} best {r.min():.6f}, "
        f"largest |length - exact| {np.abs(gaps).max():.1e} m; "
        f"query median {stats['median_us']:.0f} us p95 {stats['p95_us']:.0f} us; "
        f"bake {report.bake_seconds * 1e3:.1f} ms, {report.polygon_count} polygons"
    )
    assert r.min() >= 1 - 1e-6  # the visibility graph is exact: nothing beats it
    assert r.mean() <= 1.01
    stats["worst_gap"] = float(np.abs(gaps).max())
    assert len(res.rows) == min(50, len(scen))
    return stats


@pytest.mark.parametrize("name", ["arena", "den312d"])
def test_every_scenario_is_short_complete_and_inside(name: str) -> None:
    stats = _check_map(name)
    assert stats["worst_gap"] <= 1e-6  # Polyanya is exact


@pytest.mark.slow
@pytest.mark.parametrize("name", ["hrt201n", "lak303d", "combat"])
def test_every_scenario_of_the_larger_maps_is_exact(name: str) -> None:
    stats = _check_map(name)
    assert stats["worst_gap"] <= 1e-6


def test_rows_have_the_documented_fields() -> None:
    grid = read_map(data_file("arena.map"))
    scen = read_scenarios(data_file("arena.map.scen"))[:3]
    rep = solve_scenarios(grid, scen, scale=2.0)
    assert [len(r.as_tuple()) for r in rep.rows] == [len(ROW_FIELDS)] * 3
    assert rep.rows[0].start_x == pytest.approx(2.0 * scen[0].start_point[0])
    assert rep.rows[0].octile_length == pytest.approx(2.0 * scen[0].optimal_length)
    assert rep.bake_seconds >= 0 and rep.polygon_count > 0
