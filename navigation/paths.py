"""Shortest paths for `NavMeshQuery.find_path`: the exact search (`navigation.polyanya`) with the point
lookups around it, in one compiled call for the common case (both points on the mesh, the goal reachable,
a flat mesh); the rare cases (a start off the mesh, an unreachable goal, a sloped or multi-level mesh, a
search past its node budget) are finished in Python here.

The fallback past the node budget (A* over polygon centres, then string pulling) is approximate: its
result says so (`PathResult.exact` False, reason BUDGET_EXCEEDED). `Polyanya` is the bare search from
Python (given start and goal polygons), for tests and tools. Costs and points are metres.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np
from numba import njit

from navigation.funnel import (
    COLLINEAR_TOLERANCE,
    HORIZONTAL_TOLERANCE,
    corridor_portals,
    drop_collinear,
    drop_collinear_rows,
    lift_path,
    string_pull_indexed,
)
from navigation.kernel_cache import forget_stale_kernels
from navigation.mesh_kernels import polygons_at
from navigation.navmesh import NavMesh
from navigation.polyanya import (
    BUDGET_EXCEEDED,
    FOUND,
    MORE_ROWS,
    SearchScratch,
    search,
    search_mesh,
)
from navigation.results import PathResult, QueryReason, QueryStatus, found_path

if TYPE_CHECKING:
    from navigation.query import NavMeshQuery

# compiled into `find_path`: `polyanya.search`, `mesh_kernels.polygons_at` (and the `agent_kernels.inside`
# it calls, with `arguments.COORDINATE_LIMIT`) and `funnel.drop_collinear_rows`
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


@dataclass(frozen=True)
class SearchResult:
    """What one Polyanya search found.

    Attributes:
        points: turning points (x [m], y [m], vertex id or -1) from start to goal; empty when not found.
        corridor: polygon ids the path crosses, start to goal; empty when not found.
        cost: horizontal length of the path [m]; inf when not found.
        expanded: search nodes expanded.
        budget_exceeded: the search stopped after `max_nodes` expansions before reaching the goal (so
            `found` is False although a path may exist).
    """

    points: tuple[tuple[float, float, int], ...]
    corridor: tuple[int, ...]
    cost: float
    expanded: int
    budget_exceeded: bool = False

    @property
    def found(self) -> bool:
        return len(self.points) > 0


class Polyanya:
    """Reusable exact any-angle search over one NavMesh (2-D, the mesh's horizontal projection)."""

    def __init__(self, mesh: NavMesh) -> None:
        self.arrays = search_mesh(mesh)
        self.scratch = SearchScratch(self.arrays)
        self.eps = self.arrays.eps

    def search(
        self,
        start: tuple[float, float],
        start_polys: list[int],
        goal: tuple[float, float],
        goal_polys: set[int] | list[int],
        max_nodes: int = 200_000,
    ) -> SearchResult:
        """Shortest path from start to goal.

        Args:
            start, goal: (x, y) [m].
            start_polys: every polygon containing the start (several when it lies on an edge or vertex).
            goal_polys: every polygon containing the goal.
            max_nodes: node budget; the search gives up (`budget_exceeded`) after expanding more.
        Returns:
            the path (`found`), or why there is none: no path exists, or the budget ran out.
        """
        code, cost, expanded, xy, vid, corridor = self.run(
            start, np.asarray(start_polys, dtype=np.int64), goal, np.asarray(sorted(goal_polys), np.int64),
            max_nodes,
        )  # fmt: skip
        if code != FOUND:
            return SearchResult((), (), math.inf, expanded, code == BUDGET_EXCEEDED)
        pts = tuple((x, y, v) for (x, y), v in zip(xy.tolist(), vid.tolist(), strict=True))
        return SearchResult(pts, tuple(corridor.tolist()), cost, expanded)

    def run(
        self, start: tuple[float, float], start_polys: np.ndarray, goal: tuple[float, float],
        goal_polys: np.ndarray, max_nodes: int,
    ) -> tuple[int, float, int, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
        """`search` as arrays: (FOUND / NO_PATH / BUDGET_EXCEEDED, cost [m], nodes expanded, (k, 2)
        turning points [m], (k,) their vertex ids (-1: none), (m,) corridor polygon ids)."""
        m, s = self.arrays, self.scratch
        out: tuple[int, float, int, np.ndarray, np.ndarray, np.ndarray] = run_search(
            m.offsets, m.xy, m.vertex, m.across, m.back, m.vertex_flags, m.eps, m.otol,
            s.root_g, s.root_stamp, s.marks, s.stamp, s.work_f, s.work_i,
            float(start[0]), float(start[1]), start_polys, len(start_polys),
            float(goal[0]), float(goal[1]), goal_polys, len(goal_polys), int(max_nodes), m.max_corners,
        )  # fmt: skip
        s.fit()
        return out


class PathFinder:
    """The path half of a `NavMeshQuery`: the search's flat mesh arrays and reusable scratch, made once.

    The compiled call reads everything from two flat buffers (ints and floats: the mesh, the bucket grid,
    the scratch, then the output rows and the search's work rows at their ends) cut by a `layout` of
    boundaries: a handful of arguments instead of thirty, because every argument costs on each call.

    Args:
        query: the query whose mesh, point lookup (bucket grid) and height tolerance the paths use.
    """

    def __init__(self, query: NavMeshQuery) -> None:
        mesh = query.mesh
        self.query = query
        m = search_mesh(mesh)
        n = mesh.polygon_count
        grid, starts, items = query._grid
        flat_z = float(mesh.planes[0, 2]) if query._flat else math.nan
        consts = [float(query._origin[0]), float(query._origin[1]), query._bucket, m.eps, m.otol, flat_z]
        ints = [
            m.offsets, m.vertex, m.across, m.back, m.vertex_flags, mesh.islands, grid, starts, items,
            np.zeros(m.vertex_flags.shape[0], np.int64), np.zeros(2 * n, np.int64), np.zeros(2, np.int64),
            np.zeros(2 * n, np.int64),
        ]  # fmt: skip
        floats = [m.xy, query._edges, mesh.planes, np.zeros(m.vertex_flags.shape[0]), np.zeros(n), consts]
        self._ints, self._ibounds = _pack(ints, np.int64)
        self._floats, self._fbounds = _pack(floats, np.float64)
        self._shape = [n, query._edges.shape[2], m.xy.shape[0], m.vertex_flags.shape[0], m.max_corners]
        self._mesh_arrays = m
        self._flat = query._flat
        self._resize(64, n + 8, 256)
        self._graph: nx.Graph | None = None
        self._centroids = mesh.centroids()
        self.fallbacks = 0  # paths that came from the approximate fallback (the node budget ran out)

    def _resize(self, points: int, corridor: int, rows: int) -> None:
        """Output rows for paths of up to `points` turning points and `corridor` polygons, and `rows` work
        rows (nodes, roots, open list) for the search, at the ends of the buffers; what comes before them
        (the mesh, and the scratch whose stamps carry over from search to search) is kept."""
        ib, fb = self._ibounds, self._fbounds
        self._ints = np.concatenate(
            [self._ints[: ib[-1]], np.zeros(points + corridor + 9 * rows, dtype=np.int64)]
        )
        self._floats = np.concatenate([self._floats[: fb[-1]], np.zeros(3 * points + 9 * rows)])
        ends_i = [ib[-1] + points + corridor, ib[-1] + points + corridor + 9 * rows]
        ends_f = [fb[-1] + 3 * points, fb[-1] + 3 * points + 9 * rows]
        self._layout = np.array([*ib, *ends_i, *fb, *ends_f, *self._shape, points], dtype=np.int64)
        iv, fv = _views(self._ints, [*ib, *ends_i]), _views(self._floats, [*fb, *ends_f])
        n = self._shape[0]
        # the search's arrays and scratch as views of the buffers, for the calls made from Python
        self.arrays = self._mesh_arrays._replace(
            offsets=iv[0], vertex=iv[1], across=iv[2], back=iv[3], vertex_flags=iv[4], xy=fv[0].reshape(-1, 2)
        )
        self._stamps = iv[11]  # the stamp counter, the work rows the largest search needed
        self._scratch = (fv[3], iv[9], iv[10].reshape(2, n), iv[11])  # root_g, root_stamp, marks, stamps
        self._out_pts = fv[6].reshape(points, 3)
        self._out_ints = iv[13]  # vertex ids, then the corridor
        self._cap = points
        self._work = (fv[7].reshape(rows, 9), iv[14].reshape(rows, 9))

    def warm_up(self) -> None:
        """Run the compiled call once (a start off the mesh: no search), so that no query pays for
        compiling or loading it."""
        far = float(self._floats[self._fbounds[-2]]) - 1e3  # the bucket grid's origin, and far from it
        self.find(far, far, math.nan, far, far, math.nan, 1.0, 1)

    def find(
        self, sx: float, sy: float, sz: float, gx: float, gy: float, gz: float, tolerance: float, budget: int
    ) -> PathResult:
        """The path from (sx, sy, sz) to (gx, gy, gz) [m] (z NaN: any height), points within `tolerance` [m]
        of a polygon's height, at most `budget` search nodes (see `NavMeshQuery.find_path`)."""
        code, k, m, grow = _FIND_PATH(
            self._ints, self._floats, self._layout, sx, sy, sz, gx, gy, gz, tolerance, budget
        )
        if grow == 0 and code == FOUND and self._flat:  # the common case: the points are final
            cap = self._cap
            return found_path(tuple(self._out_ints[cap : cap + m].tolist()), self._out_pts[:k].copy())
        return self._other(code, k, m, grow, (sx, sy, sz), (gx, gy, gz), tolerance, budget)

    def _other(
        self, code: int, k: int, m: int, grow: int, s: tuple[float, float, float],
        g: tuple[float, float, float], tolerance: float, budget: int,
    ) -> PathResult:  # fmt: skip
        """`find` past its common case: buffers to grow (then the call again, if the path did not fit), a
        path to lift onto a sloped or multi-level mesh, a start off the mesh, the rare cases."""
        if grow:
            cap, room = self._cap, self._out_ints.shape[0] - self._cap
            fits = k <= cap and m <= room
            result = self._found(code, k, m, s, g, tolerance, budget) if fits else None
            rows = max(int(self._stamps[1]), self._work[0].shape[0])  # what the largest search needed
            self._resize(2 * max(k, cap) if not fits else cap, 2 * max(m, room) if not fits else room, rows)
            return result if result is not None else self.find(*s, *g, tolerance, budget)
        return self._found(code, k, m, s, g, tolerance, budget)

    def _found(
        self, code: int, k: int, m: int, s: tuple[float, float, float], g: tuple[float, float, float],
        tolerance: float, budget: int,
    ) -> PathResult:  # fmt: skip
        if code == FOUND:
            cap = self._cap
            corridor = self._out_ints[cap : cap + m].tolist()
            if self._flat:
                return found_path(tuple(corridor), self._out_pts[:k].copy())
            pts, ints = self._out_pts, self._out_ints
            return self._finish(QueryStatus.SUCCESS, QueryReason.NONE, pts[:k], ints[:k], corridor)
        if code == OFF_MESH:
            return PathResult(QueryStatus.INVALID, (), _NO_POINTS, QueryReason.START_OFF_MESH)
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
            a = self.arrays
            found = _SEARCH(
                a.offsets, a.xy, a.vertex, a.across, a.back, a.vertex_flags, a.eps, a.otol, *self._scratch,
                *self._work,
                s[0], s[1], np.array(sp, dtype=np.int64), len(sp), target[0], target[1],
                np.array(reach, dtype=np.int64), len(reach), budget, a.max_corners,
            )  # fmt: skip
            code, _, _, xy, vid, corridor = found
            if self._stamps[1] > self._work[0].shape[0]:  # the search grew its work rows: keep that many
                self._resize(self._cap, self._out_ints.shape[0] - self._cap, int(self._stamps[1]))
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
        """A found search's path with its heights (from the corridor's polygons) and no collinear points.
        A corridor on one plane (a level floor: the bake gives all of its polygons one plane) needs no
        owners: every point takes that plane's height, as `lift_path` gives it there."""
        xy = [(x, y) for x, y, _ in pts.tolist()]
        planes = self.query._planes
        first = planes[corridor[0]]
        if all(planes[p] == first for p in corridor):
            a, b, c = first
            lifted = np.array([(x, y, a * x + b * y + c) for x, y in xy], dtype=np.float64)
            return PathResult(status, tuple(corridor), drop_collinear(lifted), reason)
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


def _pack(parts: list[Any], dtype: type) -> tuple[np.ndarray, list[int]]:
    """The arrays `parts`, flattened into one buffer of `dtype`, and their boundaries in it."""
    flat: list[np.ndarray] = [np.ascontiguousarray(p, dtype=dtype).ravel() for p in parts]
    bounds = np.concatenate([[0], np.cumsum([f.shape[0] for f in flat])]).astype(np.int64).tolist()
    return np.concatenate(flat), bounds


def _views(buffer: np.ndarray, bounds: list[int]) -> list[np.ndarray]:
    return [buffer[a:b] for a, b in itertools.pairwise(bounds)]


@njit(cache=True)
def run_search(
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
    work_f: np.ndarray,
    work_i: np.ndarray,
    sx: float,
    sy: float,
    start_polys: np.ndarray,
    n_start: int,
    gx: float,
    gy: float,
    goal_polys: np.ndarray,
    n_goal: int,
    max_nodes: int,
    max_k: int,
) -> tuple[int, float, int, np.ndarray, np.ndarray, np.ndarray]:
    """`search` with the same arguments, run again on new work rows while it answers MORE_ROWS (never
    returned): the owner of `work_f`, `work_i` reads `stamps[1]` to give the next search as many."""
    out = search(
        offsets, cxy, cvid, across, back, vflags, eps, otol, root_g, root_stamp, marks, stamps, work_f,
        work_i, sx, sy, start_polys, n_start, gx, gy, goal_polys, n_goal, max_nodes, max_k,
    )  # fmt: skip
    while out[0] == MORE_ROWS:
        rows = stamps[1]
        out = search(
            offsets, cxy, cvid, across, back, vflags, eps, otol, root_g, root_stamp, marks, stamps,
            np.empty((rows, 9)), np.empty((rows, 9), dtype=np.int64), sx, sy, start_polys, n_start, gx, gy,
            goal_polys, n_goal, max_nodes, max_k,
        )  # fmt: skip
    return out


_NI, _NF = 16, 9  # boundaries of the int and float buffers in the layout: 15 and 8 parts


@njit(cache=True)
def find_path(
    ints: np.ndarray,
    floats: np.ndarray,
    layout: np.ndarray,
    sx: float,
    sy: float,
    sz: float,
    gx: float,
    gy: float,
    gz: float,
    tolerance: float,
    max_nodes: int,
) -> tuple[int, int, int, int]:
    """`NavMeshQuery.find_path`'s common case in one compiled call, over a `PathFinder`'s buffers: the
    polygons under the start and the goal (`mesh_kernels.polygons_at` within `tolerance` [m] of their
    heights; z NaN: any height), the goal polygons on the start's islands, then `polyanya.search` (at most
    `max_nodes` expansions; again on larger work rows while it asks for them, as `run_search`). Returns
    (code, turning points k, corridor polygons m, grow): code FOUND, NO_PATH, BUDGET_EXCEEDED as
    `search`, or OFF_MESH (the start is on no polygon) or UNREACHABLE (no goal
    polygon shares an island with a start polygon); grow 1 when the buffers are too small (the path did
    not fit, or the search needed more work rows than the buffer holds: `stamps[1]` says how many), else
    0. A found path is written when it fits: its points (k, 3) [m] into the output rows (on a flat mesh at
    its height and without collinear interior points, as `funnel.drop_collinear`; else z NaN, the caller
    lifts them), their vertex ids (-1: none) into the first k of the int output, the corridor after the
    first `points` of it; a caller whose buffers are too small grows them and calls again."""
    ib, fb = layout[:_NI], layout[_NI : _NI + _NF]
    shape = _NI + _NF  # then: polygons, edge slots per polygon, corners, vertices, most corners, points
    n_poly, n_edge_slots, n_corners, max_k, cap = (
        layout[shape],
        layout[shape + 1],
        layout[shape + 2],
        layout[shape + 4],
        layout[shape + 5],
    )
    offsets, cvid, across, back = (
        ints[ib[0] : ib[1]],
        ints[ib[1] : ib[2]],
        ints[ib[2] : ib[3]],
        ints[ib[3] : ib[4]],
    )
    vflags, islands = ints[ib[4] : ib[5]], ints[ib[5] : ib[6]]
    grid, starts, items = ints[ib[6] : ib[7]], ints[ib[7] : ib[8]], ints[ib[8] : ib[9]]
    root_stamp, marks, stamps = (
        ints[ib[9] : ib[10]],
        ints[ib[10] : ib[11]].reshape((2, n_poly)),
        ints[ib[11] : ib[12]],
    )
    found = ints[ib[12] : ib[13]].reshape((2, n_poly))
    out_ints = ints[ib[13] : ib[14]]
    rows = (ib[15] - ib[14]) // 9
    work_i = ints[ib[14] : ib[15]].reshape((rows, 9))
    cxy = floats[fb[0] : fb[1]].reshape((n_corners, 2))
    edges = floats[fb[1] : fb[2]].reshape((6, n_poly, n_edge_slots))
    planes = floats[fb[2] : fb[3]].reshape((n_poly, 3))
    root_g, gaps, consts = floats[fb[3] : fb[4]], floats[fb[4] : fb[5]], floats[fb[5] : fb[6]]
    out_pts = floats[fb[6] : fb[7]].reshape((cap, 3))
    work_f = floats[fb[7] : fb[8]].reshape((rows, 9))
    origin_x, origin_y, size, eps, otol, flat_z = (
        consts[0],
        consts[1],
        consts[2],
        consts[3],
        consts[4],
        consts[5],
    )
    n_s = polygons_at(
        grid, starts, items, origin_x, origin_y, size, edges, planes, sx, sy, sz, tolerance, found[0], gaps
    )
    if n_s == 0:
        return OFF_MESH, 0, 0, 0
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
        return UNREACHABLE, 0, 0, 0
    island = islands[found[1, 0]]
    m = 0
    for i in range(n_s):
        if islands[found[0, i]] == island:
            found[0, m] = found[0, i]
            m += 1
    code, _, _, xy, vid, corridor = run_search(
        offsets, cxy, cvid, across, back, vflags, eps, otol, root_g, root_stamp, marks, stamps,
        work_f, work_i, sx, sy, found[0], m, gx, gy, found[1], n_r, max_nodes, max_k,
    )  # fmt: skip
    grow = 1 if stamps[1] > rows else 0
    if code != FOUND:
        return code, 0, 0, grow
    k, m = xy.shape[0], corridor.shape[0]
    if k > cap or m > out_ints.shape[0] - cap:
        return code, k, m, 1
    for i in range(k):
        out_pts[i, 0], out_pts[i, 1], out_pts[i, 2] = xy[i, 0], xy[i, 1], flat_z
        out_ints[i] = vid[i]
    if not math.isnan(flat_z):
        k = drop_collinear_rows(out_pts, out_ints, k, HORIZONTAL_TOLERANCE, COLLINEAR_TOLERANCE)
    out_ints[cap : cap + m] = corridor
    return code, k, m, grow


# the kernels as plain callables: they take the argument tuples above spread out
_Found = tuple[int, float, int, np.ndarray, np.ndarray, np.ndarray]
_FIND_PATH: Callable[..., tuple[int, int, int, int]] = find_path
_SEARCH: Callable[..., _Found] = run_search
