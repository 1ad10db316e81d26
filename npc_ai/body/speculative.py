"""Speculative contacts between the dynamic NPC capsules: no body runs into another within a tick.

Bullet makes contact points only for bodies closer than its contact breaking threshold
(Bullet's own is 0.02 m; `WorldSettings.contact_threshold`), and its solver then lets two bodies close
no more than their gap within a step (a speculative contact). NPCs close faster than that per tick: two
running head-on close 11.9 cm a tick at 60 Hz, and in `npc-ai bench crowd` chase a guard whose body lagged
its agent's sidestep ran into another's flank at 2.9 m/s, 4.8 cm a tick. Their contact came a step late,
and the capsules went up to 3 cm into each other (overlap ticks on 16 of 81 layouts).

A threshold of 0.15 m fixes that inside the engine, but every AABB grows by it: stepping 1,000 NPCs on
the compound took 9.7 -> 24.1 ms a tick. `speculate` applies the same rule to the NPC capsules alone,
before the step, at the cost of a neighbour search: for each pair that would close more than its gap
within the tick, the excess closing speed along the line between their centres is taken off the two as
an inelastic contact between equal masses does (half each: one that runs into another's back slows down
and pushes it along, as the solver would), and off a body closing on a fixed circle (the player) by all
of it. Moving apart or sideways stays free; a pair already overlapping may not close further, and the
solver pushes it apart. Walls keep Bullet's own contacts (a capsule driven into a static box gets as deep
with any threshold; `WorldSettings.max_penetration` bounds that).

Pushing matters: a variant in which only the approaching bodies slowed (no body pushed another along) made
crowds jam (`npc-ai bench crowd`, 81 layouts: corridor all arrive in 75 -> 70, doorway 80 -> 73).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from navigation.kernel_cache import forget_stale_kernels
from npc_ai.body.kinematic import pair_list

forget_stale_kernels(__file__, ("npc_ai.body.kinematic",))  # its neighbour search is compiled into speculate

SWEEPS = 4  # Gauss-Seidel sweeps over the pairs at most (a chain of bodies needs one per link)
MARGIN = 0.01  # [m] pairs are listed this much beyond the reach of their fastest closing in a tick


@njit(cache=True)
def speculate(
    feet: np.ndarray,
    velocity: np.ndarray,
    radius: float,
    dt: float,
    others: np.ndarray,
    other_radii: np.ndarray,
    sweeps: int,
) -> int:
    """Limit the velocities (n, 3) [m/s] (changed in place; the vertical part is kept) of the circles of
    `radius` [m] at `feet` (n, 2 or more) [m] so that over `dt` [s] no pair closes more than its gap (0
    once they touch), nor any circle on the fixed circles `others` (m, 2) [m] of `other_radii` (m,) [m],
    in at most `sweeps` Gauss-Seidel sweeps. Returns how many limits the first sweep applied."""
    n = feet.shape[0]
    top = 0.0
    for i in range(n):
        top = max(top, math.hypot(velocity[i, 0], velocity[i, 1]))
    pi, pj = pair_list(feet, 2.0 * radius + 2.0 * top * dt + MARGIN)
    first = -1
    for _ in range(sweeps):
        limited = 0
        for k in range(pi.shape[0]):
            i, j = pi[k], pj[k]
            ex, ey = feet[j, 0] - feet[i, 0], feet[j, 1] - feet[i, 1]
            d = math.hypot(ex, ey)
            if d < 1e-9:
                continue
            ex, ey = ex / d, ey / d
            closing = (velocity[i, 0] - velocity[j, 0]) * ex + (velocity[i, 1] - velocity[j, 1]) * ey
            excess = closing - max(d - 2.0 * radius, 0.0) / dt
            if excess > 1e-9:
                half = 0.5 * excess
                velocity[i, 0] -= half * ex
                velocity[i, 1] -= half * ey
                velocity[j, 0] += half * ex
                velocity[j, 1] += half * ey
                limited += 1
        for i in range(n if others.shape[0] else 0):
            for k in range(others.shape[0]):
                ex, ey = others[k, 0] - feet[i, 0], others[k, 1] - feet[i, 1]
                d = math.hypot(ex, ey)
                if d < 1e-9:
                    continue
                ex, ey = ex / d, ey / d
                gap = max(d - radius - other_radii[k], 0.0)
                excess = velocity[i, 0] * ex + velocity[i, 1] * ey - gap / dt
                if excess > 1e-9:
                    velocity[i, 0] -= excess * ex
                    velocity[i, 1] -= excess * ey
                    limited += 1
        if first < 0:
            first = limited
        if limited == 0:
            break
    return max(first, 0)


def warm_up() -> None:
    """Compile `speculate` now (or load it from the disk cache), not in the first tick."""
    speculate(np.zeros((2, 3)), np.zeros((2, 3)), 0.3, 1.0 / 60.0, np.zeros((1, 2)), np.ones(1), 1)
