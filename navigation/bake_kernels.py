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
