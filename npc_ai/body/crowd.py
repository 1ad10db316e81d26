"""Local avoidance in the batched locomotion: every NPC's intended velocity, adjusted for the others and the
walls by `navigation.avoidance`'s ORCA once per tick, before the root-motion coupling moves the bodies. The
whole tick (gathering the rows' inputs, the avoidance, the facing filter, the answers) is one compiled call,
`npc_ai.body.crowd_kernels.steer_rows`, on buffers allocated once; then the changed path rows' agents move.

Where it sits in `LocomotionBatch.before_physics` (Detour's crowd order: steer, avoid, integrate, clamp):

1. the agents advance along their paths (their "preferred" velocity is that step over dt);
2. `Crowd.steer` asks ORCA for every row's new velocity, from the bodies' feet and velocities (what
   collides), the agents' radii and top speeds, and the others that share the floor (the player);
3. a path-following row whose velocity changed has its agent moved by the difference along the navmesh
   surface (`AgentBatch.set_next_position`: walls stop it, a row pushed out of its corridor re-plans); its
   agent's `velocity` stays the path's step (the next tick's advance ramps from it: set to the crowd's
   step, a slowed row started again from that speed and the doorway's gate hand-offs lost seconds, `npc-ai
   bench crowd` doorway 29.1 -> 34.4 s); a freely walking row (Wander) gets the new speed and heading;
4. the coupling then drives each body toward its agent with root motion, as without a crowd, and the drift
   limit keeps body and agent together when the crowd pushes. Its feed-forward is the agent's `velocity`,
   the path's, also for a row the crowd slowed: such a body walks on ahead of its agent by up to
   `feedforward_s` x the difference (0.14 m for a row held still at 1.4 m/s), which is where the chase's
   overlaps come from. Feeding the coupling the crowd's answer instead cut those (16 -> 10 overlap ticks
   over 11 layouts) but left one doorway layout of 81 short of arriving and took the warehouse soak to
   1.1-1.5 % stuck (0.5-0.7 % with the path's, seeds 0-3), so the coupling keeps the path's.

No wall half-planes: the navmesh is eroded by the agent radius, so a path rounds a corner of the walls
exactly on the mesh's boundary, and a closest-point wall half-plane (`navigation.avoidance`) only lets an
agent approach such a corner ever more slowly (it stalled a lone chaser at the end of a wall). The
surface move of step 3 keeps every agent on the mesh instead, and path rows' preferred velocities come
from paths that stay on it. The mesh's boundary edges are still given to `avoid`, as walls that do not
constrain (`Walls.constrain` False): they tell which agents are in a narrow place (a corridor, a doorway),
where the keep-right turn is the narrow one and lanes form (`AvoidanceSettings.lane_deg`).

A path row the avoidance turned faces along its new velocity (`steer`, read by the coupling), so the body
walks where the agent goes: without it the body faced the path's next corner, root motion carried it
straight on, and the drift limit pulled a sidestepping agent back onto the body's line. The velocity it
faces along is low-pass filtered (`AvoidanceSettings.facing_tau_s`, per row, from the path's velocity when
the row starts being steered or its destination changes): in a dense spot the avoiding velocity flips from
tick to tick, and bodies that followed each flip turned back and forth on the spot and got stuck.

A free row (a wanderer) the avoidance answered walks at the answer's speed along its direction, except
that an answer slower than `crowd_kernels.CRAWL` leaves the heading its behaviour turns it to: a wanderer
crawling at an obstacle's edge (the behaviour caps its speed near 0 there) had its turn away reset to the
crawl's direction tick after tick, and stood there (a 10-minute warehouse soak with avoidance: 12 s).

Rows that do not mean to move (no path, or a free speed of 0: aiming, searching, standing) are obstacles
for the others: they take part with a preferred velocity of 0 and a priority so high that the movers take
the whole share of avoiding them, and their own answer is ignored. A path row parked at its path's end
(steering for the last point, within `PARK_RADIUS` of it, not stopped) is not such a wall: it yields with
`PARKED_SHARE` of its priority, its agent is moved by its answer like a mover's, and its path brings it
back once the way is clear. NPCs that arrived and stood on the others' way (along a wall, across a
corridor) were walls nobody could pass (`npc-ai bench crowd` doorway and corridor). A parked row just
ahead of a mover that the avoidance (or what its body did) has all but stopped for a second, bound
somewhere else than that row, steps square off that mover's way at its top speed for as long as it
blocks it (to the other side once its body has not moved for a second there: a wall;
`crowd_kernels.make_way`, marked in `Crowd.aside`): two parked agents a row apart leave less than a
body's width between them, and ORCA's answer to the mover there is to stand for good while theirs is to
stay. Two blocked movers head-on both turn right (`crowd_kernels.pass_head_on`; two queued on one gate the
same way are not head-on, they converge on its mouth, and the one farther from its centre waits).

A mover blocked for `REPLAN_AFTER` seconds (the same measure, `Crowd._blocked_s`) re-plans from where its
agent stands, and again every `REPLAN_AFTER` while it stays blocked (`AgentBatch.replan`): a push can
carry an agent round the corner of a crate, out of sight of the corner it steers for, and it then walked
into the crate for good (`npc-ai bench crowd` doorway, 1 of 41 layouts).

A row parked in a narrow place (room for two to three bodies abreast at its path's end) stands by the
nearest wall, its end moved toward it by up to its radius (`crowd_kernels.stand_by_walls`, once it is
within a radius of the end): the others pass in the middle. In the corridor's goal formation, two rows
parked across the 3 m corridor left 0.3 m where a late agent bound deeper needed 0.8 m, and each of them
waited for a parked pair to part (`npc-ai bench crowd` corridor, issue layout: 54.0 -> 28.1 s).

Priorities (`priority`, per row, set by the simulation from the behaviour states) split the work between
two movers: a chasing guard with priority 4 leaves a wanderer with priority 1 four fifths of the swerve.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from navigation.agent_batch import AgentBatch
from navigation.avoidance import AvoidanceResult, AvoidanceSettings, Walls
from navigation.crowd_gates import Gates, find_gates
from navigation.navmesh import NavMesh
from npc_ai.body.crowd_kernels import (
    PARK_RADIUS,
    PARKED_SHARE,
    STILL_PRIORITY,
    gather_rows,
    make_way,
    scatter_rows,
    stand_by_walls,
    steer_rows,
)

__all__ = ["PARKED_SHARE", "PARK_RADIUS", "REPLAN_AFTER", "STILL_PRIORITY", "Crowd"]


# [s] a mover blocked this long re-plans from where its agent stands, and again after as long again
REPLAN_AFTER = 3.0


class Crowd:
    """Local avoidance for the n rows of a `LocomotionBatch` (one compiled call per tick).

    Args:
        n: rows. settings: `navigation.avoidance.AvoidanceSettings`.
        mesh: the rows' navmesh: its boundary marks the narrow places (None: nowhere is narrow).
    Attributes:
        priority: (n,) each row's priority [> 0] this tick (1 by default); the simulation writes it.
        result: the last tick's `AvoidanceResult`, rows then others (the crowd's buffers: overwritten by the
            next tick; zeros before the first).
        changed: (n,) bool: the rows whose velocity the last tick's avoidance changed.
        parked: (n,) bool: the path rows parked at their path's end last tick (they yield).
        seconds: wall time spent in `steer` so far [s].
        others: bodies that share the floor but are not rows (the player), set by the simulation before
            each tick: feet (k, 3) [m], velocities (k, 2) [m/s], radii (k,) [m]; or None.
        solver: a stand-in for the avoidance (tests): called as `navigation.avoidance.solve` (positions,
            velocities, preferred, radii, max speeds, priorities, dt, walls, settings) and returning an
            `AvoidanceResult`; None (the default): the compiled avoidance, inside the tick's one call.
    """

    def __init__(self, n: int, settings: AvoidanceSettings, mesh: NavMesh | None = None) -> None:
        if not isinstance(settings, AvoidanceSettings):
            raise TypeError(f"settings must be an AvoidanceSettings, got {type(settings).__name__}")
        self.n = n
        self.settings = settings
        # walls that mark narrow places only (see the module docstring): the surface move keeps the agents
        # on the mesh
        self.walls = (
            Walls.from_segments(np.zeros((0, 2)), np.zeros((0, 2)))
            if mesh is None
            else Walls.from_navmesh(mesh, constrain=False)
        )
        self.priority = np.ones(n)
        self.changed = np.zeros(n, dtype=bool)
        self._preferred = np.zeros((n, 2))
        self._last = np.zeros((n, 2))  # the velocities avoidance gave the rows last tick [m/s]
        self._facing = np.zeros((n, 2))  # the filtered velocities steered rows face along [m/s]
        self._steered = np.zeros(n, dtype=bool)  # the path rows steered last tick
        self._goal = np.full((n, 3), np.nan)  # their agents' destinations last tick [m]
        self._moving = np.zeros(n, dtype=bool)
        self._on_path = np.zeros(n, dtype=bool)
        self._move_rows = np.zeros(n, dtype=np.int64)  # the path rows the tick moves, in the first m
        self._move_targets = np.zeros((n, 3))  # and where to [m]
        # the one-way gates (narrow passages taken one direction at a time) and their state
        self.gates = Gates.none() if mesh is None else find_gates(mesh, settings.gate_width)
        self.gate_owner = np.zeros(self.gates.count, np.int64)  # +1 / -1 along its axis, 0: free
        self._gate_green = np.zeros(self.gates.count)  # [s] how long the owner has had it
        self.held = np.zeros(n, dtype=bool)  # the rows a gate held this tick
        self.parked = np.zeros(n, dtype=bool)  # the path rows at their path's end this tick (they yield)
        # the rows stepping aside: parked ones out of a blocked mover's way or to a narrow place's wall, and
        # blocked movers head-on past each other (they move by their answers)
        self.aside = np.zeros(n, dtype=bool)
        self._blocked_s = np.zeros(n)  # [s] how long each row has been a blocked mover (`make_way`)
        self._stuck_aside_s = np.zeros(n)  # [s] how long each row has stepped aside without moving
        self._aside_way = np.zeros(n, dtype=np.int64)  # which way each row steps aside (`make_way`)
        self._row_gate = np.full(n, -1, np.int64)  # no gate until the gates run (the stand-in path: never)
        self._row_dir = np.zeros(n, np.int64)
        self._row_inside = np.zeros(n, dtype=bool)
        self._buffers(n)
        s_, w = settings, self.walls
        # `avoid_rows`' parameters (`navigation.avoidance.solve`); dt and the grid cell are set each tick
        self._params = np.array(
            [s_.neighbour_distance, s_.time_horizon, s_.time_horizon_walls, s_.height_range,
             s_.side_preference, s_.smoothing, 0.0, 0.0, math.radians(s_.pass_right_deg),
             math.radians(s_.narrow_pass_right_deg), math.radians(s_.lane_deg)]
        )  # fmt: skip
        self._wall_params = np.array(
            [w.origin[0], w.origin[1], w.cell_size, 1.0 if w.keep_radius else 0.0, w.margin,
             1.0 if w.one_sided else 0.0, 1.0 if w.has_heights else 0.0, 1.0 if w.constrain else 0.0]
        )  # fmt: skip
        self.seconds = 0.0  # wall time spent in `steer` so far [s] (what `npc-ai bench sim` reports)
        self.others: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._no_others = (np.zeros((0, 3)), np.zeros((0, 2)), np.zeros(0))
        self.solver: Callable[..., AvoidanceResult] | None = None

    def _buffers(self, size: int) -> None:
        """The avoidance's input and output rows for `size` agents (the rows and the others)."""
        self._size = size
        self._positions = np.zeros((size, 3))
        self._vel = np.zeros((size, 2))
        self._pref = np.zeros((size, 2))
        self._radii = np.zeros(size)
        self._top = np.zeros(size)
        self._prio = np.zeros(size)
        self._z = np.zeros(size)
        self._out = np.zeros((size, 2))
        self._neighbours = np.zeros(size, np.int64)
        self._wall_lines = np.zeros(size, np.int64)
        self._fallback = np.zeros(size, np.bool_)
        self.result = AvoidanceResult(self._out, self._neighbours, self._wall_lines, self._fallback)
        self._preferred = self._pref[: self.n]

    def steer(
        self,
        dt: float,
        feet: np.ndarray,
        velocities: np.ndarray,
        before: np.ndarray,
        agents: AgentBatch,
        path_rows: np.ndarray,
        free: np.ndarray,
        free_speed: np.ndarray,
        free_heading: np.ndarray,
        yaw: np.ndarray,
        steer: np.ndarray,
    ) -> None:
        """Adjust this tick's intents of all rows (see the module docstring); moves the agents of changed
        path rows and writes `free_speed` / `free_heading` of changed free rows.

        A path row is its agent (where it was before this tick's advance, and the velocity avoidance gave
        it last tick): the agent leads, the body follows it. Other rows are their bodies. Bodies that are
        not rows but share the floor (the player) are in `others`: obstacles like standing rows.

        Args:
            dt: the tick [s]. feet: (n, 3) feet positions [m]. velocities: (n, 3) body velocities [m/s].
            before: (n, 3) the agents' positions before this tick's advance [m].
            agents: the rows' agents, already advanced this tick. path_rows: the rows that followed a path.
            free, free_speed, free_heading, yaw: the free-walking intents [m/s, rad] and facings [rad].
            steer: (n, 2) written: for each path row it changed, its avoiding velocity low-pass filtered
                over the ticks it has been steered in a row (`AvoidanceSettings.facing_tau_s`) [m/s], NaN
                elsewhere (the coupling faces a steered row along it).
        """
        start = time.perf_counter()
        n = self.n
        others = self.others if self.others is not None else self._no_others
        size = n + len(others[0])
        if size != self._size:  # the player came or went
            self._buffers(size)
        tau = self.settings.facing_tau_s
        alpha = 1.0 - math.exp(-dt / tau) if tau > 0.0 else -1.0
        self._params[6] = dt
        w, g = self.walls, self.gates
        o_feet, o_vel, o_radius = (np.ascontiguousarray(a, dtype=np.float64) for a in others)
        if self.solver is None:  # the whole tick in one compiled call
            m = steer_rows(
                dt, feet, velocities, before, agents.next_position, agents.top_speed, agents.radius,
                agents.destination, path_rows, free, free_speed, free_heading, yaw, self.priority, o_feet,
                o_vel, o_radius, alpha, self._params, self.settings.max_neighbours, w.a, w.b, w.z,
                self._wall_params, w.shape, w.cell_start, w.cell_items, self._positions, self._vel,
                self._pref, self._radii, self._top, self._prio, self._z, self._out, self._neighbours,
                self._wall_lines, self._fallback, self._moving, self._on_path, self._last, self.changed,
                self._facing, self._steered, self._goal, steer, self._move_rows, self._move_targets,
                agents.corridors, agents.corridor_len, agents.poly, g.centre, g.axis, g.half, g.pairs,
                self.gate_owner, self._gate_green, self.held, self._row_gate, self._row_dir, self._row_inside,
                agents.has_path, agents.is_stopped, agents.corner, agents.path_len, agents.path_corners,
                self.parked, self._blocked_s, self.aside, self._stuck_aside_s, self._aside_way,
            )  # fmt: skip
        else:  # the same steps with the stand-in between them
            gather_rows(
                dt, feet, velocities, before, agents.next_position, agents.top_speed, agents.radius,
                path_rows, free, free_speed, free_heading, yaw, self.priority, o_feet, o_vel, o_radius,
                self._last, self._positions, self._vel, self._pref, self._radii, self._top, self._prio,
                self._z, self._moving, self._on_path, agents.has_path, agents.is_stopped, agents.corner,
                agents.path_len, agents.path_corners, self.parked,
            )  # fmt: skip
            make_way(
                len(self.parked), dt, agents.destination, self._positions, self._vel, self._pref,
                self._radii, self._top, self._moving, self._on_path, self.parked, self.held,
                self._blocked_s, self.aside, velocities, self._stuck_aside_s, self._aside_way, self._row_gate,
                self._row_dir, g.centre,
            )  # fmt: skip
            stand_by_walls(
                len(self.parked), self._positions, self._pref, self._radii, self._top, self.parked,
                self.aside, agents.path_len, agents.path_corners, self._params, w.a, w.b, w.z,
                self._wall_params, w.shape, w.cell_start, w.cell_items,
            )  # fmt: skip
            answer = self.solver(
                self._positions,
                self._vel,
                self._pref,
                self._radii,
                self._top,
                self._prio,
                dt,
                w,
                self.settings,
            )
            self._out[:] = answer.velocities
            m = scatter_rows(
                dt, before, agents.next_position, agents.destination, free, free_speed, free_heading, alpha,
                self._pref, self._out, self._moving, self._on_path, self.held, self.aside, self._last,
                self.changed, self._facing, self._steered, self._goal, steer, self._move_rows,
                self._move_targets, self._aside_way,
            )  # fmt: skip
        if m:  # the agent steps by the avoiding velocity instead, along the surface (walls stop it)
            agents.move_unchecked(self._move_rows[:m], self._move_targets[:m], crowd=True)  # own buffers
        blocked = self._blocked_s[:n]
        if blocked.max(initial=0.0) >= REPLAN_AFTER:  # rare: stuck movers plan from where they stand
            again = np.floor(blocked / REPLAN_AFTER) > np.floor((blocked - dt) / REPLAN_AFTER)
            agents.replan(np.flatnonzero(again & (blocked >= REPLAN_AFTER)))
        self.seconds += time.perf_counter() - start
