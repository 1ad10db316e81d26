"""`npc-ai bench carve`: dynamic obstacles carved into a scene's navmesh (the warehouse by default) by
local rebuilds, each checked against the full rebuild of the changed world.

A seeded sequence of `updates` changes: add a crate (a box of random size and yaw) or a barrel (a
cylinder) at a random point of the walkable area, move one to another random point and yaw, or remove
one (at most `max_obstacles` at a time). Each change is followed by one `DynamicNavMesh.update`, timed
(`rebuild_ms`: the re-cut of the polygons under the changed footprints and the new `NavMesh`; wall time,
and `rebuild_cpu_ms` the thread's CPU time, less sensitive to a machine shared with other work), then by the
full rebuild of the same world, timed as well (`full_rebuild_ms`: `navigation.carve.carve_navmesh` of the
base mesh by every obstacle now, from scratch, in one call, the base's spatial index reused), and then by
`paths_per_update` path queries between random points of the base mesh on both meshes. A pair is equal
when both give the same status and lengths within 1e-6 m. `query_ms` is the time to make the
`NavMeshQuery` agents need on a new mesh (not part of the rebuild).

Obstacles are carved at once when they move (`carve_only_stationary` False), so every change is one
rebuild; they carve with the scene's agent radius and height. The first change is made and undone once
before the timings (compiled kernels loaded), and is not counted.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from navigation.carve import carve_navmesh
from navigation.dynamic import DynamicNavMesh
from navigation.navmesh import NavMesh
from navigation.obstacles import Box
from navigation.query import NavMeshQuery, QueryStatus
from navigation.settings import CarveSettings
from npc_ai.errors import BenchmarkSettingsError

Progress = Callable[[str, int, int | None], None]
EQUAL_LENGTH = 1e-6  # [m] two path lengths closer than this are equal
TARGET_MEDIAN_MS = 5.0  # [ms] issue 16: a local rebuild takes at most this in the warehouse
ARRAYS = ("vertices", "poly_offsets", "poly_verts", "poly_neighbors", "planes", "islands", "flags")


def _no_progress(stage: str, done: int, total: int | None) -> None:
    pass


@dataclass(frozen=True)
class CarveBenchSettings:
    """What the carve benchmark runs.

    Attributes:
        updates: changes made, each followed by an update [1..100000].
        paths_per_update: path pairs compared after each update [1..1000].
        max_obstacles: most obstacles present at once [1..1000].
        seed: the sequence's seed [>= 0].
    """

    updates: int = 200
    paths_per_update: int = 8
    max_obstacles: int = 12
    seed: int = 0

    def __post_init__(self) -> None:
        for name, low, high in (
            ("updates", 1, 100_000),
            ("paths_per_update", 1, 1000),
            ("max_obstacles", 1, 1000),
            ("seed", 0, 2**63 - 1),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise BenchmarkSettingsError(f"{name} must be an integer in {low}..{high}, got {value!r}")


def _change(dyn: DynamicNavMesh, rng: np.random.Generator, spots: np.ndarray, limit: int) -> str:
    """One random change: "add", "move" or "remove"; `spots` are walkable points to put obstacles on."""
    ids = dyn.obstacle_ids
    roll = rng.random()
    x, y, z = spots[rng.integers(len(spots))].tolist()
    yaw = float(rng.uniform(0.0, math.pi))
    if not ids or (roll < 0.4 and len(ids) < limit):
        if rng.random() < 0.6:
            half = rng.uniform(0.25, 0.8, 3)
            dyn.add_box(tuple(half.tolist()), (x, y, z + half[2]), yaw=yaw)
        else:
            dyn.add_cylinder(float(rng.uniform(0.25, 0.5)), 1.0, (x, y, z + 0.5))
        return "add"
    oid = int(ids[rng.integers(len(ids))])
    if roll < 0.8:
        shape = dyn.shape(oid)
        lift = shape.half_extents[2] if isinstance(shape, Box) else 0.5 * shape.height
        dyn.set_pose(oid, (x, y, z + lift), yaw=yaw)
        return "move"
    dyn.remove(oid)
    return "remove"


def run_carve_benchmark(
    base: NavMesh,
    carve: CarveSettings,
    settings: CarveBenchSettings | None = None,
    progress: Progress = _no_progress,
) -> dict[str, Any]:
    """Run the sequence on `base` (see the module docstring); returns the report as a JSON-able dict.

    Args:
        base: the scene's navmesh without obstacles.
        carve: agent radius and height to carve with (`carve_only_stationary` is set False here).
    Raises:
        BenchmarkSettingsError: settings that are not `CarveBenchSettings`.
    """
    settings = settings if settings is not None else CarveBenchSettings()
    if not isinstance(settings, CarveBenchSettings):
        raise BenchmarkSettingsError(f"settings must be CarveBenchSettings, got {type(settings).__name__}")
    carve = CarveSettings(**{**carve.__dict__, "carve_only_stationary": False})
    rng = np.random.default_rng(settings.seed)
    base_query = NavMeshQuery(base)
    dyn = DynamicNavMesh(base, carve)
    warm = dyn.add_cylinder(0.5, 1.0, tuple(base_query.random_point(rng, islands=base.main_island)[0]))
    dyn.update()
    dyn.remove(warm)
    dyn.update()
    n = settings.updates
    rebuild, cpu, full_ms, query_ms = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
    rebuilt = np.zeros(n, dtype=np.int64)
    kinds = {"add": 0, "move": 0, "remove": 0}
    statuses = {s.value: 0 for s in QueryStatus}
    compared = equal = identical = 0
    worst = 0.0
    for i in range(n):
        spots, _ = base_query.random_points(rng, 1, islands=base.main_island)
        kinds[_change(dyn, rng, spots, settings.max_obstacles)] += 1
        c0, t0 = time.thread_time(), time.perf_counter()
        update = dyn.update()
        t1, c1 = time.perf_counter(), time.thread_time()
        cpu[i] = 1e3 * (c1 - c0)
        full = carve_navmesh(base, dyn.holes(), carve, dyn.index)
        t2 = time.perf_counter()
        rebuild[i], full_ms[i], rebuilt[i] = 1e3 * (t1 - t0), 1e3 * (t2 - t1), update.changed.size
        identical += all(np.array_equal(getattr(dyn.mesh, k), getattr(full, k)) for k in ARRAYS)
        t3 = time.perf_counter()
        local_q = NavMeshQuery(dyn.mesh)
        query_ms[i] = 1e3 * (time.perf_counter() - t3)
        full_q = NavMeshQuery(full)
        pts, _ = base_query.random_points(rng, 2 * settings.paths_per_update, islands=base.main_island)
        k = settings.paths_per_update
        for s, g in zip(pts[:k], pts[k:], strict=True):
            a, b = local_q.find_path(tuple(s[:2]), tuple(g[:2])), full_q.find_path(tuple(s[:2]), tuple(g[:2]))
            compared += 1
            gap = abs(a.length - b.length)
            worst = max(worst, gap)
            equal += a.status is b.status and gap <= EQUAL_LENGTH
            statuses[a.status.value] += 1
        progress("changes", i + 1, n)
    return {
        "updates": n,
        "rebuild_ms_median": float(np.median(rebuild)),
        "rebuild_ms_p95": float(np.percentile(rebuild, 95)),
        "paths_compared": compared,
        "paths_equal_to_full_rebake": equal,
        "rebuild_cpu_ms_median": float(np.median(cpu)),
        "full_rebuild_ms_median": float(np.median(full_ms)),
        "full_rebuild_ms_p95": float(np.percentile(full_ms, 95)),
        "query_ms_median": float(np.median(query_ms)),
        "meshes_identical": identical,
        "max_length_difference_m": worst,
        "rebuilt_polygons_median": float(np.median(rebuilt)),
        "base_polygons": base.polygon_count,
        "changes": kinds,
        "path_statuses": statuses,
        "seed": settings.seed,
        "paths_per_update": settings.paths_per_update,
        "max_obstacles": settings.max_obstacles,
    }


def format_report(report: dict[str, Any], scene: str) -> list[str]:
    """The report as lines of text, with the issue's done-when checks this run measures."""
    r = report
    ch = r["changes"]
    lines = [
        f"carve benchmark: {scene}, {r['updates']} changes ({ch['add']} adds, {ch['move']} moves, "
        f"{ch['remove']} removes), seed {r['seed']}, base {r['base_polygons']} polygons",
        f"local rebuild:  median {r['rebuild_ms_median']:.2f} ms, p95 {r['rebuild_ms_p95']:.2f} ms "
        f"(CPU time median {r['rebuild_cpu_ms_median']:.2f} ms; {r['rebuilt_polygons_median']:g} base "
        "polygons re-cut per change, median)",
        f"full rebuild:   median {r['full_rebuild_ms_median']:.2f} ms, p95 {r['full_rebuild_ms_p95']:.2f} ms "
        "(every obstacle carved from scratch, same run)",
        f"new NavMeshQuery on the rebuilt mesh: median {r['query_ms_median']:.2f} ms (not in the rebuild)",
        f"paths: {r['paths_equal_to_full_rebake']} of {r['paths_compared']} equal to the full rebuild's "
        f"(statuses {', '.join(f'{k} {v}' for k, v in r['path_statuses'].items())}; largest length "
        f"difference {r['max_length_difference_m']:.3g} m); meshes identical after "
        f"{r['meshes_identical']} of {r['updates']} updates",
        "done when (issue 16):",
        f"  [{'met' if r['paths_equal_to_full_rebake'] == r['paths_compared'] else 'UNMET'}] paths equal "
        "those on the full rebuild of the changed world",
    ]
    ok = r["rebuild_ms_median"] <= TARGET_MEDIAN_MS
    lines.append(
        f"  [{'met' if ok else 'UNMET'}] local rebuild median <= {TARGET_MEDIAN_MS:g} ms "
        "(target for an idle machine)"
    )
    return lines
