"""Local avoidance in the batched locomotion: every NPC's intended velocity, adjusted for the others and the
walls in one `navigation.avoidance.avoid` call per tick, before the root-motion coupling moves the bodies.

Where it sits in `LocomotionBatch.before_physics` (Detour's crowd order: steer, avoid, integrate, clamp):

1. the agents advance along their paths (their "preferred" velocity is that step over dt);
2. `Crowd.steer` asks ORCA for every row's new velocity, from the bodies' feet and velocities (what
   collides), the agents' radii and top speeds, and the others that share the floor (the player);
3. a path-following row whose velocity changed has its agent moved by the difference along the navmesh
   surface (`AgentBatch.set_next_position`: walls stop it, a row pushed out of its corridor re-plans), and
   its agent velocity set; a freely walking row (Wander) gets the new speed and heading;
4. the coupling then drives each body toward its agent with root motion, as without a crowd, and the drift
   limit keeps body and agent together when the crowd pushes.

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

Rows that do not mean to move (no path, or a free speed of 0: aiming, searching, standing) are obstacles
for the others: they take part with a preferred velocity of 0 and a priority so high that the movers take
the whole share of avoiding them, and their own answer is ignored.

Priorities (`priority`, per row, set by the simulation from the behaviour states) split the work between
two movers: a chasing guard with priority 4 leaves a wanderer with priority 1 four fifths of the swerve.
"""

from __future__ import annotations

import math
import time

import numpy as np

from navigation.agent_batch import AgentBatch
from navigation.avoidance import AvoidanceResult, AvoidanceSettings, Walls, solve
from navigation.navmesh import NavMesh

STILL_PRIORITY = 1e3  # a row that does not move: movers take (almost) the whole share of avoiding it
_MOVING = 1e-6  # [m/s] slower than this is standing


class Crowd:
    """Local avoidance for the n rows of a `LocomotionBatch` (one `avoid` call per tick).

    Args:
        n: rows. settings: `navigation.avoidance.AvoidanceSettings`.
        mesh: the rows' navmesh: its boundary marks the narrow places (None: nowhere is narrow).
    Attributes:
        priority: (n,) each row's priority [> 0] this tick (1 by default); the simulation writes it.
        result: the last tick's `AvoidanceResult` (None before the first).
        changed: (n,) bool: the rows whose velocity the last tick's avoidance changed.
        seconds: wall time spent in `steer` so far [s].
        others: bodies that share the floor but are not rows (the player), set by the simulation before
            each tick: feet (k, 3) [m], velocities (k, 2) [m/s], radii (k,) [m]; or None.
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
        self.result: AvoidanceResult | None = None
        self.changed = np.zeros(n, dtype=bool)
        self._preferred = np.zeros((n, 2))
        self._last = np.zeros((n, 2))  # the velocities avoidance gave the rows last tick [m/s]
        self._facing = np.zeros((n, 2))  # the filtered velocities steered rows face along [m/s]
        self._steered = np.zeros(n, dtype=bool)  # the path rows steered last tick
        self._goal = np.full((n, 3), np.nan)  # their agents' destinations last tick [m]
        self.seconds = 0.0  # wall time spent in `steer` so far [s] (what `npc-ai bench sim` reports)
        self.others: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

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
        pref = self._preferred
        pref[:] = 0.0
        top = np.zeros(n)
        positions = feet.copy()
        vel = velocities[:, :2].copy()
        if path_rows.size:  # the agent's own step this tick is what it prefers
            pref[path_rows] = (agents.next_position[path_rows, :2] - before[path_rows, :2]) / dt
            top[path_rows] = np.maximum(agents.top_speed[path_rows], np.hypot(*pref[path_rows].T))
            positions[path_rows] = before[path_rows]
            vel[path_rows] = self._last[path_rows]
        walking = free & (free_speed > _MOVING)
        heading = np.where(np.isnan(free_heading), yaw, free_heading)[walking]
        pref[walking, 0] = free_speed[walking] * np.cos(heading)
        pref[walking, 1] = free_speed[walking] * np.sin(heading)
        top[walking] = free_speed[walking]
        moving = np.hypot(pref[:, 0], pref[:, 1]) > _MOVING
        priority = np.where(moving, self.priority, STILL_PRIORITY)
        radii, wanted = agents.radius, pref
        others = self.others
        if others is not None and len(others[0]):
            k = len(others[0])
            positions = np.concatenate([positions, others[0]])
            vel = np.concatenate([vel, others[1]])
            radii = np.concatenate([radii, others[2]])
            wanted = np.concatenate([pref, np.zeros((k, 2))])
            top = np.concatenate([top, np.zeros(k)])
            priority = np.concatenate([priority, np.full(k, STILL_PRIORITY)])
        # the arrays are the batch's own, float64 and checked by it: `solve` skips `avoid`'s checks
        self.result = solve(positions, vel, wanted, radii, top, priority, dt, self.walls, self.settings)
        v = self.result.velocities[:n]
        self._last[:] = np.where(moving[:, None], v, 0.0)
        changed = moving & (np.hypot(v[:, 0] - pref[:, 0], v[:, 1] - pref[:, 1]) > 1e-9)
        self.changed = changed
        on_path = np.zeros(n, dtype=bool)
        on_path[path_rows] = True
        rows = np.flatnonzero(changed & on_path)
        self._face(dt, rows, pref, v, agents.destination)
        steer[:] = np.nan
        steer[rows] = self._facing[rows]
        if rows.size:  # the agent steps by the avoiding velocity instead, along the surface (walls stop it)
            targets = agents.next_position[rows].copy()
            targets[:, :2] = before[rows, :2] + v[rows] * dt
            agents.set_next_position(rows, targets)
        rows = np.flatnonzero(changed & walking)
        if rows.size:
            speed = np.hypot(v[rows, 0], v[rows, 1])
            free_speed[rows] = speed
            turn = speed > _MOVING  # stopped: keep the heading it had
            free_heading[rows[turn]] = np.arctan2(v[rows[turn], 1], v[rows[turn], 0])
        self.seconds += time.perf_counter() - start

    def _face(self, dt: float, rows: np.ndarray, pref: np.ndarray, v: np.ndarray, goal: np.ndarray) -> None:
        """Low-pass filter the velocities the steered `rows` face along (`_facing`, per row): a row that
        was not steered last tick, or whose destination changed, starts from its preferred velocity."""
        tau = self.settings.facing_tau_s
        fresh = ~self._steered[rows]
        fresh |= (goal[rows] != self._goal[rows]).any(axis=1)
        self._steered[:] = False
        self._steered[rows] = True
        self._goal[:] = goal
        facing = v[rows]
        if tau > 0.0:
            start = self._facing[rows]
            start[fresh] = pref[rows[fresh]]
            facing -= start
            facing *= 1.0 - math.exp(-dt / tau)
            facing += start
        self._facing[rows] = facing
