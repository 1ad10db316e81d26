"""Compiled loops of the research envs' scan (numba): the ray ends before the batch, the distances and hit
kinds after it.

An env step casts a few dozen rays; the numpy version of these two passes was about twenty calls on
arrays of that size, each costing more than the arithmetic it did. The loops do the same arithmetic in
the same order (no fast-math: products and sums round as numpy's do), so the rays and readings are
bit-identical; the cosines and sines come in from numpy.
"""

from __future__ import annotations

import numpy as np
from numba import njit


# compiled at import (or loaded from the on-disk cache), not on the first call
@njit(
    "void(float64[:, ::1], float64[:, ::1], float64[:, ::1], float64[::1], float64, float64, "
    "float64[:, ::1], float64[:, ::1])",
    cache=True,
)
def ray_ends(
    feet: np.ndarray,
    cos: np.ndarray,
    sin: np.ndarray,
    clearance: np.ndarray,
    ray_range: float,
    ray_height: float,
    starts: np.ndarray,
    ends: np.ndarray,
) -> None:
    """Fill `starts` and `ends` ((a * rays, 3), agent after agent) of every agent's horizontal scan.

    Args:
        feet: (a, 3) [m]; the rays leave from `ray_height` [m] above them. cos, sin: (a, rays) of each
            ray's direction. clearance: (a,) where each agent's rays start, from its axis [m]; they end
            `ray_range` [m] from it.
    """
    agents, rays = cos.shape
    for i in range(agents):
        cx = feet[i, 0] + 0.0
        cy = feet[i, 1] + 0.0
        cz = feet[i, 2] + ray_height
        near = clearance[i]
        for k in range(rays):
            row = i * rays + k
            c, s = cos[i, k], sin[i, k]
            starts[row, 0] = cx + c * near
            starts[row, 1] = cy + s * near
            starts[row, 2] = cz + 0.0 * near
            ends[row, 0] = cx + c * ray_range
            ends[row, 1] = cy + s * ray_range
            ends[row, 2] = cz + 0.0 * ray_range


@njit(
    "void(int64[::1], float64[::1], float64[::1], float64, int64[::1], float32[:, ::1], int64[:, ::1])",
    cache=True,
)
def scan_readings(
    body: np.ndarray,
    fraction: np.ndarray,
    clearance: np.ndarray,
    ray_range: float,
    kinds: np.ndarray,
    distance: np.ndarray,
    kind: np.ndarray,
) -> None:
    """Fill `distance` (a, rays) [m] and `kind` (a, rays) (HIT_*) from a scan's first bodies (-1: none)
    and hit fractions (a * rays,): a miss reads `ray_range`.

    Args:
        kinds: body id -> HIT_* for ids up to len - 2; larger ids read entry len - 2, a miss the last one.
    """
    agents, rays = distance.shape
    top = kinds.size - 2
    for i in range(agents):
        near = clearance[i]
        span = ray_range - near
        for k in range(rays):
            row = i * rays + k
            b = body[row]
            f = fraction[row] if b >= 0 else 1.0
            distance[i, k] = np.float32(near + f * span if f < 1.0 else ray_range)
            kind[i, k] = kinds[min(b, top)] if b >= 0 else kinds[top + 1]
