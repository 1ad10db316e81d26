"""A path-following agent on a navmesh, with the interface game engines give their nav agents.

The agent knows nothing of animation or physics. Each `update(dt)` it advances a simulated position
(`next_position`) along its path, kept on the mesh surface (slopes, ramps, bridges): its height comes from
the path's corridor polygon it is in, so on a ramp over the ground it is the ramp's. Who moves the visible
character is the caller's choice: with `update_position` on, `position` follows `next_position`; with it off
(agent follows animation), the caller moves the character and may write `next_position` to pull the agent.
Bad arguments raise NavMeshError naming the argument (see `navigation.arguments`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from navigation import arguments
from navigation.agent_kernels import (
    BRAKE,
    CORNER_EPS,
    LIFT,
    MIN_CORNER_SPEED,
    advance,
    corridor_polygon,
    edge_table,
    past_corner,
    path_tail,
    plane_table,
    remaining_distance,
    segment_distance,
    speed_limit,
)
from navigation.angles import turn_toward
from navigation.errors import NavMeshError, NavSettingsError
from navigation.funnel import drop_collinear, lift_path
from navigation.query import NavMeshQuery, PathResult, QueryStatus
from navigation.raycasts import slide_many

__all__ = ["CORNER_EPS", "MIN_CORNER_SPEED", "AgentSettings", "NavAgent"]

_NO_POINTS = np.zeros((0, 3))  # the path points of an agent without a path


def _positive(name: str, value: float, unit: str, *, zero_ok: bool = False) -> None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < 0 or (value == 0 and not zero_ok):
        bound = ">= 0" if zero_ok else "> 0"
        raise NavSettingsError(f"{name} must be a finite number {bound} [{unit}], got {value!r}")


@dataclass(frozen=True)
class AgentSettings:
    """How a nav agent moves.

    Attributes:
        radius: agent radius [m, > 0]; arrival for Chase and drift limits are measured against it.
        height: agent height [m, > 0].
        speed: top speed [m/s, > 0].
        acceleration: largest change of velocity per second [m/s^2, > 0]; 3 is a brisk human start.
        angular_speed_deg: largest turn rate when `update_rotation` is on [deg/s, > 0].
        stopping_distance: stop this far from the destination [m, >= 0].
        auto_braking: slow down before the destination so it is not overshot.
        repath_tolerance: re-plan when the destination moves farther than this from the path's end [m, > 0].
        corridor_tolerance: re-plan when `next_position` strays farther than this from the path [m, > 0].
        snap_distance: destinations and warps farther than this from the mesh are refused [m, > 0].
    """

    radius: float = 0.4
    height: float = 1.8
    speed: float = 3.5
    acceleration: float = 3.0
    angular_speed_deg: float = 360.0
    stopping_distance: float = 0.1
    auto_braking: bool = True
    repath_tolerance: float = 0.5
    corridor_tolerance: float = 1.0
    snap_distance: float = 2.0

    def __post_init__(self) -> None:
        _positive("radius", self.radius, "m")
        _positive("height", self.height, "m")
        _positive("speed", self.speed, "m/s")
        _positive("acceleration", self.acceleration, "m/s^2")
        _positive("angular_speed_deg", self.angular_speed_deg, "deg/s")
        _positive("stopping_distance", self.stopping_distance, "m", zero_ok=True)
        _positive("repath_tolerance", self.repath_tolerance, "m")
        _positive("corridor_tolerance", self.corridor_tolerance, "m")
        _positive("snap_distance", self.snap_distance, "m")


def _point(p: object, what: str) -> np.ndarray:
    return arguments.point(p, what)


# -- rules shared by NavAgent and navigation.agent_batch.AgentBatch (one implementation of each) -------
def nearest_on_mesh(query: NavMeshQuery, p: object, what: str, snap_distance: float) -> np.ndarray | None:
    """`p` (2 or 3 numbers [m]) snapped onto the mesh, or None when farther than `snap_distance` [m]."""
    found = query.nearest_point(_point(p, what), snap_distance)
    return found.point.copy() if found.found else None


def snap_to_mesh(query: NavMeshQuery, p: object, what: str, snap_distance: float) -> np.ndarray:
    """`p` snapped onto the mesh [m]; NavMeshError when farther than `snap_distance` [m]."""
    found = nearest_on_mesh(query, p, what, snap_distance)
    if found is None:
        raise NavMeshError(f"{what} {p!r} is not within {snap_distance} m of the navmesh")
    return found


def polygon_remap(remap: object, before: int, after: int) -> np.ndarray:
    """A checked map of the polygons of a mesh to those of its update (`CarveUpdate.remap`): (before,)
    integers, each -1 (rebuilt) or an id in 0..after-1.

    Raises:
        NavMeshError: anything else.
    """
    try:
        m = np.asarray(remap)
    except Exception:  # an object numpy cannot take
        m = np.zeros(0)
    if m.shape != (before,) or m.dtype.kind not in "iu" or (m.size and (m.min() < -1 or m.max() >= after)):
        raise NavMeshError(
            f"remap must be {before} polygon ids (-1 or 0..{after - 1}) of the new mesh, one per polygon "
            f"of the old one (CarveUpdate.remap), got {arguments.shown(remap)}"
        )
    return m.astype(np.int64)


def renumbered(path: PathResult, corridor: np.ndarray) -> PathResult:
    """`path` with its corridor replaced by `corridor` (the same polygons in a new mesh's ids)."""
    return dataclasses.replace(path, corridor=tuple(corridor.tolist()))


def move_on_surface(
    query: NavMeshQuery, start: np.ndarray, target: np.ndarray, snap_distance: float
) -> np.ndarray:
    """Walk from `start` toward `target` [m] on the mesh; stop just short of a wall and slide along it
    (`raycasts.slide_many` for one row). A start off the mesh is snapped back on (NavMeshError beyond
    `snap_distance` [m])."""
    out, on_mesh, _ = slide_many(query, start[None], target[None])
    if not on_mesh[0]:  # start fell off the mesh: put it back on
        return snap_to_mesh(query, start, "agent position", snap_distance)
    end: np.ndarray = out[0]
    return end


def coast(
    query: NavMeshQuery,
    start: np.ndarray,
    velocity: np.ndarray,
    speed: float,
    dt: float,
    snap_distance: float,
) -> np.ndarray:
    """Where an agent without a path that brakes from `velocity` [m/s] to `speed` [m/s] ends after `dt` [s]:
    along its heading from `start` [m], on the mesh (`move_on_surface`)."""
    heading = velocity / max(float(np.hypot(velocity[0], velocity[1])), 1e-12)
    return move_on_surface(query, start, start + heading * speed * dt, snap_distance)


def surface_point(
    query: NavMeshQuery, corridor: tuple[int, ...] | None, poly: int, p: np.ndarray
) -> tuple[np.ndarray, int]:
    """(`p` on the surface [m], the corridor index it is in): `p`, a point of the path, with its height from
    the path's corridor polygon it is in: the first one, from index `poly` (the polygon the agent was last
    in) onwards, that holds its (x, y). So a point on the ramp gets the ramp's height, not the ground's under
    it. Off the corridor (never, for a point of the path), the polygon nearest its height and `poly`
    unchanged; on none, `p` itself."""
    x, y = float(p[0]), float(p[1])
    k = -1 if corridor is None else query._corridor_index(corridor, x, y, poly)
    if corridor is not None and k >= 0:
        q = corridor[k]
    else:
        q, k = query.polygon_at(p), poly
    if q < 0:
        return p, k
    return np.array([x, y, query.mesh.height_at(q, x, y)]), k


def move_end(
    query: NavMeshQuery, path: PathResult, goal: np.ndarray, corner: int, position: np.ndarray, poly: int
) -> PathResult | None:
    """`path` ending at `goal` instead, when its last leg can run straight there, else None. The leg from
    the last corner (or from `position`, on the last leg) is planned again, so its heights and corridor are
    those of the surface it crosses (a goal moved from a ramp onto a platform). `corner` is the index of the
    steering target, `poly` the corridor index of the polygon the agent is in."""
    pts = path.points
    if len(pts) - corner > 1:
        # from the last corner; the old corridor up to the last polygon holding it (the old last leg
        # runs straight, so it passes over that (x, y) once)
        cut, last = len(pts) - 2, pts[-2]
        at = query._last_corridor_index(path.corridor, last)
    else:  # on the last leg: from where the agent is, in the polygon it is in
        cut, last, at = corner, position, poly
    tail = straight_path(query, last, goal)
    if tail is None:
        return None  # the last corner cannot see the new goal: plan the whole path again
    corridor = (path.corridor[:at] if at >= 0 else path.corridor) + tail.corridor
    return dataclasses.replace(path, corridor=corridor, points=np.vstack([pts[:cut], tail.points]))


def straight_path(query: NavMeshQuery, start: np.ndarray, goal: np.ndarray) -> PathResult | None:
    """The shortest path from `start` to `goal` [m] when it is the straight segment: a surface raycast
    crosses no wall and ends on the goal's own polygon (not another level above or below), so the segment is
    walkable and nothing is shorter; None otherwise. The same result `find_path` gives for such a pair (the
    corridor is the polygons crossed, the points lifted onto the surface), without the search."""
    ray = query.raycast(start, goal)
    if ray.status is not QueryStatus.SUCCESS:
        return None
    at_goal = query._polygons_at(goal, query.height_tolerance)
    last, gx, gy = ray.polygons[-1], float(goal[0]), float(goal[1])
    mesh = query.mesh
    if not at_goal or last not in at_goal:  # the walk ended on another level than the goal's
        return None
    if abs(mesh.height_at(last, gx, gy) - mesh.height_at(at_goal[0], gx, gy)) > 1e-6:
        return None  # on a polygon holding the goal, but not at the goal's height (an edge between levels)
    corridor = list(ray.polygons)
    xy = [(float(start[0]), float(start[1])), (float(goal[0]), float(goal[1]))]
    if query._flat:
        lifted = np.array([(x, y, query._planes[0][2]) for x, y in xy], dtype=np.float64)
    else:
        lifted = lift_path(query._planes, query._loops, xy, [0, len(corridor) - 1], corridor)
    return PathResult(QueryStatus.SUCCESS, tuple(corridor), drop_collinear(lifted))


def retarget(
    query: NavMeshQuery,
    settings: AgentSettings,
    target: object,
    destination: np.ndarray | None,
    path: PathResult | None,
    corner: int,
    position: np.ndarray,
    poly: int,
) -> tuple[np.ndarray, PathResult | None]:
    """(the new destination [m], snapped onto the mesh when within `snap_distance`; the current path with
    its end moved there, or None when a new path must be planned). A SUCCESS path is kept when the target
    moved at most `repath_tolerance` and `move_end` can end it there."""
    goal = _point(target, "destination")
    snapped = query.nearest_point(goal, settings.snap_distance)
    if snapped.found:
        goal = snapped.point
    if destination is not None and path is not None and path.status is QueryStatus.SUCCESS:
        dx, dy = float(goal[0] - destination[0]), float(goal[1] - destination[1])
        moved = math.sqrt(dx * dx + dy * dy)
        if moved <= settings.repath_tolerance:
            return goal, move_end(query, path, goal, corner, position, poly)
    return goal, None


class NavAgent:
    """One agent on one navmesh query object.

    Args:
        query: the navmesh query (shared by many agents).
        position: where the agent starts [m]; snapped onto the mesh (NavMeshError if farther than
            `settings.snap_distance`).
        settings: speed, acceleration, radius...
        yaw: initial heading about Z [rad, finite].
    """

    def __init__(
        self,
        query: NavMeshQuery,
        position: object,
        settings: AgentSettings | None = None,
        *,
        yaw: float = 0.0,
    ) -> None:
        if not isinstance(query, NavMeshQuery):
            raise NavMeshError(f"query must be a NavMeshQuery, got {arguments.shown(query)}")
        if settings is not None and not isinstance(settings, AgentSettings):
            raise NavMeshError(f"settings must be an AgentSettings or None, got {arguments.shown(settings)}")
        self.query = query
        self.settings = settings if settings is not None else AgentSettings()
        self.update_position = True
        self.update_rotation = True
        self.is_stopped = False
        self.yaw = arguments.angle(yaw, "yaw")
        self.velocity = np.zeros(3)
        self._next = self._snap(position, "start position")
        self._position = self._next.copy()
        self._destination: np.ndarray | None = None
        self._edges = edge_table(query.mesh)
        self._planes = plane_table(query.mesh)  # (P, 3): z = a x + b y + c
        self._path_result: PathResult | None = None
        self._pts: np.ndarray | None = None  # the usable path's points [m]
        self._tail = np.zeros(0)  # horizontal path length from each path point to the end [m]
        self._corridor = np.zeros(0, dtype=np.int64)  # the path's corridor polygon ids
        self._corner = 1
        self._poly = 0  # index in the path's corridor of the polygon the agent was last in
        self.repaths = 0

    # -- state ---------------------------------------------------------------------------------------
    @property
    def position(self) -> np.ndarray:
        """The character's position as the agent knows it [m] (follows `next_position` when
        `update_position` is on; otherwise whatever the caller last wrote)."""
        return self._position.copy()

    @position.setter
    def position(self, value: object) -> None:
        self._position = _point(value, "position")

    @property
    def next_position(self) -> np.ndarray:
        """The agent's simulated position on the mesh surface [m]."""
        return self._next.copy()

    @next_position.setter
    def next_position(self, value: object) -> None:
        """Move the simulated position toward `value` along the mesh surface, stopping at walls.

        The height always comes from the mesh. If the new position leaves the path corridor, the path is
        planned again from there.
        """
        self._next = self._move_on_surface(self._next, _point(value, "next_position"))
        if self.update_position:
            self._position = self._next.copy()
        self._check_corridor()
        self._skip_passed()

    @property
    def destination(self) -> np.ndarray | None:
        """Where the agent is going [m] (snapped onto the mesh), or None."""
        return None if self._destination is None else self._destination.copy()

    @property
    def path(self) -> PathResult | None:
        """The current path (None without a destination)."""
        return self._path

    @property
    def _path(self) -> PathResult | None:
        return self._path_result

    @_path.setter
    def _path(self, path: PathResult | None) -> None:
        self._path_result = path
        usable = path is not None and path.status is not QueryStatus.INVALID
        self._pts = (
            np.ascontiguousarray(path.points, dtype=np.float64) if path is not None and usable else None
        )
        self._tail = path_tail(self._pts) if self._pts is not None else np.zeros(0)
        self._corridor = np.asarray(() if path is None else path.corridor, dtype=np.int64)

    @property
    def path_status(self) -> QueryStatus | None:
        """SUCCESS, PARTIAL (goal unreachable: the path ends at the nearest reachable point) or INVALID."""
        return None if self._path is None else self._path.status

    @property
    def has_path(self) -> bool:
        return self._points() is not None

    def _points(self) -> np.ndarray | None:
        """The current path's points, None without a usable (non-INVALID) path."""
        return self._pts

    @property
    def corners(self) -> np.ndarray:
        """Remaining path corners, the steering target first [m]; (0, 3) without a path."""
        pts = self._points()
        return np.zeros((0, 3)) if pts is None else pts[self._corner :].copy()

    @property
    def steering_target(self) -> np.ndarray:
        """The next corner of the path [m] (the agent's own position without a path)."""
        c = self.corners
        return c[0] if len(c) else self._next.copy()

    @property
    def remaining_distance(self) -> float:
        """Path length from `next_position` to the end of the path [m] (0 without a path)."""
        pts = self._points()
        if pts is None:
            return 0.0
        return remaining_distance(pts, self._tail, len(pts), self._corner, self._next[0], self._next[1])

    @property
    def speed(self) -> float:
        """Current horizontal speed [m/s]."""
        return math.hypot(self.velocity[0], self.velocity[1])

    @property
    def stopping_distance(self) -> float:
        return self.settings.stopping_distance

    @property
    def arrived(self) -> bool:
        """The agent has a path and is within `stopping_distance` of its end."""
        return self.has_path and self.remaining_distance <= self.settings.stopping_distance + 1e-9

    @property
    def desired_velocity(self) -> np.ndarray:
        """Velocity the agent wants this tick [m/s]: toward the steering target at the allowed speed (top
        speed, less for a sharp corner ahead or, with `auto_braking`, the end); zero when stopped/arrived."""
        if self.is_stopped or not self.has_path or self.arrived:
            return np.zeros(3)
        to = self.steering_target - self._next
        to[2] = 0.0
        dist = float(np.linalg.norm(to))
        if dist < 1e-9:
            return np.zeros(3)
        velocity: np.ndarray = to / dist * self._speed_limit()
        return velocity

    # -- commands ------------------------------------------------------------------------------------
    def set_destination(self, target: object) -> QueryStatus:
        """Plan a path to `target` (snapped onto the mesh). A target that moved less than
        `repath_tolerance` from the current one keeps the path and only moves its end."""
        goal, kept = retarget(
            self.query,
            self.settings,
            target,
            self._destination,
            self._path,
            self._corner,
            self._next,
            self._poly,
        )
        self._destination = goal
        if kept is not None:
            self._path = kept
            return kept.status
        return self._replan(goal).status

    def reset_path(self) -> None:
        """Forget the destination and path; the agent brakes to a stop."""
        self._destination = None
        self._path = None
        self._corner = 1
        self._poly = 0

    def warp(self, position: object) -> bool:
        """Teleport agent and character to `position` (snapped onto the mesh), zero the velocity, and
        re-plan to the current destination. False (nothing changes) when the point is off the mesh."""
        found = nearest_on_mesh(self.query, position, "warp position", self.settings.snap_distance)
        if found is None:
            return False
        self._next = found
        self._position = self._next.copy()
        self.velocity = np.zeros(3)
        if self._destination is not None:
            self._replan(self._destination)
        return True

    # -- the tick ------------------------------------------------------------------------------------
    def update(self, dt: float) -> np.ndarray:
        """Advance the simulated position by one tick of `dt` seconds; return the new `next_position`.

        The agent travels along its path (it never cuts or overshoots a corner): its speed rises and falls
        within `acceleration`, slows for sharp corners, and with `auto_braking` reaches zero exactly at
        `stopping_distance` from the end. Motion is kept on the mesh surface.
        """
        dt = arguments.seconds(dt, "dt")
        s = self.settings
        start, pts = self._next, self._pts
        pos, velocity = start.copy(), self.velocity.copy()
        status, self._corner, self._poly, speed = advance(
            _NO_POINTS if pts is None else pts,
            self._tail,
            0 if pts is None else len(pts),
            self._corner,
            pts is not None,
            self.is_stopped,
            pos,
            velocity,
            dt,
            s.speed,
            s.acceleration,
            s.stopping_distance,
            s.auto_braking,
            self._corridor,
            len(self._corridor),
            self._poly,
            self._edges,
            self._planes,
        )
        if status & LIFT:  # off the next corridor polygons: the whole corridor
            pos = self._on_surface(pos)
        if status == BRAKE:  # braking without a path: coast along the heading
            pos = coast(self.query, start, self.velocity, speed, dt, s.snap_distance)
            velocity = (pos - start) / dt
            velocity[2] = 0.0
        self._next, self.velocity = pos, velocity
        if self.update_rotation and self.speed > 1e-3:
            self._turn_toward(math.atan2(self.velocity[1], self.velocity[0]), dt)
        if self.update_position:
            self._position = self._next.copy()
        self._check_corridor()
        return self._next.copy()

    def _speed_limit(self, remaining: float | None = None) -> float:
        """Top speed allowed now: the set speed, braking for the end and for the next sharp corner
        (`agent_kernels.speed_limit`); `remaining` [m] is the remaining distance when known."""
        s = self.settings
        pts = self._points()
        if pts is None:
            pts = np.zeros((0, 3))
        rem = self.remaining_distance if remaining is None else remaining
        x, y = self._next[0], self._next[1]
        return speed_limit(
            pts,
            len(pts),
            self._corner,
            x,
            y,
            rem,
            s.speed,
            s.acceleration,
            s.stopping_distance,
            s.auto_braking,
        )

    def use_query(self, query: NavMeshQuery, remap: object) -> bool:
        """Carry the agent over to `query`, the query of an updated mesh (a `CarveUpdate.mesh`); `remap`
        maps each polygon of the previous mesh to its new id, -1 where it was rebuilt (`CarveUpdate.
        remap`). A path whose corridor crosses a rebuilt polygon is planned again now (the agent first
        snapped out of a hole that covers it, within `snap_distance`); another keeps its points, its
        corridor renumbered. Returns whether it re-planned.

        Raises:
            NavMeshError: not a NavMeshQuery, or a remap that does not fit the two meshes.
        """
        if not isinstance(query, NavMeshQuery):
            raise NavMeshError(f"query must be a NavMeshQuery, got {arguments.shown(query)}")
        m = polygon_remap(remap, self.query.mesh.polygon_count, query.mesh.polygon_count)
        self.query = query
        self._edges = edge_table(query.mesh)
        self._planes = plane_table(query.mesh)
        path = self._path
        new = m[self._corridor]
        if path is None or self._destination is None:
            return False
        if not (new < 0).any():
            self._path_result = renumbered(path, new)
            self._corridor = new
            return False
        if query.polygon_at(self._next) < 0:
            found = nearest_on_mesh(query, self._next, "agent position", self.settings.snap_distance)
            if found is not None:
                self._next = found
        self._replan(self._destination)
        return True

    # -- internals -----------------------------------------------------------------------------------
    def _snap(self, p: object, what: str) -> np.ndarray:
        return snap_to_mesh(self.query, p, what, self.settings.snap_distance)

    def _replan(self, destination: np.ndarray) -> PathResult:
        self._path = self.query.find_path(self._next, destination)
        self._corner = 1
        self._poly = 0
        self.repaths += 1
        return self._path

    def _on_surface(self, p: np.ndarray) -> np.ndarray:
        """`p`, a point of the path, on the surface of the corridor polygon it is in (`surface_point`; the
        agent's polygon and the next few tried compiled first)."""
        x, y = float(p[0]), float(p[1])
        k = corridor_polygon(self._corridor, len(self._corridor), self._poly, x, y, self._edges)
        if k >= 0:
            self._poly = k
            return np.array([x, y, self.query.mesh.height_at(int(self._corridor[k]), x, y)])
        path = self._path
        point, self._poly = surface_point(self.query, None if path is None else path.corridor, self._poly, p)
        return point

    def _move_on_surface(self, start: np.ndarray, target: np.ndarray) -> np.ndarray:
        """Walk from start toward target on the mesh; stop just short of a wall and slide along it."""
        return move_on_surface(self.query, start, target, self.settings.snap_distance)

    def _check_corridor(self) -> None:
        pts = self._points()
        if pts is None or self._destination is None:
            return
        a = pts[self._corner - 1] if self._corner - 1 < len(pts) else pts[-1]
        b = pts[min(self._corner, len(pts) - 1)]
        off = segment_distance(self._next[0], self._next[1], a[0], a[1], b[0], b[1])
        if off > self.settings.corridor_tolerance:
            self._replan(self._destination)

    def _skip_passed(self) -> None:
        """Moved past the steering corner, in sight of the next: steer for it (`AgentBatch._skip_passed`)."""
        pts, p = self._points(), self._next
        while pts is not None and past_corner(pts, self._corner, len(pts), p):
            if not self.query.raycast_many(p[None], pts[self._corner + 1][None]).walkable[0]:
                return
            self._corner += 1

    def _turn_toward(self, heading: float, dt: float) -> None:
        self.yaw = turn_toward(self.yaw, heading, math.radians(self.settings.angular_speed_deg) * dt)
