"""Convex box casts by conservative advancement (PyBullet has no shape sweep).

The distance between a translating convex shape and a convex obstacle is a convex function of the travel,
so stepping by `d / (v . n)` (d: current closest distance, n: unit direction from the box to the closest
point, v: unit travel direction) can never step through the obstacle. Concave meshes are handled per child
triangle, which are convex. The cast stops when the gap falls under `tolerance`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from scenes._bullet import Client
from scenes._bullet import pybullet as pb
from scenes.errors import WorldError

_MAX_ITERATIONS = 64


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


def _vec3(value: object, name: str) -> np.ndarray:
    a = np.asarray(value, dtype=np.float64)
    if a.shape != (3,) or not np.isfinite(a).all():
        raise WorldError(f"{name} must be 3 finite numbers, got {value!r}")
    return a


def box_cast(
    client: Client,
    shape: int,
    orientation: tuple[float, float, float, float],
    start: np.ndarray,
    end: np.ndarray,
    candidates: list[int],
    *,
    tolerance: float = 1e-3,
    calls: Counter[str] | None = None,
) -> BoxCastHit:
    """Sweep the collision `shape` (oriented by the xyzw quaternion) from `start` to `end` [m].

    Only the bodies in `candidates` are tested (the caller gathers them from an AABB query over the
    swept box and filters out the caster and masked groups). `calls`, when given, counts the PyBullet
    calls made: `getClosestPoints`, one per candidate per advancement step, added once at the end.
    """
    s, e = _vec3(start, "start"), _vec3(end, "end")
    travel = e - s
    length = float(np.linalg.norm(travel))
    direction = travel / length if length > 0 else np.zeros(3)
    done = 0.0
    first = True
    steps = 0
    for steps in range(1, _MAX_ITERATIONS + 1):
        position = s + direction * done
        reach = (length - done) + tolerance
        best_step = np.inf
        contact = None
        for body in candidates:
            points = client.getClosestPoints(
                -1,
                body,
                reach,
                collisionShapeA=shape,
                collisionShapePositionA=position,
                collisionShapeOrientationA=orientation,
            )
            for p in points:
                gap = p[8]
                normal_on_b = np.asarray(p[7])  # points from the obstacle towards the box
                if gap <= tolerance:
                    if contact is None or gap < contact[0]:
                        contact = (gap, body, np.asarray(p[6]), normal_on_b)
                    continue
                closing = float(-direction @ normal_on_b)
                if closing > 1e-9:
                    best_step = min(best_step, gap / closing)
        if contact is not None:
            if calls is not None:
                calls["getClosestPoints"] += steps * len(candidates)
            return BoxCastHit(
                True,
                done / length if length > 0 else 0.0,
                done,
                position,
                contact[2],
                contact[3],
                int(contact[1]),
                started_in_contact=first,
            )
        first = False
        if not np.isfinite(best_step) or done + best_step >= length:
            break
        done += best_step
    if calls is not None:
        calls["getClosestPoints"] += steps * len(candidates)
    return BoxCastHit(False, 1.0, length, e, np.full(3, np.nan), np.zeros(3), -1)


def box_shape(client: Client, half_extents: np.ndarray) -> int:
    """A collision shape for box casts (the caller caches it per half-extents)."""
    h = np.asarray(half_extents, dtype=np.float64)
    if h.shape != (3,) or not (np.isfinite(h).all() and (h > 0).all()):
        raise WorldError(f"box half extents must be 3 positive finite numbers, got {half_extents!r}")
    return int(client.createCollisionShape(pb.GEOM_BOX, halfExtents=h.tolist()))
