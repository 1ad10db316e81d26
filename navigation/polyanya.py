"""Polyanya: exact any-angle shortest paths over a navmesh (Cui, Harabor and Grastien, IJCAI 2017), as one
compiled kernel (numba, ``cache=True``, no fast-math) over flat arrays.

A search node is a root point (the start, or a mesh corner the path turns at) and an interval on an
edge of the next polygon, seen from the root. Expanding a node projects the interval through the polygon:
the far edges it sees keep the root (observable successors); if an interval end is a corner vertex, the
edges hidden behind it get that vertex as their new root (non-observable successors). The heuristic is
the Euclidean distance from the root to the goal through the interval (goal mirrored across the interval
line when on the root's side), so the first goal node popped is an optimal path. Costs are horizontal
distances [m].

The mesh is read from `SearchMesh` (CSR arrays: per polygon a run of corners in `offsets`; per corner its
(x, y), vertex id, the polygon across the edge that starts there and that edge's index in it). Nodes,
roots and the open list are flat work rows, doubled between searches when one needs more (the search
then runs again: it never grows them itself); the per-vertex best root costs and the
start/goal polygon marks are reused from query to query through a stamp (no clearing).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from navigation.navmesh import NavMesh

FOUND = 0  # a path was found
NO_PATH = 1  # the goal is not reachable from the start
BUDGET_EXCEEDED = 2  # the search stopped after `max_nodes` expansions
MORE_ROWS = 5  # the search needs more work rows than it was given (`stamps[1]` says how many): run it again

_CORNER = 1  # `SearchMesh.vertex_flags` bit: the vertex is on a wall edge (paths may turn there)
_AMBIGUOUS = 2  # bit: on more than two wall edges (two wall chains touch there: no pruning by root cost)


class SearchMesh(NamedTuple):
    """A navmesh as the search kernel reads it (made once per mesh by `search_mesh`).

    Attributes:
        offsets: (P + 1,) int64, polygon p's corners are rows offsets[p] .. offsets[p + 1] - 1.
        xy: (E, 2) float64 corner positions [m], counter-clockwise per polygon.
        vertex: (E,) int64 mesh vertex id of each corner.
        across: (E,) int64 polygon across the edge from corner i to the next (-1: a wall).
        back: (E,) int64 index, within the polygon across, of the same edge (-1: a wall).
        vertex_flags: (V,) int64 bits: 1 the vertex is on a wall edge, 2 on more than two.
        eps: points closer than this are the same point [m].
        otol: orientation tests closer to 0 than this count as collinear [m^2].
        max_corners: the largest polygon's corner count.
    """

    offsets: np.ndarray
    xy: np.ndarray
    vertex: np.ndarray
    across: np.ndarray
    back: np.ndarray
    vertex_flags: np.ndarray
    eps: float
    otol: float
    max_corners: int


def search_mesh(mesh: NavMesh) -> SearchMesh:
    """The flat arrays the search reads, built from the mesh's CSR polygons with numpy."""
    off, pv, nb = mesh.poly_offsets, mesh.poly_verts, mesh.poly_neighbors
    n_corners = pv.shape[0]
    poly_of = np.repeat(np.arange(mesh.polygon_count), np.diff(off))
    nxt = np.arange(n_corners) + 1
    nxt[off[1:] - 1] = off[:-1]
    # the edge a -> b of p is b -> a in the polygon across: find it by its (start, end) vertex pair
    key = pv * np.int64(mesh.vertices.shape[0]) + pv[nxt]
    rev = pv[nxt] * np.int64(mesh.vertices.shape[0]) + pv
    order = np.argsort(key, kind="stable")
    pos = np.searchsorted(key[order], rev)
    pos = np.minimum(pos, n_corners - 1)
    other = order[pos]
    ok = (nb >= 0) & (key[other] == rev) & (poly_of[other] == nb)
    back = np.where(ok, other - off[poly_of[other]], -1).astype(np.int64)
    across = np.where(ok, nb, -1).astype(np.int64)
    walls = nb < 0
    wall_count = np.zeros(mesh.vertices.shape[0], dtype=np.int64)
    np.add.at(wall_count, pv[walls], 1)
    np.add.at(wall_count, pv[nxt[walls]], 1)
    flags = np.where(wall_count > 0, _CORNER, 0) | np.where(wall_count > 2, _AMBIGUOUS, 0)
    return SearchMesh(
        np.ascontiguousarray(off, dtype=np.int64),
        np.ascontiguousarray(mesh.vertices[pv, :2], dtype=np.float64),
        np.ascontiguousarray(pv, dtype=np.int64),
        across,
        back,
        flags.astype(np.int64),
        float(mesh.length_epsilon),
        float(1e-12 * mesh.length_scale**2),
        int(np.diff(off).max()),
    )


def work_rows(n: int) -> tuple[np.ndarray, np.ndarray]:
    """n work rows for `search` (nodes, roots, open list): float (n, 9) and int (n, 9)."""
    return np.zeros((n, 9)), np.zeros((n, 9), dtype=np.int64)


class SearchScratch:
    """Per-query-object memory the kernel reuses: per vertex the best cost of a root there and its stamp,
    per polygon the stamps marking start and goal polygons, and the stamp counter (one search, one stamp:
    nothing is cleared between searches)."""

    def __init__(self, mesh: SearchMesh) -> None:
        nv = mesh.vertex_flags.shape[0]
        npoly = mesh.offsets.shape[0] - 1
        self.root_g = np.zeros(nv)
        self.root_stamp = np.zeros(nv, dtype=np.int64)
        self.marks = np.zeros((2, npoly), dtype=np.int64)  # row 0 start, row 1 goal
        self.stamp = np.zeros(2, dtype=np.int64)  # the stamp counter, the work rows needed so far
        self.work_f, self.work_i = work_rows(256)

    def fit(self) -> None:
        """Give the next search as many work rows as the largest search so far needed."""
        if self.stamp[1] > self.work_f.shape[0]:
            self.work_f, self.work_i = work_rows(int(self.stamp[1]))


@njit(cache=True, inline="always")
def _len(dx: float, dy: float) -> float:
    """Length of (dx, dy) [m] (no overflow guard: coordinates are within `arguments.COORDINATE_LIMIT`)."""
    return math.sqrt(dx * dx + dy * dy)


@njit(cache=True, inline="always")
def _wrap(i: int, k: int) -> int:
    """i mod k for 0 <= i < 2k: a corner index past a polygon's last wraps to its first (no division, which
    costs more than the rest of a small search's step)."""
    return i - k if i >= k else i


# --- the kernel ------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _orient(ax: float, ay: float, bx: float, by: float, cx: float, cy: float) -> float:
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@njit(cache=True)
def _h(Rx: float, Ry: float, lx: float, ly: float, rx: float, ry: float, gx: float, gy: float) -> float:
    """Shortest length from root R through the interval l-r to the goal g [m]."""
    ex, ey = rx - lx, ry - ly
    d2 = ex * ex + ey * ey
    if d2 > 0.0:
        sr = ex * (Ry - ly) - ey * (Rx - lx)
        sg = ex * (gy - ly) - ey * (gx - lx)
        if sr * sg > 0.0:  # goal on the root's side: mirror it across the interval's line
            t = ((gx - lx) * ex + (gy - ly) * ey) / d2
            gx, gy = 2.0 * (lx + t * ex) - gx, 2.0 * (ly + t * ey) - gy
    if _orient(Rx, Ry, rx, ry, gx, gy) >= 0.0 and _orient(Rx, Ry, lx, ly, gx, gy) <= 0.0:
        return _len(gx - Rx, gy - Ry)
    return min(
        _len(lx - Rx, ly - Ry) + _len(gx - lx, gy - ly),
        _len(rx - Rx, ry - Ry) + _len(gx - rx, gy - ry),
    )


@njit(cache=True)
def _on_segment(px: float, py: float, ax: float, ay: float, bx: float, by: float, eps: float) -> bool:
    ex, ey = bx - ax, by - ay
    d2 = ex * ex + ey * ey
    if d2 == 0.0:
        return _len(px - ax, py - ay) <= eps
    t = ((px - ax) * ex + (py - ay) * ey) / d2
    tol = eps / math.sqrt(d2)
    return -tol <= t <= 1.0 + tol


@njit(cache=True)
def _more_rows(
    stamps: np.ndarray, cap: int, popped: int
) -> tuple[int, float, int, np.ndarray, np.ndarray, np.ndarray]:
    """`search`'s answer when its `cap` work rows are full: MORE_ROWS, with twice as many recorded in
    `stamps[1]` for the caller to give the search when it runs it again. The rows are never grown during a
    search, so that no array it uses is reassigned in its loop: numba counts references to a reassigned
    array at every turn, which cost more than the rest of a small search."""
    stamps[1] = max(stamps[1], 2 * cap)
    return MORE_ROWS, math.inf, popped, np.empty((0, 2)), np.empty(0, np.int64), np.empty(0, np.int64)


@njit(cache=True)
def _cut(
    wf: np.ndarray, wi: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The nodes' (float, int), the roots' (float, int) and the open list's (f, key) columns of the work
    rows."""
    return wf[:, 0:5], wi[:, 0:6], wf[:, 5:8], wi[:, 6:8], wf[:, 8], wi[:, 8]


@njit(cache=True)
def _push(hf: np.ndarray, hk: np.ndarray, n: int, f: float, key: int) -> None:
    """Add (f, key) to the binary heap of the first n entries of hf, hk (room for one more). The order is
    f, then key (node * 4 + final: the node index, then the final flag)."""
    i = n
    while i > 0:
        parent = (i - 1) >> 1
        pf = hf[parent]
        if pf < f or (pf == f and hk[parent] < key):
            break
        hf[i], hk[i] = pf, hk[parent]
        i = parent
    hf[i], hk[i] = f, key


@njit(cache=True)
def _pop(hf: np.ndarray, hk: np.ndarray, n: int) -> None:
    """Remove the heap's first entry (n entries before the call)."""
    n -= 1
    f, key = hf[n], hk[n]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        cf, ck = hf[c], hk[c]
        if c + 1 < n:
            df, dk = hf[c + 1], hk[c + 1]
            if df < cf or (df == cf and dk < ck):
                c, cf, ck = c + 1, df, dk
        if f < cf or (f == cf and key < ck):
            break
        hf[i], hk[i] = cf, ck
        i = c
    hf[i], hk[i] = f, key


@njit(cache=True)
def _root_ok(root_g: np.ndarray, root_stamp: np.ndarray, stamp: int, v: int, g: float, eps: float) -> bool:
    """A root at vertex v reached at cost g is worth keeping (no root there is cheaper by more than eps);
    records g as the vertex's best."""
    if root_stamp[v] == stamp:
        if g > root_g[v] + eps:
            return False
        root_g[v] = min(g, root_g[v])
    else:
        root_stamp[v] = stamp
        root_g[v] = g
    return True


@njit(cache=True)
def search(
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
    """Polyanya from (sx, sy) in the first `n_start` of `start_polys` to (gx, gy) in the first `n_goal` of
    `goal_polys` [m], over a `SearchMesh`'s arrays (`max_k` its largest polygon's corner count) with a
    `SearchScratch`'s: `stamps` (2,) the stamp counter and the work rows needed so far, `work_f`,
    `work_i` (C, 9) the nodes, roots and open list.
    Returns (FOUND / NO_PATH / BUDGET_EXCEEDED / MORE_ROWS, cost [m] (inf unless FOUND), nodes expanded,
    (k, 2) turning points [m] start to goal, (k,) their vertex ids (-1 for none), (m,) the corridor's
    polygon ids); the arrays are empty unless FOUND. MORE_ROWS: the C rows were too few, `stamps[1]` says
    how many to give the search when it is run again (`paths.run_search`)."""
    stamps[0] += 1
    stamp = stamps[0]
    for j in range(n_start):
        marks[0, start_polys[j]] = stamp
    for j in range(n_goal):
        marks[1, goal_polys[j]] = stamp
    for j in range(n_start):
        p0 = start_polys[j]
        if marks[1, p0] == stamp:
            xy = np.empty((2, 2))
            xy[0, 0], xy[0, 1], xy[1, 0], xy[1, 1] = sx, sy, gx, gy
            corridor = np.empty(1, dtype=np.int64)
            corridor[0] = p0
            return FOUND, _len(gx - sx, gy - sy), 0, xy, np.full(2, -1, dtype=np.int64), corridor
    # work rows: nodes in float columns 0-4 (lx, ly, rx, ry, g of the root) and int columns 0-5 (root, left
    # vid, right vid, polygon, edge, parent; a seed node's parent is -2 - the start polygon it leaves);
    # roots in float columns 5-7 (x, y, g) and int columns 6-7 (vid, parent root); the open list in
    # column 8: f, and node * 4 + final (final 0 = an interval, 3 = the goal seen through it, 1 / 2 =
    # the goal around its left / right end)
    cap = work_f.shape[0]
    nf, ni, rf, ri_, hf, hk = _cut(work_f, work_i)
    n_nodes = 0
    rf[0, 0], rf[0, 1], rf[0, 2] = sx, sy, 0.0
    ri_[0, 0], ri_[0, 1] = -1, -1
    n_roots = 1
    n_heap = 0
    # successor pieces of one expansion: (root, edge offset t) and (u0, u1), beside the corners'
    # orientations to the right and left rays (columns 2, 3 of the first k float rows)
    pi = np.empty((3 * max_k + 3, 2), dtype=np.int64)
    pf = np.empty((3 * max_k + 3, 4))
    for j in range(n_start):
        p0 = start_polys[j]
        for c in range(offsets[p0], offsets[p0 + 1]):
            q = across[c]
            if q < 0 or marks[0, q] == stamp or back[c] < 0:
                continue
            e2 = back[c]
            kq = offsets[q + 1] - offsets[q]
            ca, cb = offsets[q] + e2, offsets[q] + _wrap(e2 + 1, kq)
            if max(n_nodes, n_heap) == cap:
                return _more_rows(stamps, cap, 0)
            nf[n_nodes, 0], nf[n_nodes, 1] = cxy[ca, 0], cxy[ca, 1]
            nf[n_nodes, 2], nf[n_nodes, 3], nf[n_nodes, 4] = cxy[cb, 0], cxy[cb, 1], 0.0
            ni[n_nodes, 0], ni[n_nodes, 1], ni[n_nodes, 2] = 0, cvid[ca], cvid[cb]
            ni[n_nodes, 3], ni[n_nodes, 4], ni[n_nodes, 5] = q, e2, -2 - p0
            _push(
                hf,
                hk,
                n_heap,
                _h(sx, sy, cxy[ca, 0], cxy[ca, 1], cxy[cb, 0], cxy[cb, 1], gx, gy),
                4 * n_nodes,
            )
            n_heap += 1
            n_nodes += 1
    popped = 0
    while n_heap > 0:
        f, idx, final = hf[0], hk[0] >> 2, hk[0] & 3
        _pop(hf, hk, n_heap)
        n_heap -= 1
        lx, ly, rx, ry, g = nf[idx, 0], nf[idx, 1], nf[idx, 2], nf[idx, 3], nf[idx, 4]
        ri, lvid, rvid, p, e = ni[idx, 0], ni[idx, 1], ni[idx, 2], ni[idx, 3], ni[idx, 4]
        Rx, Ry, Rg, Rvid = rf[ri, 0], rf[ri, 1], rf[ri, 2], ri_[ri, 0]
        if final:
            return _reconstruct(nf, ni, rf, ri_, idx, final, gx, gy, f, popped, eps)
        if (
            Rvid >= 0
            and not (vflags[Rvid] & _AMBIGUOUS)
            and root_stamp[Rvid] == stamp
            and Rg > root_g[Rvid] + eps
        ):
            continue
        popped += 1
        if popped > max_nodes:
            return (
                BUDGET_EXCEEDED,
                math.inf,
                max_nodes,
                np.empty((0, 2)),
                np.empty(0, np.int64),
                np.empty(0, np.int64),
            )
        o = offsets[p]
        k = offsets[p + 1] - o
        ax, ay = cxy[o + e, 0], cxy[o + e, 1]
        cb = o + _wrap(e + 1, k)
        bx, by = cxy[cb, 0], cxy[cb, 1]
        elen = _len(bx - ax, by - ay)
        side = (bx - ax) * (Ry - ay) - (by - ay) * (Rx - ax)
        collinear = abs(side) <= eps * elen
        if marks[1, p] == stamp:
            if collinear:
                if _on_segment(Rx, Ry, lx, ly, rx, ry, eps):
                    via = 0
                else:
                    via = 1 if _len(lx - Rx, ly - Ry) < _len(rx - Rx, ry - Ry) else 2
            elif _orient(Rx, Ry, rx, ry, gx, gy) < 0.0:
                via = 2  # around the right end
            elif _orient(Rx, Ry, lx, ly, gx, gy) > 0.0:
                via = 1  # around the left end
            else:
                via = 0
            if via == 0:
                cost = g + _len(gx - Rx, gy - Ry)
            elif via == 1:
                cost = g + _len(lx - Rx, ly - Ry) + _len(gx - lx, gy - ly)
            else:
                cost = g + _len(rx - Rx, ry - Ry) + _len(gx - rx, gy - ry)
            if n_heap == cap:
                return _more_rows(stamps, cap, popped)
            _push(hf, hk, n_heap, cost, 4 * idx + (3 if via == 0 else via))
            n_heap += 1
        n_pieces = 0
        if collinear:
            nri = ri
            on_segment = _on_segment(Rx, Ry, lx, ly, rx, ry, eps)
            if on_segment and ri == 0:
                continue  # start on this edge: every polygon around it was seeded
            if not on_segment:
                # the path runs along this edge's line: it can only turn at the near end
                dl, dr = _len(lx - Rx, ly - Ry), _len(rx - Rx, ry - Ry)
                if dl < dr:
                    vx, vy, vv, d = lx, ly, lvid, dl
                else:
                    vx, vy, vv, d = rx, ry, rvid, dr
                if vv < 0 or not (vflags[vv] & _CORNER):
                    continue
                ng = g + d
                if not (vflags[vv] & _AMBIGUOUS) and not _root_ok(root_g, root_stamp, stamp, vv, ng, eps):
                    continue
                if n_roots == cap:
                    return _more_rows(stamps, cap, popped)
                rf[n_roots, 0], rf[n_roots, 1], rf[n_roots, 2] = vx, vy, ng
                ri_[n_roots, 0], ri_[n_roots, 1] = vv, ri
                nri = n_roots
                n_roots += 1
            for t in range(k - 1):
                pi[n_pieces, 0], pi[n_pieces, 1], pf[n_pieces, 0], pf[n_pieces, 1] = nri, t, 0.0, 1.0
                n_pieces += 1
        else:
            if side > 0.0:
                continue
            for t in range(k):
                c = o + _wrap(e + 1 + t, k)
                pf[t, 2] = _orient(Rx, Ry, rx, ry, cxy[c, 0], cxy[c, 1])
                pf[t, 3] = _orient(Rx, Ry, lx, ly, cxy[c, 0], cxy[c, 1])
            # right ray exit: first vertex strictly left of the ray R->r
            pos_r = float(k - 1)
            for t in range(k):
                if pf[t, 2] > otol:
                    if t == 0:
                        pos_r = 0.0
                    else:
                        o0, o1 = pf[t - 1, 2], pf[t, 2]
                        u = 0.0 if o0 >= -otol else o0 / (o0 - o1)
                        pos_r = t - 1 + min(max(u, 0.0), 1.0)
                    break
            pos_l = 0.0
            for t in range(k - 1, -1, -1):
                if pf[t, 3] < -otol:
                    if t == k - 1:
                        pos_l = float(k - 1)
                    else:
                        o0, o1 = pf[t, 3], pf[t + 1, 3]
                        u = 1.0 if o1 <= otol else o0 / (o0 - o1)
                        pos_l = t + min(max(u, 0.0), 1.0)
                    break
            if pos_l > pos_r:
                n_pieces = _split(pi, pf, n_pieces, ri, pos_r, pos_l)
            if rvid >= 0 and (vflags[rvid] & _CORNER) and pos_r > 0.0:
                ng = g + _len(rx - Rx, ry - Ry)
                if (vflags[rvid] & _AMBIGUOUS) or _root_ok(root_g, root_stamp, stamp, rvid, ng, eps):
                    if n_roots == cap:
                        return _more_rows(stamps, cap, popped)
                    rf[n_roots, 0], rf[n_roots, 1], rf[n_roots, 2] = rx, ry, ng
                    ri_[n_roots, 0], ri_[n_roots, 1] = rvid, ri
                    n_pieces = _split(pi, pf, n_pieces, n_roots, 0.0, pos_r)
                    n_roots += 1
            if lvid >= 0 and (vflags[lvid] & _CORNER) and pos_l < k - 1:
                ng = g + _len(lx - Rx, ly - Ry)
                if (vflags[lvid] & _AMBIGUOUS) or _root_ok(root_g, root_stamp, stamp, lvid, ng, eps):
                    if n_roots == cap:
                        return _more_rows(stamps, cap, popped)
                    rf[n_roots, 0], rf[n_roots, 1], rf[n_roots, 2] = lx, ly, ng
                    ri_[n_roots, 0], ri_[n_roots, 1] = lvid, ri
                    n_pieces = _split(pi, pf, n_pieces, n_roots, pos_l, float(k - 1))
                    n_roots += 1
        for j in range(n_pieces):
            nri, t, u0, u1 = pi[j, 0], pi[j, 1], pf[j, 0], pf[j, 1]
            jj = _wrap(e + 1 + t, k)
            c0 = o + jj
            q = across[c0]
            if q < 0:
                continue
            e2 = back[c0]
            c1 = o + _wrap(jj + 1, k)
            c0x, c0y, c1x, c1y = cxy[c0, 0], cxy[c0, 1], cxy[c1, 0], cxy[c1, 1]
            dx, dy = c1x - c0x, c1y - c0y
            if (u1 - u0) * _len(dx, dy) <= eps:
                continue
            oq = offsets[q]
            kq = offsets[q + 1] - oq
            if u0 <= 0.0:
                nrx, nry, nrvid = c0x, c0y, cvid[oq + _wrap(e2 + 1, kq)]
            else:
                nrx, nry, nrvid = c0x + u0 * dx, c0y + u0 * dy, -1
            if u1 >= 1.0:
                nlx, nly, nlvid = c1x, c1y, cvid[oq + e2]
            else:
                nlx, nly, nlvid = c0x + u1 * dx, c0y + u1 * dy, -1
            qx, qy, qg = rf[nri, 0], rf[nri, 1], rf[nri, 2]
            if max(n_nodes, n_heap) == cap:
                return _more_rows(stamps, cap, popped)
            nf[n_nodes, 0], nf[n_nodes, 1], nf[n_nodes, 2], nf[n_nodes, 3] = nlx, nly, nrx, nry
            nf[n_nodes, 4] = qg
            ni[n_nodes, 0], ni[n_nodes, 1], ni[n_nodes, 2] = nri, nlvid, nrvid
            ni[n_nodes, 3], ni[n_nodes, 4], ni[n_nodes, 5] = q, e2, idx
            _push(hf, hk, n_heap, qg + _h(qx, qy, nlx, nly, nrx, nry, gx, gy), 4 * n_nodes)
            n_heap += 1
            n_nodes += 1
    return NO_PATH, math.inf, popped, np.empty((0, 2)), np.empty(0, np.int64), np.empty(0, np.int64)


@njit(cache=True)
def _split(pi: np.ndarray, pf: np.ndarray, n: int, root: int, a: float, b: float) -> int:
    """Append the pieces of positions a..b along the polygon's far edges (edge t covers t..t + 1);
    returns the new piece count."""
    t = int(a)
    while t < b:
        u0 = max(a - t, 0.0)
        u1 = min(b - t, 1.0)
        if u1 > u0:
            pi[n, 0], pi[n, 1], pf[n, 0], pf[n, 1] = root, t, u0, u1
            n += 1
        t += 1
    return n


@njit(cache=True)
def _reconstruct(
    nf: np.ndarray,
    ni: np.ndarray,
    rf: np.ndarray,
    ri_: np.ndarray,
    idx: int,
    final: int,
    gx: float,
    gy: float,
    cost: float,
    popped: int,
    eps: float,
) -> tuple[int, float, int, np.ndarray, np.ndarray, np.ndarray]:
    """Turning points and corridor of the path ending at node `idx`, reaching the goal through the
    interval (final 3), around its left end (1) or its right end (2)."""
    n_pts = 1 if final == 3 else 2
    r = ni[idx, 0]
    while r >= 0:
        n_pts += 1
        r = ri_[r, 1]
    xy = np.empty((n_pts, 2))
    vid = np.empty(n_pts, dtype=np.int64)
    j = n_pts - 1
    xy[j, 0], xy[j, 1], vid[j] = gx, gy, -1
    j -= 1
    if final == 1:
        xy[j, 0], xy[j, 1], vid[j] = nf[idx, 0], nf[idx, 1], ni[idx, 1]
        j -= 1
    elif final == 2:
        xy[j, 0], xy[j, 1], vid[j] = nf[idx, 2], nf[idx, 3], ni[idx, 2]
        j -= 1
    r = ni[idx, 0]
    while r >= 0:
        xy[j, 0], xy[j, 1], vid[j] = rf[r, 0], rf[r, 1], ri_[r, 0]
        j -= 1
        r = ri_[r, 1]
    # j is now -1 (the start root has no parent) and row 0 is the start
    n_corr = 1
    i = idx
    while i >= 0:
        n_corr += 1
        i = ni[i, 5]
    corridor = np.empty(n_corr, dtype=np.int64)
    i, j = idx, n_corr - 1
    while True:
        corridor[j] = ni[i, 3]
        j -= 1
        parent = ni[i, 5]
        if parent < 0:
            corridor[j] = -2 - parent
            break
        i = parent
    # drop repeated consecutive points (a turn exactly at the goal or start)
    keep = np.empty(n_pts, dtype=np.int64)
    keep[0] = 0
    m = 1
    for a in range(1, n_pts):
        b = keep[m - 1]
        if _len(xy[a, 0] - xy[b, 0], xy[a, 1] - xy[b, 1]) > eps:
            keep[m] = a
            m += 1
    if m == 1:
        keep[1] = n_pts - 1
        m = 2
    if m < n_pts:
        xy, vid = xy[keep[:m]], vid[keep[:m]]
    return FOUND, cost, popped, xy, vid, corridor
