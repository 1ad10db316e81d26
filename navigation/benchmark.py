"""Solve every scenario of a MovingAI map: path lengths vs the benchmark's octile optimum, and timings."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from navigation.grid_bake import bake_grid
from navigation.movingai import GridMap, Scenario
from navigation.navmesh import NavMesh
from navigation.query import NavMeshQuery

ROW_FIELDS = (
    "index",
    "start_x",
    "start_y",
    "goal_x",
    "goal_y",
    "octile_length",
    "length",
    "status",
    "micros",
)


@dataclass(frozen=True)
class ScenarioRow:
    """One solved scenario: cell-centre coordinates [cells * scale], lengths [m], query time [us]."""

    index: int
    start_x: float
    start_y: float
    goal_x: float
    goal_y: float
    octile_length: float
    length: float
    status: str
    micros: float

    def as_tuple(self) -> tuple[int | float | str, ...]:
        return tuple(getattr(self, f) for f in ROW_FIELDS)


@dataclass(frozen=True)
class ScenarioReport:
    """Rows plus the bake that served them: bake time [s] and polygon count; `fallbacks`: how many paths
    came from the approximate fallback because the exact search ran out of nodes (0 on the benchmark maps)."""

    rows: list[ScenarioRow]
    bake_seconds: float
    polygon_count: int
    mesh: NavMesh
    fallbacks: int = 0


def solve_scenarios(
    grid: GridMap,
    scenarios: list[Scenario],
    *,
    scale: float = 1.0,
    agent_radius: float = 0.0,
    mesh: NavMesh | None = None,
    on_row: Callable[[ScenarioRow], None] | None = None,
) -> ScenarioReport:
    """Bake the grid (unless `mesh` is given) and solve every scenario with NavMeshQuery.find_path.

    The octile length is the benchmark's optimum times `scale`; an any-angle path can only be shorter.
    `on_row` is called with each row as it is solved (for progress bars).
    """
    t0 = time.perf_counter()
    if mesh is None:
        mesh = bake_grid(grid, scale=scale, agent_radius=agent_radius)
    bake = time.perf_counter() - t0
    query = NavMeshQuery(mesh)
    rows = []
    for sc in scenarios:
        sx, sy = sc.start_point
        gx, gy = sc.goal_point
        start, goal = (sx * scale, sy * scale), (gx * scale, gy * scale)
        t = time.perf_counter()
        res = query.find_path(start, goal)
        us = (time.perf_counter() - t) * 1e6
        rows.append(
            ScenarioRow(
                sc.index,
                start[0],
                start[1],
                goal[0],
                goal[1],
                sc.optimal_length * scale,
                res.length,
                res.status.value,
                us,
            )
        )
        if on_row is not None:
            on_row(rows[-1])
    return ScenarioReport(rows, bake, mesh.polygon_count, mesh, query.path_fallbacks)
