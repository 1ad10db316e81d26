"""Convex box casts by conservative advancement (PyBullet has no shape sweep).

The distance between a translating convex shape and a convex obstacle is a convex function of the travel,
so stepping by `d / (v . n)` (d: current closest distance, n: unit normal from the obstacle towards the
box, v: unit travel direction, `v . n < 0` when closing in) can never step through the obstacle. Concave
meshes are handled per child triangle, which are convex.

The cast stops at a closest point that is a touch: the box penetrates or touches the obstacle (`d <=
CONTACT_GAP`), or that linear bound puts the touch within `tolerance` of travel (`d <= tolerance * -(v .
n)`, 1 micrometre by default). A small gap alone is not a touch: a box sliding past a face nearly parallel
to it, a fraction of a millimetre away, may still have metres to go before it meets the face, or never meet
it; stopping there reported the hit far too early. The box is left where the touch was found (never past
it), so the distance is at most `tolerance` (or, for a grazing touch, `CONTACT_GAP / -(v . n)`) short.

PyBullet rounds the edges of its box shapes by their collision margin (1 mm): the faces are exact, but a
box corner meeting a face at a grazing angle can touch millimetres of travel later than a sharp corner would,
and a sub-millimetre overlap of two sharp corners may not touch at all.

Cost: a cast is a handful of `getClosestPoints` calls, so the loop calls the raw `pybullet` function with
the client id (the `BulletClient` wrapper builds a `functools.partial` per call) and works on plain floats.
A candidate with no point within the rest of the sweep is dropped for the later steps (the distance changes
by at most the travel, so it stays out of reach): exact, only the number of queries changes.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from scenes._bullet import Client
from scenes._bullet import pybullet as pb
from scenes.errors import WorldError

_MAX_ITERATIONS = 64
CONTACT_GAP = 1e-12
"""A gap [m] at or under which the box touches an obstacle, whatever its direction of travel."""

_ORIGIN = (0.0, 0.0, 0.0)
_IDENTITY = (0.0, 0.0, 0.0, 1.0)
_NO_LINK = -2  # getClosestPoints' linkIndexA / linkIndexB default: every link
_NAN3 = (math.nan, math.nan, math.nan)


@dataclass(frozen=True)
class BoxCastHit:
    """The result of one box cast.

    Attributes:
        hit: whether the box touched something before reaching the end.
        fraction: travelled fraction of start->end where it touched [0, 1]; 1.0 for no hit.
        distance: travelled distance [m].
        position: box centre at the touch (or the end) [m].
        point: closest point on the obstacle [m] (NaN without a hit).
        normal: obstacle surface normal pointing towards the box (zeros without a hit).
        body: obstacle body id, -1 without a hit.
        started_in_contact: the box already touched (or overlapped) something at the start.
    """

    hit: bool
    fraction: float
    distance: float
    position: np.ndarray
    point: np.ndarray
    normal: np.ndarray
    body: int
    started_in_contact: bool = False


def as_point(value: object) -> tuple[float, float, float] | None:
    """`value` as 3 finite floats, or None if it is not 3 finite numbers (fast for tuples and arrays)."""
    items: Any = value.tolist() if isinstance(value, np.ndarray) else value
    try:
        x, y, z = map(float, items)
    except (TypeError, ValueError):
        return None
    if math.isfinite(x) and math.isfinite(y) and math.isfinite(z):
        return x, y, z
    return None


def box_cast(
    client: Client | int,
    shape: int,
    orientation: Sequence[float],
    start: np.ndarray,
    end: np.ndarray,
    candidates: Sequence[int],
    *,
    tolerance: float = 1e-6,
    calls: Counter[str] | None = None,
) -> BoxCastHit:
    """Sweep the collision `shape` (oriented by the xyzw quaternion) from `start` to `end` [m].

    Only the bodies in `candidates` are tested (the caller gathers them from an AABB query over the
    swept box and filters out the caster and masked groups). `client` is a `BulletClient` or a raw
    physics client id. `tolerance` [m of travel]: how far short of the touch the cast may stop (see the
    module doc); a cast of zero length hits what is within `tolerance` of the box. `calls`, when given,
    counts the PyBullet calls made: `getClosestPoints`, one per candidate still in reach per advancement
    step, added once at the end.

    Raises:
        WorldError: `start` or `end` is not 3 finite numbers.
    """
    s, e = as_point(start), as_point(end)
    if s is None:
        raise WorldError(f"start must be 3 finite numbers, got {start!r}")
    if e is None:
        raise WorldError(f"end must be 3 finite numbers, got {end!r}")
    cid = client if isinstance(client, int) else int(client._client)
    q = tuple(map(float, orientation))
    return sweep(cid, shape, q, s, e, candidates, tolerance=tolerance, calls=calls)


def sweep(
    cid: int,
    shape: int,
    orientation: tuple[float, ...],
    start: tuple[float, float, float],
    end: tuple[float, float, float],
    candidates: Sequence[int],
    *,
    tolerance: float = 1e-6,
    calls: Counter[str] | None = None,
) -> BoxCastHit:
    """`box_cast` on checked inputs: a raw client id, start and end as tuples of finite floats."""
    sx, sy, sz = start
    ex, ey, ez = end
    length = math.sqrt((ex - sx) ** 2 + (ey - sy) ** 2 + (ez - sz) ** 2)
    if length > 0.0:
        dx, dy, dz = (ex - sx) / length, (ey - sy) / length, (ez - sz) / length
        touch = CONTACT_GAP
    else:  # a box that does not move touches what is within the tolerance
        dx = dy = dz = 0.0
        touch = tolerance
    closest, no_link, origin, identity = pb.getClosestPoints, _NO_LINK, _ORIGIN, _IDENTITY
    active = list(candidates)
    queries = 0
    done = 0.0
    for iteration in range(_MAX_ITERATIONS):
        position = (sx + dx * done, sy + dy * done, sz + dz * done)
        remaining = length - done
        reach = remaining + tolerance
        best_step = math.inf
        contact = nearest = None
        in_reach = []
        for body in active:
            points = closest(
                -1, body, reach, no_link, no_link, shape, -1, position, origin, orientation, identity, cid
            )
            if not points:
                # all of the body is farther than the rest of the sweep: it stays out of reach from now on
                continue
            in_reach.append(body)
            for p in points:
                gap = p[8]
                n = p[7]  # unit normal from the obstacle towards the box
                closing = -(dx * n[0] + dy * n[1] + dz * n[2])  # gap closed per metre of travel
                if gap <= touch or gap <= tolerance * closing:
                    if contact is None or gap < contact[0]:
                        contact = (gap, body, p[6], n)
                elif closing > 0.0:
                    step = gap / closing
                    if step < best_step:
                        best_step, nearest = step, (gap, body, p[6], n)
        queries += len(active)
        if contact is None and iteration == _MAX_ITERATIONS - 1 and done + best_step < length:
            contact = nearest  # still closing in after every step allowed: stop short of it, on the safe side
        if contact is not None:
            if calls is not None:
                calls["getClosestPoints"] += queries
            return BoxCastHit(
                True,
                done / length if length > 0.0 else 0.0,
                done,
                np.array(position),
                np.array(contact[2], dtype=np.float64),
                np.array(contact[3], dtype=np.float64),
                int(contact[1]),
                started_in_contact=iteration == 0,
            )
        if done + best_step >= length:  # the end is free (an infinite step: nothing ahead)
            break
        done += best_step
        active = in_reach
    if calls is not None:
        calls["getClosestPoints"] += queries
    return BoxCastHit(False, 1.0, length, np.array(end), np.array(_NAN3), np.zeros(3), -1)


def box_shape(client: Client, half_extents: np.ndarray) -> int:
    """A collision shape for box casts (the caller caches it per half-extents)."""
    h = np.asarray(half_extents, dtype=np.float64)
    if h.shape != (3,) or not (np.isfinite(h).all() and (h > 0).all()):
        raise WorldError(f"box half extents must be 3 positive finite numbers, got {half_extents!r}")
    return int(client.createCollisionShape(pb.GEOM_BOX, halfExtents=h.tolist()))
