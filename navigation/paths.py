"""Shortest paths for `NavMeshQuery.find_path`: the exact search (`navigation.polyanya`) with the point
lookups around it, in one compiled call for the common case (both points on the mesh, the goal reachable,
a flat mesh); the rare cases (a start off the mesh, an unreachable goal, a sloped or multi-level mesh, a
search past its node budget) are finished in Python here.

The fallback past the node budget (A* over polygon centres, then string pulling) is approximate: its
result says so (`PathResult.exact` False, reason BUDGET_EXCEEDED). Costs and points are metres.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np
from numba import njit

from navigation.funnel import (
    COLLINEAR_TOLERANCE,
    HORIZONTAL_TOLERANCE,
    _kept_points,
    corridor_portals,
    drop_collinear,
    lift_path,
    string_pull_indexed,
)
from navigation.kernel_cache import forget_stale_kernels
from navigation.mesh_kernels import polygons_at
from navigation.polyanya import BUDGET_EXCEEDED, FOUND, SearchScratch, search, search_mesh
from navigation.results import PathResult, QueryReason, QueryStatus

if TYPE_CHECKING:
    from navigation.query import NavMeshQuery

# compiled into `find_path`: `polyanya.search`, `mesh_kernels.polygons_at` (and the `agent_kernels.inside`
# it calls, with `arguments.COORDINATE_LIMIT`) and `funnel._kept_points`
forget_stale_kernels(
    __file__,
    (
        "navigation.agent_kernels",
        "navigation.arguments",
        "navigation.funnel",
        "navigation.mesh_kernels",
        "navigation.polyanya",
    ),
)

OFF_MESH = 3  # `find_path`: the start is on no polygon
UNREACHABLE = 4  # `find_path`: no goal polygon is on an island of the start's
_NO_POINTS = np.zeros((0, 3))
_NO_POINTS.setflags(write=False)


class PathFinder:
    """The path half of a `NavMeshQuery`: the search's flat mesh arrays and reusable scratch, made once.

    Args:
        query: the query whose mesh, point lookup (bucket grid) and height tolerance the paths use.
    """

    def __init__(self, query: NavMeshQuery) -> None:
        mesh = query.mesh
        self.query = query
        self.arrays = search_mesh(mesh)
        self.scratch = SearchScratch(self.arrays)
        self._found = np.zeros((2, mesh.polygon_count), dtype=np.int64)
        self._gaps = np.zeros(mesh.polygon_count)
        self._islands = np.ascontiguousarray(mesh.islands, dtype=np.int64).copy()
        self._flat_z = float(mesh.planes[0, 2]) if query._flat else math.nan
        grid, starts, items = query._grid
        m, s = self.arrays, self.scratch
        # every array argument of the compiled call, in its order (one tuple: one lookup per query)
        self._head: tuple[Any, ...] = (
            grid, starts, items, float(query._origin[0]), float(query._origin[1]), query._bucket,
            query._edges, query._plane_rows, self._islands,
        )  # fmt: skip
        self._tail: tuple[Any, ...] = (
            self._found, self._gaps, m.offsets, m.xy, m.vertex, m.across, m.back, m.vertex_flags, m.eps,
            m.otol, s.root_g, s.root_stamp, s.marks, s.stamp,
        )  # fmt: skip
        self._graph: nx.Graph | None = None
        self._centroids = mesh.centroids()
        self.fallbacks = 0  # paths that came from the approximate fallback (the node budget ran out)

    def warm_up(self) -> None:
        """Run the compiled call once (a start off the mesh: no search), so that no query pays for
        compiling or loading it."""
        far = float(self.query._origin[0]) - 1e3
        self.find((far, far, math.nan), (far, far, math.nan), 1.0, 1)

    def find(
        self, s: tuple[float, float, float], g: tuple[float, float, float], tolerance: float, budget: int
    ) -> PathResult:
        """The path from s to g [m] (z NaN: any height), points within `tolerance` [m] of a polygon's
        height, at most `budget` search nodes (see `NavMeshQuery.find_path`)."""
        code, _, _, pts, vid, corridor = _FIND_PATH(
            *self._head, tolerance, *self._tail, s[0], s[1], s[2], g[0], g[1], g[2], budget, self._flat_z
        )
        if code == FOUND and self._flat_z == self._flat_z:  # not NaN: a flat mesh, the points are final
            return PathResult(QueryStatus.SUCCESS, tuple(corridor.tolist()), pts)
        if code == OFF_MESH:
            return PathResult(QueryStatus.INVALID, (), _NO_POINTS, QueryReason.START_OFF_MESH)
        if code == FOUND:
            return self._finish(QueryStatus.SUCCESS, QueryReason.NONE, pts, vid, corridor.tolist())
        return self._rare(code, s, g, tolerance, budget)

    def _rare(
        self, code: int, s: tuple[float, float, float], g: tuple[float, float, float], tolerance: float,
        budget: int,
    ) -> PathResult:  # fmt: skip
        """An unreachable goal (a path to the reachable point nearest it), or a search that ran out of
        nodes (A* over polygon centres plus string pulling)."""
        q = self.query
        islands = q.mesh.islands
        sp = q._polygons_at(np.array(s), tolerance)
        status, reason = QueryStatus.SUCCESS, QueryReason.NONE
        target = g
        if code == UNREACHABLE:
            status, reason = QueryStatus.PARTIAL, QueryReason.GOAL_UNREACHABLE
            island = int(islands[sp[0]])
            near = q._nearest(np.array(g), math.inf, island)
            target = (float(near.point[0]), float(near.point[1]), float(near.point[2]))
            on = q._polygons_at(near.point, math.inf)
            reach = [p for p in on if islands[p] == island] or [near.polygon]
            sp = [p for p in sp if islands[p] == island]
            found = _SEARCH(
                *self._tail[2:], s[0], s[1], np.array(sp, dtype=np.int64), len(sp), target[0], target[1],
                np.array(reach, dtype=np.int64), len(reach), budget,
            )  # fmt: skip
            code, _, _, xy, vid, corridor = found
            if code == FOUND:
                pts = np.column_stack([xy, np.full(len(xy), math.nan)])
                return self._finish(status, reason, pts, vid, corridor.tolist())
        else:
            gp = q._polygons_at(np.array(g), tolerance)
            reach = [p for p in gp if islands[p] in {int(islands[x]) for x in sp}]
            island = int(islands[reach[0]])
            sp = [p for p in sp if islands[p] == island]
        if code == BUDGET_EXCEEDED:
            reason |= QueryReason.BUDGET_EXCEEDED
        self.fallbacks += 1
        path = nx.astar_path(self.graph, sp[0], reach[0], heuristic=self._poly_heuristic, weight="weight")
        corridor_list = [int(c) for c in path]
        pulled, at = string_pull_indexed(
            corridor_portals(q.mesh, corridor_list), np.array(s[:2]), np.array(target[:2])
        )
        corners = [(float(x), float(y)) for x, y in pulled]
        lifted = self._lift(corners, [int(k) for k in at], corridor_list)
        return PathResult(status, tuple(corridor_list), drop_collinear(lifted), reason)

    def _finish(
        self, status: QueryStatus, reason: QueryReason, pts: np.ndarray, vid: np.ndarray, corridor: list[int]
    ) -> PathResult:
        """A found search's path with its heights (from the corridor's polygons) and no collinear points."""
        xy = [(x, y) for x, y, _ in pts.tolist()]
        owners = self._owners(xy, vid.tolist(), corridor)
        return PathResult(status, tuple(corridor), drop_collinear(self._lift(xy, owners, corridor)), reason)

    def _lift(self, xy: list[tuple[float, float]], owners: list[int], corridor: list[int]) -> np.ndarray:
        q = self.query
        if q._flat:
            z = q._planes[0][2]
            return np.array([(x, y, z) for x, y in xy], dtype=np.float64)
        return lift_path(q._planes, q._loops, xy, owners, corridor)

    @property
    def graph(self) -> nx.Graph:
        """The mesh's polygon adjacency graph, for the fallback (built on first use)."""
        if self._graph is None:
            self._graph = self.query.graph
        return self._graph

    def _poly_heuristic(self, a: int, b: int) -> float:
        c = self._centroids
        return math.hypot(c[a, 0] - c[b, 0], c[a, 1] - c[b, 1])

    def _owners(self, xy: list[tuple[float, float]], vids: list[int], corridor: list[int]) -> list[int]:
        """For each turning point of a search, the index in `corridor` of the first polygon, at or after
        the previous point's, that has its mesh vertex (or, without one, holds its (x, y)). The start is
        in the first polygon, the goal in the last."""
        q = self.query
        vertex_ids = q._loops.vertex_ids
        last = len(corridor) - 1
        owners = [0]
        for (x, y), vid in zip(xy[1:-1], vids[1:-1], strict=True):
            k0 = owners[-1]
            k = (
                next((k for k in range(k0, last + 1) if vid in vertex_ids[corridor[k]]), -1)
                if vid >= 0
                else -1
            )
            if k < 0:
                k = q._corridor_index(corridor, x, y, k0)
            owners.append(k if k >= 0 else k0)
        owners.append(last)
        return owners


@njit(cache=True)
def find_path(
    grid: np.ndarray,
    starts: np.ndarray,
    items: np.ndarray,
    origin_x: float,
    origin_y: float,
    size: float,
    edges: np.ndarray,
    planes: np.ndarray,
    islands: np.ndarray,
    tolerance: float,
    found: np.ndarray,
    gaps: np.ndarray,
    offsets: np.ndarray,
    cxy: np.ndarray,
    cvid: np.ndarray,
    across: np.ndarray,
    back: np.ndarray,
    vflags: np.ndarray,
    eps: float,
    otol: float,
    root_g: np.ndarray,
    root_stamp: np.ndarray,
    marks: np.ndarray,
    stamps: np.ndarray,
    sx: float,
    sy: float,
    sz: float,
    gx: float,
    gy: float,
    gz: float,
    max_nodes: int,
    flat_z: float,
) -> tuple[int, float, int, np.ndarray, np.ndarray, np.ndarray]:
    """`NavMeshQuery.find_path`'s common case in one compiled call: the polygons under the start and the
    goal (`mesh_kernels.polygons_at` within `tolerance` [m] of their heights; z NaN: any height; `found`
    (2, P) and `gaps` (P,) are scratch), the goal polygons on the start's islands, then `search`.
    Returns `search`'s tuple, with points (k, 3) [m]: on a flat mesh (`flat_z` [m] its height, else NaN)
    at that height and without collinear interior points (`funnel.drop_collinear`), else with z NaN
    (the caller lifts them). Instead of searching: OFF_MESH (the start is on no polygon), UNREACHABLE
    (no goal polygon shares an island with a start polygon), with empty arrays."""
    empty_f, empty_i = np.empty((0, 3)), np.empty(0, np.int64)
    n_s = polygons_at(
        grid, starts, items, origin_x, origin_y, size, edges, planes, sx, sy, sz, tolerance, found[0], gaps
    )
    if n_s == 0:
        return OFF_MESH, math.inf, 0, empty_f, empty_i, empty_i
    n_g = polygons_at(
        grid, starts, items, origin_x, origin_y, size, edges, planes, gx, gy, gz, tolerance, found[1], gaps
    )
    n_r = 0  # the goal polygons on an island of a start polygon, in order
    for j in range(n_g):
        q = found[1, j]
        for i in range(n_s):
            if islands[found[0, i]] == islands[q]:
                found[1, n_r] = q
                n_r += 1
                break
    if n_r == 0:
        return UNREACHABLE, math.inf, 0, empty_f, empty_i, empty_i
    island = islands[found[1, 0]]
    m = 0
    for i in range(n_s):
        if islands[found[0, i]] == island:
            found[0, m] = found[0, i]
            m += 1
    code, cost, expanded, xy, vid, corridor = search(
        offsets, cxy, cvid, across, back, vflags, eps, otol, root_g, root_stamp, marks, stamps,
        sx, sy, found[0], m, gx, gy, found[1], n_r, max_nodes,
    )  # fmt: skip
    pts = np.empty((xy.shape[0], 3))
    pts[:, :2] = xy
    pts[:, 2] = flat_z
    if code == FOUND and not math.isnan(flat_z) and pts.shape[0] > 2:
        keep = _kept_points(pts, HORIZONTAL_TOLERANCE, COLLINEAR_TOLERANCE)
        if keep.shape[0] < pts.shape[0]:
            pts, vid = pts[keep], vid[keep]
    return code, cost, expanded, pts, vid, corridor


# the kernels as plain callables: they take the argument tuples above spread out
_Found = tuple[int, float, int, np.ndarray, np.ndarray, np.ndarray]
_FIND_PATH: Callable[..., _Found] = find_path
_SEARCH: Callable[..., _Found] = search
