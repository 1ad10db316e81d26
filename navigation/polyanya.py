"""Polyanya: exact any-angle shortest paths over a navmesh (Cui, Harabor and Grastien, IJCAI 2017).

A search node is a root point (the start, or a mesh corner the path turns at) and an interval on an
edge of the next polygon, seen from the root. Expanding a node projects the interval through the polygon:
the far edges it sees keep the root (observable successors); if an interval end is a corner vertex, the
edges hidden behind it get that vertex as their new root (non-observable successors). The heuristic is
the Euclidean distance from the root to the goal through the interval (goal mirrored across the interval
line when on the root's side), so the first goal node popped is an optimal path. Costs are horizontal
distances [m]. Pure Python scalar maths: polygons have a handful of edges, numpy per node would be slower.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from math import hypot, inf, sqrt

import numpy as np

from navigation.navmesh import NavMesh

# A search node: (root index, left x, left y, right x, right y, left vertex id, right vertex id, polygon,
# edge of the polygon the interval lies on, parent node index, g of the root). Vertex ids are -1 for
# interval ends inside an edge.
_Node = tuple[int, float, float, float, float, int, int, int, int, int, float]
# A root: (x, y, vertex id or -1 for the start, parent root index, g = path length to it [m]).
_Root = tuple[float, float, int, int, float]


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


def _orient(ax: float, ay: float, bx: float, by: float, cx: float, cy: float) -> float:
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


class Polyanya:
    """Reusable exact any-angle search over one NavMesh (2-D, the mesh's horizontal projection)."""

    def __init__(self, mesh: NavMesh) -> None:
        loops = mesh.loops
        self._pxy, self._pvid, self._pnb = loops.xy, loops.vertex_ids, loops.neighbors
        n = mesh.polygon_count
        v = mesh.vertices
        off, pv, nb = mesh.poly_offsets, mesh.poly_verts, mesh.poly_neighbors
        # pback[p][k]: the edge index, in the polygon across edge k of p, of the same edge (-1 for a wall)
        self._pback: list[list[int]] = []
        for p in range(n):
            back = []
            for k, q in enumerate(self._pnb[p]):
                if q < 0:
                    back.append(-1)
                    continue
                a, b = self._pxy[p][k], self._pxy[p][(k + 1) % len(self._pxy[p])]
                kq = len(self._pnb[q])
                found = -1
                for j in range(kq):
                    if self._pnb[q][j] == p and self._pxy[q][j] == b and self._pxy[q][(j + 1) % kq] == a:
                        found = j
                        break
                back.append(found)
            self._pback.append(back)
        # corners: vertices on a wall edge (where paths may turn); ambiguous: on more than two wall edges
        wall_count = np.zeros(v.shape[0], dtype=np.int64)
        walls = nb < 0
        nxt = np.arange(pv.shape[0]) + 1
        nxt[off[1:] - 1] = off[:-1]
        np.add.at(wall_count, pv[walls], 1)
        np.add.at(wall_count, pv[nxt[walls]], 1)
        self._corner: list[bool] = (wall_count > 0).tolist()
        self._ambiguous: list[bool] = (wall_count > 2).tolist()
        self.eps = mesh.length_epsilon  # [m] points closer than this are the same point
        self._otol = 1e-12 * mesh.length_scale**2  # [m^2] orientation tests closer to 0 are collinear

    # --- geometry helpers -------------------------------------------------------------------------
    def _h(
        self, Rx: float, Ry: float, lx: float, ly: float, rx: float, ry: float, gx: float, gy: float
    ) -> float:
        ex, ey = rx - lx, ry - ly
        d2 = ex * ex + ey * ey
        if d2 > 0.0:
            sr = ex * (Ry - ly) - ey * (Rx - lx)
            sg = ex * (gy - ly) - ey * (gx - lx)
            if sr * sg > 0.0:
                t = ((gx - lx) * ex + (gy - ly) * ey) / d2
                gx, gy = 2.0 * (lx + t * ex) - gx, 2.0 * (ly + t * ey) - gy
        if _orient(Rx, Ry, rx, ry, gx, gy) >= 0.0 and _orient(Rx, Ry, lx, ly, gx, gy) <= 0.0:
            return hypot(gx - Rx, gy - Ry)
        return min(
            hypot(lx - Rx, ly - Ry) + hypot(gx - lx, gy - ly),
            hypot(rx - Rx, ry - Ry) + hypot(gx - rx, gy - ry),
        )

    def _on_segment(self, px: float, py: float, ax: float, ay: float, bx: float, by: float) -> bool:
        ex, ey = bx - ax, by - ay
        d2 = ex * ex + ey * ey
        if d2 == 0.0:
            return hypot(px - ax, py - ay) <= self.eps
        t = ((px - ax) * ex + (py - ay) * ey) / d2
        tol = self.eps / sqrt(d2)
        return -tol <= t <= 1.0 + tol

    # --- search -----------------------------------------------------------------------------------
    def search(
        self,
        start: tuple[float, float],
        start_polys: list[int],
        goal: tuple[float, float],
        goal_polys: set[int],
        max_nodes: int = 200_000,
    ) -> SearchResult:
        """Shortest path from start to goal.

        Args:
            start_polys: every polygon containing the start (several when it lies on an edge or vertex).
            goal_polys: every polygon containing the goal.
            max_nodes: node budget; the search gives up (`budget_exceeded`) after expanding more.
        Returns:
            the path (`found`), or why there is none: no path exists, or the budget ran out.
        """
        sx, sy = start
        gx, gy = goal
        common = [p for p in start_polys if p in goal_polys]
        if common:
            return SearchResult(((sx, sy, -1), (gx, gy, -1)), (common[0],), hypot(gx - sx, gy - sy), 0)
        pxy, pvid, pnb, pback = self._pxy, self._pvid, self._pnb, self._pback
        corner, ambiguous = self._corner, self._ambiguous
        eps, otol = self.eps, self._otol
        h = self._h
        # roots: (x, y, vid, parent root, g); nodes: (root, lx, ly, rx, ry, lvid, rvid, poly, edge, parent, g)
        roots: list[_Root] = [(sx, sy, -1, -1, 0.0)]
        nodes: list[_Node] = []
        origin: dict[int, int] = {}
        root_g: dict[int, float] = {}
        heap: list[tuple[float, int, int]] = []
        start_set = set(start_polys)
        for p0 in start_polys:
            xy, nbs, back = pxy[p0], pnb[p0], pback[p0]
            k = len(xy)
            for j in range(k):
                q = nbs[j]
                if q < 0 or q in start_set or back[j] < 0:
                    continue
                e2 = back[j]
                kq = len(pxy[q])
                (lx, ly), (rx, ry) = pxy[q][e2], pxy[q][(e2 + 1) % kq]
                idx = len(nodes)
                nodes.append((0, lx, ly, rx, ry, pvid[q][e2], pvid[q][(e2 + 1) % kq], q, e2, -1, 0.0))
                origin[idx] = p0
                heapq.heappush(heap, (h(sx, sy, lx, ly, rx, ry, gx, gy), idx, 0))
        popped = 0
        while heap:
            f, idx, final = heapq.heappop(heap)
            node = nodes[idx]
            ri, lx, ly, rx, ry, lvid, rvid, p, e, _parent, g = node
            Rx, Ry, Rvid, _, Rg = roots[ri]
            if final:
                points, corridor = self._reconstruct(roots, nodes, origin, idx, final, gx, gy)
                return SearchResult(points, corridor, f, popped)
            if Rvid >= 0 and not ambiguous[Rvid] and Rg > root_g.get(Rvid, Rg) + eps:
                continue
            popped += 1
            if popped > max_nodes:
                return SearchResult((), (), inf, max_nodes, budget_exceeded=True)
            xy, nbs, back = pxy[p], pnb[p], pback[p]
            k = len(xy)
            ax, ay = xy[e]
            bx, by = xy[(e + 1) % k]
            elen = hypot(bx - ax, by - ay)
            side = (bx - ax) * (Ry - ay) - (by - ay) * (Rx - ax)
            collinear = abs(side) <= eps * elen
            if p in goal_polys:
                if collinear:
                    if self._on_segment(Rx, Ry, lx, ly, rx, ry):
                        via = 0
                    else:
                        via = 1 if hypot(lx - Rx, ly - Ry) < hypot(rx - Rx, ry - Ry) else 2
                elif _orient(Rx, Ry, rx, ry, gx, gy) < 0.0:
                    via = 2  # around the right end
                elif _orient(Rx, Ry, lx, ly, gx, gy) > 0.0:
                    via = 1  # around the left end
                else:
                    via = 0
                if via == 0:
                    cost = g + hypot(gx - Rx, gy - Ry)
                elif via == 1:
                    cost = g + hypot(lx - Rx, ly - Ry) + hypot(gx - lx, gy - ly)
                else:
                    cost = g + hypot(rx - Rx, ry - Ry) + hypot(gx - rx, gy - ry)
                heapq.heappush(heap, (cost, idx, 3 if via == 0 else via))
            # successor pieces: (root index, t, u0, u1)
            pieces: list[tuple[int, int, float, float]] = []
            if collinear:
                nri = ri
                on_segment = self._on_segment(Rx, Ry, lx, ly, rx, ry)
                if on_segment and ri == 0:
                    continue  # start on this edge: every polygon around it was seeded
                if not on_segment:
                    # the path runs along this edge's line: it can only turn at the near end
                    dl, dr = hypot(lx - Rx, ly - Ry), hypot(rx - Rx, ry - Ry)
                    vx, vy, vv, d = (lx, ly, lvid, dl) if dl < dr else (rx, ry, rvid, dr)
                    if vv < 0 or not corner[vv]:
                        continue
                    ng = g + d
                    if not ambiguous[vv]:
                        if ng > root_g.get(vv, ng) + eps:
                            continue
                        root_g[vv] = min(ng, root_g.get(vv, ng))
                    roots.append((vx, vy, vv, ri, ng))
                    nri = len(roots) - 1
                pieces.extend((nri, t, 0.0, 1.0) for t in range(k - 1))
            else:
                if side > 0.0:
                    continue
                chain = [xy[(e + 1 + t) % k] for t in range(k)]
                o_r = [_orient(Rx, Ry, rx, ry, cx, cy) for cx, cy in chain]
                o_l = [_orient(Rx, Ry, lx, ly, cx, cy) for cx, cy in chain]
                # right ray exit: first vertex strictly left of the ray R->r
                pos_r = float(k - 1)
                for t in range(k):
                    if o_r[t] > otol:
                        if t == 0:
                            pos_r = 0.0
                        else:
                            o0, o1 = o_r[t - 1], o_r[t]
                            u = 0.0 if o0 >= -otol else o0 / (o0 - o1)
                            pos_r = t - 1 + min(max(u, 0.0), 1.0)
                        break
                pos_l = 0.0
                for t in range(k - 1, -1, -1):
                    if o_l[t] < -otol:
                        if t == k - 1:
                            pos_l = float(k - 1)
                        else:
                            o0, o1 = o_l[t], o_l[t + 1]
                            u = 1.0 if o1 <= otol else o0 / (o0 - o1)
                            pos_l = t + min(max(u, 0.0), 1.0)
                        break
                if pos_l > pos_r:
                    pieces.extend(self._split(ri, pos_r, pos_l))
                if rvid >= 0 and corner[rvid] and pos_r > 0.0:
                    ng = g + hypot(rx - Rx, ry - Ry)
                    if ambiguous[rvid] or ng <= root_g.get(rvid, ng) + eps:
                        if not ambiguous[rvid]:
                            root_g[rvid] = min(ng, root_g.get(rvid, ng))
                        roots.append((rx, ry, rvid, ri, ng))
                        pieces.extend(self._split(len(roots) - 1, 0.0, pos_r))
                if lvid >= 0 and corner[lvid] and pos_l < k - 1:
                    ng = g + hypot(lx - Rx, ly - Ry)
                    if ambiguous[lvid] or ng <= root_g.get(lvid, ng) + eps:
                        if not ambiguous[lvid]:
                            root_g[lvid] = min(ng, root_g.get(lvid, ng))
                        roots.append((lx, ly, lvid, ri, ng))
                        pieces.extend(self._split(len(roots) - 1, pos_l, float(k - 1)))
            for nri, t, u0, u1 in pieces:
                j = (e + 1 + t) % k
                q = nbs[j]
                if q < 0:
                    continue
                e2 = back[j]
                (c0x, c0y), (c1x, c1y) = xy[j], xy[(j + 1) % k]
                dx, dy = c1x - c0x, c1y - c0y
                if (u1 - u0) * hypot(dx, dy) <= eps:
                    continue
                kq = len(pxy[q])
                if u0 <= 0.0:
                    nrx, nry, nrvid = c0x, c0y, pvid[q][(e2 + 1) % kq]
                else:
                    nrx, nry, nrvid = c0x + u0 * dx, c0y + u0 * dy, -1
                if u1 >= 1.0:
                    nlx, nly, nlvid = c1x, c1y, pvid[q][e2]
                else:
                    nlx, nly, nlvid = c0x + u1 * dx, c0y + u1 * dy, -1
                qx, qy, _, _, qg = roots[nri]
                nidx = len(nodes)
                nodes.append((nri, nlx, nly, nrx, nry, nlvid, nrvid, q, e2, idx, qg))
                heapq.heappush(heap, (qg + h(qx, qy, nlx, nly, nrx, nry, gx, gy), nidx, 0))
        return SearchResult((), (), inf, popped)

    @staticmethod
    def _split(ri: int, a: float, b: float) -> list[tuple[int, int, float, float]]:
        out: list[tuple[int, int, float, float]] = []
        t = int(a)
        while t < b:
            u0 = max(a - t, 0.0)
            u1 = min(b - t, 1.0)
            if u1 > u0:
                out.append((ri, t, u0, u1))
            t += 1
        return out

    def _reconstruct(
        self,
        roots: list[_Root],
        nodes: list[_Node],
        origin: dict[int, int],
        idx: int,
        final: int,
        gx: float,
        gy: float,
    ) -> tuple[tuple[tuple[float, float, int], ...], tuple[int, ...]]:
        """Turning points and corridor of the path ending at node `idx`, reaching the goal through the
        interval (final 3), around its left end (1) or its right end (2)."""
        node = nodes[idx]
        ri, lx, ly, rx, ry = node[0], node[1], node[2], node[3], node[4]
        pts: list[tuple[float, float, int]] = [(gx, gy, -1)]
        if final == 1:
            pts.append((lx, ly, node[5]))
        elif final == 2:
            pts.append((rx, ry, node[6]))
        while ri >= 0:
            x, y, vid, parent, _ = roots[ri]
            pts.append((x, y, vid))
            ri = parent
        pts.reverse()
        corridor: list[int] = []
        i = idx
        while i >= 0:
            corridor.append(nodes[i][7])
            if nodes[i][9] < 0:
                corridor.append(origin[i])
            i = nodes[i][9]
        corridor.reverse()
        # drop repeated consecutive points (a turn exactly at the goal or start)
        out = [pts[0]]
        for pt in pts[1:]:
            if hypot(pt[0] - out[-1][0], pt[1] - out[-1][1]) > self.eps:
                out.append(pt)
        if len(out) == 1:
            out.append(pts[-1])
        return tuple(out), tuple(corridor)
