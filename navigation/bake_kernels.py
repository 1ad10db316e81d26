"""Compiled (numba) loops of the ray-sampled bake that numpy cannot batch: linking floors of neighbouring
cells, and the greedy flood fill that splits regions whose side-by-side cells a cliff separates.

Each kernel is the one implementation of its step (`heightfield._links`, `ray_bake._split_conflicts` call
them); all are compiled with ``cache=True`` (no fastmath), so a fresh environment compiles them once and
later processes load the machine code from ``__pycache__``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# _DIRS of heightfield: +x, -x, +y, -y
_DX = np.array([1, -1, 0, 0], dtype=np.int64)
_DY = np.array([0, 0, 1, -1], dtype=np.int64)


@njit(cache=True)
def link_floors(Z: np.ndarray, max_climb: float, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """Fill out (ny, nx, L, 4) with, per span and direction (+x, -x, +y, -y), the floor of the neighbour
    cell closest in height (the lowest such slot on ties) when within `max_climb` [m] (+1e-9), else -1.

    Z: (ny, nx, L) floor heights [m], NaN for no floor (a NaN slot is never linked).
    """
    ny, nx, L = Z.shape
    for y in range(ny):
        for x in range(nx):
            for d in range(4):
                x2, y2 = x + _DX[d], y + _DY[d]
                inside = 0 <= x2 < nx and 0 <= y2 < ny
                for a in range(L):
                    za = Z[y, x, a]
                    best, gap = 0, np.inf
                    if inside:
                        for b in range(L):
                            dz = abs(za - Z[y2, x2, b])
                            if dz != dz:
                                dz = np.inf
                            if dz < gap:
                                best, gap = b, dz
                    out[y, x, a, d] = best if gap <= max_climb + 1e-9 else -1


@njit(cache=True)
def split_regions(
    links: np.ndarray,
    sid: np.ndarray,
    iy: np.ndarray,
    ix: np.ndarray,
    k: np.ndarray,
    spans: np.ndarray,
    starts: np.ndarray,
    out: np.ndarray,
    next_label: int,
) -> None:  # pragma: no cover - compiled
    """Re-partition regions by a greedy flood fill that only adds a span if every neighbour cell already in
    its new region holds the very span it is linked to in that direction.

    Args:
        links: (ny, nx, L, 4) the heightfield's links. sid: (ny, nx, L) span ids (-1 none).
        iy, ix, k: (n,) each span's cell and layer.
        spans: the spans of the regions to split, region by region, each in increasing span id.
        starts: (r + 1,) where each region's run of `spans` starts (and the end).
        out: (n,) region labels, rewritten for these spans with new labels from `next_label` on, in order
            (regions in order, seeds in increasing span id).
    """
    ny, nx, _ = sid.shape
    n = iy.shape[0]
    todo = np.zeros(n, dtype=np.bool_)
    owner = np.full(ny * nx, -1, dtype=np.int64)  # the label whose `occupied` holds the cell
    held = np.full(ny * nx, -1, dtype=np.int64)  # the span it holds there
    stack = np.empty(n, dtype=np.int64)
    label = next_label
    for r in range(starts.shape[0] - 1):
        for i in range(starts[r], starts[r + 1]):
            todo[spans[i]] = True
        for i in range(starts[r], starts[r + 1]):
            seed = spans[i]
            if not todo[seed]:
                continue
            todo[seed] = False
            c = iy[seed] * nx + ix[seed]
            owner[c], held[c] = label, seed
            out[seed] = label
            top = 0
            stack[top] = seed
            top += 1
            while top > 0:
                top -= 1
                u = stack[top]
                for d in range(4):
                    lk = links[iy[u], ix[u], k[u], d]
                    if lk < 0:
                        continue
                    v = sid[iy[u] + _DY[d], ix[u] + _DX[d], lk]
                    cv = iy[v] * nx + ix[v]
                    if not todo[v] or owner[cv] == label:
                        continue
                    ok = True
                    for d2 in range(4):
                        x2, y2 = ix[v] + _DX[d2], iy[v] + _DY[d2]
                        if not (0 <= x2 < nx and 0 <= y2 < ny):
                            continue
                        c2 = y2 * nx + x2
                        if owner[c2] == label:
                            l2 = links[iy[v], ix[v], k[v], d2]
                            if l2 < 0 or sid[y2, x2, l2] != held[c2]:
                                ok = False
                                break
                    if ok:
                        todo[v] = False
                        owner[cv], held[cv] = label, v
                        out[v] = label
                        stack[top] = v
                        top += 1
            label += 1


@njit(cache=True)
def simplify_between_pins(
    pts: np.ndarray, is_pin: np.ndarray, tol_in: float, tol_out: float
) -> np.ndarray:  # pragma: no cover - compiled
    """Which corners of a closed ring (m, 2) (area on its left) to keep: every pinned corner, and between
    consecutive pins (or the first corner and the one farthest from it, with fewer than two pins) a
    one-sided Douglas-Peucker that may cut up to `tol_in` into the area but leave it by at most `tol_out`
    [the ring's units]. The ring is not repeated at its end."""
    m = pts.shape[0]
    keep = np.zeros(m, dtype=np.bool_)
    pins = np.flatnonzero(is_pin)
    if pins.shape[0] < 2:
        far, best = 0, -1.0
        for i in range(m):
            d = np.hypot(pts[i, 0] - pts[0, 0], pts[i, 1] - pts[0, 1])
            if d > best:
                far, best = i, d
        extra = np.array([0, far], dtype=np.int64)
        pins = np.unique(np.concatenate((pins.astype(np.int64), extra)))
    lo = np.empty(m + 1, dtype=np.int64)
    hi = np.empty(m + 1, dtype=np.int64)
    for p in range(pins.shape[0]):
        a = pins[p]
        b = pins[p + 1] if p + 1 < pins.shape[0] else pins[0] + m
        keep[a % m] = True
        keep[b % m] = True
        top = 0
        lo[0], hi[0] = a, b
        top = 1
        while top > 0:
            top -= 1
            i, j = lo[top], hi[top]
            if j <= i + 1:
                continue
            ax, ay = pts[i % m, 0], pts[i % m, 1]
            abx, aby = pts[j % m, 0] - ax, pts[j % m, 1] - ay
            length = np.hypot(abx, aby)
            worst, at = -np.inf, -1
            for q in range(i + 1, j):
                rx, ry = pts[q % m, 0] - ax, pts[q % m, 1] - ay
                if length > 0:
                    side = (abx * ry - aby * rx) / length
                    excess = max(-side - tol_in, side - tol_out)
                else:
                    excess = np.hypot(rx, ry) - min(tol_in, tol_out)
                if excess > worst:
                    worst, at = excess, q
            if worst > 1e-12:
                keep[at % m] = True
                lo[top], hi[top] = i, at
                lo[top + 1], hi[top + 1] = at, j
                top += 2
    return keep


@njit(cache=True)
def simplify_rings(
    pts: np.ndarray, is_pin: np.ndarray, offsets: np.ndarray, todo: np.ndarray, tol_in: float
) -> np.ndarray:  # pragma: no cover - compiled
    """Which corners of many closed rings to keep: ring r is pts[offsets[r]:offsets[r + 1]] (area on its
    left, not repeated at its end); each ring in `todo` is simplified by `simplify_between_pins` (up to
    `tol_in` inwards, never outwards), then, when more than 3 corners are kept, the pinned corners inside a
    straight run of pinned corners (between their neighbours, not where the ring turns back along the same
    line) are dropped too if 3 or more corners remain. Rings not in `todo` keep
    nothing."""
    keep = np.zeros(pts.shape[0], dtype=np.bool_)
    for r in todo:
        s, e = offsets[r], offsets[r + 1]
        idx = np.flatnonzero(simplify_between_pins(pts[s:e], is_pin[s:e], tol_in, 0.0)) + s
        n = idx.shape[0]
        inner = np.zeros(n, dtype=np.bool_)
        if n > 3:
            for i in range(n):
                a, b, c = idx[(i + n - 1) % n], idx[i], idx[(i + 1) % n]
                cross = (pts[b, 0] - pts[a, 0]) * (pts[c, 1] - pts[a, 1]) - (pts[b, 1] - pts[a, 1]) * (
                    pts[c, 0] - pts[a, 0]
                )
                ahead = (pts[b, 0] - pts[a, 0]) * (pts[c, 0] - pts[b, 0]) + (pts[b, 1] - pts[a, 1]) * (
                    pts[c, 1] - pts[b, 1]
                )  # b between a and c: a straight run, not a turn back along the same line
                inner[i] = is_pin[a] and is_pin[b] and is_pin[c] and abs(cross) <= 1e-9 and ahead > 0.0
            if n - inner.sum() < 3:
                inner[:] = False
        for i in range(n):
            if not inner[i]:
                keep[idx[i]] = True
    return keep


@njit(cache=True)
def insert_on_edges(
    offsets: np.ndarray,
    verts: np.ndarray,
    poly_region: np.ndarray,
    xy: np.ndarray,
    cand_offsets: np.ndarray,
    cand: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Insert into every polygon edge the candidate vertices of its region that lie on it (strictly
    between its ends, within 1e-9 of the edge relative to its length scale), in order along the edge.

    Args:
        offsets, verts: the polygons, polygon p being verts[offsets[p]:offsets[p + 1]].
        poly_region: (P,) region of each polygon. xy: (nv, 2) vertex positions.
        cand_offsets, cand: region r's candidate vertex ids are cand[cand_offsets[r]:cand_offsets[r + 1]].
    Returns:
        The new (offsets, verts).
    """
    n_poly = offsets.shape[0] - 1
    out = np.empty(verts.shape[0] + cand.shape[0] * 4 + 16, dtype=np.int64)
    new_off = np.zeros(n_poly + 1, dtype=np.int64)
    size = 0
    tbuf = np.empty(cand.shape[0] + 1)
    vbuf = np.empty(cand.shape[0] + 1, dtype=np.int64)
    for p in range(n_poly):
        r = poly_region[p]
        c0, c1 = cand_offsets[r], cand_offsets[r + 1]
        s, e_end = offsets[p], offsets[p + 1]
        m = e_end - s
        for e in range(m):
            u, w = verts[s + e], verts[s + (e + 1) % m]
            if size + 1 + (c1 - c0) > out.shape[0]:
                grown = np.empty(out.shape[0] * 2 + c1 - c0, dtype=np.int64)
                grown[:size] = out[:size]
                out = grown
            out[size] = u
            size += 1
            ax, ay, bx, by = xy[u, 0], xy[u, 1], xy[w, 0], xy[w, 1]
            lox, hix = min(ax, bx) - 1e-9, max(ax, bx) + 1e-9
            loy, hiy = min(ay, by) - 1e-9, max(ay, by) + 1e-9
            abx, aby = bx - ax, by - ay
            tol = 1e-9 * max(1.0, max(abs(abx), abs(aby)))
            found = 0
            for i in range(c0, c1):
                v = cand[i]
                qx, qy = xy[v, 0], xy[v, 1]
                if qx < lox or qx > hix or qy < loy or qy > hiy:
                    continue
                if v == u or v == w:  # noqa: SIM109 - scalar compares in the compiled loop
                    continue
                rx, ry = qx - ax, qy - ay
                if abs(abx * ry - aby * rx) > tol:
                    continue
                t = (rx * abx + ry * aby) / (abx * abx + aby * aby)
                if t > 1e-9 and t < 1 - 1e-9:
                    tbuf[found], vbuf[found] = t, v
                    found += 1
            if found:
                order = np.argsort(tbuf[:found])
                for j in range(found):
                    out[size] = vbuf[order[j]]
                    size += 1
        new_off[p + 1] = size
    return new_off, out[:size].copy()


@njit(cache=True)
def merge_triangles(
    verts: np.ndarray,
    tris: np.ndarray,
    diagonals: np.ndarray,
    twin: np.ndarray,
    max_verts: int,
    eps: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Hertel-Mehlhorn on half-edges: remove the diagonals in the given order while the two polygons they
    join stay convex (no corner turning right by more than `eps` of the polygon's first triangle: (nt,),
    so separate meshes with their own tolerances merge in one call) and have at most `max_verts` corners.

    Args:
        verts: (nv, 2) positions. tris: (nt, 3) CCW triangles; half-edge 3 t + k runs from tris[t, k] to
            tris[t, (k + 1) % 3].
        diagonals: half-edges (u -> v with u < v) to try, in order. twin: (3 nt,) the opposite half-edge.
    Returns:
        (offsets, corners): polygon p (the surviving triangles' ids in increasing order) is
        corners[offsets[p]:offsets[p + 1]], starting where its last merge left it.
    """
    nt = tris.shape[0]
    nh = 3 * nt
    owner = np.empty(nh, dtype=np.int64)
    nxt = np.empty(nh, dtype=np.int64)
    prv = np.empty(nh, dtype=np.int64)
    origin = np.empty(nh, dtype=np.int64)
    for t in range(nt):
        for k in range(3):
            h = 3 * t + k
            owner[h] = t
            nxt[h] = 3 * t + (k + 1) % 3
            prv[h] = 3 * t + (k + 2) % 3
            origin[h] = tris[t, k]
    size = np.full(nt, 3, dtype=np.int64)
    start = np.arange(0, nh, 3).astype(np.int64)
    alive = np.ones(nt, dtype=np.bool_)
    for i in range(diagonals.shape[0]):
        h = diagonals[i]
        g = twin[h]
        a, b = owner[h], owner[g]
        if a == b or size[a] + size[b] - 2 > max_verts:
            continue
        # the merged ring runs v .. u along a, then on along b back to v
        ok = True
        for cur, before, after in (
            (origin[g], origin[prv[g]], origin[nxt[nxt[h]]]),  # v
            (origin[h], origin[prv[h]], origin[nxt[nxt[g]]]),  # u
        ):
            ox, oy = verts[before, 0], verts[before, 1]
            cross = (verts[cur, 0] - ox) * (verts[after, 1] - oy) - (verts[cur, 1] - oy) * (
                verts[after, 0] - ox
            )
            if cross < -eps[a]:
                ok = False
                break
        if not ok:
            continue
        start[a] = nxt[h]
        nxt[prv[h]] = nxt[g]
        prv[nxt[g]] = prv[h]
        nxt[prv[g]] = nxt[h]
        prv[nxt[h]] = prv[g]
        size[a] += size[b] - 2
        alive[b] = False
        e = start[a]
        for _ in range(size[a]):
            owner[e] = a
            e = nxt[e]
    n = 0
    for t in range(nt):
        if alive[t]:
            n += 1
    offsets = np.zeros(n + 1, dtype=np.int64)
    corners = np.empty(nh, dtype=np.int64)
    p, c = 0, 0
    for t in range(nt):
        if not alive[t]:
            continue
        e = start[t]
        for _ in range(size[t]):
            corners[c] = origin[e]
            c += 1
            e = nxt[e]
        p += 1
        offsets[p] = c
    return offsets, corners[:c].copy()


@njit(cache=True)
def spread_obstacles(
    around: np.ndarray, cx: np.ndarray, cy: np.ndarray, obs: np.ndarray, best: np.ndarray, sweeps: int
) -> None:  # pragma: no cover - compiled
    """Brushfire: up to `sweeps` times, each span takes a neighbour's nearest obstacle when it is nearer
    than its own (by more than 1e-12), one neighbour column of `around` (n, m) at a time, every span of a
    column reading the obstacles as they were before that column (-1: no neighbour). Stops early when a
    sweep changes nothing.

    A span only reads a neighbour whose obstacle changed since the span's column last read it: an
    unchanged one would be refused again (a span's distance only falls), so the answer is the same as
    reading every neighbour every time, at the cost of the changed ones.

    cx, cy: (n,) span centres; obs: (n, 2) nearest obstacle so far; best: (n,) its distance (both updated).
    """
    n, m = around.shape
    changed_at = np.zeros(n, dtype=np.int64)  # the step (column pass, from 1) that last changed a span
    read_at = np.zeros(m, dtype=np.int64)  # the step at which each column was last read (0: never)
    rows = np.empty(n, dtype=np.int64)  # this step's changes, written after the step
    new = np.empty((n, 3))
    step = 0
    for _ in range(sweeps):
        changed = False
        for j in range(m):
            step += 1
            since = read_at[j]
            c = 0
            for i in range(n):
                o = around[i, j]
                if o < 0 or changed_at[o] < since:
                    continue
                ox, oy = obs[o, 0], obs[o, 1]
                d = np.hypot(ox - cx[i], oy - cy[i])
                if d < best[i] - 1e-12:
                    rows[c] = i
                    new[c, 0], new[c, 1], new[c, 2] = ox, oy, d
                    c += 1
            for r in range(c):
                i = rows[r]
                obs[i, 0], obs[i, 1], best[i] = new[r, 0], new[r, 1], new[r, 2]
                changed_at[i] = step
            read_at[j] = step
            changed = changed or c > 0
        if not changed:
            break
