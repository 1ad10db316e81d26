"""The rules that turn an agent's target velocity before the avoidance's linear program (compiled, numba;
one implementation): keep right when the way ahead is blocked, form lanes against oncoming agents in a
narrow place, and run along a wall a turn would lead into (`navigation.avoidance` explains each; the
callers are in `navigation.avoidance_kernels`). They change the objective only, never a constraint.

No fastmath: the same input gives the same target bit for bit.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

LANE = 1.5  # a neighbour blocks the way when laterally within LANE x the two radii (fading out)
TOUCH = 0.05  # [m] an agent this close to a wall (beyond its radius) touches it: keep-right runs along it


@njit(cache=True)
def narrow_turn(speed: float, want: float, turn_right: float, turn_narrow: float) -> float:
    """The keep-right limit [rad] of an agent in a narrow place going at `speed` [m/s] that wants `want`
    [m/s]: `turn_narrow` when it stands, `turn_right` from half its preferred speed on, linear between.
    Backing off frees a stopped jam (a corridor's two groups, a doorway's mouth); an agent still making
    way keeps to the open turn (walking agents that met in an aisle and backed off from each other stood
    there: warehouse soak stuck 0.71-1.07 % against 0.43-0.70 %)."""
    if want <= 0.0 or turn_narrow <= turn_right:
        return turn_right
    stopped = max(0.0, 1.0 - 2.0 * min(1.0, speed / want))
    return turn_right + (turn_narrow - turn_right) * stopped


@njit(cache=True)
def keep_right(
    i: int,
    tx: float,
    ty: float,
    pref: np.ndarray,
    vel: np.ndarray,
    pos: np.ndarray,
    radii: np.ndarray,
    prio: np.ndarray,
    nb_j: np.ndarray,
    found: int,
    tau: float,
    turn_right: float,
    turn_open: float,
    reach_ahead: float,
    turn_lane: float,
) -> tuple[float, float]:
    """The target (tx, ty) turned to the right by up to `turn_right` [rad] when a neighbour blocks the way
    ahead: one that the agent would reach within `tau` going at its preferred velocity and that will then
    still be in its lane (laterally within LANE x the two radii, fading out; a crossing agent will have
    left it), the sooner the more (1 - time to reach / tau), scaled by twice the agent's share of the
    avoidance (at most 1: equal priorities turn fully, a high priority hardly). A neighbour standing (a
    preferred velocity of 0), or one that yields to the agent (a lower priority: parked at its goal, held by
    a gate), turns it by at most `turn_open`: backing off from it frees nothing, it is the one to move. With
    `turn_lane` > 0, an oncoming neighbour ahead within `reach_ahead` [m] that is not yet clearly on the
    agent's left turns it by up to `turn_lane` (the lane rule)."""
    speed = math.hypot(pref[i, 0], pref[i, 1])
    if speed <= 0.0:
        return tx, ty
    ux, uy = pref[i, 0] / speed, pref[i, 1] / speed
    blocked = 0.0  # by someone who means to move and does not yield: up to turn_right
    standing = 0.0  # by someone standing or yielding: up to turn_open (backing off from it frees nothing)
    for f in range(found):
        j = nb_j[f]
        rx, ry = pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1]
        ahead = rx * ux + ry * uy
        comb = radii[i] + radii[j]
        closing = speed - (vel[j, 0] * ux + vel[j, 1] * uy)
        if ahead <= 0.0 or closing <= 0.0:
            continue
        reach = max(ahead - comb, 0.0) / closing
        # where j will be across the lane when the agent gets there: a crossing agent will have left it
        lateral = (ux * ry - uy * rx) + (ux * vel[j, 1] - uy * vel[j, 0]) * reach
        lane = 1.0 - abs(lateral) / (LANE * comb)
        if lane <= 0.0:
            continue
        share = min(1.0, 2.0 * prio[j] / (prio[i] + prio[j]))  # a high priority keeps its course
        if (pref[j, 0] != 0.0 or pref[j, 1] != 0.0) and share >= 1.0:  # at least the agent's priority
            blocked = max(blocked, share * lane * (1.0 - reach / tau))
        else:
            standing = max(standing, share * lane * (1.0 - reach / tau))
    counter = 0.0  # oncoming agents ahead that are not yet clearly on the agent's left: form a lane
    if turn_lane > 0.0:
        for f in range(found):
            j = nb_j[f]
            rx, ry = pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1]
            ahead = rx * ux + ry * uy
            if ahead <= 0.0 or ahead > reach_ahead:
                continue
            wants = math.hypot(pref[j, 0], pref[j, 1])
            if wants <= 0.0:
                continue
            oncoming = -(pref[j, 0] * ux + pref[j, 1] * uy) / wants
            if oncoming <= 0.5:
                continue
            comb = radii[i] + radii[j]
            left = ux * ry - uy * rx  # how far j is to the agent's left [m]
            clear = 1.0 - left / (LANE * comb)
            if clear <= 0.0:
                continue
            share = min(1.0, 2.0 * prio[j] / (prio[i] + prio[j]))
            counter = max(counter, share * min(1.0, clear) * (2.0 * oncoming - 1.0))
    angle = -max(turn_right * blocked, min(turn_right, turn_open) * standing, turn_lane * counter)
    if angle == 0.0:
        return tx, ty
    c, s = math.cos(angle), math.sin(angle)
    return c * tx - s * ty, s * tx + c * ty


@njit(cache=True)
def along_walls(
    px: float,
    py: float,
    tx: float,
    ty: float,
    kx: float,
    ky: float,
    planes: np.ndarray,
    count: int,
    touch: float,
) -> tuple[float, float]:
    """The keep-right target (kx, ky), turned from (tx, ty), for an agent at (px, py) against walls: where
    it would lead into one of the `count` walls of `planes` (rows cx, cy, nx, ny: nearest point and unit
    normal toward the agent) that the agent already touches (within `touch` [m]), it runs along that wall
    instead, at the same speed: forward when the turn was up to a right angle (the agent has kept right all
    it can), backward beyond (backing off). Turned straight into a wall, a target would stop the agent."""
    speed = math.hypot(kx, ky)
    for m in range(count):
        cx, cy, nx, ny = planes[m, 0], planes[m, 1], planes[m, 2], planes[m, 3]
        if (px - cx) * nx + (py - cy) * ny > touch:
            continue
        into = kx * nx + ky * ny
        if into >= 0.0:
            continue
        ax, ay = kx - into * nx, ky - into * ny  # the part along the wall
        along = math.hypot(ax, ay)
        if along <= 1e-9 * max(speed, 1e-300):  # straight into it: along the wall the way it was going
            ax, ay = -ny, nx
            if ax * tx + ay * ty < 0.0:
                ax, ay = -ax, -ay
            along = 1.0
        kx, ky = ax / along * speed, ay / along * speed
    return kx, ky
