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
from collections.abc import Container, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

from scenes import groups
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
_ZERO3 = (0.0, 0.0, 0.0)


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


@dataclass(frozen=True)
class BoxCastHits:
    """The results of m box casts (`World.box_casts`), row i what one `BoxCastHit` holds.

    Attributes:
        hit: (m,) bool: the box touched something before reaching the end.
        fraction: (m,) travelled fraction of start->end where it touched [0, 1]; 1.0 for no hit.
        distance: (m,) travelled distance [m].
        position: (m, 3) box centre at the touch (or the end) [m].
        point: (m, 3) closest point on the obstacle [m] (NaN without a hit).
        normal: (m, 3) obstacle surface normal pointing towards the box (zeros without a hit).
        body: (m,) int64 obstacle body id, -1 without a hit.
        started_in_contact: (m,) bool: the box already touched (or overlapped) something at the start.
    """

    hit: np.ndarray
    fraction: np.ndarray
    distance: np.ndarray
    position: np.ndarray
    point: np.ndarray
    normal: np.ndarray
    body: np.ndarray
    started_in_contact: np.ndarray

    def __len__(self) -> int:
        return int(self.hit.shape[0])

    def row(self, i: int) -> BoxCastHit:
        """Row i as a `BoxCastHit` (copies of the arrays)."""
        return BoxCastHit(
            bool(self.hit[i]),
            float(self.fraction[i]),
            float(self.distance[i]),
            self.position[i].copy(),
            self.point[i].copy(),
            self.normal[i].copy(),
            int(self.body[i]),
            bool(self.started_in_contact[i]),
        )


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
    contact, done, length, position, started, queries = advance(
        cid, shape, orientation, start, end, candidates, tolerance
    )
    if calls is not None:
        calls["getClosestPoints"] += queries
    if contact is None:
        return BoxCastHit(False, 1.0, length, np.array(end), np.array(_NAN3), np.zeros(3), -1)
    return BoxCastHit(
        True,
        done / length if length > 0.0 else 0.0,
        done,
        np.array(position),
        np.array(contact[2], dtype=np.float64),
        np.array(contact[3], dtype=np.float64),
        int(contact[1]),
        started_in_contact=started,
    )


Contact = tuple[float, int, Sequence[float], Sequence[float]]
"""A touch found by `advance`: (gap [m], obstacle body, closest point on it [m], its normal to the box)."""


def advance(
    cid: int,
    shape: int,
    orientation: tuple[float, ...],
    start: tuple[float, float, float],
    end: tuple[float, float, float],
    candidates: Sequence[int],
    tolerance: float,
) -> tuple[Contact | None, float, float, tuple[float, float, float], bool, int]:
    """The conservative advancement of one cast (the rule of the module doc), in plain floats: returns
    (the touch or None, the travel done [m], the cast's length [m], the box centre where it stopped [m],
    whether it touched at the start, the `getClosestPoints` calls made)."""
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
    position = start
    for iteration in range(_MAX_ITERATIONS):
        position = (sx + dx * done, sy + dy * done, sz + dz * done)
        remaining = length - done
        reach = remaining + tolerance
        best_step = math.inf
        contact: Contact | None = None
        nearest: Contact | None = None
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
            return contact, done, length, position, iteration == 0, queries
        if done + best_step >= length:  # the end is free (an infinite step: nothing ahead)
            break
        done += best_step
        active = in_reach
    return None, length, length, end, False, queries


def candidates(
    cid: int,
    half: tuple[float, ...],
    start: tuple[float, float, float],
    end: tuple[float, float, float],
    turn: float,
    skip: Container[int],
    kinds: dict[int, int],
    want: int,
) -> tuple[list[int], tuple[float, float, float, float]]:
    """The bodies a box cast tests, and the box's orientation: one AABB query (`getOverlappingObjects`)
    over the box of half extents `half` [m], turned by `turn` [rad] about Z, swept from `start` to `end`
    [m], plus a margin over the cast's tolerance (nothing outside it can touch); minus the bodies in
    `skip` and those whose group (`kinds`, PROP when unknown) is not in `want`. Returns (sorted body ids,
    xyzw quaternion)."""
    c, si = math.cos(turn), math.sin(turn)
    hx, hy, hz = half
    ax = abs(c) * hx + abs(si) * hy + 0.01
    ay = abs(si) * hx + abs(c) * hy + 0.01
    az = hz + 0.01
    sx, sy, sz = start
    ex, ey, ez = end
    lo = (min(sx, ex) - ax, min(sy, ey) - ay, min(sz, ez) - az)
    hi = (max(sx, ex) + ax, max(sy, ey) + ay, max(sz, ez) + az)
    found = pb.getOverlappingObjects(lo, hi, cid) or ()
    prop = groups.PROP
    bodies = sorted({b for b, _link in found if b not in skip and kinds.get(b, prop) & want})
    return bodies, (0.0, 0.0, math.sin(0.5 * turn), math.cos(0.5 * turn))  # getQuaternionFromEuler


Advance = tuple[Contact | None, float, float, tuple[float, float, float], bool, int]
"""What `advance` returns: (the touch or None, travel done [m], length [m], stop [m], started, queries)."""


def result_table(out: Sequence[Advance]) -> np.ndarray:
    """One float row of 14 per `advance` result (ids and flags are small integers: exact), converted once:
    hit, fraction, distance, position (3), point (3), normal (3), body, started."""
    return np.array(
        [
            (
                c is not None,
                (done / length if length > 0.0 else 0.0) if c is not None else 1.0,
                done,
                *position,
                *(_NAN3 if c is None else c[2]),
                *(_ZERO3 if c is None else c[3]),
                -1 if c is None else c[1],
                started,
            )
            for c, done, length, position, started, _ in out
        ],
        dtype=np.float64,
    ).reshape(len(out), 14)


def table_hits(table: np.ndarray) -> BoxCastHits:
    """`result_table`'s rows as `BoxCastHits`."""
    return BoxCastHits(
        table[:, 0] != 0.0,
        table[:, 1],
        table[:, 2],
        table[:, 3:6],
        table[:, 6:9],
        table[:, 9:12],
        table[:, 12].astype(np.int64),
        table[:, 13] != 0.0,
    )


CastRows = tuple[
    list[tuple[float, ...]],
    list[tuple[float, float, float]],
    list[tuple[float, float, float]],
    list[float],
    list[tuple[int, ...]],
]
"""m casts as plain Python values: half extents [m], starts and ends [m], yaws [rad], bodies to ignore."""


def cast_rows(half_extents: object, starts: object, ends: object, yaws: object, ignore: object) -> CastRows:
    """`World.box_casts`' arguments checked, as `CastRows`.

    Raises:
        WorldError: what is wrong and what was given.
    """
    s, e, h = _floats(starts), _floats(ends), _floats(half_extents)
    m = len(s) if s.ndim == 2 else -1
    yaw = np.zeros(max(m, 0)) if yaws is None else _floats(yaws)
    if not (s.shape[1:] == (3,) and e.shape == (m, 3) and h.shape in ((3,), (m, 3)) and yaw.shape == (m,)):
        raise WorldError(_cast_rows_error(half_extents, starts, ends, yaws))
    rows_s, rows_e, turn = list(map(tuple, s.tolist())), list(map(tuple, e.tolist())), yaw.tolist()
    distinct = [tuple(h.tolist())] if h.ndim == 1 else list(map(tuple, h.tolist()))
    halves = distinct * m if h.ndim == 1 else distinct
    # plain Python over the floats the casts take anyway: no ufunc to run (cheaper with cold caches)
    sizes = list(chain.from_iterable(distinct))
    numbers = chain(chain.from_iterable(rows_s), chain.from_iterable(rows_e), turn, sizes)
    if not (all(map(math.isfinite, numbers)) and all(v > 0.0 for v in sizes)):
        raise WorldError(_cast_rows_error(half_extents, starts, ends, yaws))
    skip: list[tuple[int, ...]] = [()] * m
    if ignore is not None:
        ids = _floats(ignore, kinds="iu")
        if ids.ndim not in (1, 2) or len(ids) != m:
            raise WorldError(
                f"box cast ignore must be None, or ({m},) or ({m}, j) body ids (-1: none), "
                f"got {_shown(ignore)}"
            )
        skip = list(map(tuple, (ids[:, None] if ids.ndim == 1 else ids).tolist()))
    return halves, rows_s, rows_e, turn, skip


def _cast_rows_error(half_extents: object, starts: object, ends: object, yaws: object) -> str:
    """What is wrong with `cast_rows`' arguments (one of them is)."""
    s, e, h = _floats(starts), _floats(ends), _floats(half_extents)
    if s.ndim != 2 or s.shape[1] != 3 or not _finite(s):
        return f"box cast starts must be an (m, 3) array of finite numbers [m], got {_shown(starts)}"
    m = len(s)
    if e.shape != (m, 3) or not _finite(e):
        return f"box cast ends must be an ({m}, 3) array of finite numbers [m], got {_shown(ends)}"
    if h.shape not in ((3,), (m, 3)) or not (_finite(h) and (h > 0).all()):
        return (
            f"box half extents must be (3,) or ({m}, 3) positive finite numbers [m], "
            f"got {_shown(half_extents)}"
        )
    return f"box cast yaws must be None or ({m},) finite numbers [rad], got {_shown(yaws)}"


def _finite(a: np.ndarray) -> bool:
    """Every number of `a` is finite (true for an empty array)."""
    return bool(np.logical_and.reduce(np.isfinite(a), axis=None))


_NOT_NUMBERS = np.zeros((0, 0, 0))  # what `_floats` gives for anything but numbers: no shape check passes


def _floats(value: object, *, kinds: str = "iuf") -> np.ndarray:
    """value as a float64 array (int64 when `kinds` has no "f"), or `_NOT_NUMBERS` when it is not numbers."""
    if type(value) is np.ndarray and value.dtype == np.float64 and "f" in kinds:
        return value
    try:
        a = np.asarray(value)
    except Exception:  # an odd object that fails on conversion is not numbers
        return _NOT_NUMBERS
    if a.dtype.kind not in kinds:
        return _NOT_NUMBERS
    return a.astype(np.float64 if "f" in kinds else np.int64, copy=False)


def _shown(value: object) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def box_shape(client: Client, half_extents: np.ndarray) -> int:
    """A collision shape for box casts (the caller caches it per half-extents)."""
    h = np.asarray(half_extents, dtype=np.float64)
    if h.shape != (3,) or not (np.isfinite(h).all() and (h > 0).all()):
        raise WorldError(f"box half extents must be 3 positive finite numbers, got {half_extents!r}")
    return int(client.createCollisionShape(pb.GEOM_BOX, halfExtents=h.tolist()))
