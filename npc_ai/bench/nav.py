"""`npc-ai bench nav`: exact path queries on the MovingAI maps, timed as a game calls them
(`NavMeshQuery.find_path`, the whole call), side by side with an optional peer measured in the same run.

Per map: the grid is baked (`navigation.bake_grid`, agent radius 0), every scenario of its `.map.scen` is
solved `repeat` times in interleaved passes and each scenario's median time is kept; the table shows the
median and the 95th percentile of those over the scenarios [us], how many paths needed the approximate
fallback (the search's node budget ran out: it should be 0) and how many were not complete (0 on every map
but battleground, whose scenario file has 15 scenarios with an end on a blocked cell: 8 on water `W`, 3 on
trees `T`, 4 out of bounds `@`).

The peer is pynavmesh (`pip install pynavmesh`, pure Python, the `pathfinder` module): it runs on the same
polygons, triangulated (it needs strictly convex polygons; ours have collinear corners where neighbours
meet), between the same points, on an evenly spaced sample of the scenarios (`peer_sample`). Its path
lengths are compared with ours (ours are exact: a ratio >= 1). When it is not installed the table says so.

The Polyanya C++ medians are the figures quoted in issue 14 (measured on this machine kind), for the "at
most 10x" target; they are not measured here.
"""

from __future__ import annotations

import itertools
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from navigation.benchmark import solve_scenarios
from navigation.grid_bake import bake_grid
from navigation.movingai import read_map, read_scenarios
from navigation.navmesh import NavMesh
from npc_ai.bench.names import MAPS as MAPS  # re-exported: the maps of this benchmark
from npc_ai.errors import BenchmarkSettingsError

CPP_POLYANYA_US: dict[str, float] = {
    "arena": 1.2,
    "den312d": 2.9,
    "combat": 0.7,
    "lak303d": 44.0,
    "hrt201n": 31.0,
    "16room_000": 130.0,
    "Aurora": 200.0,
    "orz100d": 317.0,
}
"""Median query time of the Polyanya C++ reference per map [us] (issue 14's table; not measured here)."""

PEER = "pynavmesh"
_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "movingai"


def default_data_dir() -> Path:
    """Where the MovingAI maps are looked for by default: ``../shared/data/movingai`` beside the repo."""
    return _DATA


@dataclass(frozen=True)
class MapResult:
    """One map's row.

    Attributes:
        name: the map. polygons: navmesh polygons. scenarios: scenarios solved.
        median_us, p95_us: npc-ai's `find_path` time over the scenarios [us] (each scenario's median of
            `repeat` runs).
        best_median_us: the median over the scenarios of each one's fastest run [us]: on a machine shared
            with other work, the closer figure to an idle machine's.
        fallbacks: paths answered by the approximate fallback (node budget exceeded).
        incomplete: paths whose status was not SUCCESS.
        bake_s: the grid bake [s].
        peer_median_us, peer_p95_us: pynavmesh's `search_path` time [us] on `peer_scenarios` of them (NaN
            when it did not run).
        peer_scenarios: scenarios the peer solved (0: not run).
        peer_ratio_mean, peer_ratio_max: its path length / ours (NaN when it did not run).
        peer_failed: scenarios where the peer returned no path.
        peer_error: why the peer did not run on this map (its exception), or "".
        cpp_us: the Polyanya C++ median quoted in the issue [us] (NaN when the map is not in it).
    """

    name: str
    polygons: int
    scenarios: int
    median_us: float
    p95_us: float
    fallbacks: int
    incomplete: int
    bake_s: float
    best_median_us: float = math.nan
    peer_median_us: float = math.nan
    peer_p95_us: float = math.nan
    peer_scenarios: int = 0
    peer_ratio_mean: float = math.nan
    peer_ratio_max: float = math.nan
    peer_failed: int = 0
    peer_error: str = ""
    cpp_us: float = math.nan

    @property
    def within_10x_cpp(self) -> bool | None:
        """The median is at most 10x the C++ figure (None: no C++ figure)."""
        return None if math.isnan(self.cpp_us) else self.median_us <= 10.0 * self.cpp_us

    @property
    def faster_than_peer(self) -> bool | None:
        """The median is below the peer's (None: the peer did not run)."""
        return None if math.isnan(self.peer_median_us) else self.median_us < self.peer_median_us


def peer_available() -> bool:
    """pynavmesh (its `pathfinder` module) can be imported."""
    try:
        import pathfinder.navmesh  # type: ignore[import-untyped,import-not-found,unused-ignore]  # noqa: F401
    except ImportError:
        return False
    return True


def _peer_mesh(mesh: NavMesh) -> Any:
    """pynavmesh's Navmesh of the same polygons: each split into triangles (constrained Delaunay, so the
    collinear corners where neighbours meet give no flat triangle), clockwise seen from above, as (x, 0, y)
    with its y axis up."""
    import shapely
    from pathfinder.navmesh import Navmesh  # type: ignore[import-untyped,import-not-found,unused-ignore]

    polys: list[list[int]] = []
    for p in range(mesh.polygon_count):
        ids = mesh.polygon(p).tolist()
        xy = mesh.vertices[ids, :2]
        if len(ids) == 3:
            polys.append(ids[::-1])
            continue
        at = {(x, y): i for (x, y), i in zip(xy.tolist(), ids, strict=True)}
        for tri in shapely.constrained_delaunay_triangles(shapely.Polygon(xy)).geoms:
            corners = [at[(x, y)] for x, y in np.asarray(tri.exterior.coords)[:3].tolist()]
            ccw = shapely.Polygon(mesh.vertices[corners, :2]).exterior.is_ccw
            polys.append(corners[::-1] if ccw else corners)
    vertices = [(x, 0.0, y) for x, y, _ in mesh.vertices.tolist()]
    return Navmesh(vertices, polys)


def _time_peer(
    mesh: NavMesh, pairs: list[tuple[tuple[float, float], tuple[float, float]]], ours: list[float]
) -> tuple[list[float], list[float], int]:
    """pynavmesh's time per pair [us], its length / ours per solved pair, and how many it failed."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20 * mesh.polygon_count + 1000))  # it groups polygons recursively
    try:
        nm = _peer_mesh(mesh)
    finally:
        sys.setrecursionlimit(limit)
    times, ratios, failed = [], [], 0
    for ((sx, sy), (gx, gy)), length in zip(pairs, ours, strict=True):
        t = time.perf_counter()
        path = nm.search_path((sx, 0.0, sy), (gx, 0.0, gy))
        times.append((time.perf_counter() - t) * 1e6)
        if not path:
            failed += 1
            continue
        peer_length = sum(math.dist(a, b) for a, b in itertools.pairwise(path))
        ratios.append(peer_length / length if length > 0 else 1.0)
    return times, ratios, failed


def check_maps(maps: Sequence[str], data_dir: Path) -> None:
    """Raise BenchmarkSettingsError unless every map has its ``.map`` and ``.map.scen`` in `data_dir`."""
    for name in maps:
        for suffix in (".map", ".map.scen"):
            if not (data_dir / f"{name}{suffix}").is_file():
                raise BenchmarkSettingsError(f"{data_dir / (name + suffix)}: no such MovingAI file")


def run_nav_benchmark(
    maps: Sequence[str],
    data_dir: Path,
    *,
    repeat: int = 3,
    peer: bool = True,
    peer_sample: int = 200,
    progress: Callable[[str, int, int | None], None] | None = None,
) -> list[MapResult]:
    """Bake and time every map (see the module doc).

    Args:
        maps: map names (files ``NAME.map`` and ``NAME.map.scen`` in `data_dir`).
        repeat: interleaved passes over the scenarios [>= 1]; each scenario keeps its median.
        peer: also time pynavmesh when it is installed.
        peer_sample: scenarios the peer solves per map, evenly spaced [>= 1] (it is slow on large maps).
        progress: called as progress(stage, done, total).
    Raises:
        BenchmarkSettingsError: a missing map file, repeat or peer_sample below 1.
    """
    if repeat < 1 or peer_sample < 1:
        raise BenchmarkSettingsError(f"repeat and peer_sample must be >= 1, got {repeat}, {peer_sample}")
    check_maps(maps, data_dir)
    use_peer = peer and peer_available()
    out = []
    for k, name in enumerate(maps):
        if progress is not None:
            progress(f"{name}: bake and solve", k, len(maps))
        grid = read_map(data_dir / f"{name}.map")
        scenarios = read_scenarios(data_dir / f"{name}.map.scen")
        t0 = time.perf_counter()
        mesh = bake_grid(grid)
        bake = time.perf_counter() - t0
        runs = [solve_scenarios(grid, scenarios, mesh=mesh) for _ in range(repeat)]
        passes = np.array([[row.micros for row in r.rows] for r in runs])
        micros = np.median(passes, axis=0)
        rows = runs[0].rows
        result = MapResult(
            name, mesh.polygon_count, len(rows), float(np.median(micros)), float(np.percentile(micros, 95)),
            sum(r.fallbacks for r in runs) // repeat, sum(row.status != "success" for row in rows), bake,
            best_median_us=float(np.median(passes.min(axis=0))), cpp_us=CPP_POLYANYA_US.get(name, math.nan),
        )  # fmt: skip
        if use_peer:
            if progress is not None:
                progress(f"{name}: {PEER}", k, len(maps))
            pick = np.unique(np.linspace(0, len(rows) - 1, min(peer_sample, len(rows))).astype(int))
            pairs = [((rows[i].start_x, rows[i].start_y), (rows[i].goal_x, rows[i].goal_y)) for i in pick]
            try:
                times, ratios, failed = _time_peer(mesh, pairs, [rows[i].length for i in pick])
            except Exception as exc:  # a peer's own failure is a result of the run, not the end of it
                d = asdict(result)
                d["peer_error"] = f"{type(exc).__name__}: {' '.join(str(exc).split())[:80]}"
                result = MapResult(**d)
            else:
                result = _with_peer(result, times, ratios, failed)
        out.append(result)
    if progress is not None:
        progress("done", len(maps), len(maps))
    return out


def _with_peer(result: MapResult, times: list[float], ratios: list[float], failed: int) -> MapResult:
    d = asdict(result)
    d.update(
        peer_median_us=float(np.median(times)),
        peer_p95_us=float(np.percentile(times, 95)),
        peer_scenarios=len(times),
        peer_ratio_mean=float(np.mean(ratios)) if ratios else math.nan,
        peer_ratio_max=float(np.max(ratios)) if ratios else math.nan,
        peer_failed=failed,
    )
    return MapResult(**d)


def _us(v: float) -> str:
    if math.isnan(v):
        return "-"
    return f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def format_table(results: Sequence[MapResult], *, peer_note: str | None = None) -> list[str]:
    """The issue's table for npc-ai next to the peer and the C++ figure, as markdown lines."""
    lines = [
        "| map | polygons | npc-ai median (p95) [us] | best-of-passes median [us] | fallbacks | not complete "
        "| pynavmesh median (p95) [us] | pynavmesh length / exact (mean, max) "
        "| Polyanya C++ median [us] | <= 10x C++ | < pynavmesh |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        peer = f"{_us(r.peer_median_us)} ({_us(r.peer_p95_us)})" if r.peer_scenarios else "-"
        peer = f"failed ({r.peer_error})" if r.peer_error else peer
        ratio = f"{r.peer_ratio_mean:.3f}, {r.peer_ratio_max:.3f}" if r.peer_scenarios else "-"
        ok10 = {None: "-", True: "yes", False: "NO"}[r.within_10x_cpp]
        okp = {None: "-", True: "yes", False: "NO"}[r.faster_than_peer]
        lines.append(
            f"| {r.name} | {r.polygons:,} | {_us(r.median_us)} ({_us(r.p95_us)}) | {_us(r.best_median_us)} | "
            f"{r.fallbacks} | "
            f"{r.incomplete} | {peer} | {ratio} | {_us(r.cpp_us)} | {ok10} | {okp} |"
        )
    if peer_note:
        lines.append(peer_note)
    return lines


def report_json(results: Sequence[MapResult]) -> dict[str, Any]:
    """The rows as JSON-able dicts (NaN as null)."""

    def clean(v: Any) -> Any:
        return None if isinstance(v, float) and math.isnan(v) else v

    return {"maps": [{k: clean(v) for k, v in asdict(r).items()} for r in results]}
