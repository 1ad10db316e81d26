"""Many surface raycasts at once: `NavMeshQuery.raycast_many` and its result, `RaycastBatch`.

The rays run in one compiled call (`mesh_kernels.surface_raycasts`: the start's polygon through the bucket
grid, then the same `surface_raycast` walk as `NavMeshQuery.raycast`), so each ray's status, fraction,
stop point and wall normal are exactly those of one `raycast` call; only the walked polygons are not kept.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from navigation import arguments
from navigation.errors import NavMeshError
from navigation.mesh_kernels import (
    RAY_CLEAR,
    RAY_LOST,
    RAY_WALL,
    SLID_OFF_MESH,
    SLID_WALL,
    surface_raycasts,
    surface_slides,
)

if TYPE_CHECKING:
    from navigation.query import NavMeshQuery, QueryStatus, RaycastHit

SUCCESS = RAY_CLEAR  # 0
"""`RaycastBatch.status` code: the whole segment is walkable (`QueryStatus.SUCCESS`)."""
PARTIAL = RAY_WALL  # 1
"""`RaycastBatch.status` code: a wall edge stopped the walk (`QueryStatus.PARTIAL`, reason WALL_HIT)."""
INVALID = RAY_LOST  # 2: a lost walk raises, so the code is free; RAY_OFF_MESH (3) becomes it
"""`RaycastBatch.status` code: the start is on no polygon (`QueryStatus.INVALID`, reason START_OFF_MESH)."""


@dataclass(frozen=True)
class RaycastBatch:
    """k walks along the mesh surface, row i from `starts[i]` toward `ends[i]` (see `NavMeshQuery.raycast`).

    Attributes:
        status: (k,) int8 codes SUCCESS (0), PARTIAL (1), INVALID (2) of this module; `statuses()` gives
            them as `QueryStatus`.
        fraction: (k,) where each walk stopped along start->end, in [0, 1] (1 for SUCCESS, 0 for INVALID).
        polygon: (k,) the polygon each walk ended in (-1 for INVALID).
        point: (k, 3) where each walk stopped [m] (the end, on the mesh, for SUCCESS; NaN for INVALID);
            computed on first use.
        normal: (k, 3) horizontal unit normal of the wall edge hit, pointing back into the mesh; zeros if
            none; computed on first use.
    """

    status: np.ndarray
    fraction: np.ndarray
    polygon: np.ndarray
    starts: np.ndarray = field(repr=False)  # (k, 3) [m]
    ends: np.ndarray = field(repr=False)  # (k, 3) [m]
    wall: np.ndarray = field(repr=False)  # (k,) the wall edge's index in `polygon`, -1 when none
    edges: np.ndarray = field(repr=False)  # the query's `agent_kernels.edge_table`
    planes: np.ndarray = field(repr=False)  # (P, 3) the polygons' planes z = a x + b y + c

    def __len__(self) -> int:
        return int(self.status.shape[0])

    @property
    def valid(self) -> np.ndarray:
        """(k,) bool: the start is on the mesh (status is not INVALID)."""
        return np.asarray(self.status != INVALID)

    @property
    def walkable(self) -> np.ndarray:
        """(k,) bool: the whole segment stays on the mesh (status SUCCESS)."""
        return np.asarray(self.status == SUCCESS)

    @cached_property
    def point(self) -> np.ndarray:
        s, e, t = self.starts, self.ends, self.fraction
        wall = self.status == PARTIAL
        # the stop point (the end when clear), lifted onto the last polygon's plane as `NavMesh.height_at`
        stop = np.where(wall[:, None], s[:, :2] + t[:, None] * (e[:, :2] - s[:, :2]), e[:, :2])
        on = self.status != INVALID
        a, b, c = self.planes[self.polygon[on]].T
        out = np.full((len(self), 3), np.nan)
        out[on, :2] = stop[on]
        out[on, 2] = a * stop[on, 0] + b * stop[on, 1] + c
        return out

    @cached_property
    def normal(self) -> np.ndarray:
        out = np.zeros((len(self), 3))
        edges, last, wall = self.edges, self.polygon, self.wall
        for i in np.flatnonzero(self.status == PARTIAL).tolist():  # math.hypot, as `raycast` computes it
            ex, ey = float(edges[2, last[i], wall[i]]), float(edges[3, last[i], wall[i]])
            length = math.hypot(ex, ey)
            out[i, 0], out[i, 1] = -ey / length, ex / length
        return out

    def statuses(self) -> list[QueryStatus]:
        """The status of each row as a `QueryStatus`."""
        from navigation.query import QueryStatus

        names = (QueryStatus.SUCCESS, QueryStatus.PARTIAL, QueryStatus.INVALID)
        return [names[c] for c in self.status.tolist()]

    def hit(self, i: int) -> RaycastHit:
        """Row i as the `RaycastHit` one `raycast` call returns, without the walked polygons (empty)."""
        from navigation.query import QueryReason, QueryStatus, RaycastHit

        code = int(self.status[i])
        if code == INVALID:
            status, reason = QueryStatus.INVALID, QueryReason.START_OFF_MESH
        elif code == PARTIAL:
            status, reason = QueryStatus.PARTIAL, QueryReason.WALL_HIT
        else:
            status, reason = QueryStatus.SUCCESS, QueryReason.NONE
        fraction = float(self.fraction[i])
        return RaycastHit(status, fraction, self.point[i].copy(), self.normal[i].copy(), (), reason)


def ray_points(values: object, name: str, rows: int | None = None) -> np.ndarray:
    """(k, 3) C-contiguous float64 points from (k, 2) or (k, 3) real numbers [m] (a 2-D point gets z = NaN:
    any height); `rows`, when given, is the k required. Their ranges are checked by the kernel
    (`mesh_kernels.surface_raycasts`: |x|, |y|, |z| <= `arguments.COORDINATE_LIMIT`, z may be NaN).

    Raises:
        NavMeshError: not such an array, naming `name`.
    """
    if type(values) is np.ndarray and values.dtype == np.float64 and values.ndim == 2:
        a = values  # the common case, kept cheap
    else:
        try:
            a = np.asarray(values)
        except Exception:  # an odd object that fails on conversion is not an array of points
            a = np.zeros((0, 0), dtype=object)
        if a.dtype.kind not in "iuf" or a.ndim != 2:
            a = np.zeros((0, 0), dtype=object)
    if a.shape[1:] not in ((2,), (3,)):
        raise NavMeshError(f"{_wrong(name)}, got {arguments.shown(values)}")
    if rows is not None and a.shape[0] != rows:
        raise NavMeshError(f"{name} must have {rows} rows (one per start), got {a.shape[0]}")
    if a.shape[1] == 2:
        return np.column_stack([a.astype(np.float64), np.full(len(a), np.nan)])
    return np.ascontiguousarray(a, dtype=np.float64)


def _wrong(name: str) -> str:
    return f"{name} must be a (k, 2) or (k, 3) array of numbers [m] (z may be NaN: any height)"


def raycast_many(query: NavMeshQuery, starts: object, ends: object) -> RaycastBatch:
    """`NavMeshQuery.raycast_many`: checks the arguments, runs the compiled walks, wraps the arrays."""
    s = ray_points(starts, "starts")
    e = ray_points(ends, "ends", len(s))
    k = len(s)
    code, last, wall = np.empty((3, k), dtype=np.int64)
    fraction = np.empty(k)
    grid, cells, items = query._grid
    lost = surface_raycasts(
        grid, cells, items, float(query._origin[0]), float(query._origin[1]), query._bucket, query._edges,
        query._plane_rows, query._neighbors, query._eps, query.height_tolerance, s, e, query._found,
        query._gaps, query._visited, code, fraction, last, wall,
    )  # fmt: skip
    if lost < -1:
        name, values = ("starts", starts) if lost == -2 else ("ends", ends)
        raise NavMeshError(
            f"{_wrong(name)}, finite, with |x|, |y|, |z| <= 1e9, got {arguments.shown(values)}"
        )
    if lost >= 0:
        raise NavMeshError("raycast did not terminate: the mesh adjacency is inconsistent")
    status = np.minimum(code, INVALID).astype(np.int8)  # RAY_OFF_MESH -> INVALID, the others stay
    return RaycastBatch(status, fraction, last, s, e, wall, query._edges, query._plane_rows)


SLIDE_BACK = 1e-4  # [m] how far short of a wall a slide starts (as `agent.move_on_surface`)


def slide_many(
    query: NavMeshQuery, starts: np.ndarray, targets: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Walk row i from `starts[i]` toward `targets[i]` (k, 3) [m] on the mesh, stopping just short of a wall
    and sliding along it: `agent.move_on_surface` for k rows in one compiled call
    (`mesh_kernels.surface_slides`: the walk, then the slide of a row a wall stopped).

    Returns:
        ((k, 3) where each row ends [m], on the mesh at its polygon's height; (k,) bool: the start is on
        the mesh; (k,) bool: a wall stopped the walk). A row whose start is off the mesh keeps its start
        (the caller snaps it back on).
    Raises:
        NavMeshError: not (k, 2) or (k, 3) arrays of numbers, or x, y not finite.
    """
    s = ray_points(starts, "starts")
    t = ray_points(targets, "targets", len(s))
    k = len(s)
    out, flags = np.empty((k, 3)), np.empty(k, dtype=np.int64)
    grid, cells, items = query._grid
    lost = surface_slides(
        grid, cells, items, float(query._origin[0]), float(query._origin[1]), query._bucket, query._edges,
        query._plane_rows, query._neighbors, query._eps, query.height_tolerance, s, t, SLIDE_BACK,
        query._found, query._gaps, query._visited, out, flags,
    )  # fmt: skip
    if lost < -1:
        name, values = ("starts", starts) if lost == -2 else ("targets", targets)
        raise NavMeshError(
            f"{_wrong(name)}, finite, with |x|, |y|, |z| <= 1e9, got {arguments.shown(values)}"
        )
    if lost >= 0:
        raise NavMeshError("surface walk did not terminate: the mesh adjacency is inconsistent")
    return out, flags != SLID_OFF_MESH, flags == SLID_WALL
