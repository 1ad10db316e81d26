"""Helpers for navigation tests: benchmark data, independent exact lengths (visibility graph, octile)."""

from __future__ import annotations

import math
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import shapely
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra, shortest_path

from navigation.navmesh import NavMesh, build_navmesh

DATA = (
    Path(__file__).resolve().parents[2].parent / "shared" / "data" / "movingai"
)  # ../shared beside the repo


def data_file(name: str) -> Path:
    p = DATA / name
    if not p.exists():
        pytest.fail(f"benchmark data {p} is missing: the tests expect ../shared beside the repository")
    return p


class VisibilityGraph:
    """Exact any-angle shortest lengths in a polygonal free space: visibility graph over its corners
    (shapely line-of-sight, networkx graph, all-pairs Dijkstra), independent of the navmesh code.

    The free space is shrunk by 1e-6 first, so two free cells touching only at a corner are separated
    (the benchmark's corner rule) and sight lines may graze walls; lengths are exact to ~1e-5. With `snap`
    [m] (1.0 for a MovingAI grid: every corner is a whole number) the lengths are measured between the
    shrunk corners rounded back to that grid, so they are exact to round-off; sight is still tested on the
    shrunk free space.

    Only tangent lines are tested for sight (Lozano-Perez and Wesley's reduced visibility graph): a
    shortest path bends only at reflex corners, and only where it wraps round them, so each of its
    segments meets a corner it bends at with both of that corner's walls on one side. The rest are never
    on a shortest path; leaving them out keeps the lengths exact and skips about three pairs in four (on
    the MovingAI maps), which is most of this graph's cost.
    """

    def __init__(self, free: shapely.Geometry, snap: float | None = None) -> None:
        shrunk = shapely.buffer(free, -1e-6, join_style="mitre")
        self.los = shapely.buffer(shrunk, 1e-7, join_style="mitre")
        shapely.prepare(self.los)
        corners, before, after = [], [], []
        oriented = shapely.orient_polygons(shrunk)  # shells CCW, holes CW: free space on the left
        for poly in getattr(oriented, "geoms", [oriented]):
            for ring in [poly.exterior, *poly.interiors]:
                c = np.asarray(ring.coords)[:-1]
                prev, nxt = np.roll(c, 1, axis=0), np.roll(c, -1, axis=0)
                turn = (c[:, 0] - prev[:, 0]) * (nxt[:, 1] - c[:, 1]) - (c[:, 1] - prev[:, 1]) * (
                    nxt[:, 0] - c[:, 0]
                )
                reflex = turn < 0  # right turns: reflex corners, where paths bend
                corners.append(c[reflex])
                before.append(prev[reflex])
                after.append(nxt[reflex])
        self.corners, first, count = np.unique(
            np.concatenate(corners).reshape(-1, 2), axis=0, return_index=True, return_counts=True
        )
        self._before = np.concatenate(before).reshape(-1, 2)[first]  # the corners' neighbours on their rings
        self._after = np.concatenate(after).reshape(-1, 2)[first]
        self._shared = count > 1  # a corner of two rings (none once shrunk): always tangent
        self.at = np.round(self.corners / snap) * snap if snap else self.corners  # where lengths are taken
        n = len(self.corners)
        i, j = np.triu_indices(n, 1)
        both = self._tangent(self.corners[i], j) & self._tangent(self.corners[j], i)
        i, j = i[both], j[both]
        seen = self.visible(self.corners[i], self.corners[j])
        g = nx.Graph()
        g.add_nodes_from(range(n))
        d = np.hypot(*(self.at[i] - self.at[j]).T)
        g.add_weighted_edges_from(zip(i[seen].tolist(), j[seen].tolist(), d[seen].tolist(), strict=True))
        if n:
            adj = nx.to_scipy_sparse_array(g, nodelist=range(n), weight="weight", format="csr")
            self.dist = shortest_path(adj, method="D", directed=False)
        else:  # no reflex corner: every two points see each other or nothing connects them
            self.dist = np.zeros((0, 0))

    def _tangent(self, a: np.ndarray, k: np.ndarray) -> np.ndarray:
        """Whether the line from point(s) `a` to corners `k` has both of each corner's walls on one side
        (touching counts: the test only ever keeps too many)."""
        c = self.corners[k]
        dx, dy = (c - a).T
        side_before = dx * (self._before[k, 1] - c[:, 1]) - dy * (self._before[k, 0] - c[:, 0])
        side_after = dx * (self._after[k, 1] - c[:, 1]) - dy * (self._after[k, 0] - c[:, 0])
        return np.asarray((side_before * side_after >= -1e-9) | self._shared[k])

    def visible(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return shapely.covers(self.los, shapely.linestrings(np.stack(np.broadcast_arrays(a, b), axis=-2)))

    def length(self, s: tuple[float, float], t: tuple[float, float], bound: float | None = None) -> float:
        """The shortest length from s to t [m]; inf when none. With `bound` [m], the length of some path
        from s to t known to exist (so at least the shortest), only corners c with |s - c| + |c - t| within
        it are tried (1e-4 m of slack): no other can be on a shortest path (inf if the bound was too
        short)."""
        s2, t2 = np.asarray(s, float), np.asarray(t, float)
        if self.visible(s2, t2):
            return float(np.hypot(*(s2 - t2)))
        c, at = self.corners, self.at
        ks = np.arange(len(c))
        if bound is not None:
            ks = ks[np.hypot(*(c - s2).T) + np.hypot(*(c - t2).T) <= bound + 1e-4]
        # a path's first and last corners: in sight of its end and tangent to the line from it
        near_s = ks[self._tangent(s2, ks)]
        near_t = ks[self._tangent(t2, ks)]
        seen_s = near_s[self.visible(s2, c[near_s])]
        seen_t = near_t[self.visible(c[near_t], t2)]
        if not len(seen_s) or not len(seen_t):
            return math.inf
        ds = np.hypot(*(at[seen_s] - s2).T)
        dt = np.hypot(*(at[seen_t] - t2).T)
        return float((ds[:, None] + self.dist[np.ix_(seen_s, seen_t)] + dt[None, :]).min())


def octile_lengths(blocked: np.ndarray, pairs: list[tuple[tuple[int, int], tuple[int, int]]]) -> np.ndarray:
    """Exact 8-connected shortest lengths without corner cutting (MovingAI rules), per (start, goal) cell."""
    h, w = blocked.shape
    free = ~blocked
    idx = np.arange(h * w).reshape(h, w)
    rows, cols, vals = [], [], []
    for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
        ys, xs = np.nonzero(free)
        y2, x2 = ys + dy, xs + dx
        ok = (y2 >= 0) & (y2 < h) & (x2 >= 0) & (x2 < w)
        ys, xs, y2, x2 = ys[ok], xs[ok], y2[ok], x2[ok]
        ok = free[y2, x2]
        if dx and dy:
            ok &= free[ys, x2] & free[y2, xs]
        rows.append(idx[ys[ok], xs[ok]])
        cols.append(idx[y2[ok], x2[ok]])
        vals.append(np.full(int(ok.sum()), math.sqrt(2) if dx and dy else 1.0))
    g = coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(h * w, h * w))
    starts = sorted({s for s, _ in pairs})
    d = dijkstra(g.tocsr(), directed=False, indices=[idx[y, x] for x, y in starts])
    row = {s: i for i, s in enumerate(starts)}
    return np.array([d[row[s], idx[gy, gx]] for s, (gx, gy) in pairs])


def big_polygon_small_island() -> NavMesh:
    """Island A: one 6 x 6 square (36 m^2, the largest polygon); island B: five 3 x 3 squares (45 m^2)."""
    v = (
        [(-15, 0), (-9, 0), (-9, 6), (-15, 6)]
        + [(3 * i, 0) for i in range(6)]
        + [(3 * i, 3) for i in range(6)]
    )
    polys = [[0, 1, 2, 3]] + [[4 + i, 5 + i, 11 + i, 10 + i] for i in range(5)]
    return build_navmesh(np.array(v, dtype=float), polys)


def free_points(rng: np.random.Generator, n: int, free: shapely.Geometry) -> list[tuple[float, float, float]]:
    """n points (x, y, 0) [m] drawn uniformly in the 24 x 16 m test room (0.1 m in from its sides) that lie
    in `free`, in draw order."""
    out: list[tuple[float, float, float]] = []
    while len(out) < n:
        x, y = rng.uniform(0.1, 23.9), rng.uniform(0.1, 15.9)
        if free.contains(shapely.Point(x, y)):
            out.append((float(x), float(y), 0.0))
    return out
