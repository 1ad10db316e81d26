"""Queries on a baked NavMesh: paths, nearest point, raycast along the surface, random points, walls.

Points are 2 or 3 numbers [m]. A 2-D point (or z = NaN) ignores height; with a z, the polygon must be
within `height_tolerance` of it (so a point on a bridge and one on the walkway below are told apart).
Bad arguments (a string, NaN, a coordinate beyond `arguments.COORDINATE_LIMIT`, a wrong shape...) raise
NavMeshError naming the argument (see `navigation.arguments`); expected outcomes carry a status instead.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

import networkx as nx
import numpy as np

from navigation import arguments
from navigation.agent_kernels import edge_table, inside
from navigation.errors import NavMeshError
from navigation.filters import Allowed, QueryFilter, filtered_path
from navigation.mesh_kernels import (
    RAY_CLEAR,
    RAY_WALL,
    bucket_grid,
    nearest_wall,
    neighbor_table,
    polygons_at,
    surface_raycast,
    warm_up,
)
from navigation.navmesh import NavMesh
from navigation.paths import PathFinder
from navigation.results import (
    NearestPoint,
    PathResult,
    QueryReason,
    QueryStatus,
    RaycastHit,
    WallDistance,
)

if TYPE_CHECKING:
    from navigation.raycasts import RaycastBatch

__all__ = [  # the results live in `navigation.results`; they are imported from here too
    "NavMeshQuery",
    "NearestPoint",
    "PathResult",
    "QueryReason",
    "QueryStatus",
    "RaycastHit",
    "WallDistance",
]


def _as_point(p: object, what: str) -> np.ndarray:
    return arguments.point(p, what, any_height=True)


def _segment_nearest(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest points on segments a->b (m, d) to point p (d,), and their parameters."""
    ab = b - a
    den = np.einsum("ij,ij->i", ab, ab)
    t = np.einsum("ij,ij->i", p - a, ab) / np.where(den > 0, den, 1.0)
    t = np.clip(t, 0.0, 1.0)
    return a + t[:, None] * ab, t


class NavMeshQuery:
    """A mesh plus its spatial index and search state; cheap to create, not thread-safe.

    Args:
        mesh: the navmesh.
        height_tolerance: how far above/below a polygon a 3-D point may be and still be on it [m, > 0].
        max_nodes: Polyanya node budget per path [>= 1]; past it the path falls back to A* over polygon
            centres plus string pulling (reason BUDGET_EXCEEDED, `exact` False; counted in
            `path_fallbacks`).
    """

    def __init__(self, mesh: NavMesh, *, height_tolerance: float = 1.0, max_nodes: int = 200_000) -> None:
        if not isinstance(mesh, NavMesh):
            raise NavMeshError(f"mesh must be a NavMesh, got {arguments.shown(mesh)}")
        tol = arguments.distance(height_tolerance, "height_tolerance", zero_ok=False, inf_ok=False)
        budget = arguments.count(max_nodes, "max_nodes", low=1)
        if mesh.polygon_count == 0:
            raise NavMeshError("the navmesh has no polygons")
        warm_up()  # the compiled lookups and raycasts: compiled or loaded now (once), not in a tick
        self.mesh = mesh
        self.height_tolerance = tol
        self.max_nodes = budget
        self._loops = mesh.loops
        self._eps = mesh.length_epsilon
        self._edges = edge_table(mesh)
        self._neighbors = neighbor_table(mesh)
        self._visited = np.zeros(mesh.polygon_count + 9, dtype=np.int64)  # `surface_raycast`'s scratch
        off, pv, nb = mesh.poly_offsets, mesh.poly_verts, mesh.poly_neighbors
        v = mesh.vertices
        nxt = np.arange(pv.shape[0]) + 1
        nxt[off[1:] - 1] = off[:-1]
        self._edge_a = v[pv]
        self._edge_b = v[pv[nxt]]
        self._edge_poly = np.repeat(np.arange(mesh.polygon_count), np.diff(off))
        wall = nb < 0
        self._wall_a, self._wall_b = self._edge_a[wall], self._edge_b[wall]
        self._wall_poly = self._edge_poly[wall]
        self._wall_island = np.ascontiguousarray(mesh.islands[self._wall_poly], dtype=np.int64)
        self._wall_out = np.zeros(3)  # `nearest_wall`'s answer (x, y, distance)
        # uniform bucket grid over polygon bounding boxes
        lo = np.minimum.reduceat(self._edge_a[:, :2], off[:-1], axis=0)
        hi = np.maximum.reduceat(self._edge_a[:, :2], off[:-1], axis=0)
        self._origin = v[:, :2].min(axis=0)
        self._bucket = max(2.0 * math.sqrt(float(mesh.areas.mean())), 1e-6)
        self._grid = bucket_grid(lo, hi, self._origin, self._bucket)
        self._plane_rows = np.ascontiguousarray(mesh.planes, dtype=np.float64)
        self._found = np.zeros(mesh.polygon_count, dtype=np.int64)  # `polygons_at`'s scratch
        self._gaps = np.zeros(mesh.polygon_count)
        self._flat = bool(np.ptp(mesh.planes, axis=0).max() == 0.0)
        self._planes: list[tuple[float, float, float]] = [(a, b, c) for a, b, c in mesh.planes.tolist()]
        self._graph: nx.Graph | None = None
        # each polygon as a fan of triangles (first vertex, i, i + 1), polygon by polygon
        fans = np.diff(off) - 2
        self._tri_poly = np.repeat(np.arange(mesh.polygon_count, dtype=np.int64), fans)
        first = off[self._tri_poly]
        i = np.arange(len(first)) - np.repeat(np.cumsum(fans) - fans, fans) + 1
        corners = self._edge_a[:, :2]
        self._tri = np.stack([corners[first], corners[first + i], corners[first + i + 1]], axis=1)
        ab, ac = self._tri[:, 1] - self._tri[:, 0], self._tri[:, 2] - self._tri[:, 0]
        self._tri_area = 0.5 * np.abs(ab[:, 0] * ac[:, 1] - ab[:, 1] * ac[:, 0])
        self._tri_cdf = np.cumsum(self._tri_area)
        # per island selection: (triangle ids, their area cdf); None = every triangle
        self._tri_sets: dict[frozenset[int], tuple[np.ndarray, np.ndarray]] = {}
        self._paths = PathFinder(self)
        self._filtered: dict[bytes, tuple[Allowed, NavMeshQuery | None]] = {}  # per filter's costs (filters)
        self._paths.warm_up()  # the compiled path search: compiled or loaded now (once), not in a tick

    # --- location ---------------------------------------------------------------------------------
    def polygons_at(self, point: object, height_tolerance: float | None = None) -> list[int]:
        """Every polygon containing the point (several on a shared edge), nearest in height first.

        `height_tolerance` [m, >= 0; inf: any height] defaults to the query's.
        """
        p = _as_point(point, "point")
        if height_tolerance is None:
            return self._polygons_at(p, self.height_tolerance)
        tol = arguments.distance(height_tolerance, "height_tolerance", zero_ok=True, inf_ok=True)
        return self._polygons_at(p, tol)

    def _polygons_at(self, p: np.ndarray, tol: float) -> list[int]:
        grid, starts, items = self._grid
        n = polygons_at(
            grid, starts, items, float(self._origin[0]), float(self._origin[1]), self._bucket, self._edges,
            self._plane_rows, float(p[0]), float(p[1]), float(p[2]), float(tol), self._found, self._gaps,
        )  # fmt: skip
        found: list[int] = self._found[:n].tolist()
        return found

    def polygon_at(self, point: object, height_tolerance: float | None = None) -> int:
        """The polygon containing the point (nearest in height), or -1."""
        found = self.polygons_at(point, height_tolerance)
        return found[0] if found else -1

    def _polygon_at(self, p: np.ndarray) -> int:
        found = self._polygons_at(p, self.height_tolerance)
        return found[0] if found else -1

    def corridor_index(self, corridor: object, point: object, start: int = 0) -> int:
        """Index of the first polygon of `corridor`, at or after `start`, that contains the point's (x, y);
        -1 if none does.

        This is how a height is read on a multi-level path: walking its corridor in order tells the ramp
        from the ground under it, where "a polygon under this (x, y)" cannot.

        Args:
            corridor: polygon ids in path order (a `PathResult.corridor`).
            point: 2 or 3 numbers [m]; only x, y are read.
            start: the first index to try [>= 0].
        """
        ids = arguments.polygon_ids(corridor, "corridor", self.mesh.polygon_count)
        p = _as_point(point, "point")
        first = arguments.count(start, "start", low=0)
        return self._corridor_index(ids, float(p[0]), float(p[1]), first)

    def _corridor_index(self, corridor: tuple[int, ...] | list[int], x: float, y: float, start: int) -> int:
        for k in range(start, len(corridor)):
            if self._contains(corridor[k], x, y):
                return k
        return -1

    def _last_corridor_index(self, corridor: tuple[int, ...], point: np.ndarray) -> int:
        """Index of the last polygon of `corridor` that holds the point's (x, y), or -1."""
        x, y = float(point[0]), float(point[1])
        return next((k for k in range(len(corridor) - 1, -1, -1) if self._contains(corridor[k], x, y)), -1)

    def _contains(self, q: int, x: float, y: float) -> bool:
        """Polygon q holds (x, y), within a length epsilon of its edges (`agent_kernels.inside`)."""
        return bool(inside(self._edges, q, x, y, False))

    def _z(self, poly: int, x: float, y: float) -> float:
        return self.mesh.height_at(poly, x, y)

    # --- nearest point / walls --------------------------------------------------------------------
    def nearest_point(self, point: object, max_distance: float = math.inf) -> NearestPoint:
        """Snap a point onto the mesh: itself inside a polygon, else the nearest wall point.

        INVALID (reason OUT_OF_RANGE) when no polygon is within `max_distance` [m].
        """
        p = _as_point(point, "point")
        limit = arguments.distance(max_distance, "max_distance", zero_ok=True, inf_ok=True)
        return self._nearest(p, limit, None)

    def _nearest(self, p: np.ndarray, max_distance: float, island: int | None) -> NearestPoint:
        has_z = not math.isnan(p[2])
        inside = self._polygons_at(p, math.inf)
        if island is not None:
            inside = [q for q in inside if self.mesh.islands[q] == island]
        best_d, best_p, best_q = math.inf, np.full(3, np.nan), -1
        if inside:
            q = inside[0]
            z = self._z(q, p[0], p[1])
            best_d, best_p, best_q = (abs(z - p[2]) if has_z else 0.0), np.array([p[0], p[1], z]), q
        if best_d > 0.0:  # a wall may hold a nearer point: the nearest within best_d (compiled scan)
            out = self._wall_out
            i = nearest_wall(
                self._wall_a, self._wall_b, self._wall_island, -1 if island is None else island, p,
                3 if has_z else 2, best_d, out,
            )  # fmt: skip
            if i >= 0 and out[2] < best_d:
                q = int(self._wall_poly[i])
                x, y = float(out[0]), float(out[1])
                best_d, best_p, best_q = float(out[2]), np.array([x, y, self._z(q, x, y)]), q
        if best_q < 0 or best_d > max_distance:
            return NearestPoint(
                QueryStatus.INVALID, np.full(3, np.nan), -1, math.inf, QueryReason.OUT_OF_RANGE
            )
        return NearestPoint(QueryStatus.SUCCESS, best_p, best_q, float(best_d))

    def distance_to_wall(self, point: object, max_distance: float = math.inf) -> WallDistance:
        """Horizontal distance from a point on the mesh to the nearest wall edge of its island [m].

        INVALID with reason START_OFF_MESH when the point is on no polygon (snap it with `nearest_point`
        first), OUT_OF_RANGE when no wall is within `max_distance` [m].
        """
        p = _as_point(point, "point")
        limit = arguments.distance(max_distance, "max_distance", zero_ok=True, inf_ok=True)
        q = self._polygon_at(p)
        if q < 0:
            return _no_wall(QueryReason.START_OFF_MESH)
        sel = self.mesh.islands[self._wall_poly] == self.mesh.islands[q]
        if not math.isnan(p[2]):
            zmid = 0.5 * (self._wall_a[:, 2] + self._wall_b[:, 2])
            sel &= np.abs(zmid - p[2]) <= self.height_tolerance + 0.5 * np.abs(
                self._wall_a[:, 2] - self._wall_b[:, 2]
            )
        if not sel.any():
            return _no_wall(QueryReason.OUT_OF_RANGE)
        a, b = self._wall_a[sel, :2], self._wall_b[sel, :2]
        near, _ = _segment_nearest(p[:2], a, b)
        d = np.linalg.norm(near - p[:2], axis=1)
        i = int(np.argmin(d))
        if d[i] > limit:
            return _no_wall(QueryReason.OUT_OF_RANGE)
        e = b[i] - a[i]
        n = np.array([-e[1], e[0], 0.0]) / max(float(np.hypot(*e)), 1e-300)
        wp = int(self._wall_poly[sel][i])
        x, y = float(near[i, 0]), float(near[i, 1])
        return WallDistance(QueryStatus.SUCCESS, float(d[i]), np.array([x, y, self._z(wp, x, y)]), n)

    # --- random points / islands ------------------------------------------------------------------
    def random_points(
        self, rng: np.random.Generator, n: int = 1, *, islands: int | Iterable[int] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """n points uniformly distributed by area: ((n, 3) points [m], (n,) polygon ids).

        Args:
            rng: the caller's seeded generator.
            n: how many points [0..arguments.MAX_SAMPLES].
            islands: an island label or labels to sample (e.g. `mesh.main_island`); None samples the whole
                mesh. Points are area-weighted over the chosen islands together.
        """
        rng = arguments.generator(rng, "rng")
        count = arguments.count(n, "n", low=0, high=arguments.MAX_SAMPLES)
        tris, cdf = self._triangles(islands)
        u = rng.random((3, count))
        t = np.searchsorted(cdf, u[0] * cdf[-1], side="right")
        t = tris[np.minimum(t, len(cdf) - 1)]
        s = np.sqrt(u[1])
        tri = self._tri[t]
        xy = (
            (1 - s)[:, None] * tri[:, 0]
            + (s * (1 - u[2]))[:, None] * tri[:, 1]
            + (s * u[2])[:, None] * tri[:, 2]
        )
        polys = self._tri_poly[t]
        planes = self.mesh.planes[polys]
        z = planes[:, 0] * xy[:, 0] + planes[:, 1] * xy[:, 1] + planes[:, 2]
        return np.column_stack([xy, z]), polys

    def random_point(
        self, rng: np.random.Generator, *, islands: int | Iterable[int] | None = None
    ) -> tuple[np.ndarray, int]:
        """One area-weighted random point [m] and its polygon (on `islands`, see `random_points`)."""
        pts, polys = self.random_points(rng, 1, islands=islands)
        return pts[0], int(polys[0])

    def _triangles(self, islands: int | Iterable[int] | None) -> tuple[np.ndarray, np.ndarray]:
        """The fan triangles to sample and the cumulative sum of their areas."""
        if islands is None:
            return np.arange(len(self._tri_cdf)), self._tri_cdf
        key = arguments.labels(islands, "islands", len(self.mesh.island_areas))
        if key not in self._tri_sets:
            tris = np.flatnonzero(np.isin(self.mesh.islands[self._tri_poly], list(key)))
            if tris.size == 0:
                raise NavMeshError(f"islands {sorted(key)} have no polygons")
            self._tri_sets[key] = (tris, np.cumsum(self._tri_area[tris]))
        return self._tri_sets[key]

    def islands(self) -> list[frozenset[int]]:
        """Polygon ids of each island (`mesh.islands` label), largest area first: the first is
        `mesh.main_island`; equal areas in label order."""
        areas = self.mesh.island_areas
        counts = np.bincount(self.mesh.islands, minlength=len(areas))
        order = sorted((k for k in range(len(areas)) if counts[k]), key=lambda k: (-areas[k], k))
        return [frozenset(np.flatnonzero(self.mesh.islands == k).tolist()) for k in order]

    @property
    def path_fallbacks(self) -> int:
        """How many paths this query answered with the approximate fallback (the node budget ran out)."""
        return self._paths.fallbacks

    @property
    def graph(self) -> nx.Graph:
        """The mesh's polygon adjacency graph (built on first use)."""
        if self._graph is None:
            self._graph = self.mesh.graph()
        return self._graph

    # --- raycast ----------------------------------------------------------------------------------
    def raycast(self, start: object, end: object) -> RaycastHit:
        """Walk the surface from start toward end (horizontally); stop at the first wall edge crossed.

        SUCCESS when the whole segment is walkable, PARTIAL (reason WALL_HIT) when a wall stops the walk,
        INVALID (reason START_OFF_MESH) when the start is on no polygon.
        """
        s, e = _as_point(start, "start"), _as_point(end, "end")
        p = self._polygon_at(s)
        if p < 0:
            return RaycastHit(
                QueryStatus.INVALID, 0.0, np.full(3, np.nan), np.zeros(3), (), QueryReason.START_OFF_MESH
            )
        status, t, p, edge, count = surface_raycast(
            self._edges, self._neighbors, self._eps, p, float(s[0]), float(s[1]), float(e[0]), float(e[1]),
            self._visited,
        )  # fmt: skip
        visited = tuple(self._visited[:count].tolist())
        if status == RAY_CLEAR:
            end = np.array([e[0], e[1], self._z(p, float(e[0]), float(e[1]))])
            return RaycastHit(QueryStatus.SUCCESS, 1.0, end, np.zeros(3), visited)
        if status == RAY_WALL:
            ex, ey = float(self._edges[2, p, edge]), float(self._edges[3, p, edge])
            length = math.hypot(ex, ey)
            hx, hy = (
                float(s[0]) + t * (float(e[0]) - float(s[0])),
                float(s[1]) + t * (float(e[1]) - float(s[1])),
            )
            return RaycastHit(
                QueryStatus.PARTIAL,
                float(t),
                np.array([hx, hy, self._z(p, hx, hy)]),
                np.array([-ey / length, ex / length, 0.0]),
                visited,
                QueryReason.WALL_HIT,
            )
        raise NavMeshError("raycast did not terminate: the mesh adjacency is inconsistent")

    def raycast_many(self, starts: object, ends: object) -> RaycastBatch:
        """`raycast` for k segments in one compiled call: row i walks from starts[i] toward ends[i].

        Args:
            starts, ends: (k, 2) or (k, 3) points [m] (a start z of NaN: any height).
        Returns:
            a `navigation.raycasts.RaycastBatch` of arrays: each row's status, fraction, stop point and
            wall normal exactly as `raycast` gives them (without the walked polygons).
        """
        from navigation.raycasts import raycast_many

        return raycast_many(self, starts, ends)

    # --- paths ------------------------------------------------------------------------------------
    def find_path(
        self, start: object, goal: object, *, max_nodes: int | None = None, filter: QueryFilter | None = None
    ) -> PathResult:
        """Exact shortest (horizontal) path from start to goal (Polyanya, `navigation.paths`).

        SUCCESS; PARTIAL (reason GOAL_UNREACHABLE) ending at the reachable point nearest the goal; or
        INVALID (reason START_OFF_MESH). Past the node budget (`max_nodes`, default the query's) the path
        is approximate (BUDGET_EXCEEDED). With a `filter` (`navigation.filters.QueryFilter`), the path
        never enters an excluded area (still exact), and area costs make it the cheapest path found by an
        approximate search (AREA_COSTS, with its `cost`).
        """
        if (
            type(start) is tuple
            and type(goal) is tuple
            and len(start) == 2 == len(goal)
            and max_nodes is None
            and filter is None
        ):
            # the commonest call, checked here as `arguments.xyz` checks it (two 2-D points of floats within
            # the coordinate limit; False for NaN): a query's Python costs as much as a short search
            (sx, sy), (gx, gy) = start, goal
            if (
                type(sx) is float
                and type(sy) is float
                and type(gx) is float
                and type(gy) is float
                and abs(sx) <= _LIMIT
                and abs(sy) <= _LIMIT
                and abs(gx) <= _LIMIT
                and abs(gy) <= _LIMIT
            ):
                return self._paths.find(sx, sy, _NAN, gx, gy, _NAN, self.height_tolerance, self.max_nodes)
        s = arguments.xyz(start, "start", any_height=True)
        g = arguments.xyz(goal, "goal", any_height=True)
        budget = self.max_nodes if max_nodes is None else arguments.count(max_nodes, "max_nodes", low=1)
        if filter is not None:
            if not isinstance(filter, QueryFilter):
                raise NavMeshError(f"filter must be a navigation.QueryFilter, got {type(filter).__name__}")
            return filtered_path(self, s, g, budget, filter)
        return self._paths.find(*s, *g, self.height_tolerance, budget)


_LIMIT = arguments.COORDINATE_LIMIT
_NAN = math.nan


def _no_wall(reason: QueryReason) -> WallDistance:
    return WallDistance(QueryStatus.INVALID, math.inf, np.full(3, np.nan), np.zeros(3), reason)
