"""Local avoidance for a crowd: every agent's new velocity in one compiled call (ORCA, with walls).

`avoid` takes the whole crowd as arrays and returns the velocity each agent should take this tick so that
no two agents collide within `AvoidanceSettings.time_horizon` and no agent reaches a wall within
`time_horizon_walls`, staying as close as it can to its preferred velocity.

Agents: ORCA (optimal reciprocal collision avoidance; van den Berg, Guy, Lin and Manocha, "Reciprocal
n-body collision avoidance", 2011), built as RVO2 builds it: one half-plane of permitted velocities per
neighbour (the nearest `max_neighbours` within `neighbour_distance`, found in a dense grid of cells a
sixth of that distance wide, ring by ring around the agent's cell until the next ring lies beyond the
range, which shrinks to the farthest neighbour kept once there are `max_neighbours`), solved by RVO2's
linearProgram1/2/3 (`navigation.avoidance_kernels`). Priorities set the reciprocity: agent i takes the
share p_j / (p_i + p_j) of avoiding j, so the shares of a pair still add up to one (the pair stays
collision-free) while a guard with a high priority pushes through and a wanderer yields. Equal
priorities give ORCA's halves.

Walls: a closest-point half-plane per segment, not RVO2's obstacle velocity obstacles. For a segment
whose point nearest the agent is c at distance d, with n the unit vector from c to the agent, the agent
must keep ``v . n >= -(d - r) / tau_w``: in tau_w it comes no closer than r to the line through c
perpendicular to n. The segment lies wholly behind that line (c is its nearest point and a segment is
convex), so after any step dt <= tau_w the agent is at least r from the segment: the half-plane is sound
for any set of segments (no polygon, winding or convexity needed, which RVO2's obstacle lines require),
and it is conservative only near a segment's end, where it slows an agent that would have slid past.
A segment wholly behind the plane of a nearer one adds nothing and is skipped (RVO2's "already covered"
test); each agent keeps the nearest `MAX_WALL_LINES` (32) uncovered segments of the 128 nearest in range.
An agent already closer than r is pushed out at up to 0.9 x its max speed.

Contacts: ORCA alone lets agents overlap whenever its half-planes cannot all be met (a dense crowd; RVO2
then minimises the largest violation). Every pair that could touch within the tick also gets a contact
half-plane per agent: with n the unit vector from i to j and g their gap, i may close at most
``a_i = clamp((1 - s_i) v_i.n + s_i v_j.n + s_i g / dt, 0, g / dt)`` (s_i = p_j / (p_i + p_j)), and j its
mirror image; a_i + a_j = g / dt, so whatever both choose within their half-planes, the pair does not
overlap after the tick, and v = 0 always meets them. Walls and contacts are hard in the fallback: when
the half-planes cannot all be met, the agents' ORCA half-planes are relaxed (the velocity violating them
least, RVO2's linearProgram3) and the walls' and contacts' kept. The guarantee holds for agents that each
find the other (the search goes at least one tick's reach of the fastest, largest pair; at most 32
contacts an agent).

Anti-jitter and anti-deadlock, without touching the guarantees (every change is to the objective or to the
choice between two valid half-planes, never to the constraints):
- Keep right: when a neighbour blocks the way ahead (it is in the agent's lane, and will still be when the
  agent reaches it within `time_horizon`, going at its preferred velocity), the target turns right by up
  to `pass_right_deg` (up to `narrow_pass_right_deg` for an agent near a wall that has stopped, blocked by
  a neighbour that means to move and does not yield to it: beyond 90 deg it backs off as it turns), the
  more the sooner; scaled by twice the agent's share, so a high priority keeps its course. Head-on pairs
  pass each other keeping right, a crowd meeting in the middle turns into a roundabout instead of a jam,
  and groups meeting head-on in a corridor or a doorway form lanes.
- Lanes: in a narrow place (a wall within the wall horizon), an agent with someone coming the other way
  ahead (within `neighbour_distance`, by their preferred velocities) who is not yet clearly on its left
  also turns right, by up to `lane_deg`, before anyone blocks anyone: two streams meeting head-on in a
  corridor each take their right side early instead of meeting as two walls of agents. Against walls that
  do not constrain, a turn that would lead into a wall the agent touches runs along it instead.
- Side preference: when the relative velocity lies almost on the axis between two agents, ORCA's choice
  of the velocity obstacle's left or right leg (both supporting lines of the obstacle, so either is
  collision-free) flips with round-off from tick to tick; within `side_preference` (the sine of the angle
  between them) both agents take the right leg.
- Smoothing: the linear program's target is ``(1 - smoothing) * target + smoothing * velocity``: agents keep
  some of their current velocity (off by default: on the circle it did not lower the jitter).

Known limit: a perfectly symmetric crowd (a few dozen agents on a small circle) can compress into a ring
of touching agents that nothing breaks; RVO2 deadlocks there as well. Real crowds are not symmetric; a
runner can perturb preferred velocities slightly (as RVO2's examples do) or re-plan stuck agents.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from navigation.avoidance_kernels import avoid_rows, bucket_segments
from navigation.errors import CrowdError
from navigation.navmesh import NavMesh

MAX_AGENTS = 10_000_000
_COORD = 1e9  # [m] largest |coordinate| accepted (navigation.arguments.COORDINATE_LIMIT)
_MAX_CELLS = 4_000_000  # the wall grid's cell count never exceeds this (the cells grow instead)


def _number(name: str, value: Any, low: float, high: float, unit: str, *, low_open: bool = False) -> None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    ok = ok and (value > low if low_open else value >= low) and value <= high
    if not ok:
        rel = ">" if low_open else ">="
        raise CrowdError(f"{name} must be a finite number {rel} {low} and <= {high} [{unit}], got {value!r}")


@dataclass(frozen=True)
class AvoidanceSettings:
    """How agents avoid each other and the walls.

    Attributes:
        neighbour_distance: Agents farther apart than this ignore each other [m, 0 < x <= 100]; the
            neighbour grid's cells are a sixth of it wide (at least 0.5 m).
        max_neighbours: Most (nearest) agents each agent avoids [1..32].
        time_horizon: Agents choose velocities that keep them apart for this long [s, 0 < x <= 60];
            longer is safer and shyer. Never taken below the tick dt.
        time_horizon_walls: The same for walls [s, 0 < x <= 60]; walls within
            ``time_horizon_walls * max_speed + radius`` of an agent are considered.
        height_range: Agents, and an agent and a wall, more than this apart vertically ignore each other
            (a bridge and the floor under it) [m, > 0]; used only when positions have a z column.
        side_preference: How far from a head-on tie both agents still pass each other keeping right, as
            the sine of the angle between the relative velocity and the line between them [0 <= x < 1];
            0 is RVO2's choice (whichever side the round-off says).
        smoothing: Share of the current velocity in the target velocity [0 <= x < 1]; 0 aims straight
            at the preferred velocity (RVO2), more is smoother and slower to react.
        pass_right_deg: Largest turn of the target to the right when a neighbour blocks the way ahead
            [deg, 0..180]; 0 turns off the keep-right rule. Above 90 a fully blocked agent backs off as
            it turns, which frees groups jammed head-on in a corridor but makes crowds turn more (on the
            circle of 250: jitter 4.4 deg/s at 30, 17 at 110, 25 at 135).
        narrow_pass_right_deg: The same limit for an agent that has stopped with a wall within its wall
            horizon (a corridor, a doorway) [deg, 0..180]: it applies in full to an agent standing, fades
            to `pass_right_deg` at half its preferred speed, and only a neighbour that means to move (a
            non-zero preferred velocity) with at least the agent's priority turns it by more than
            `pass_right_deg` (one that yields, parked at its goal or held by a gate, is the one to move: an
            agent that backed off from such neighbours backed into the wall beside them and stood, at the
            end of `npc-ai bench crowd` corridor). Backing off is what
            frees two groups jammed head-on in a corridor (`npc-ai bench crowd` corridor, its layout and 20
            with moved starts: all arrived in 17 of the 21 runs, against 6 without it) and a doorway's
            mouth (21 of 21, against 16); walking agents that backed off from each other in an aisle stood
            there (warehouse soak stuck up to 1.07 %, against 0.72 % with the fade).
        lane_deg: In a narrow place (as above), the turn of the target to the right while an agent coming
            the other way is ahead within `neighbour_distance` and not yet clearly on the left (laterally
            within 1.5 x the two radii), the more the more head-on [deg, 0..90]; 0 turns it off. Both
            streams keep right long before they meet: lanes form instead of a wall of agents across the
            corridor. 30 by default: 45 was chosen before the simulation's crowd had one-way gates, parked
            rows standing by the walls and head-on passing, and with those the stronger turn left more of
            the corridor's runs to two agents stopped head-on in its middle between the two lanes, where
            four bodies do not fit abreast (`npc-ai bench crowd` corridor, 81 layouts: all 40 within 1.5x
            the ideal time in 28 -> 40, median 1.62 -> 1.52x; 60 of them not looked at when choosing
            it: 16 -> 27; on 21 of them 0 and 10 jammed, 20 and 60 were worse; the doorway is the same within
            noise).
        facing_tau_s: Time constant of the low-pass filter on the velocity a body the simulation's crowd
            steers faces along (`npc_ai.body.crowd.Crowd`; `avoid` does not read it) [s, 0..5]; 0 faces
            the avoiding velocity of each tick as it comes. The filter starts from the path's velocity when
            a row starts being steered or gets a new destination, so a sidestep that lasts (a corridor
            lane) turns the body within about twice this time, and one that flips from tick to tick in a
            dense spot does not turn it about.
        gate_width: The simulation's crowd only (`avoid` does not read it): passages of the navmesh
            narrower than this between agent centres (the mesh is eroded by the agent radius) are one-way
            gates that the agents take one direction at a time (`navigation.crowd_gates`) [m, 0..10]; 0
            turns gates off. The default 1.2 m takes the warehouse's 2 m doorways (its exact mesh has a
            hair under 1.2 m between the eroded jambs, the round joins' chords: two agents barely pass
            there: without gates 2 of the 40 of `bench crowd` doorway got through) and leaves its 2.2 m aisles
            two-way.
    """

    neighbour_distance: float = 5.0
    max_neighbours: int = 16
    time_horizon: float = 2.0
    time_horizon_walls: float = 1.0
    height_range: float = 1.0
    side_preference: float = 0.1
    smoothing: float = 0.0
    pass_right_deg: float = 30.0
    narrow_pass_right_deg: float = 135.0
    lane_deg: float = 30.0
    facing_tau_s: float = 0.5
    gate_width: float = 1.2

    def __post_init__(self) -> None:
        _number("neighbour_distance", self.neighbour_distance, 0.0, 100.0, "m", low_open=True)
        if not (isinstance(self.max_neighbours, int) and not isinstance(self.max_neighbours, bool)) or not (
            1 <= self.max_neighbours <= 32
        ):
            raise CrowdError(f"max_neighbours must be an integer from 1 to 32, got {self.max_neighbours!r}")
        _number("time_horizon", self.time_horizon, 0.0, 60.0, "s", low_open=True)
        _number("time_horizon_walls", self.time_horizon_walls, 0.0, 60.0, "s", low_open=True)
        _number("height_range", self.height_range, 0.0, 1e9, "m", low_open=True)
        _number("side_preference", self.side_preference, 0.0, 0.999, "sine of an angle")
        _number("smoothing", self.smoothing, 0.0, 0.999, "share")
        _number("pass_right_deg", self.pass_right_deg, 0.0, 180.0, "deg")
        _number("narrow_pass_right_deg", self.narrow_pass_right_deg, 0.0, 180.0, "deg")
        _number("lane_deg", self.lane_deg, 0.0, 90.0, "deg")
        _number("facing_tau_s", self.facing_tau_s, 0.0, 5.0, "s")
        _number("gate_width", self.gate_width, 0.0, 10.0, "m")


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Walls:
    """Static wall segments for `avoid`, bucketed once in a uniform grid. Build with `Walls.from_segments`
    or `Walls.from_navmesh`; every array is read-only.

    Attributes:
        a, b: (k, 2) segment end points [m].
        z: (k, 2) heights of a and b [m] (0 when built from 2-D points; used only if `has_heights`).
        has_heights: the segments were given heights (3-D points): the height filter applies.
        one_sided: the segments bound the region on their left (seen from above, a to b): an agent found
            behind one is sent back to its front. Two-sided walls keep agents off both faces.
        keep_radius: agents keep their radius off the segments (physical walls); False: the segments bound
            agent centres (a navmesh edge, already eroded by the bake's agent radius).
        margin: extra clearance kept from the segments [m, >= 0].
        constrain: the segments are half-planes agents keep to (True); False: they only mark the agents
            within the wall horizon of one as in a narrow place (`lane_deg`, `narrow_pass_right_deg`), and a
            keep-right turn that would lead an agent into one it touches runs along it instead; for a
            caller that keeps agents off the walls itself (the simulation's navmesh surface moves).
        cell_size: side of the grid cells [m]. origin: (2,) the grid's corner [m]. shape: (nx, ny) cells.
        cell_start, cell_items: the segments of cell c = ix + nx * iy are
            cell_items[cell_start[c]:cell_start[c + 1]].
    """

    a: np.ndarray
    b: np.ndarray
    z: np.ndarray
    has_heights: bool
    one_sided: bool
    keep_radius: bool
    margin: float
    constrain: bool
    cell_size: float
    origin: np.ndarray
    shape: np.ndarray
    cell_start: np.ndarray
    cell_items: np.ndarray

    @property
    def count(self) -> int:
        """Number of segments."""
        return int(self.a.shape[0])

    @classmethod
    def from_segments(
        cls,
        a: Any,
        b: Any,
        *,
        one_sided: bool = False,
        keep_radius: bool = True,
        margin: float = 0.0,
        cell_size: float = 2.0,
        constrain: bool = True,
    ) -> Walls:
        """Walls from segments a[k]-b[k]: (k, 2) or (k, 3) end points [m] (z enables the height filter).

        Raises:
            CrowdError: shapes differ or are not (k, 2|3), a coordinate is not finite or beyond 1e9 m,
                `margin` < 0, `cell_size` <= 0.
        """
        pa = np.array(a, dtype=np.float64, copy=True) if not isinstance(a, str) else None
        pb = np.array(b, dtype=np.float64, copy=True) if not isinstance(b, str) else None
        if pa is not None and pa.size == 0:
            pa = pa.reshape(0, 2)
        if pb is not None and pb.size == 0:
            pb = pb.reshape(0, 2)
        if pa is None or pb is None or pa.ndim != 2 or pa.shape != pb.shape or pa.shape[1] not in (2, 3):
            raise CrowdError(
                "wall end points a and b must be two arrays of the same shape (k, 2) or (k, 3) [m], got "
                f"{getattr(pa, 'shape', a)!r} and {getattr(pb, 'shape', b)!r}"
            )
        if not (np.abs(pa) <= _COORD).all() or not (np.abs(pb) <= _COORD).all():
            raise CrowdError("wall end points must be finite and within 1e9 m of the origin [m]")
        _number("margin", margin, 0.0, 1e9, "m")
        _number("cell_size", cell_size, 0.0, 1e9, "m", low_open=True)
        k = pa.shape[0]
        heights = pa.shape[1] == 3
        z = np.stack([pa[:, 2], pb[:, 2]], axis=1) if heights else np.zeros((k, 2))
        pa, pb = np.ascontiguousarray(pa[:, :2]), np.ascontiguousarray(pb[:, :2])
        if k:
            lo = np.minimum(pa.min(axis=0), pb.min(axis=0))
            hi = np.maximum(pa.max(axis=0), pb.max(axis=0))
        else:
            lo = hi = np.zeros(2)
        cell = float(cell_size)
        while math.prod(int((hi[d] - lo[d]) // cell) + 1 for d in range(2)) > _MAX_CELLS:
            cell *= 2.0
        nx, ny = (int((hi[d] - lo[d]) // cell) + 1 for d in range(2))
        start, items = bucket_segments(pa, pb, float(lo[0]), float(lo[1]), cell, nx, ny)
        return cls(
            a=_readonly(pa),
            b=_readonly(pb),
            z=_readonly(np.ascontiguousarray(z)),
            has_heights=heights,
            one_sided=bool(one_sided),
            keep_radius=bool(keep_radius),
            margin=float(margin),
            constrain=bool(constrain),
            cell_size=cell,
            origin=_readonly(np.array(lo, dtype=np.float64)),
            shape=_readonly(np.array([nx, ny], dtype=np.int64)),
            cell_start=_readonly(start),
            cell_items=_readonly(items),
        )

    @classmethod
    def from_navmesh(
        cls, mesh: NavMesh, *, margin: float = 0.0, cell_size: float = 2.0, constrain: bool = True
    ) -> Walls:
        """The mesh's boundary edges (``poly_neighbors < 0``) as one-sided walls that bound agent centres
        (the mesh is already eroded by the bake's agent radius), with their heights (3-D).

        Raises:
            CrowdError: `mesh` is not a NavMesh, `margin` < 0 or `cell_size` <= 0.
        """
        if not isinstance(mesh, NavMesh):
            raise CrowdError(f"from_navmesh needs a navigation.NavMesh, got {type(mesh).__name__}")
        a, b = mesh.boundary_edges()
        return cls.from_segments(
            a, b, one_sided=True, keep_radius=False, margin=margin, cell_size=cell_size, constrain=constrain
        )


_NO_WALLS: list[Walls] = []


def _no_walls() -> Walls:
    if not _NO_WALLS:
        _NO_WALLS.append(Walls.from_segments(np.zeros((0, 2)), np.zeros((0, 2))))
    return _NO_WALLS[0]


@dataclass(frozen=True)
class AvoidanceResult:
    """What `avoid` answers, one row per agent.

    Attributes:
        velocities: (N, 2) new velocities [m/s], each no faster than the agent's max speed.
        neighbours: (N,) agents each agent avoided (at most `max_neighbours`).
        wall_lines: (N,) wall half-planes each agent kept.
        fallback: (N,) True where the half-planes could not all be met and the 3-D linear program chose
            the velocity violating the agents' least (walls kept): a crowd too dense for the horizon.
    """

    velocities: np.ndarray
    neighbours: np.ndarray
    wall_lines: np.ndarray
    fallback: np.ndarray


def _rows(name: str, value: Any, n: int | None, cols: tuple[int, ...] | None, unit: str) -> np.ndarray:
    try:
        a = np.array(value, dtype=np.float64, copy=True, order="C")
    except (TypeError, ValueError) as error:
        raise CrowdError(
            f"{name} must be an array of real numbers [{unit}], got {type(value).__name__}"
        ) from error
    shape_ok = a.ndim == (1 if cols is None else 2) and (n is None or a.shape[0] == n)
    if shape_ok and cols is not None:
        shape_ok = a.shape[1] in cols
    if not shape_ok:
        want = "(N,)" if cols is None else f"(N, {'|'.join(map(str, cols))})"
        got = f"N = {n}" if n is not None else "any N"
        raise CrowdError(f"{name} must have shape {want} [{unit}] with {got}, got shape {a.shape}")
    if not (np.abs(a) <= _COORD).all():
        raise CrowdError(f"{name} must be finite and within 1e9 of zero [{unit}]")
    return a


def avoid(
    positions: Any,
    velocities: Any,
    preferred: Any,
    radii: Any,
    max_speeds: Any,
    *,
    dt: float,
    priorities: Any = None,
    walls: Walls | None = None,
    settings: AvoidanceSettings | None = None,
) -> AvoidanceResult:
    """New velocities for all N agents at once: collision-free with each other for `time_horizon` and with
    the walls for `time_horizon_walls` (module docstring), as close as possible to the preferred ones.

    Args:
        positions: (N, 2) or (N, 3) [m]; z is used only for the height filter.
        velocities: (N, 2) current velocities [m/s]. preferred: (N, 2) wanted velocities [m/s].
        radii: (N,) [m, >= 0]. max_speeds: (N,) [m/s, >= 0].
        dt: the tick the velocities will be applied for [s, 0 < dt <= 60]: how fast overlaps are undone.
        priorities: (N,) [> 0], default all 1: agent i takes p_j / (p_i + p_j) of avoiding j.
        walls: static segments (`Walls`), or None.
        settings: `AvoidanceSettings`, default `AvoidanceSettings()`.

    Raises:
        CrowdError: a wrong shape, a non-finite value, a negative radius or speed, a priority <= 0, a bad
            dt, walls or settings of the wrong type. The arguments are never modified.
    """
    settings = AvoidanceSettings() if settings is None else settings
    if not isinstance(settings, AvoidanceSettings):
        raise CrowdError(f"settings must be an AvoidanceSettings, got {type(settings).__name__}")
    walls = _no_walls() if walls is None else walls
    if not isinstance(walls, Walls):
        raise CrowdError(f"walls must be a Walls (Walls.from_segments / from_navmesh) or None, got {walls!r}")
    _number("dt", dt, 0.0, 60.0, "s", low_open=True)
    pos = _rows("positions", positions, None, (2, 3), "m")
    n = pos.shape[0]
    if n > MAX_AGENTS:
        raise CrowdError(f"at most {MAX_AGENTS} agents per call, got {n}")
    vel = _rows("velocities", velocities, n, (2,), "m/s")
    pref = _rows("preferred", preferred, n, (2,), "m/s")
    rad = _rows("radii", radii, n, None, "m")
    vmax = _rows("max_speeds", max_speeds, n, None, "m/s")
    if (rad < 0).any():
        raise CrowdError(f"radii must be >= 0 [m], got {rad[rad < 0][0]!r} at row {int(np.argmax(rad < 0))}")
    if (vmax < 0).any():
        bad = int(np.argmax(vmax < 0))
        raise CrowdError(f"max_speeds must be >= 0 [m/s], got {vmax[bad]!r} at row {bad}")
    prio = np.ones(n) if priorities is None else _rows("priorities", priorities, n, None, "weight")
    if not (prio > 0).all():
        bad = int(np.argmax(~(prio > 0)))
        raise CrowdError(f"priorities must be > 0, got {prio[bad]!r} at row {bad}")
    return solve(pos, vel, pref, rad, vmax, prio, dt, walls, settings)


def solve(
    positions: np.ndarray,
    velocities: np.ndarray,
    preferred: np.ndarray,
    radii: np.ndarray,
    max_speeds: np.ndarray,
    priorities: np.ndarray,
    dt: float,
    walls: Walls,
    settings: AvoidanceSettings,
) -> AvoidanceResult:
    """`avoid` without its checks, for a caller whose arrays are already what `avoid` accepts (float64,
    C-contiguous, the shapes and ranges `avoid` documents): the simulation, every tick. Anything else: call
    `avoid`, which raises a `CrowdError` where this would compute garbage."""
    pos, vel, pref, rad, vmax, prio = positions, velocities, preferred, radii, max_speeds, priorities
    n = pos.shape[0]
    use_z = pos.shape[1] == 3
    z = np.ascontiguousarray(pos[:, 2]) if use_z else np.zeros(n)
    xy = np.ascontiguousarray(pos[:, :2])
    s = settings
    # one tick's reach of the fastest, largest pair: the neighbour search goes at least this far (contacts)
    reach = 2.0 * (float(rad.max()) + float(vmax.max()) * dt) if n else 0.0
    params = np.array(
        [s.neighbour_distance, s.time_horizon, s.time_horizon_walls, s.height_range, s.side_preference,
         s.smoothing, float(dt), reach, math.radians(s.pass_right_deg),
         math.radians(s.narrow_pass_right_deg), math.radians(s.lane_deg)]
    )  # fmt: skip
    wall_params = np.array(
        [walls.origin[0], walls.origin[1], walls.cell_size, 1.0 if walls.keep_radius else 0.0, walls.margin,
         1.0 if walls.one_sided else 0.0, 1.0 if walls.has_heights else 0.0, 1.0 if walls.constrain else 0.0]
    )  # fmt: skip
    out = np.zeros((n, 2))
    neighbours = np.zeros(n, np.int64)
    wall_lines = np.zeros(n, np.int64)
    fallback = np.zeros(n, np.bool_)
    if n:
        avoid_rows(
            xy, z, vel, pref, rad, vmax, prio, params, s.max_neighbours, use_z, walls.a, walls.b, walls.z,
            wall_params, walls.shape, walls.cell_start, walls.cell_items, out, neighbours, wall_lines,
            fallback,
        )  # fmt: skip
    return AvoidanceResult(out, neighbours, wall_lines, fallback)
