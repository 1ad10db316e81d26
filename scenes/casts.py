"""A world's box casts: conservative advancement (`scenes.boxcast`) where it must, closed forms where
they exist, for the level's boxes turned only about Z (`box_casts`) and the tracked upright capsules
(`capsule_casts`), kept as tables beside the PyBullet bodies (`CastTables`).

When the tables hold every body a cast may hit (its mask leaves out everything else), `sweep_rows` skips
PyBullet's AABB query too: one compiled call finds the capsules near every cast, another meets the
boxes, and no cast makes a PyBullet call.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from scenes import groups
from scenes._bullet import pybullet as pb
from scenes.boxcast import BoxCastHits, CastRows, advance, candidates, result_table, table_hits
from scenes.build import StaticBoxes
from scenes.poses import PoseCache


@dataclass(frozen=True)
class Capsules:
    """The upright capsules a world tracks, for casts that meet them in closed form (`capsule_casts`).

    Attributes:
        rows: body id -> its row in the arrays. centers: (n, 3) capsule centres [m] (the pose cache).
        radius: (n,) [m]. half_segment: (n,) half the distance between the sphere centres [m].
        group: (n,) int64 collision group of each capsule (0 on the rows of other bodies).
        body: (n,) int64 the body id of each capsule (-1 on the rows of other bodies).
        row_of: (max body id + 1,) int64 `rows` as an array (-1: not a capsule).
    """

    rows: dict[int, int]
    centers: np.ndarray
    radius: np.ndarray
    half_segment: np.ndarray
    group: np.ndarray
    body: np.ndarray
    row_of: np.ndarray


@dataclass(frozen=True)
class Rest:
    """The bodies a cast may hit that no table holds: static bodies whose AABBs never change (ramps,
    meshes, assets), advanced conservatively by the casts whose swept box overlaps their AABB.

    Attributes:
        bodies: (k,) int64 body ids. lo, hi: (k, 3) their AABB corners [m].
    """

    bodies: np.ndarray
    lo: np.ndarray
    hi: np.ndarray


Tables = tuple[Capsules | None, StaticBoxes, Rest | None]
"""A world's closed-form tables for one collision mask (`CastTables.for_mask`)."""


class CastTables:
    """The closed-form tables of one world.

    Args:
        boxes: the level's boxes met in closed form (`scenes.build.static_boxes`).
        cid: the world's raw PyBullet client id. level: the world's static bodies.
    """

    def __init__(self, boxes: StaticBoxes, cid: int, level: Sequence[int]) -> None:
        self.boxes = boxes
        self._cid = cid
        self._level = [b for b in level if b not in boxes.bodies]  # the static bodies no table holds
        self._dims: dict[int, tuple[float, float]] = {}  # capsule -> (radius, half segment) [m]
        self._table: (
            tuple[dict[int, int], np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None
        ) = None
        self._rest: dict[int, Rest | None] = {}  # collision mask -> `rest(mask)`

    def add_capsule(self, body: int, radius: float, half_segment: float) -> None:
        """Track an upright capsule body of `radius` and `half_segment` [m] (between its sphere centres)."""
        self._dims[body] = (radius, half_segment)
        self._table = None  # rebuilt on the next cast
        self._rest.clear()

    def capsules(self, poses: PoseCache, kinds: dict[int, int]) -> Capsules | None:
        """The tracked capsules at their poses in `poses` (None without any); `kinds`: body -> group."""
        if not self._dims:
            return None
        if self._table is None:
            n = len(poses.bodies)
            rows = {b: poses.index(b) for b in self._dims}
            radius, half_segment, group = np.zeros(n), np.zeros(n), np.zeros(n, dtype=np.int64)
            body = np.full(n, -1, dtype=np.int64)
            row_of = np.full(max(rows) + 1, -1, dtype=np.int64)
            for b, (r, hh) in self._dims.items():
                radius[rows[b]], half_segment[rows[b]], group[rows[b]], body[rows[b]] = r, hh, kinds[b], b
                row_of[b] = rows[b]
            self._table = (rows, radius, half_segment, group, body, row_of)
        rows, radius, half_segment, group, body, row_of = self._table
        return Capsules(rows, poses.positions, radius, half_segment, group, body, row_of)

    def for_mask(self, poses: PoseCache, kinds: dict[int, int], want: int) -> Tables:
        """What casts with collision mask `want` meet in closed form: (`capsules` at `poses`, the level's
        boxes, `rest(kinds, want)`)."""
        return self.capsules(poses, kinds), self.boxes, self.rest(kinds, want)

    def rest(self, kinds: dict[int, int], want: int) -> Rest | None:
        """What a cast with collision mask `want` can hit besides the tables: the static bodies of the
        wanted groups that no table holds; None when it could also hit a body that moves and no table
        holds, or a PROP (the group of bodies made in the client outside the world, which nothing
        here knows): then the casts gather candidates from PyBullet."""
        if want in self._rest:
            return self._rest[want]
        tabled, dims, level = self.boxes.bodies, self._dims, set(self._level)
        found: Rest | None = None
        loose = [b for b, g in kinds.items() if g & want and b not in tabled and b not in dims]
        if not want & groups.PROP and level.issuperset(loose):
            boxes = [_aabb(self._cid, b) for b in loose]
            lo = np.array([a for a, _ in boxes], dtype=np.float64).reshape(len(loose), 3)
            hi = np.array([b for _, b in boxes], dtype=np.float64).reshape(len(loose), 3)
            found = Rest(np.array(loose, dtype=np.int64), lo, hi)
        self._rest[want] = found
        return found


def _aabb(cid: int, body: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The AABB [m] around every link of a body."""
    boxes = [pb.getAABB(body, link, physicsClientId=cid) for link in range(-1, pb.getNumJoints(body, cid))]
    lo = tuple(min(b[0][k] for b in boxes) for k in range(3))
    hi = tuple(max(b[1][k] for b in boxes) for k in range(3))
    return lo, hi


def sweep_rows(
    cid: int,
    rows: CastRows,
    shapes: Sequence[int],
    kinds: dict[int, int],
    want: int,
    *,
    tolerance: float = 1e-6,
    calls: Counter[str] | None = None,
    capsules: Capsules | None = None,
    boxes: StaticBoxes | None = None,
    rest: Rest | None = None,
) -> BoxCastHits:
    """`World.box_casts`' casts, row i as one `World.box_cast` (`candidates`, then `advance`) with the box
    shape `shapes[i]`; the results gathered into arrays. A horizontal cast of non-zero length meets the
    `capsules` among its candidates (`capsule_casts.first_hits`) and the level's `boxes`
    (`box_casts.first_box_hits`) in closed form, one compiled call each for every row, and advances
    conservatively against the rest. Given `rest` (`CastTables.rest`: the static bodies besides the
    tables are all the casts may hit) and every cast horizontal, no candidates are gathered: `_closed_only`
    and `_advance_rest`."""
    tabled = frozenset() if boxes is None else boxes.bodies
    horizontal = all(s[2] == e[2] and s != e for s, e in zip(rows[1], rows[2], strict=True))
    if rest is not None and horizontal and tabled.isdisjoint(chain.from_iterable(rows[4])):
        table = _closed_only(rows, want, capsules, boxes)
        if len(rest.bodies):
            _advance_rest(table, cid, rows, shapes, rest, tolerance, calls)
        return table_hits(table)
    out = []
    pair_cast: list[int] = []
    pair_row: list[int] = []
    box_rows: list[int] = []
    for c, (half, start, end, turn, skip, shape) in enumerate(zip(*rows, shapes, strict=True)):
        bodies, orientation = candidates(cid, half, start, end, turn, skip, kinds, want)
        if start[2] == end[2] and start != end and bodies:
            if capsules is not None:
                found = capsules.rows
                mine = [found[b] for b in bodies if b in found]
                if mine:
                    bodies = [b for b in bodies if b not in found]
                    pair_cast += [c] * len(mine)
                    pair_row += mine
            if tabled and want & groups.STATIC and tabled.isdisjoint(skip):
                box_rows.append(c)
                bodies = [b for b in bodies if b not in tabled]
        out.append(advance(cid, shape, orientation, start, end, bodies, tolerance))
    if calls is not None:
        calls["getOverlappingObjects"] += len(out)
        calls["getClosestPoints"] += sum(r[5] for r in out)
    table = result_table(out)
    if pair_cast and capsules is not None:
        _meet_capsules(table, rows, capsules, np.array(pair_cast, dtype=np.int64), np.array(pair_row))
    if box_rows and boxes is not None:
        _meet_boxes(table, rows, boxes, np.array(box_rows, dtype=np.int64))
    return table_hits(table)


def closed_casts(
    half_extents: object,
    starts: object,
    ends: object,
    yaws: object,
    ignore: object,
    want: int,
    capsules: Capsules | None,
    boxes: StaticBoxes | None,
    rest: Rest | None,
) -> BoxCastHits | None:
    """`World.box_casts` on its fast path: casts given as float64 arrays (`ignore` None or an int array)
    that can meet only the tables (`rest` not None; `box_casts.checked_table` checks the rest: finite,
    horizontal, moving, no tabled box ignored, no `rest` body near): their hits, row for row what
    `sweep_rows` gives, in one compiled call with no Python per row. None when any of that does not
    hold: the caller then takes the checked way (`cast_rows`, `sweep_rows`), which raises the typed
    errors."""
    from scenes.box_casts import checked_table

    if rest is None or type(starts) is not np.ndarray or type(ends) is not np.ndarray:
        return None
    m, h = len(starts), half_extents
    if not (m and starts.dtype == ends.dtype == np.float64 and starts.shape == ends.shape == (m, 3)):
        return None
    if type(h) is not np.ndarray or h.dtype != np.float64 or h.shape not in ((3,), (m, 3)):
        return None
    yaw = np.zeros(m) if yaws is None else yaws
    if type(yaw) is not np.ndarray or yaw.dtype != np.float64 or yaw.shape != (m,):
        return None
    ids = _NO_IGNORE if ignore is None else ignore
    if type(ids) is not np.ndarray or ids.dtype.kind not in "iu" or ids.ndim not in (1, 2):
        return None
    if ignore is None or not ids.size:
        ids = np.full((m, 1), -1, dtype=np.int64)
    elif len(ids) != m:
        return None
    c, b = capsules if capsules is not None else _NO_CAPSULES, boxes if boxes is not None else _NO_BOXES
    use = b if want & groups.STATIC else _NO_BOXES
    table = np.empty((m, 14))
    if not checked_table(
        np.ascontiguousarray(h.reshape(-1, 3)), np.ascontiguousarray(yaw), np.ascontiguousarray(starts),
        np.ascontiguousarray(ends), np.ascontiguousarray(ids.reshape(m, -1), dtype=np.int64), c.row_of,
        (c.group & want) != 0, c.centers, c.radius, c.half_segment, c.body, use.center, use.half, use.yaw,
        use.body, b.body, rest.lo, rest.hi, table,
    ):  # fmt: skip
        return None
    return table_hits(table)


def _closed_only(
    rows: CastRows, want: int, capsules: Capsules | None, boxes: StaticBoxes | None
) -> np.ndarray:
    """The `result_table` of horizontal casts against the capsules near each and every tabled box, in one
    compiled call (`box_casts.closed_table`), without a PyBullet call."""
    from scenes.box_casts import closed_table

    m = len(rows[0])
    table = np.empty((m, 14))
    if capsules is None:
        eligible, skip, centers = _NO_ROWS.astype(np.bool_), np.full((m, 1), -1, dtype=np.int64), _NO_POINTS
        radius = half_segment = _NO_ROWS.astype(np.float64)
        body = _NO_ROWS
    else:
        width = max(1, max(map(len, rows[4])))
        found = capsules.rows
        skip = np.array(
            [[found.get(b, -1) for b in sk] + [-1] * (width - len(sk)) for sk in rows[4]], dtype=np.int64
        ).reshape(m, width)
        eligible, centers = (capsules.group & want) != 0, capsules.centers
        radius, half_segment, body = capsules.radius, capsules.half_segment, capsules.body
    use = boxes is not None and bool(want & groups.STATIC)
    b = boxes if boxes is not None and use else _NO_BOXES
    closed_table(
        np.array(rows[0], dtype=np.float64), np.array(rows[3], dtype=np.float64),
        np.array(rows[1], dtype=np.float64), np.array(rows[2], dtype=np.float64), eligible, skip, centers,
        radius, half_segment, body, b.center, b.half, b.yaw, b.body, table,
    )  # fmt: skip
    return table


_NO_ROWS = np.zeros(0, dtype=np.int64)
_NO_POINTS = np.zeros((0, 3))
_NO_BOXES = StaticBoxes(frozenset(), _NO_POINTS, _NO_POINTS, np.zeros(0), _NO_ROWS)
_NO_CAPSULES = Capsules({}, _NO_POINTS, np.zeros(0), np.zeros(0), _NO_ROWS, _NO_ROWS, _NO_ROWS)
_NO_IGNORE = np.zeros((0, 1), dtype=np.int64)


def _advance_rest(
    table: np.ndarray,
    cid: int,
    rows: CastRows,
    shapes: Sequence[int],
    rest: Rest,
    tolerance: float,
    calls: Counter[str] | None,
) -> None:
    """Advance the casts whose swept box (the AABB query `candidates` makes) overlaps a `rest` body's AABB
    against those bodies, where the touch comes before what `table` holds."""
    half, turn = np.array(rows[0], dtype=np.float64), np.array(rows[3], dtype=np.float64)
    starts, ends = np.array(rows[1], dtype=np.float64), np.array(rows[2], dtype=np.float64)
    c, s = np.abs(np.cos(turn)), np.abs(np.sin(turn))
    reach = np.column_stack([c * half[:, 0] + s * half[:, 1], s * half[:, 0] + c * half[:, 1], half[:, 2]])
    lo, hi = np.minimum(starts, ends) - reach - 0.01, np.maximum(starts, ends) + reach + 0.01
    near: np.ndarray = np.all((lo[:, None] <= rest.hi[None]) & (hi[:, None] >= rest.lo[None]), axis=2)
    queries = 0
    for r in np.flatnonzero(near.any(axis=1)).tolist():
        skip = rows[4][r]
        bodies = [b for b in rest.bodies[near[r]].tolist() if b not in skip]
        q = (0.0, 0.0, math.sin(0.5 * rows[3][r]), math.cos(0.5 * rows[3][r]))
        found = advance(cid, shapes[r], q, rows[1][r], rows[2][r], bodies, tolerance)
        queries += found[5]
        row = result_table([found])[0]
        if found[0] is not None and row[1] <= table[r, 1]:  # ties to advancement, as in `sweep_rows`
            table[r] = row
    if calls is not None:
        calls["getClosestPoints"] += queries


def _scratch(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What a closed-form kernel writes for `table`'s rows: (fractions so far, which (-1), points, normals,
    started)."""
    m = len(table)
    return (
        table[:, 1].copy(), np.full(m, -1, dtype=np.int64), np.zeros((m, 3)), np.zeros((m, 3)),
        np.zeros(m, dtype=np.bool_),
    )  # fmt: skip


def _meet_capsules(
    table: np.ndarray, rows: CastRows, capsules: Capsules, cast_of: np.ndarray, capsule_row: np.ndarray
) -> None:
    """Write into `table` (`sweep_rows`' rows) each cast's first touch of its candidate capsules, where it
    comes before what is there."""
    from scenes.capsule_casts import first_hits  # numba (and what it loads) only once a cast meets a capsule

    fraction, which, point, normal, started = _scratch(table)
    starts, ends = np.array(rows[1], dtype=np.float64), np.array(rows[2], dtype=np.float64)
    first_hits(
        np.array(rows[0], dtype=np.float64), np.array(rows[3], dtype=np.float64), starts, ends, cast_of,
        capsules.centers[capsule_row], capsules.radius[capsule_row], capsules.half_segment[capsule_row],
        fraction, which, point, normal, started,
    )  # fmt: skip
    met = np.flatnonzero(which >= 0)
    if not met.size:
        return
    hit = (fraction, point, normal, started, capsules.body[capsule_row[which[met]]])
    _write(table, starts, ends, met, hit)


def _meet_boxes(table: np.ndarray, rows: CastRows, boxes: StaticBoxes, cast_rows: np.ndarray) -> None:
    """Write into `table` (`sweep_rows`' rows) the first touch of each of `cast_rows` with the level's
    tabled boxes, where it comes before what is there."""
    from scenes.box_casts import first_box_hits

    fraction, which, point, normal, started = _scratch(table)
    starts, ends = np.array(rows[1], dtype=np.float64), np.array(rows[2], dtype=np.float64)
    first_box_hits(
        np.array(rows[0], dtype=np.float64), np.array(rows[3], dtype=np.float64), starts, ends, cast_rows,
        boxes.center, boxes.half, boxes.yaw, fraction, which, point, normal, started,
    )  # fmt: skip
    met = np.flatnonzero(which >= 0)
    if met.size:
        _write(table, starts, ends, met, (fraction, point, normal, started, boxes.body[which[met]]))


def _write(
    table: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    met: np.ndarray,
    hit: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> None:
    """Rows `met` of `table` become the closed-form touches `hit`: (fraction, point, normal, started) of
    every row, and the body touched by each row of `met`."""
    fraction, point, normal, started, body = hit
    move = ends[met] - starts[met]
    t = fraction[met]
    table[met, 0] = 1.0
    table[met, 1] = t
    table[met, 2] = t * np.linalg.norm(move, axis=1)
    table[met, 3:6] = starts[met] + t[:, None] * move
    table[met, 6:9] = point[met]
    table[met, 9:12] = normal[met]
    table[met, 12] = body
    table[met, 13] = started[met]
