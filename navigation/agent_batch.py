"""Many path-following agents on one navmesh query, ticked together with numpy (structure of arrays).

`AgentBatch` behaves as N independent `NavAgent`s with `update_position` and `update_rotation` off (the
caller moves the characters and may pull the agents with `set_next_position` / `follow`): the same paths,
speed ramps, corner rule, surface heights and re-planning, to round-off. The tick is vectorised over the
agents; the rare events (planning, a walk stopped by a wall, braking without a path, a point outside the
agent's next few corridor polygons) use the per-agent rules of `navigation.agent`, shared with NavAgent.
Rows are agent indices 0..n-1. Bad arguments raise NavMeshError naming the argument.
"""

from __future__ import annotations

import dataclasses
import math
import weakref
from collections.abc import Callable, Sequence

import numpy as np

from navigation import arguments
from navigation.agent import (
    CORNER_EPS,
    MIN_CORNER_SPEED,
    AgentSettings,
    move_on_surface,
    nearest_on_mesh,
    retarget,
    snap_to_mesh,
    surface_point,
)
from navigation.errors import NavMeshError
from navigation.navmesh import NavMesh
from navigation.query import NavMeshQuery, PathResult, QueryStatus

WINDOW = 4  # corridor polygons tried vectorised for a path point's height: the agent's and the next 3
UNKNOWN = -2  # `poly_id` of an agent whose polygon is not known (looked up on the next `follow`)
_INSIDE = 4.0  # `follow` keeps the polygon of a point this many length epsilons inside all its edges


class _Edges:
    """Every polygon's edges, padded to the largest polygon, as one (6, P, V) array: per edge its start
    (ax, ay), its vector (ex, ey), the `NavMeshQuery._contains` bound and the bound of "well inside"."""

    def __init__(self, mesh: NavMesh) -> None:
        loops, eps = mesh.loops, mesh.length_epsilon
        self.table = np.zeros((6, mesh.polygon_count, max(len(xy) for xy in loops.xy)))
        self.table[4:] = -np.inf  # the padding edges (0, 0) always pass
        for q, xy in enumerate(loops.xy):
            for i, (x0, y0) in enumerate(xy):
                x1, y1 = xy[(i + 1) % len(xy)]
                length = math.hypot(x1 - x0, y1 - y0)  # as `_contains` computes it, for the same verdicts
                self.table[:, q, i] = (x0, y0, x1 - x0, y1 - y0, -eps * length, _INSIDE * eps * length)

    def inside(self, q: np.ndarray, x: np.ndarray, y: np.ndarray, *, strict: bool = False) -> np.ndarray:
        """(n,) bool: polygon q[j] holds (x[j], y[j]), exactly as `NavMeshQuery._contains` (`strict`: at
        least `_INSIDE` length epsilons inside every edge)."""
        ax, ay, ex, ey, bound, inner = self.table.take(q, axis=1)
        cross = ex * (y[:, None] - ay) - ey * (x[:, None] - ax)
        return (cross >= (inner if strict else bound)).all(axis=1)  # type: ignore[no-any-return]


_EDGES: weakref.WeakKeyDictionary[NavMesh, _Edges] = weakref.WeakKeyDictionary()


def _edges(mesh: NavMesh) -> _Edges:
    if mesh not in _EDGES:
        _EDGES[mesh] = _Edges(mesh)
    return _EDGES[mesh]


def _norm_xy(d: np.ndarray) -> np.ndarray:
    """(n,) horizontal lengths of (n, >=2) vectors, computed as `np.linalg.norm(d[:, :2], axis=1)`."""
    return np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1])  # type: ignore[no-any-return]


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
        self._edges = _edges(query.mesh)
        self._all = np.arange(n)
        s = self._settings
        self.top_speed = np.array([a.speed for a in s], dtype=np.float64)
        self.acceleration = np.array([a.acceleration for a in s], dtype=np.float64)
        self.stopping_distance = np.array([a.stopping_distance for a in s], dtype=np.float64)
        self.radius = np.array([a.radius for a in s], dtype=np.float64)
        self.corridor_tolerance = np.array([a.corridor_tolerance for a in s], dtype=np.float64)
        self.repath_tolerance = np.array([a.repath_tolerance for a in s], dtype=np.float64)
        self.snap_distance = np.array([a.snap_distance for a in s], dtype=np.float64)
        self.auto_braking = np.array([a.auto_braking for a in s], dtype=bool)
        self._two_acc = 2.0 * self.acceleration  # [m/s^2] for the braking speeds
        self._no_brake = np.where(self.auto_braking, 0.0, np.inf)  # [m/s] added to the braking speed
        self._arrive = self.stopping_distance + 1e-9  # [m] arrived within this remaining distance
        self._planes = np.ascontiguousarray(query.mesh.planes.T)  # (3, P): z = a x + b y + c
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
        return self._remaining(r, self.next_position[r])[0]

    @property
    def arrived(self) -> np.ndarray:
        """(N,) bool: the agent has a path and is within `stopping_distance` of its end."""
        return self.has_path & (self.remaining_distance() <= self.stopping_distance + 1e-9)

    # -- commands (per agent) ------------------------------------------------------------------------
    def set_top_speed(self, i: int, speed: float) -> None:
        """Set agent `i`'s top speed [m/s, > 0] (NavSettingsError like AgentSettings otherwise)."""
        i = self._row(i)
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
            self._paths[i],
            int(self.corner[i]),
            self.next_position[i].copy(),
            int(self.poly[i]),
        )
        self.destination[i], self.has_destination[i] = goal, True
        if kept is not None:
            self._set_path(i, kept)
            return kept.status
        return self._replan(i).status

    def reset_path(self, rows: object) -> None:
        """Forget the destinations and paths of `rows` (indices or an (N,) bool mask); they brake."""
        r = self._rows(rows)
        r = r[self.has_destination[r]]  # a path comes with a destination: the others have nothing to forget
        for i in r.tolist():
            self._paths[i] = None
        self.has_path[r], self.path_len[r], self.corridor_len[r], self.corridors[r] = False, 0, 0, -1
        self.destination[r], self.has_destination[r] = np.nan, False
        self.corner[r], self.poly[r] = 1, 0

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
        setter). Rows whose target is within 1e-12 m horizontally stay."""
        r = self._rows(rows)
        t = _points(targets, len(r), "targets")
        moved = _hypot_xy(t - self.next_position[r]) >= 1e-12
        for j in moved.nonzero()[0].tolist():
            i = int(r[j])
            start = self.next_position[i].copy()
            self.next_position[i] = move_on_surface(self.query, start, t[j], self._settings[i].snap_distance)
            self.poly_id[i] = UNKNOWN
            if self.has_path[i] and self.has_destination[i]:
                self._check_corridor(r[j : j + 1])

    def follow(self, rows: object, positions: object) -> None:
        """Agents of `rows` without a path ride along with their characters: `next_position` becomes
        `positions` ((n, 2 or 3) [m]) as NavAgent's `next_position` setter makes it (moved along the surface,
        stopping at walls; the height from the mesh). Rows with a path are left alone."""
        r = self._rows(rows)
        t = _points(positions, len(r), "positions")
        keep = ~self.has_path[r]
        r, t = r[keep], t[keep]
        keep = _hypot_xy(t - self.next_position[r]) >= 1e-12  # as `move_on_surface` tells "no move"
        r, t = r[keep], t[keep]
        for i in r[self.poly_id[r] == UNKNOWN].tolist():
            self.poly_id[i] = self.query._polygon_at(self.next_position[i])
        q = self.poly_id[r]
        fast = q >= 0
        fast[fast] = self._edges.inside(q[fast], t[fast, 0], t[fast, 1], strict=True)
        # well inside the polygon the raycast starts in: it ends there, at that polygon's height
        rf, tf, qf = r[fast], t[fast], q[fast]
        planes = self.query.mesh.planes[qf]
        z = planes[:, 0] * tf[:, 0] + planes[:, 1] * tf[:, 1] + planes[:, 2]
        self.next_position[rf] = np.column_stack([tf[:, 0], tf[:, 1], z])
        for j in (~fast).nonzero()[0].tolist():
            i = int(r[j])
            start = self.next_position[i].copy()
            self.next_position[i] = move_on_surface(self.query, start, t[j], self._settings[i].snap_distance)
            self.poly_id[i] = UNKNOWN

    # -- the tick ------------------------------------------------------------------------------------
    def update(self, dt: float, rows: object = None) -> None:
        """Advance the agents of `rows` (default all) by one tick of `dt` seconds (see `NavAgent.update`):
        along their paths with speed ramps, corner and end braking; braking without a path; re-planning
        those that left their path corridor."""
        dt = arguments.seconds(dt, "dt")
        r = self._rows(rows)
        pick = _pick(None if rows is None else r)
        start, v = self.next_position.take(r, axis=0), self.velocity.take(r, axis=0)
        speed0 = np.hypot(v[:, 0], v[:, 1])
        k, width = pick(self.corner).copy(), self.path_corners.shape[1]
        at = r * width + k
        flat = self.path_corners.reshape(-1, 3)
        c0, c1 = flat.take(at, axis=0), flat.take(at + 1, axis=0)  # c1 = c0 past the end (padding)
        to, on = c0[:, :2] - start[:, :2], c1[:, :2] - c0[:, :2]
        na, nb = np.hypot(to[:, 0], to[:, 1]), np.hypot(on[:, 0], on[:, 1])
        has = pick(self.has_path)
        rem = (na + self._tail.reshape(-1).take(at)) * (has & (k < pick(self.path_len)))
        left = np.maximum(rem - pick(self.stopping_distance), 0.0)
        moving = has & (rem > pick(self._arrive)) & ~pick(self.is_stopped)
        # the speed limit (NavAgent._speed_limit): top speed, braking for the end and the next corner
        top, two_acc = pick(self.top_speed), pick(self._two_acc)
        limit = np.minimum(top, np.sqrt(two_acc * left) + pick(self._no_brake))
        turn = (na > 1e-9) & (nb > 1e-9)
        dot = to[:, 0] * on[:, 0] + to[:, 1] * on[:, 1]
        cos_turn = np.divide(dot, na * nb, out=np.zeros(len(r)), where=turn)
        corner_speed = top * np.maximum(MIN_CORNER_SPEED, (1.0 + cos_turn) / 2.0)
        limit = np.where(turn, np.minimum(limit, np.sqrt(corner_speed * corner_speed + two_acc * na)), limit)
        target = limit * moving
        dv = pick(self.acceleration) * dt
        speed = np.minimum(np.maximum(target, speed0 - dv), speed0 + dv)  # toward target by at most dv
        pos = start.copy()
        m = moving.nonzero()[0]
        if m.size:
            self._walk(r, m, pos, k, c0[m], na[m], np.minimum(speed[m] * dt, left[m]))
            self.corner[r] = k
        for j in ((speed > 0.0) & ~has).nonzero()[0].tolist():  # brake along the heading
            i = int(r[j])
            heading = v[j] / max(float(speed0[j]), 1e-12)
            aim = start[j] + heading * float(speed[j]) * dt
            pos[j] = move_on_surface(self.query, start[j], aim, self._settings[i].snap_distance)
            self.poly_id[i] = UNKNOWN
        self.next_position[r] = pos
        velocity = (pos - start) / dt
        velocity[:, 2] = 0.0
        self.velocity[r] = velocity
        if m.size:  # the others did not move and kept their paths: checked when those last changed
            self.poly_id[r[m]] = UNKNOWN
            self._check_corridor(r[m])

    def _remaining(self, r: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(remaining path lengths [m] of rows `r` at `pos` (n, 3), their steering targets (n, 3) [m])."""
        k = self.corner[r]
        c0 = self.path_corners[r, k]
        ahead = self.has_path[r] & (k < self.path_len[r])
        return (np.hypot(c0[:, 0] - pos[:, 0], c0[:, 1] - pos[:, 1]) + self._tail[r, k]) * ahead, c0

    def _walk(
        self,
        r: np.ndarray,
        m: np.ndarray,
        pos: np.ndarray,
        k: np.ndarray,
        c: np.ndarray,
        seg: np.ndarray,
        d: np.ndarray,
    ) -> None:
        """Move agents `r[m]` from `pos[m]` (n, 3) [m] `d` metres along their path corners, the first `c` at
        `seg` [m] (NavAgent._walk_path), consuming the corners passed (`k`): one vectorised pass per corner
        reached. Writes `pos` and `k`."""
        width, flat = self.path_corners.shape[1], self.path_corners.reshape(-1, 3)
        act, kk, p, last = m, k[m], pos[m], self.path_len.take(r[m]) - 1
        stops, mids = [], []  # agents stopped between corners, and where
        while True:
            take = (seg <= d + CORNER_EPS) & ((d > 1e-12) | (seg <= 1e-12))
            part = ~take & (d > 1e-12)
            frac = np.divide(d, seg, out=np.zeros(len(d)), where=part)
            stops.append(act[part])
            mids.append((p + (c - p) * frac[:, None])[part])
            t = take.nonzero()[0]
            if not t.size:
                break
            pos[act[t]] = c[t]
            go = (kk[t] < last[t]).nonzero()[0]  # a corner passed that is not the end: steer to the next
            t = t[go]
            act, kk, p, last = act[t], kk[t] + 1, c[t], last[t]
            d = np.maximum(0.0, d[t] - seg[t])
            k[act] = kk
            c = flat.take(r[act] * width + kk, axis=0)
            seg = np.hypot(c[:, 0] - p[:, 0], c[:, 1] - p[:, 1])
        j = np.concatenate(stops)
        if j.size:  # on the surface of the corridor polygon there
            pos[j] = self._on_surface(r[j], np.concatenate(mids))

    def _on_surface(self, r: np.ndarray, p: np.ndarray) -> np.ndarray:
        """Points `p` (n, 3) of the paths of rows `r` at the height of their corridor polygon (see
        `surface_point`): the agent's polygon and the next WINDOW - 1 vectorised, the others per agent."""
        x, y = p[:, 0], p[:, 1]
        start, length = self.poly.take(r), self.corridor_len.take(r)
        width, flat = self.corridors.shape[1], self.corridors.reshape(-1)
        base = r * width
        first = flat.take(base + np.minimum(start, width - 1))
        found = np.where((start < length) & self._edges.inside(first, x, y), start, -1)
        todo = (found < 0).nonzero()[0]
        for j in range(1, WINDOW if todo.size else 1):
            todo = todo[start[todo] + j < length[todo]]
            if not todo.size:
                break
            kk = start[todo] + j
            hit = self._edges.inside(flat.take(base[todo] + kk), x[todo], y[todo])
            found[todo[hit]] = kk[hit]
            todo = todo[~hit]
        plane = self._planes.take(flat.take(base + found), axis=1)  # found -1: fixed below
        out = p.copy()
        out[:, 2] = plane[0] * x + plane[1] * y + plane[2]
        self.poly[r] = np.maximum(found, start)
        for j in (found < 0).nonzero()[0].tolist():
            i = int(r[j])
            path = self._paths[i]
            corridor = None if path is None else path.corridor
            out[j], self.poly[i] = surface_point(self.query, corridor, int(self.poly[i]), p[j])
        return out

    def _check_corridor(self, r: np.ndarray) -> None:
        """Re-plan the agents `r` (with a path) whose `next_position` is farther than `corridor_tolerance`
        from their current path segment (horizontally)."""
        at = r * self.path_corners.shape[1] + self.corner.take(r)
        flat = self.path_corners.reshape(-1, 3)
        a, b, p = flat.take(at - 1, axis=0), flat.take(at, axis=0), self.next_position.take(r, axis=0)
        ab, ap = (b - a)[:, :2], (p - a)[:, :2]
        denom = ab[:, 0] * ab[:, 0] + ab[:, 1] * ab[:, 1]
        along = np.divide(
            ap[:, 0] * ab[:, 0] + ap[:, 1] * ab[:, 1], denom, out=np.zeros(len(r)), where=denom != 0
        )
        off = a[:, :2] + np.minimum(1.0, np.maximum(0.0, along))[:, None] * ab - p[:, :2]
        for i in r[np.hypot(off[:, 0], off[:, 1]) > self.corridor_tolerance.take(r)].tolist():
            self._replan(i)

    # -- paths ---------------------------------------------------------------------------------------
    def _replan(self, i: int) -> PathResult:
        path = self.query.find_path(self.next_position[i].copy(), self.destination[i].copy())
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
            seg = _norm_xy(np.diff(pts, axis=0))
            self._tail[i, : n - 1] = np.cumsum(seg[::-1])[::-1]

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


def _pick(r: np.ndarray | None) -> Callable[[np.ndarray], np.ndarray]:
    """Rows `r` of a per-agent array (the array itself for all rows: read it, do not write it)."""
    return (lambda a: a) if r is None else (lambda a: a.take(r, axis=0))


def _hypot_xy(d: np.ndarray) -> np.ndarray:
    """(n,) horizontal lengths of (n, >=2) vectors, computed with np.hypot."""
    return np.hypot(d[:, 0], d[:, 1])  # type: ignore[no-any-return]


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
    with np.errstate(invalid="ignore"):
        if not (np.abs(a) <= arguments.COORDINATE_LIMIT).all():  # False for NaN
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
