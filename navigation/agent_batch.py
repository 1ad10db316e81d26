"""Many path-following agents on one navmesh query, ticked together with numpy (structure of arrays).

`AgentBatch` behaves as N independent `NavAgent`s with `update_position` and `update_rotation` off (the
caller moves the characters and may pull the agents with `set_next_position` / `follow`): the same paths,
speed ramps, corner rule, surface heights and re-planning. The tick is one compiled loop over the agents
(`navigation.agent_kernels`, whose per-agent rules NavAgent calls too); the rare events (planning, a walk
stopped by a wall, braking without a path, a point outside the agent's next few corridor polygons) use the
per-agent rules of `navigation.agent`, shared with NavAgent. Rows are agent indices 0..n-1. Bad arguments
raise NavMeshError naming the argument.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence

import numpy as np

from navigation import agent_kernels as kernels
from navigation import arguments
from navigation.agent import (
    AgentSettings,
    coast,
    nearest_on_mesh,
    polygon_remap,
    renumbered,
    retarget,
    snap_to_mesh,
    surface_point,
)
from navigation.agent_kernels import UNKNOWN, WINDOW, edge_table, path_tail, plane_table
from navigation.errors import NavMeshError
from navigation.query import NavMeshQuery, PathResult, QueryStatus
from navigation.raycasts import raycast_many, slide_many

__all__ = ["UNKNOWN", "WINDOW", "AgentBatch"]


class AgentBatch:
    """N agents on one navmesh query; per-agent state in arrays indexed by row.

    Args:
        query: the navmesh query all agents share.
        positions: (N, 2 or 3) start positions [m], each snapped onto the mesh (NavMeshError if farther
            than its `snap_distance`).
        settings: one AgentSettings for every agent, or a sequence of N; None: the defaults.
        yaws: (N,) initial headings about Z [rad]; None: 0. Kept as is (rotation is the caller's).

    Attributes (read them; change them through the methods):
        next_position: (N, 3) simulated positions on the mesh surface [m].
        velocity: (N, 3) velocity of the last tick [m/s], z = 0.
        yaw: (N,) headings [rad].
        is_stopped: (N,) bool, writable: a stopped agent brakes and keeps its path.
        top_speed, acceleration, stopping_distance, radius, corridor_tolerance, repath_tolerance,
            snap_distance: (N,) the settings [m/s, m/s^2, m, m, m, m, m]; auto_braking: (N,) bool.
        destination: (N, 3) destinations [m] (NaN where `has_destination` is False).
        has_path: (N,) bool: a usable (not INVALID) path. path_len: (N,) its number of points.
        path_corners: (N, K, 3) path points [m], padded by repeating the last (K > every path_len).
        corner: (N,) index of the steering target in the path. poly: (N,) index in the path's corridor of
            the polygon the agent was last in. corridors: (N, C) corridor polygon ids, -1 padded;
            corridor_len: (N,) their lengths.
        poly_id: (N,) for agents without a path, the mesh polygon their position is in (-1 off the mesh,
            UNKNOWN when not known yet). repaths: (N,) paths planned.
    """

    def __init__(
        self,
        query: NavMeshQuery,
        positions: object,
        settings: AgentSettings | Sequence[AgentSettings] | None = None,
        yaws: object = None,
    ) -> None:
        if not isinstance(query, NavMeshQuery):
            raise NavMeshError(f"query must be a NavMeshQuery, got {arguments.shown(query)}")
        starts = _points(positions, None, "positions")
        n = len(starts)
        self.query = query
        self._settings = _settings_list(settings, n)
        self._edges = edge_table(query.mesh)  # (6, P, V) the polygons' edges
        self._all = np.arange(n)
        s = self._settings
        self.top_speed = np.array([a.speed for a in s], dtype=np.float64)
        self.acceleration = np.array([a.acceleration for a in s], dtype=np.float64)
        self.stopping_distance = np.array([a.stopping_distance for a in s], dtype=np.float64)
        self.radius = np.array([a.radius for a in s], dtype=np.float64)
        self._no_radius = np.zeros(n)  # `_skip_passed`'s corner radius outside a crowd
        self.corridor_tolerance = np.array([a.corridor_tolerance for a in s], dtype=np.float64)
        self.repath_tolerance = np.array([a.repath_tolerance for a in s], dtype=np.float64)
        self.snap_distance = np.array([a.snap_distance for a in s], dtype=np.float64)
        self.auto_braking = np.array([a.auto_braking for a in s], dtype=bool)
        self._planes = plane_table(query.mesh)  # (P, 3): z = a x + b y + c
        self._status = np.zeros(n, dtype=np.int64)  # the kernels' per-row statuses
        self._speeds = np.zeros(n)  # [m/s] the kernels' new speeds
        self.yaw = np.zeros(n) if yaws is None else _angles(yaws, n)
        self.next_position = np.zeros((n, 3))
        for i, p in enumerate(starts):
            self.next_position[i] = snap_to_mesh(query, _one(p), "start position", s[i].snap_distance)
        self.velocity = np.zeros((n, 3))
        self.is_stopped = np.zeros(n, dtype=bool)
        self.destination = np.full((n, 3), np.nan)
        self.has_destination = np.zeros(n, dtype=bool)
        self._paths: list[PathResult | None] = [None] * n
        self.has_path = np.zeros(n, dtype=bool)
        self.path_len = np.zeros(n, dtype=np.int64)
        self.path_corners = np.zeros((n, 4, 3))
        self._tail = np.zeros((n, 4))  # horizontal path length from each point to the end [m]
        self.corner = np.ones(n, dtype=np.int64)
        self.poly = np.zeros(n, dtype=np.int64)
        self.corridors = np.full((n, 8), -1, dtype=np.int64)
        self.corridor_len = np.zeros(n, dtype=np.int64)
        self.poly_id = np.full(n, UNKNOWN, dtype=np.int64)
        self.repaths = np.zeros(n, dtype=np.int64)
        self.beyond = np.zeros(n)  # path length after each path's end [m]: the rest of a plan over links
        self.planner: Callable[[int, np.ndarray, np.ndarray], PathResult] | None = None
        """When set, plans row i's path from a start to a goal [m] instead of `query.find_path`: a planner
        over off-mesh links returns the walk to the next link's start (and sets `beyond`). Paths it plans
        are never end-moved by `set_destination`: a moved target re-plans."""

    # -- state ---------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._settings)

    @property
    def speed(self) -> np.ndarray:
        """(N,) horizontal speeds [m/s]."""
        return np.hypot(self.velocity[:, 0], self.velocity[:, 1])

    def settings(self, i: int) -> AgentSettings:
        """The settings of agent `i`."""
        return self._settings[self._row(i)]

    def path(self, i: int) -> PathResult | None:
        """The current path of agent `i` (None without a destination)."""
        return self._paths[self._row(i)]

    def corners(self, i: int) -> np.ndarray:
        """Remaining path corners of agent `i`, the steering target first [m]; (0, 3) without a path."""
        i = self._row(i)
        if not self.has_path[i]:
            return np.zeros((0, 3))
        return self.path_corners[i, self.corner[i] : self.path_len[i]].copy()

    @property
    def steering_target(self) -> np.ndarray:
        """(N, 3) next path corners [m] (the agent's own position without one)."""
        ahead = (self.has_path & (self.corner < self.path_len))[:, None]
        return np.where(ahead, self.path_corners[self._all, self.corner], self.next_position)

    def remaining_distance(self, rows: object = None) -> np.ndarray:
        """Path length from `next_position` to the end of the path [m] of each row (0 without a path)."""
        r = self._rows(rows)
        out = np.empty(len(r))
        kernels.remaining_rows(
            r,
            self.next_position,
            self.path_corners,
            self._tail,
            self.corner,
            self.path_len,
            self.has_path,
            out,
        )
        if self.planner is not None:  # the rest of a plan over links, after this path's end
            out += np.where(self.has_path[r], self.beyond[r], 0.0)
        return out

    @property
    def arrived(self) -> np.ndarray:
        """(N,) bool: the agent has a path and is within `stopping_distance` of its end."""
        return self.has_path & (self.remaining_distance() <= self.stopping_distance + 1e-9)

    # -- commands (per agent) ------------------------------------------------------------------------
    def set_top_speed(self, i: int, speed: float) -> None:
        """Set agent `i`'s top speed [m/s, > 0] (NavSettingsError like AgentSettings otherwise)."""
        i = self._row(i)
        if isinstance(speed, float) and speed == self._settings[i].speed:  # no change (a valid speed)
            return
        self._settings[i] = dataclasses.replace(self._settings[i], speed=speed)
        self.top_speed[i] = self._settings[i].speed

    def set_destination(self, i: int, target: object) -> QueryStatus:
        """Plan agent `i`'s path to `target` [m] (snapped onto the mesh); a target that moved less than
        `repath_tolerance` keeps the path and only moves its end (see `NavAgent.set_destination`)."""
        i = self._row(i)
        old = self.destination[i].copy() if self.has_destination[i] else None
        goal, kept = retarget(
            self.query,
            self._settings[i],
            target,
            old,
            self._paths[i] if self.planner is None else None,
            int(self.corner[i]),
            self.next_position[i].copy(),
            int(self.poly[i]),
        )
        self.destination[i], self.has_destination[i] = goal, True
        if kept is not None:
            self._set_path(i, kept)
            return kept.status
        return self._replan(i).status

    def replan(self, rows: object) -> None:
        """Plan the paths of `rows` (indices or an (N,) bool mask; those without a destination are left
        alone) again, from where their agents stand now, to their destinations. An agent pushed out of
        sight of the corner it steers for (a crowd's push round a crate's corner) walks into the crate
        until it does: `npc_ai`'s crowd re-plans its movers blocked for a while."""
        for i in self._rows(rows).tolist():
            if self.has_destination[i]:
                self._replan(i)

    def reset_path(self, rows: object) -> None:
        """Forget the destinations and paths of `rows` (indices or an (N,) bool mask); they brake."""
        r = self._rows(rows)
        r = r[self.has_destination[r]]  # a path comes with a destination: the others have nothing to forget
        for i in r.tolist():
            self._paths[i] = None
        self.has_path[r], self.path_len[r], self.corridor_len[r], self.corridors[r] = False, 0, 0, -1
        self.destination[r], self.has_destination[r] = np.nan, False
        self.corner[r], self.poly[r] = 1, 0
        self.beyond[r] = 0.0

    def warp(self, i: int, position: object) -> bool:
        """Teleport agent `i` to `position` [m] (snapped onto the mesh), zero its velocity, re-plan to its
        destination. False (nothing changes) when the point is off the mesh."""
        i = self._row(i)
        found = nearest_on_mesh(self.query, position, "warp position", self._settings[i].snap_distance)
        if found is None:
            return False
        self.next_position[i], self.velocity[i], self.poly_id[i] = found, 0.0, UNKNOWN
        if self.has_destination[i]:
            self._replan(i)
        return True

    def set_next_position(self, rows: object, targets: object) -> None:
        """Move the simulated positions of `rows` toward `targets` ((n, 2 or 3) [m]) along the surface,
        stopping at walls, then re-plan those that left their path corridor (NavAgent's `next_position`
        setter). Rows whose target is within 1e-12 m horizontally stay. A move that stays well inside the
        polygon the agent is in is compiled (`agent_kernels.move_rows`); the others walk the surface
        (`_slide`, one compiled call for all of them)."""
        r = self._rows(rows)
        self.move_unchecked(r, _points(targets, len(r), "targets"))

    def move_unchecked(self, r: np.ndarray, t: np.ndarray, *, crowd: bool = False) -> None:
        """`set_next_position` without its checks, for a caller whose arguments are already what it
        accepts: `r` (k,) int64 distinct rows, `t` (k, 3) float64 C-contiguous finite targets [m] (a NaN
        z: any height) within the coordinate limit (the simulation's crowd, every tick). Anything else:
        call `set_next_position`, which raises where this would compute garbage. `crowd` True: the move is
        a crowd's push, and a row it leaves within its radius of its steering corner counts as past it
        (`_skip_passed`)."""
        st = self._status
        flagged_any = kernels.move_rows(
            r, t, self.next_position, self.poly_id, self.poly, self.corridors, self.corridor_len,
            self.has_path, self.has_destination, self.corner, self.path_corners, self.corridor_tolerance,
            self._edges, self._planes, st,
        )  # fmt: skip
        if flagged_any:
            self._after_move(r, t)
        self._skip_passed(r, crowd)

    def _after_move(self, r: np.ndarray, t: np.ndarray) -> None:
        """The rows of `move_unchecked` that `agent_kernels.move_rows` left with a status (in `_status`):
        walk the surface for those that leave their polygon, re-plan those now off their path."""
        st = self._status
        flagged = st[: len(r)].nonzero()[0]
        slide = flagged[st[flagged] == kernels.SLIDE]
        if slide.size:
            walked = r[slide]
            self._slide(walked, t[slide])
            off = np.empty(walked.size, dtype=np.int64)  # those now off their path segment re-plan
            count = kernels.off_path_rows(
                walked, self.next_position, self.has_path, self.has_destination, self.corner,
                self.path_corners, self.corridor_tolerance, off,
            )  # fmt: skip
            for i in off[:count].tolist():
                self._replan(i)
        for j in flagged[st[flagged] != kernels.SLIDE].tolist():
            self._replan(int(r[j]))

    def _skip_passed(self, r: np.ndarray, crowd: bool = False) -> None:
        """Rows of `r` that a move carried past their steering corner (or, a `crowd`'s move, within their
        radius of it: the crowd's rule, not NavAgent's), with a straight walk on the mesh to the corner
        after it, steer for that one (Detour finds its corners from where the agent stands each tick).
        Without this, an agent the crowd pushed through a doorway past its corner walked back to it,
        against those pushing it through, and one the crowd held a few centimetres short of its corner at
        a doorway's mouth steered for that point for good, into the one behind it, holding the doorway's
        one-way gate for everyone (`npc-ai bench crowd` doorway)."""
        passed = np.empty(r.size, dtype=np.int64)
        while count := kernels.passed_rows(  # a corner a turn (rounded corners: a few in a row)
            r,
            self.next_position,
            self.has_path,
            self.corner,
            self.path_len,
            self.path_corners,
            self.radius if crowd else self._no_radius,
            passed,
        ):
            rows = passed[:count]
            nxt = self.path_corners[rows, self.corner[rows] + 1]
            r = rows[raycast_many(self.query, self.next_position[rows], nxt).walkable]
            self.corner[r] += 1

    def follow(self, rows: object, positions: object) -> None:
        """Agents of `rows` without a path ride along with their characters: `next_position` becomes
        `positions` ((n, 2 or 3) [m]) as NavAgent's `next_position` setter makes it (moved along the surface,
        stopping at walls; the height from the mesh). Rows with a path are left alone."""
        r = self._rows(rows)
        t = _points(positions, len(r), "positions")
        self._follow(r, t)

    def _follow(self, r: np.ndarray, t: np.ndarray) -> None:
        """`follow` for rows `r` (int64) and targets `t` (n, 3) [m], validated: well inside the polygon the
        agent is in, the compiled rule; leaving it, a surface walk (`_slide`)."""
        args = (self.next_position, self.has_path, self.poly_id, self._edges, self._planes)
        if kernels.follow_rows(r, t, *args, self._status):
            self._after_follow(r, t)

    def _after_follow(self, r: np.ndarray, t: np.ndarray) -> None:
        """The rows of `_follow` that `agent_kernels.follow_rows` left with a status (in `_status`)."""
        st = self._status
        args = (self.next_position, self.has_path, self.poly_id, self._edges, self._planes)
        todo = st[: len(r)].nonzero()[0]
        look = todo[st[todo] == kernels.LOOKUP]
        if look.size:  # the polygon of the raycast's start, then the rule again
            for i in r[look].tolist():
                self.poly_id[i] = self.query._polygon_at(self.next_position[i])
            again = np.zeros(look.size, dtype=np.int64)
            kernels.follow_rows(r[look], t[look], *args, again)
            st[look] = again
        slide = todo[st[todo] == kernels.SLIDE]
        if slide.size:
            self._slide(r[slide], t[slide])

    def _slide(self, rows: np.ndarray, targets: np.ndarray) -> None:
        """`move_on_surface` for agents `rows` toward `targets` (k, 3) [m], in one compiled call
        (`raycasts.slide_many`); a start that fell off the mesh is snapped back on, as there."""
        out, on_mesh, _ = slide_many(self.query, self.next_position[rows], targets)
        for k in (~on_mesh).nonzero()[0].tolist():
            i = int(rows[k])
            snap = self._settings[i].snap_distance
            out[k] = snap_to_mesh(self.query, self.next_position[i], "agent position", snap)
        self.next_position[rows] = out
        self.poly_id[rows] = UNKNOWN

    # -- the tick ------------------------------------------------------------------------------------
    def update(self, dt: float, rows: object = None) -> None:
        """Advance the agents of `rows` (default all) by one tick of `dt` seconds (see `NavAgent.update`):
        along their paths with speed ramps, corner and end braking; braking without a path; re-planning
        those that left their path corridor. One compiled loop (`agent_kernels.advance_rows`); the rare
        events per agent in Python."""
        self._advance(arguments.seconds(dt, "dt"), self._rows(rows))

    def _advance(self, dt: float, r: np.ndarray) -> None:
        """`update` for rows `r` (increasing int64 indices) and `dt` [s], validated."""
        if kernels.advance_rows(
            r,
            dt,
            self.next_position,
            self.velocity,
            self.corner,
            self.poly,
            self.poly_id,
            self.path_corners,
            self._tail,
            self.path_len,
            self.has_path,
            self.is_stopped,
            self.top_speed,
            self.acceleration,
            self.stopping_distance,
            self.auto_braking,
            self.corridor_tolerance,
            self.corridors,
            self.corridor_len,
            self._edges,
            self._planes,
            self._speeds,
            self._status,
        ):
            self._after_advance(dt, r)

    def _after_advance(self, dt: float, r: np.ndarray) -> None:
        """The rare events of the rows of `_advance` that `agent_kernels.advance_rows` gave a status (in
        `_status`, their new speeds in `_speeds`), in Python: lifts, coasting, re-plans."""
        st, speeds = self._status, self._speeds
        for j in st[: len(r)].nonzero()[0].tolist():
            i, status = int(r[j]), int(st[j])
            if status & kernels.LIFT:  # off the next corridor polygons: the whole corridor
                path = self._paths[i]
                corridor = None if path is None else path.corridor
                p = self.next_position[i].copy()
                self.next_position[i], self.poly[i] = surface_point(
                    self.query, corridor, int(self.poly[i]), p
                )
            if status & kernels.BRAKE:  # no path: coast along the heading
                start = self.next_position[i].copy()
                s = self._settings[i]
                pos = coast(self.query, start, self.velocity[i], float(speeds[j]), dt, s.snap_distance)
                self.next_position[i] = pos
                self.velocity[i] = (pos - start) / dt
                self.velocity[i, 2] = 0.0
                self.poly_id[i] = UNKNOWN
            if status & kernels.REPLAN:
                self._replan(i)

    def use_query(self, query: NavMeshQuery, remap: object) -> np.ndarray:
        """Carry every agent over to `query`, the query of an updated mesh (a `CarveUpdate.mesh`):
        `remap` maps each polygon of the previous mesh to its new id, -1 where it was rebuilt
        (`CarveUpdate.remap`). Paths whose corridor crosses a rebuilt polygon are planned again now (an
        agent a new hole covers is first snapped out of it, within its `snap_distance`); the others keep
        their points, corridors renumbered. Returns the rows that re-planned.

        Raises:
            NavMeshError: not a NavMeshQuery, or a remap that does not fit the two meshes.
        """
        if not isinstance(query, NavMeshQuery):
            raise NavMeshError(f"query must be a NavMeshQuery, got {arguments.shown(query)}")
        m = polygon_remap(remap, self.query.mesh.polygon_count, query.mesh.polygon_count)
        self.query = query
        self._edges = edge_table(query.mesh)
        self._planes = plane_table(query.mesh)
        used = self.corridors >= 0
        mapped = np.where(used, m[np.maximum(self.corridors, 0)], -1)
        broken = (used & (mapped < 0)).any(axis=1) & self.has_destination
        self.corridors = mapped
        known = self.poly_id >= 0
        self.poly_id[known] = m[self.poly_id[known]]
        self.poly_id[known & (self.poly_id < 0)] = UNKNOWN
        for i in np.flatnonzero(self.has_destination & ~broken).tolist():
            path = self._paths[i]
            if path is not None:
                self._paths[i] = renumbered(path, self.corridors[i, : self.corridor_len[i]])
        rows = np.flatnonzero(broken)
        for i in rows.tolist():
            if query._polygon_at(self.next_position[i]) < 0:
                snap = float(self.snap_distance[i])
                found = nearest_on_mesh(query, self.next_position[i].copy(), "agent position", snap)
                if found is not None:
                    self.next_position[i], self.poly_id[i] = found, UNKNOWN
            self._replan(i)
        return rows

    # -- paths ---------------------------------------------------------------------------------------
    def _replan(self, i: int) -> PathResult:
        start, goal = self.next_position[i].copy(), self.destination[i].copy()
        path = self.query.find_path(start, goal) if self.planner is None else self.planner(i, start, goal)
        self._set_path(i, path)
        self.corner[i], self.poly[i] = 1, 0
        self.repaths[i] += 1
        return path

    def _set_path(self, i: int, path: PathResult | None) -> None:
        """Store agent `i`'s path and write it into the padded arrays (growing them as needed)."""
        self._paths[i] = path
        usable = path is not None and path.status is not QueryStatus.INVALID
        pts = path.points if path is not None and usable else np.zeros((0, 3))
        corridor = () if path is None else path.corridor
        n, L = len(pts), len(corridor)
        self._grow(n + 2, L + 1)
        self.has_path[i], self.path_len[i], self.corridor_len[i] = usable, n, L
        self.corridors[i, :L], self.corridors[i, L:] = corridor, -1
        self.path_corners[i], self._tail[i] = 0.0, 0.0
        if n:
            self.path_corners[i, :n], self.path_corners[i, n:] = pts, pts[-1]
            self._tail[i, :n] = path_tail(pts)

    def _grow(self, k: int, c: int) -> None:
        """Widen the padded path arrays to at least `k` points and `c` corridor polygons."""
        if k > self.path_corners.shape[1]:
            old, size = self.path_corners, max(k, 2 * self.path_corners.shape[1])
            self.path_corners = np.repeat(old[:, -1:], size, axis=1)
            self.path_corners[:, : old.shape[1]] = old
            self._tail = np.pad(self._tail, ((0, 0), (0, size - old.shape[1])))
        if c > self.corridors.shape[1]:
            size = max(c, 2 * self.corridors.shape[1])
            self.corridors = np.pad(
                self.corridors, ((0, 0), (0, size - self.corridors.shape[1])), constant_values=-1
            )

    # -- arguments -----------------------------------------------------------------------------------
    def _row(self, i: object) -> int:
        return arguments.count(i, "row", low=0, high=len(self) - 1)

    def _rows(self, rows: object) -> np.ndarray:
        """Row indices from None (all), an index, a sequence of distinct indices or an (N,) bool mask."""
        if rows is None:
            return self._all
        if isinstance(rows, int | np.integer) and not isinstance(rows, bool):
            return np.array([self._row(rows)])
        n = len(self)
        if _increasing_rows(rows, n):  # the hot path (rows from flatnonzero)
            return np.asarray(rows, dtype=np.int64)
        if isinstance(rows, str | bytes | dict | set | float | bool) or not hasattr(rows, "__len__"):
            raise NavMeshError(self._wrong_rows(rows))
        try:
            a = np.asarray(rows)
        except Exception:  # a ragged or odd sequence
            raise NavMeshError(self._wrong_rows(rows)) from None
        if a.ndim == 1 and a.dtype == bool and a.shape[0] == n:
            return a.nonzero()[0]
        if a.ndim == 1 and a.size == 0:
            return np.zeros(0, dtype=np.int64)
        ok = a.ndim == 1 and a.dtype.kind in "iu"
        if not ok or a.min() < 0 or a.max() >= n or len(np.unique(a)) != len(a):
            raise NavMeshError(self._wrong_rows(rows))
        return a.astype(np.int64)

    def _wrong_rows(self, rows: object) -> str:
        n = len(self)
        return (
            f"rows must be distinct indices in 0..{n - 1} or an ({n},) bool mask, got {arguments.shown(rows)}"
        )


def _increasing_rows(rows: object, n: int) -> bool:
    """`rows` is a non-empty 1-D integer array of increasing (so distinct) indices in 0..n-1."""
    if not (isinstance(rows, np.ndarray) and rows.ndim == 1 and rows.dtype.kind in "iu" and rows.size):
        return False
    return bool(rows[0] >= 0 and rows[-1] < n and (rows.size == 1 or (rows[1:] > rows[:-1]).all()))


def _one(p: np.ndarray) -> np.ndarray:
    """A validated (3,) row as `arguments.point` takes it: (x, y) when its z is NaN (any height)."""
    return p[:2] if math.isnan(p[2]) else p


def _points(values: object, n: int | None, name: str) -> np.ndarray:
    """(n, 3) points from (n, 2) or (n, 3) real numbers [m] (a 2-D point gets z = NaN); one point may be
    given as (2,) or (3,) when n is 1. NavMeshError on anything else (as `arguments.point` for each)."""
    rows = "n" if n is None else n
    wrong = f"{name} must be an ({rows}, 2 or 3) array of finite numbers [m] with |x|, |y|, |z| <= 1e9"
    try:
        a = np.asarray(values)
    except Exception:
        raise NavMeshError(f"{wrong}, got {arguments.shown(values)}") from None
    if n == 1 and a.ndim == 1:
        a = a[None, :]
    if (
        a.dtype.kind not in "iuf"
        or a.ndim != 2
        or a.shape[1] not in (2, 3)
        or (n is not None and len(a) != n)
    ):
        raise NavMeshError(f"{wrong}, got {arguments.shown(values)}")
    a = a.astype(np.float64)
    # the largest magnitude as a Python float: NaN compares False without a warning (no errstate to enter)
    if a.size and not float(np.abs(a).max()) <= arguments.COORDINATE_LIMIT:
        raise NavMeshError(f"{wrong}, got {arguments.shown(values)}")
    return a if a.shape[1] == 3 else np.column_stack([a, np.full(len(a), np.nan)])


def _angles(values: object, n: int) -> np.ndarray:
    try:
        a = np.asarray(values)
    except Exception:
        a = np.zeros(0)
    if a.dtype.kind not in "iuf" or a.shape != (n,) or not np.isfinite(a).all():
        raise NavMeshError(f"yaws must be ({n},) finite numbers [rad], got {arguments.shown(values)}")
    return a.astype(np.float64)


def _settings_list(settings: object, n: int) -> list[AgentSettings]:
    if settings is None or isinstance(settings, AgentSettings):
        return [settings or AgentSettings()] * n
    if isinstance(settings, Sequence) and not isinstance(settings, str | bytes):
        out = list(settings)
        if len(out) == n and all(isinstance(s, AgentSettings) for s in out):
            return out
    raise NavMeshError(
        f"settings must be an AgentSettings, {n} of them or None, got {arguments.shown(settings)}"
    )
