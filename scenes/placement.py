"""Kinematic placement in one compiled pass: check the rows and centres, write the pose cache (positions,
and the moves over the tick as velocities), list the bodies that moved. `World.place_kinematic` then
teleports those in PyBullet (one raw call each). numba is imported only once a world has kinematic
capsules."""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit

NOT_FINITE = -1  # `place_rows`: a centre is NaN or infinite
NOT_KINEMATIC = -2  # `place_rows`: a row is out of range or not a kinematic capsule's


@njit(cache=True)
def place_rows(
    rows: np.ndarray,
    centers: np.ndarray,
    kinematic: np.ndarray,
    positions: np.ndarray,
    velocities: np.ndarray,
    dt: float,
    moved: np.ndarray,
) -> int:
    """Write `centers` (n, 3) [m] to the pose-cache rows `rows` (n,) of `positions` (m, 3), and (centre -
    old position) / `dt` [s] to `velocities` (m, 3) [m/s]; `kinematic` (m,) bool marks the rows that may
    be placed. Returns how many rows changed position (their indices into `rows` fill the front of
    `moved`, in order), or NOT_FINITE / NOT_KINEMATIC, in that order of checks, before anything is
    written."""
    n, m = rows.shape[0], positions.shape[0]
    for i in range(n):
        for k in range(3):
            if not math.isfinite(centers[i, k]):
                return NOT_FINITE
    for i in range(n):
        r = rows[i]
        if r < 0 or r >= m or not kinematic[r]:
            return NOT_KINEMATIC
    count = 0
    for i in range(n):
        r = rows[i]
        changed = False
        for k in range(3):
            v = centers[i, k]
            changed = changed or v != positions[r, k]
            velocities[r, k] = (v - positions[r, k]) / dt
            positions[r, k] = v
        if changed:  # a body that stays is not teleported
            moved[count] = i
            count += 1
    return count


@functools.cache  # once per process: a later call costs nothing (an env reset builds a new world)
def warm_up() -> None:
    """Compile `place_rows` now (or load it from the disk cache), not in the first tick."""
    place_rows(
        np.zeros(0, dtype=np.int64), np.zeros((0, 3)), np.zeros(1, dtype=np.bool_), np.zeros((1, 3)),
        np.zeros((1, 3)), 1.0, np.zeros(0, dtype=np.int64),
    )  # fmt: skip
