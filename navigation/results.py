"""What the queries of `navigation.query` answer: one status vocabulary (Detour's success / partial result /
failure, with detail bits) and a frozen result type per query. Lengths and points are metres."""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

import numpy as np


class QueryStatus(enum.Enum):
    """How a query went, one vocabulary for every query (Detour's success / partial result / failure).

    SUCCESS: the full answer. PARTIAL: an answer that stops short of what was asked (a path to the
    reachable point nearest an unreachable goal; a surface walk stopped by a wall). INVALID: no answer
    (the start is off the mesh, nothing is within range). `reason` says why a result is not plain SUCCESS.
    """

    SUCCESS = "success"
    PARTIAL = "partial"
    INVALID = "invalid"


class QueryReason(enum.Flag):
    """Why a query result is PARTIAL or INVALID, or how a SUCCESS was reached (Detour's detail bits).

    Several may be set: a path to an unreachable goal found after the node budget ran out is
    GOAL_UNREACHABLE | BUDGET_EXCEEDED.
    """

    NONE = 0
    START_OFF_MESH = enum.auto()  # the start / query point is on no polygon (INVALID)
    GOAL_UNREACHABLE = enum.auto()  # the path ends at the reachable point nearest the goal (PARTIAL)
    BUDGET_EXCEEDED = enum.auto()  # the exact search ran out of nodes: the path is approximate
    OUT_OF_RANGE = enum.auto()  # nothing (no polygon, no wall) within max_distance (INVALID)
    WALL_HIT = enum.auto()  # the surface walk stopped at a wall edge before the end (PARTIAL)
    AREA_COSTS = enum.auto()  # searched with area costs: near-optimal, not exact (`navigation.filters`)


@dataclass(frozen=True)
class PathResult:
    """A path answer.

    Attributes:
        status: SUCCESS, PARTIAL (goal unreachable: ends at the reachable point nearest the goal) or
            INVALID (start off the mesh).
        corridor: polygon ids from start to end.
        points: (k, 3) straight path [m], no two consecutive segments collinear; empty for INVALID.
        reason: NONE, START_OFF_MESH, GOAL_UNREACHABLE, and BUDGET_EXCEEDED when the exact search ran out
            of nodes and the path came from A* over polygon centres plus string pulling; AREA_COSTS when
            a query filter's area costs made the search approximate.
        cost: with a query filter, the path's cost (length [m] x each area's cost); None without one.
    """

    status: QueryStatus
    corridor: tuple[int, ...]
    points: np.ndarray
    reason: QueryReason = QueryReason.NONE
    cost: float | None = None

    @property
    def length(self) -> float:
        """Length of the path polyline [m] (0 for INVALID)."""
        p = self.points.tolist()  # a few points: plain floats cost a fifth of numpy's per-call overhead
        return float(sum(map(math.dist, p, p[1:])))

    @property
    def ok(self) -> bool:
        """The path reaches the goal (status SUCCESS)."""
        return self.status is QueryStatus.SUCCESS

    @property
    def exact(self) -> bool:
        """The path is the exact shortest (the search finished within its node budget) or, with a query
        filter, the exact cheapest (no area costs made it approximate)."""
        return not (self.reason & (QueryReason.BUDGET_EXCEEDED | QueryReason.AREA_COSTS))


def found_path(corridor: tuple[int, ...], points: np.ndarray) -> PathResult:
    """`PathResult(QueryStatus.SUCCESS, corridor, points)`, made the cheap way: the frozen dataclass's
    `__init__` sets each field through `object.__setattr__`, which costs more than the rest of a short
    path's Python; this fills the instance's `__dict__` directly (equal, hashable and immutable alike)."""
    result = _new(PathResult)
    d = result.__dict__
    d["status"] = QueryStatus.SUCCESS
    d["corridor"] = corridor
    d["points"] = points
    d["reason"] = QueryReason.NONE
    d["cost"] = None
    return result


_new = object.__new__


@dataclass(frozen=True)
class NearestPoint:
    """Nearest point on the mesh.

    Attributes:
        status: SUCCESS, or INVALID (reason OUT_OF_RANGE: no polygon within the search distance; then
            the point is NaN, the polygon -1 and the distance inf).
        point: (3,) the point on the mesh [m].
        polygon: the polygon it is on.
        distance: how far the query point is from it [m].
    """

    status: QueryStatus
    point: np.ndarray
    polygon: int
    distance: float
    reason: QueryReason = QueryReason.NONE

    @property
    def found(self) -> bool:
        """A point was found (status SUCCESS)."""
        return self.status is QueryStatus.SUCCESS

    @property
    def ok(self) -> bool:
        """Same as `found` (every result's `ok` means status SUCCESS)."""
        return self.status is QueryStatus.SUCCESS


@dataclass(frozen=True)
class RaycastHit:
    """A walk along the mesh surface from start toward end.

    Attributes:
        status: SUCCESS (the whole segment stays on the mesh), PARTIAL (reason WALL_HIT: stopped at a wall
            edge) or INVALID (reason START_OFF_MESH; nothing else is meaningful then).
        fraction: where the walk stopped along start->end, in [0, 1] (1 for SUCCESS).
        point: (3,) where it stopped [m].
        normal: (3,) horizontal unit normal of the wall edge hit, pointing back into the mesh; zeros if none.
        polygons: polygon ids visited.
    """

    status: QueryStatus
    fraction: float
    point: np.ndarray
    normal: np.ndarray
    polygons: tuple[int, ...] = field(default=())
    reason: QueryReason = QueryReason.NONE

    @property
    def valid(self) -> bool:
        """The start is on the mesh (status is not INVALID)."""
        return self.status is not QueryStatus.INVALID

    @property
    def walkable(self) -> bool:
        """The whole segment stays on the mesh (status SUCCESS)."""
        return self.status is QueryStatus.SUCCESS

    @property
    def ok(self) -> bool:
        """Same as `walkable` (every result's `ok` means status SUCCESS)."""
        return self.status is QueryStatus.SUCCESS


@dataclass(frozen=True)
class WallDistance:
    """Distance from a point to the nearest wall edge of its island.

    Attributes:
        status: SUCCESS, or INVALID: reason START_OFF_MESH (the point is on no polygon) or OUT_OF_RANGE
            (no wall within max_distance); then the distance is inf, the point NaN, the normal zeros.
        distance: horizontal distance to the wall [m].
        point: (3,) the nearest point on the wall edge [m].
        normal: (3,) the wall's horizontal unit normal, pointing into the mesh.
    """

    status: QueryStatus
    distance: float
    point: np.ndarray
    normal: np.ndarray
    reason: QueryReason = QueryReason.NONE

    @property
    def ok(self) -> bool:
        """A wall was found within range (status SUCCESS)."""
        return self.status is QueryStatus.SUCCESS
