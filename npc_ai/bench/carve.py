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

`raster_comparison` (`--raster K`) measures how far the carve is from a true re-bake of the world with
the crates in it as static PyBullet boxes: a measured difference (voxels, erosion), not an equality.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from navigation.carve import carve_navmesh
from navigation.dynamic import DynamicNavMesh
from navigation.navmesh import NavMesh
from navigation.obstacles import Box
from navigation.query import NavMeshQuery, QueryStatus
from navigation.settings import CarveSettings
from npc_ai.errors import BenchmarkSettingsError
from scenes import Box as SceneBox
from scenes import Scene, World

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


def raster_comparison(
    scene: Scene,
    base: NavMesh,
    carve: CarveSettings,
    worlds: int,
    paths: int,
    seed: int = 0,
    progress: Progress = _no_progress,
) -> dict[str, Any]:
    """Carving against a true raster re-bake: `worlds` times, 1 to 4 crates (boxes of random size and yaw)
    at random walkable points are carved into `base` and, separately, added to the scene as real static
    PyBullet boxes whose world is baked from scratch (rays, voxels, erosion: `scene_navmesh` without the
    cache); then `paths` random pairs are solved on both. The two meshes differ by the bake's voxels (cell
    size) and its rounder erosion, so this is a measured difference, not an equality.

    Returns:
        {"worlds", "paths", "same_status", "both_complete", "length_ratio_median", "length_ratio_p95",
        "length_ratio_max" (carved / raster - 1, absolute, over the pairs both complete),
        "length_difference_m_median", "length_difference_m_max", "carved_longer" / "raster_longer" (pairs
        complete on both whose carved / re-baked path is over 1 cm longer), "bake_s_median"}.
    """
    from npc_ai.levels.navmesh import scene_navmesh

    rng = np.random.default_rng(seed)
    q0 = NavMeshQuery(base)
    same = complete = carved_longer = raster_longer = 0
    ratios: list[float] = []
    gaps: list[float] = []
    bakes: list[float] = []
    for w in range(worlds):
        count = int(rng.integers(1, 5))
        spots, _ = q0.random_points(rng, count, islands=base.main_island)
        crates = []
        dyn = DynamicNavMesh(base, carve)
        for x, y, z in spots.tolist():
            half = rng.uniform(0.3, 0.8, 2).tolist() + [0.5]
            yaw = float(rng.uniform(0.0, 180.0))
            dyn.add_box(tuple(half), (x, y, z + 0.5), yaw=math.radians(yaw))
            crates.append(
                SceneBox(center=(x, y, z + 0.5), half_extents=tuple(half), yaw_deg=yaw, name="crate")
            )
        dyn.update()
        world_scene = replace(scene, boxes=(*scene.boxes, *crates), content_hash="")
        t = time.perf_counter()
        with World(world_scene, seed=seed) as world:
            raster, _ = scene_navmesh(world, use_cache=False)
        bakes.append(time.perf_counter() - t)
        qa, qb = NavMeshQuery(dyn.mesh), NavMeshQuery(raster)
        pts, _ = q0.random_points(rng, 2 * paths, islands=base.main_island)
        for s, g in zip(pts[:paths, :2], pts[paths:, :2], strict=True):
            a, b = qa.find_path(tuple(s), tuple(g)), qb.find_path(tuple(s), tuple(g))
            same += a.status is b.status
            if a.ok and b.ok and b.length > 0:
                complete += 1
                ratios.append(abs(a.length / b.length - 1.0))
                gaps.append(abs(a.length - b.length))
                carved_longer += a.length > b.length + 0.01
                raster_longer += b.length > a.length + 0.01
        progress("raster re-bakes", w + 1, worlds)
    r, g = np.array(ratios or [math.nan]), np.array(gaps or [math.nan])
    return {
        "worlds": worlds,
        "paths": worlds * paths,
        "same_status": same,
        "both_complete": complete,
        "length_ratio_median": float(np.median(r)),
        "length_ratio_p95": float(np.percentile(r, 95)),
        "length_ratio_max": float(r.max()),
        "length_difference_m_median": float(np.median(g)),
        "length_difference_m_max": float(g.max()),
        "carved_longer": carved_longer,
        "raster_longer": raster_longer,
        "bake_s_median": float(np.median(bakes)) if bakes else math.nan,
    }


def format_raster(r: dict[str, Any]) -> list[str]:
    """The raster comparison as lines of text."""
    return [
        f"raster re-bake (crates as real PyBullet boxes, {r['worlds']} worlds, bake median "
        f"{r['bake_s_median']:.2f} s): same status {r['same_status']} of {r['paths']} paths; over the "
        f"{r['both_complete']} complete on both, |carved / raster - 1| median "
        f"{r['length_ratio_median']:.4f}, "
        f"p95 {r['length_ratio_p95']:.4f}, max {r['length_ratio_max']:.4f} (length difference median "
        f"{r['length_difference_m_median']:.3f} m, max {r['length_difference_m_max']:.3f} m; carved over "
        f"1 cm longer {r['carved_longer']}, re-baked over 1 cm longer {r['raster_longer']})"
    ]
