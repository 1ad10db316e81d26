"""One character's legs: a nav agent, an animator, a capsule body and the coupling between them.

The locomotor is what behaviours drive: give it a destination (path following) or a speed and heading
(free movement), call `before_physics` / `after_physics` around the world step, read where it is.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from navigation.agent import AgentSettings, NavAgent
from navigation.query import NavMeshQuery, QueryStatus
from npc_ai.animation import Animator, AnimatorSettings
from npc_ai.animation.feet import leg_chain
from npc_ai.animation.foot_lock import FootLock, FootLockResult, leg_points_world
from npc_ai.body.character import Character
from npc_ai.body.coupling import Coupling, CouplingSettings
from scenes import World, groups

ARRIVE_TOLERANCE = 0.15  # [m] a stopping animation may carry the body this far past the agent


class Locomotor:
    """Agent + animator + character + coupling for one NPC (or a scripted player).

    Args:
        world: the world the character's body lives in. query: the navmesh query (shared).
        position: feet position [m]; yaw: facing [rad].
        agent: nav agent settings (radius, speed, stopping distance...).
        coupling: how navigation and animation share control (see `npc_ai.body.coupling`).
        animator: animator settings (default: lazy pose, so NPCs nobody looks at skip the skeleton).
        body_radius: capsule radius [m]; defaults to the agent radius. The bake erodes the mesh by that
            radius plus up to a cell and a half (`navigation.ray_bake`), so a body on the mesh clears
            walls; and the crowd's avoidance keeps agents a radius apart, so bodies of that radius touch
            exactly when their agents do (5 cm smaller capsules let pushed agents overlap by 10 cm).
        group: collision group of the body (NPC or PLAYER).
    """

    def __init__(
        self,
        world: World,
        query: NavMeshQuery,
        position: object,
        *,
        yaw: float = 0.0,
        agent: AgentSettings | None = None,
        coupling: CouplingSettings | None = None,
        animator: AnimatorSettings | None = None,
        body_radius: float | None = None,
        group: int = groups.NPC,
    ) -> None:
        self.world = world
        settings = agent if agent is not None else AgentSettings()
        self.agent = NavAgent(query, position, settings, yaw=yaw)
        start = self.agent.next_position
        radius = body_radius if body_radius is not None else settings.radius
        self.character = Character(
            world, start + [0.0, 0.0, 0.01], radius=radius, height=settings.height, yaw=yaw, group=group
        )
        # the pose is computed only when read (feet_world, rendering): root motion does not need it
        self.animator = Animator(
            settings=animator if animator is not None else AnimatorSettings(lazy_pose=True)
        )
        self.coupling = Coupling(
            coupling if coupling is not None else CouplingSettings(),
            self.agent,
            self.animator,
            self.character,
        )
        self._free: tuple[float, float | None] | None = None
        self._dt = 0.0
        self.foot_lock: FootLock | None = None
        self.foot_lock_result: FootLockResult | None = None
        self._chains: tuple[tuple[int, int, int], tuple[int, int, int]] | None = None
        if self.coupling.settings.foot_lock:
            clip = self.animator.locomotion_set.walk.clip
            self.foot_lock = FootLock()
            self._chains = (leg_chain(clip, 0), leg_chain(clip, 1))

    # -- commands --------------------------------------------------------------------------------------
    def set_destination(self, target: object, *, speed: float | None = None) -> QueryStatus:
        """Follow a path to `target` [m], at top speed `speed` [m/s] if given."""
        if speed is not None:
            self.set_top_speed(speed)
        self._free = None
        return self.agent.set_destination(target)

    def use_query(self, query: NavMeshQuery, remap: object) -> bool:
        """Move the agent onto `query`, the query of an updated navmesh (`NavAgent.use_query`); returns
        whether it re-planned."""
        return self.agent.use_query(query, remap)

    def move_freely(self, speed: float, heading: float | None) -> None:
        """Drop any path; walk at `speed` [m/s] toward `heading` [rad] (None keeps the facing)."""
        self._free = (float(speed), heading)
        self.agent.reset_path()

    def stop(self) -> None:
        """Drop any path and come to a stop."""
        self.move_freely(0.0, None)

    def set_top_speed(self, speed: float) -> None:
        """Change the agent's top speed [m/s, > 0]."""
        self.agent.settings = dataclasses.replace(self.agent.settings, speed=float(speed))

    def warp(self, position: object) -> bool:
        """Teleport agent and body to `position` (snapped onto the mesh); False when it is off the mesh."""
        if not self.agent.warp(position):
            return False
        self.character.teleport(self.agent.next_position + [0.0, 0.0, 0.01])
        self.character.set_horizontal_velocity(0.0, 0.0)
        self.coupling.state.smooth_delta[:] = 0.0
        if self.foot_lock is not None:
            self.foot_lock.reset()
            self.foot_lock_result = None
        return True

    # -- the tick halves -------------------------------------------------------------------------------
    def before_physics(self, dt: float) -> None:
        """Advance agent and animator and set the body's velocity for this tick."""
        self._dt = dt
        if self._free is not None:
            speed, heading = self._free
            self.coupling.free_move(speed, heading, dt)
        else:
            self.coupling.before_physics(dt)

    def after_physics(self) -> None:
        """Reconcile the agent with where physics put the body; lock the planted feet (if on)."""
        self.coupling.after_physics()
        if self.foot_lock is not None and self._chains is not None:
            legs = self._chains[0] + self._chains[1] + self.animator.foot_indices
            hip, knee, ankle = leg_points_world(
                self.animator.joint_positions(only=legs),
                self._chains,
                self.character.position,
                self.character.yaw,
            )
            self.foot_lock_result = self.foot_lock.update(hip, knee, ankle, self.animator.planted(), self._dt)

    # -- state -----------------------------------------------------------------------------------------
    @property
    def position(self) -> np.ndarray:
        """Feet position of the body [m]."""
        return self.character.position

    @property
    def yaw(self) -> float:
        return self.character.yaw

    @property
    def speed(self) -> float:
        """Horizontal speed of the body [m/s]."""
        v = self.character.velocity
        return float(np.hypot(v[0], v[1]))

    @property
    def remaining_distance(self) -> float:
        """The body's distance to go along the path: the agent's remaining distance plus the drift [m]."""
        if not self.agent.has_path:
            return 0.0
        return self.agent.remaining_distance + self.coupling.drift

    @property
    def arrived(self) -> bool:
        """The agent is at the end of its path, the body has stopped, and it stands within the stopping
        distance (plus `ARRIVE_TOLERANCE` for the last step of a stopping animation) of the path's end."""
        if not (self.agent.has_path and self.agent.arrived and self.speed < 0.1):
            return False
        path = self.agent.path
        if path is None:
            return False
        end = path.points[-1]  # the destination, or a partial path's end
        gap = float(np.hypot(*(self.position - end)[:2]))
        return gap <= self.agent.settings.stopping_distance + ARRIVE_TOLERANCE

    @property
    def leg_length(self) -> float:
        """Thigh + shin of the animated skeleton [m] (the left leg of the current pose)."""
        chain = leg_chain(self.animator.locomotion_set.walk.clip, 0)
        joints = self.animator.joint_positions(only=chain)
        hip, knee, ankle = (joints[i] for i in chain)
        return float(np.linalg.norm(knee - hip) + np.linalg.norm(ankle - knee))

    def animated_feet_world(self) -> np.ndarray:
        """(2, 3) world positions of the (left, right) feet of the animated pose, before foot locking [m]."""
        local = self.animator.foot_positions()
        c, s = math.cos(self.character.yaw), math.sin(self.character.yaw)
        pos = self.character.position
        return pos + np.column_stack(
            [c * local[:, 0] - s * local[:, 1], s * local[:, 0] + c * local[:, 1], local[:, 2]]
        )

    def feet_world(self) -> np.ndarray:
        """(2, 3) world positions of the (left, right) feet as shown: the animated feet moved with their
        locked ankles when foot locking is on [m]."""
        feet = self.animated_feet_world()
        lock = self.foot_lock_result
        return feet if lock is None else lock.offset(feet)
