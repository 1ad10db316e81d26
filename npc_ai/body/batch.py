"""The legs of many characters at once: nav agents, animators, capsule bodies and the root-motion coupling
between them, with every per-character quantity in arrays (one row per character).

This is the simulation's hot path. One tick is two vectorised halves around the physics step, as for one
`Locomotor` (`npc_ai.body.coupling` explains the coupling):

- `before_physics`: path-following rows advance their agents (`navigation.agent_batch.AgentBatch`), the
  agent-to-body offset is filtered into a speed request and a heading; free-moving rows (Wander) turn toward
  their heading; the animators (`AnimatorBatch`, its rules and arrays) give every row's root motion, which
  becomes the bodies' horizontal velocities (one raw PyBullet call per body).
- `after_physics`: agents without a path ride along with their bodies, and the drift limit pulls agents
  back toward bodies that physics carried off.

Each half is one or two compiled calls (`npc_ai.body.kernels.begin`, `couple_and_drive`, `settle`) that run
those rules for every row with no Python between them: the fixed cost of a tick is a few calls, not a few
dozen.

Behaviours talk to one row through a `LocomotorView` (the `Locomotor` interface: `set_destination`,
`move_freely`, `position`, `arrived`...). Per-row Python runs only for rare events: a new destination, a
warp, an agent pulled back to its body, and, in full-pose mode, pivot turns and foot locking.
"""

from __future__ import annotations

import math

import numpy as np

from navigation import arguments
from navigation.agent import AgentSettings, nearest_on_mesh
from navigation.agent_batch import AgentBatch
from navigation.avoidance import AvoidanceSettings, Walls
from navigation.query import NavMeshQuery, PathResult, QueryStatus
from npc_ai.animation import AnimatorSettings
from npc_ai.animation.batch import AnimatorBatch
from npc_ai.animation.feet import leg_chain
from npc_ai.animation.foot_lock import FootLock, FootLockResult, leg_points_world
from npc_ai.animation.skeleton import forward_kinematics
from npc_ai.body import kernels, speculative
from npc_ai.body import kinematic as kinematic_bodies
from npc_ai.body.coupling import CouplingError, CouplingSettings, DriftLimit
from npc_ai.body.crowd import Crowd
from npc_ai.body.locomotor import ARRIVE_TOLERANCE
from scenes import World, WorldError, groups

KINEMATIC_MARGIN = 0.05
"""[m] a kinematic body's default radius is the agent's less this: with the agent radius, the crowd's agents
(kept a radius apart) had bodies touching, whose moves `kinematic` refuses (warehouse soak, 30 NPCs,
avoidance, seeds 0 / 1: 66 / 60 % of NPC-time stuck, against 49 / 46 % with this margin)."""


class LocomotionBatch:
    """Agent + animator + capsule + root-motion coupling for n characters (see the module docstring).

    Args:
        world: the world the bodies live in. query: the navmesh query (shared).
        positions: (n, 3) feet positions [m]; yaws: (n,) facings [rad].
        agent: nav agent settings of every row. coupling: a root-motion `CouplingSettings` (drift limit
            `PULL_AGENT` or `NONE`). animator: animator settings (`lazy_pose` False samples every row's
            pose each tick).
        body_radius: capsule radius [m]; default the agent radius for dynamic bodies (as `Locomotor`'s),
            `KINEMATIC_MARGIN` less (at least 0.2 m) for kinematic ones, which refuse moves into a body they
            touch: at the avoidance's own spacing they would touch all the time.
        group: collision group of the bodies.
        avoidance: local avoidance between the rows (`Crowd`); None: the bodies only keep apart.
        kinematic: mass-0 bodies that root motion moves on the navmesh (`npc_ai.body.kinematic`: exact
            about walls, ledges and floor heights by construction, kept apart by position, several times
            cheaper to step); False: dynamic capsules whose contacts physics solves.
    Raises:
        CouplingError: a coupling the batch does not run (agent_drives, pull_character: use `Locomotor`).
    """

    def __init__(
        self,
        world: World,
        query: NavMeshQuery,
        positions: np.ndarray,
        yaws: np.ndarray,
        *,
        agent: AgentSettings | None = None,
        coupling: CouplingSettings | None = None,
        animator: AnimatorSettings | None = None,
        body_radius: float | None = None,
        group: int = groups.NPC,
        avoidance: AvoidanceSettings | None = None,
        kinematic: bool = False,
    ) -> None:
        c = coupling if coupling is not None else CouplingSettings()
        if c.mode != "root_motion" or c.drift_limit is DriftLimit.PULL_CHARACTER:
            raise CouplingError(
                "the batched locomotion runs mode 'root_motion' with drift limit pull_agent or none, got "
                f"{c.mode!r} / {c.drift_limit.value!r}: use npc_ai.body.Locomotor for the others"
            )
        self.world, self.query, self.coupling = world, query, c
        a = agent if agent is not None else AgentSettings()
        p = np.asarray(positions, dtype=np.float64).reshape(-1, 3)
        n = len(p)
        self.n = n
        self.agents = AgentBatch(query, p, a, yaws=np.asarray(yaws, dtype=np.float64))
        if body_radius is not None:
            self.radius = body_radius
        else:
            self.radius = max(0.2, a.radius - KINEMATIC_MARGIN) if kinematic else a.radius
        self.height = a.height
        self.kinematic = bool(kinematic)
        self.bodies = np.asarray(
            world.add_capsules(
                self.agents.next_position + [0.0, 0.0, 0.0 if kinematic else 0.01],
                radius=self.radius,
                height=self.height,
                yaws=np.asarray(yaws, dtype=np.float64),
                group=group,
                kinematic=self.kinematic,
            ),
            dtype=np.int64,
        )
        # fixed circles the bodies keep out of: (m, 2) centres [m] and (m,) radii [m] (the player)
        self.solid: tuple[np.ndarray, np.ndarray] = (np.zeros((0, 2)), np.zeros(0))
        self._pose_rows = np.array([world.poses.index(int(b)) for b in self.bodies], dtype=np.int64)
        kernels.warm_up()  # compiled or loaded from the disk cache now, not in the first tick
        if self.kinematic:
            kinematic_bodies.warm_up(query)
        else:
            speculative.warm_up()
        anim = animator if animator is not None else AnimatorSettings(lazy_pose=True)
        self.animators = AnimatorBatch(n, settings=anim)
        self.yaw = np.asarray(yaws, dtype=np.float64).copy()
        self.free = np.zeros(n, dtype=bool)  # free movement (no path) instead of path following
        self.free_speed = np.zeros(n)  # [m/s]
        self.free_heading = np.full(n, np.nan)  # [rad]; NaN keeps the facing
        self.smooth_delta = np.zeros((n, 2))  # filtered agent offset (right, forward) [m]
        self.velocity_request = np.zeros((n, 2))  # velocity fed to the animator (right, forward) [m/s]
        self.should_move = np.zeros(n, dtype=bool)
        self.pulls = np.zeros(n, dtype=np.int64)
        self.command = np.zeros((n, 2))  # horizontal velocity given to each body this tick [m/s]
        self._turn = math.radians(c.turn_rate_deg)  # [rad/s]
        self._full_pose = not anim.lazy_pose
        self.foot_locks: list[FootLock] | None = [FootLock() for _ in range(n)] if c.foot_lock else None
        self.foot_lock_results: list[FootLockResult | None] = [None] * n
        clip = self.animators.locomotion_set.walk.clip
        self._chains = (leg_chain(clip, 0), leg_chain(clip, 1))
        self._feet = tuple(clip.skeleton.index(f) for f in clip.feet)
        self._dt = 0.0  # the last tick's length, validated [s]
        self._remaining: np.ndarray | None = None  # the agents' remaining distances until they change
        # buffers of the compiled tick (npc_ai.body.kernels)
        self._pos = np.zeros((n, 3))  # feet positions [m]
        self._following = np.zeros(n, dtype=bool)  # rows following a path
        self._path_rows = np.zeros(n, dtype=np.int64)  # their indices, in the first m entries
        self._no_pivot = np.zeros((n, 2))  # [m]
        self._full_velocity = np.zeros((n, 3))  # [m/s]
        self._far = np.zeros(n, dtype=np.int64)  # rows the drift limit pulls
        self._targets = np.zeros((n, 3))  # where it pulls their agents [m]
        self._delta = np.zeros((n, 3))  # the animators' root motion [m] and turns [rad], gait levels
        self._dyaw = np.zeros(n)
        self._gaits = (np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64))
        self._pull = c.drift_limit is DriftLimit.PULL_AGENT
        # local avoidance between the rows (and `crowd.others`), None: bodies only push each other
        self.crowd = None if avoidance is None else Crowd(n, avoidance, query.mesh)
        self.steer = np.full((n, 2), np.nan)  # the crowd's velocities the rows face along [m/s] (NaN: none)
        self._feedforward = math.nan if c.feedforward_s is None else c.feedforward_s  # NaN: the reference
        self._body_list = self.bodies.tolist()
        self.views = [LocomotorView(self, i) for i in range(n)]

    # -- state -----------------------------------------------------------------------------------------
    @property
    def positions(self) -> np.ndarray:
        """(n, 3) feet positions of the bodies as of the last physics step [m]."""
        p = self.world.poses.positions[self._pose_rows]
        p[:, 2] -= self.height / 2
        return p

    @property
    def velocities(self) -> np.ndarray:
        """(n, 3) body velocities as of the last physics step [m/s]."""
        return self.world.poses.velocities[self._pose_rows]

    @property
    def speeds(self) -> np.ndarray:
        """(n,) horizontal body speeds [m/s]."""
        v = self.velocities
        return np.hypot(v[:, 0], v[:, 1])

    def remaining(self, i: int) -> float:
        """Row i's agent's path length to go [m] (all rows computed at once, once between changes)."""
        if self._remaining is None:
            self._remaining = self.agents.remaining_distance()
        return float(self._remaining[i])

    def _changed(self, i: int) -> None:
        """Row i's agent changed between ticks (a new path, a warp): refresh its cached distance."""
        if self._remaining is not None:
            self._remaining[i] = self.agents.remaining_distance(np.array([i]))[0]

    def drift(self) -> np.ndarray:
        """(n,) horizontal distance between each agent's simulated position and its body [m]."""
        d = self.agents.next_position - self.positions
        return np.hypot(d[:, 0], d[:, 1])

    # -- the tick halves -------------------------------------------------------------------------------
    def before_physics(self, dt: float) -> None:
        """Advance agents and animators and set every body's horizontal velocity for this tick.

        Two compiled calls (`kernels.begin`: the agents' tick and the drift limit; `kernels.couple_and_drive`:
        the coupling, the animators' tick, the bodies' velocities), then one PyBullet call per body; Python
        runs between them only for rows with a rare event."""
        if dt != self._dt:  # checked once per tick length (NaN never equals: always refused)
            self._dt = arguments.seconds(dt, "dt")  # NavMeshError, as `AgentBatch.update` raises
        dt = self._dt
        self._remaining = None
        c, ag, an = self.coupling, self.agents, self.animators
        pos, following, poses = self._pos, self._following, self.world.poses
        far, targets = self._far, self._targets  # rows the drift limit pulls, and where to
        before = None if self.crowd is None else ag.next_position.copy()  # where the agents start the tick
        m, count, pulls = kernels.begin(
            poses.positions, self._pose_rows, self.height / 2, self.free, pos, following, self._path_rows, dt,
            ag.next_position, ag.velocity, ag.corner, ag.poly, ag.poly_id, ag.path_corners, ag._tail,
            ag.path_len, ag.has_path, ag.is_stopped, ag.top_speed, ag.acceleration, ag.stopping_distance,
            ag.auto_braking, ag.corridor_tolerance, ag.corridors, ag.corridor_len, ag._edges, ag._planes,
            ag._speeds, ag._status, self._pull, ag.radius, c.drift_keep, self.pulls, far, targets,
        )  # fmt: skip
        path = self._path_rows[:m]
        if count:  # rare events of the agents' tick (re-plans...), then the drift limit
            ag._after_advance(dt, path)
            if self._pull:
                pulls = kernels.find_drift(
                    following, pos, ag.next_position, ag.radius, c.drift_keep, self.pulls, far, targets
                )
        if pulls:
            ag.set_next_position(far[:pulls].copy(), targets[:pulls].copy())
        if self.crowd is not None and before is not None:  # the crowd adjusts the intents before the coupling
            self.crowd.steer(
                dt, pos, poses.velocities[self._pose_rows], before, ag, path, self.free, self.free_speed,
                self.free_heading, self.yaw, self.steer,
            )  # fmt: skip
        filter_speed, filter_gait = an.filters(dt)
        command, full = np.empty((self.n, 2)), self._full_velocity
        if c.pivot_turns and m:  # about the foot planted in the pose before this tick's advance
            yaw_before = self.yaw[path]
            stale = kernels.couple(
                dt, pos, self.free, self.free_speed, self.free_heading, self.yaw, self.smooth_delta,
                self.velocity_request, self.should_move, an.speed, ag.next_position, ag.velocity,
                ag.top_speed, ag.stopping_distance, ag.path_corners, ag._tail, ag.corner, ag.path_len,
                ag.has_path, ag.has_destination, self.steer, c.tau, self._feedforward, c.max_speed_factor,
                c.should_move_speed, self._turn, c.turn_in_place,
            )  # fmt: skip
            pivot = np.zeros((self.n, 2))
            pivot[path] = self._pivot_offsets(path, yaw_before)
            ok = kernels.animate_and_drive(
                dt, filter_speed, filter_gait, *an.kernel_inputs, self._delta, self._dyaw, *self._gaits,
                self.yaw, pivot, poses.velocities, self._pose_rows, command, full,
            )  # fmt: skip
            stale = stale if ok else -1
        else:  # the same rules in one call
            stale = kernels.couple_and_drive(
                dt, pos, self.free, self.free_speed, self.free_heading, self.yaw, self.smooth_delta,
                self.velocity_request, self.should_move, ag.next_position, ag.velocity, ag.top_speed,
                ag.stopping_distance, ag.path_corners, ag._tail, ag.corner, ag.path_len, ag.has_path,
                ag.has_destination, self.steer, c.tau, self._feedforward, c.max_speed_factor,
                c.should_move_speed, self._turn, c.turn_in_place, filter_speed, filter_gait,
                *an.kernel_inputs, self._delta, self._dyaw, *self._gaits, self._no_pivot, poses.velocities,
                self._pose_rows, command, full,
            )  # fmt: skip
        if stale < 0:
            raise WorldError("character velocities must be finite")
        if stale:  # free rows drop their paths (nothing after the coupling reads them this tick)
            ag.reset_path(np.flatnonzero(self.free))
        self.command = command
        if self.kinematic:
            self._place(full, dt)
        else:  # no capsule runs into another within the tick (Bullet's contact would come a step late)
            speculative.speculate(pos, full, self.radius, dt, *self.solid, speculative.SWEEPS)
            self.world.set_velocities(self._body_list, full)
        if self._full_pose:  # what a renderer would read: the pose of every row, every tick
            for i in range(self.n):
                self.animators.pose(i)

    def _place(self, velocity: np.ndarray, dt: float) -> None:
        """Move the kinematic bodies by `velocity` (n, 3) [m/s] over `dt` [s]: apart, then along the
        navmesh, in one compiled call (`npc_ai.body.kinematic.place`)."""
        pos = self._pos  # feet, as `kernels.begin` read them this tick
        target = pos[:, :2] + velocity[:, :2] * dt
        feet, on_mesh = kinematic_bodies.place(self.query, pos, target, self.radius, *self.solid)
        if not on_mesh.all():
            for i in np.flatnonzero(~on_mesh).tolist():  # off the mesh (a warp, a shove): back on, or stay
                snap = self.agents._settings[i].snap_distance
                found = nearest_on_mesh(self.query, pos[i], "body position", snap)
                feet[i] = pos[i] if found is None else found
        feet[:, 2] += self.height / 2
        self.world.place_kinematic(self._pose_rows, feet, dt)

    def after_physics(self) -> None:
        """Agents without a path ride along with their bodies; the drift limit acts on the others (a shove
        or a crowd may have carried a body off during the step); planted feet lock (full pose).

        One compiled call (`kernels.settle`); Python only for rows with a rare event."""
        self._remaining = None
        ag, pos, far, targets = self.agents, self._pos, self._far, self._targets
        ok, followed, pulls = kernels.settle(
            self.world.poses.positions, self._pose_rows, self.height / 2, pos, ag._all, ag.next_position,
            ag.has_path, ag.poly_id, ag._edges, ag._planes, ag._status, self._pull, ag.radius,
            self.coupling.drift_keep, self.pulls, far, targets,
        )  # fmt: skip
        if not ok:  # a body no agent can follow (NaN, beyond the coordinate limit): `follow` refuses it
            ag.follow(None, pos)
            if self._pull:
                pulls = kernels.find_drift(
                    ag.has_path, pos, ag.next_position, ag.radius, self.coupling.drift_keep, self.pulls, far,
                    targets,
                )  # fmt: skip
        if followed:
            ag._after_follow(ag._all, pos)
        if pulls:
            ag.set_next_position(far[:pulls].copy(), targets[:pulls].copy())
        if self.foot_locks is not None:
            planted = self.animators.planted()
            legs = self._chains[0] + self._chains[1] + self._feet
            for i, lock in enumerate(self.foot_locks):
                pose = self.animators.pose(i)
                joints = forward_kinematics(
                    self.animators.blend.samples[1].clip.skeleton,
                    pose.root_offset,
                    pose.rotations,
                    list(legs),
                )[0]
                hip, knee, ankle = leg_points_world(joints, self._chains, pos[i], float(self.yaw[i]))
                self.foot_lock_results[i] = lock.update(hip, knee, ankle, planted[i], self._dt)

    def _pivot_offsets(self, rows: np.ndarray, yaw_before: np.ndarray) -> np.ndarray:
        """(m, 2) body displacements [m] that keep each row's most planted foot (weight >= 0.5) in place
        while its facing turned from `yaw_before` to the current yaw (zero when no foot is planted)."""
        out = np.zeros((len(rows), 2))
        turned = np.flatnonzero(self.yaw[rows] != yaw_before)
        if turned.size == 0:
            return out
        planted = self.animators.planted(rows[turned])
        foot = np.argmax(planted, axis=1)
        for j, k, f in zip(turned.tolist(), range(len(turned)), foot.tolist(), strict=True):
            if planted[k, f] < 0.5:
                continue
            pose = self.animators.pose(int(rows[j]))
            skeleton = self.animators.blend.samples[1].clip.skeleton
            joint = self._feet[f]
            local = forward_kinematics(skeleton, pose.root_offset, pose.rotations, [joint])[0][joint]
            y0, y1 = float(yaw_before[j]), float(self.yaw[rows[j]])
            c0, s0, c1, s1 = math.cos(y0), math.sin(y0), math.cos(y1), math.sin(y1)
            out[j] = (
                c0 * local[0] - s0 * local[1] - (c1 * local[0] - s1 * local[1]),
                s0 * local[0] + c0 * local[1] - (s1 * local[0] + c1 * local[1]),
            )
        return out

    # -- commands (one row) ----------------------------------------------------------------------------
    def set_destination(self, i: int, target: object, *, speed: float | None = None) -> QueryStatus:
        """Row i follows a path to `target` [m], at top speed `speed` [m/s] if given."""
        if speed is not None:
            self.agents.set_top_speed(i, float(speed))
        self.free[i] = False
        status = self.agents.set_destination(i, target)
        self._changed(i)
        return status

    def use_query(self, query: NavMeshQuery, remap: object) -> np.ndarray:
        """Every row onto `query`, the query of an updated navmesh (dynamic obstacles, a
        `navigation.CarveUpdate`): rows whose corridor crosses a rebuilt polygon re-plan now, the others
        keep their paths (`AgentBatch.use_query`); the crowd's walls follow the new mesh. Returns the
        rows that re-planned."""
        rows = self.agents.use_query(query, remap)
        self.query = query
        if self.crowd is not None:
            self.crowd.walls = Walls.from_navmesh(query.mesh, constrain=False)
        for i in rows.tolist():
            self._changed(i)
        return rows

    def move_freely(self, i: int, speed: float, heading: float | None) -> None:
        """Row i drops any path and walks at `speed` [m/s] toward `heading` [rad] (None keeps the facing)."""
        self.free[i] = True
        self.free_speed[i] = float(speed)
        self.free_heading[i] = np.nan if heading is None else float(heading)

    def warp(self, i: int, position: object) -> bool:
        """Teleport row i's agent and body to `position` (snapped onto the mesh); False when off the mesh."""
        ag = self.agents
        if not ag.warp(i, position):
            return False
        self._changed(i)
        body = int(self.bodies[i])
        self.world.teleport(body, ag.next_position[i] + [0.0, 0.0, 0.01 + self.height / 2])
        self.world.set_velocity(body, (0.0, 0.0, float(self.velocities[i, 2])), yaw_rate=0.0)
        self.smooth_delta[i] = 0.0
        if self.foot_locks is not None:
            self.foot_locks[i].reset()
            self.foot_lock_results[i] = None
        return True


class _BodyView:
    """One row's capsule, as `Character` shows it (body id, size, position, facing)."""

    def __init__(self, batch: LocomotionBatch, row: int) -> None:
        self._b, self._i = batch, row
        self._pose = int(batch._pose_rows[row])  # the body's row in the world's pose cache
        self.body = int(batch.bodies[row])
        self.radius = batch.radius
        self.height = batch.height

    @property
    def position(self) -> np.ndarray:
        """Feet position [m] as of the last physics step."""
        p = self._b.world.poses.positions[self._pose].copy()
        p[2] -= self.height / 2
        return p

    @property
    def velocity(self) -> np.ndarray:
        return self._b.world.poses.velocities[self._pose].copy()

    @property
    def yaw(self) -> float:
        return float(self._b.yaw[self._i])


class _AgentView:
    """One row's nav agent, as `NavAgent` shows it."""

    def __init__(self, batch: LocomotionBatch, row: int) -> None:
        self._b, self._i = batch, row

    @property
    def settings(self) -> AgentSettings:
        return self._b.agents._settings[self._i]

    @property
    def has_path(self) -> bool:
        return bool(self._b.agents.has_path[self._i])

    @property
    def path(self) -> PathResult | None:
        return self._b.agents.path(self._i)

    @property
    def corners(self) -> np.ndarray:
        return self._b.agents.corners(self._i)

    @property
    def next_position(self) -> np.ndarray:
        return self._b.agents.next_position[self._i].copy()

    @property
    def position(self) -> np.ndarray:
        """The body's position as the agent knows it (the body after the last physics step) [m]."""
        return self._b.views[self._i].position

    @property
    def remaining_distance(self) -> float:
        return self._b.remaining(self._i)

    @property
    def arrived(self) -> bool:
        ag, i = self._b.agents, self._i
        return bool(ag.has_path[i]) and self.remaining_distance <= float(ag.stopping_distance[i]) + 1e-9

    @property
    def repaths(self) -> int:
        return int(self._b.agents.repaths[self._i])


class LocomotorView:
    """One row of a `LocomotionBatch` with the `Locomotor` interface (what behaviours and tests use)."""

    def __init__(self, batch: LocomotionBatch, row: int) -> None:
        self.batch, self.row = batch, row
        self.character = _BodyView(batch, row)
        self.agent = _AgentView(batch, row)

    def set_destination(self, target: object, *, speed: float | None = None) -> QueryStatus:
        return self.batch.set_destination(self.row, target, speed=speed)

    def move_freely(self, speed: float, heading: float | None) -> None:
        self.batch.move_freely(self.row, speed, heading)

    def stop(self) -> None:
        self.batch.move_freely(self.row, 0.0, None)

    def set_top_speed(self, speed: float) -> None:
        self.batch.agents.set_top_speed(self.row, float(speed))

    def warp(self, position: object) -> bool:
        return self.batch.warp(self.row, position)

    @property
    def position(self) -> np.ndarray:
        return self.character.position

    @property
    def yaw(self) -> float:
        return float(self.batch.yaw[self.row])

    @property
    def speed(self) -> float:
        v = self.batch.world.poses.velocities[self.character._pose]
        return float(math.hypot(v[0], v[1]))

    @property
    def remaining_distance(self) -> float:
        """The body's distance to go along the path: the agent's remaining distance plus the drift [m]."""
        b, i = self.batch, self.row
        if not b.agents.has_path[i]:
            return 0.0
        a, p = b.agents.next_position[i], b.world.poses.positions[self.character._pose]
        return b.remaining(i) + math.hypot(float(a[0] - p[0]), float(a[1] - p[1]))

    @property
    def arrived(self) -> bool:
        """As `Locomotor.arrived`: the agent arrived, the body stopped, near the path's end."""
        if not (self.agent.arrived and self.speed < 0.1):
            return False
        path = self.agent.path
        if path is None:
            return False
        gap = float(np.hypot(*(self.position - path.points[-1])[:2]))
        return gap <= self.agent.settings.stopping_distance + ARRIVE_TOLERANCE

    @property
    def pulls(self) -> int:
        return int(self.batch.pulls[self.row])

    def animated_feet_world(self) -> np.ndarray:
        """(2, 3) world positions of the (left, right) feet of the animated pose [m]."""
        b, i = self.batch, self.row
        pose = b.animators.pose(i)
        skeleton = b.animators.blend.samples[1].clip.skeleton
        local = forward_kinematics(skeleton, pose.root_offset, pose.rotations, list(b._feet))[0][
            list(b._feet)
        ]
        c, s = math.cos(b.yaw[i]), math.sin(b.yaw[i])
        return self.position + np.column_stack(
            [c * local[:, 0] - s * local[:, 1], s * local[:, 0] + c * local[:, 1], local[:, 2]]
        )

    def feet_world(self) -> np.ndarray:
        """(2, 3) the feet as shown: moved with their locked ankles when foot locking is on [m]."""
        feet = self.animated_feet_world()
        lock = self.batch.foot_lock_results[self.row]
        return feet if lock is None else lock.offset(feet)
