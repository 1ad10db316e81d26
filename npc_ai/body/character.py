"""A character's physical body: an upright capsule in the world whose horizontal velocity code sets.

Vertical velocity stays physics' (gravity, ramps, steps); walls and other characters are resolved by the
physics engine. The capsule is symmetric about Z, so facing (`yaw`) is owned by code, not by the body.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from navigation.angles import turn_toward, wrap_angle
from scenes import World, WorldError, groups


class Character:
    """One capsule body in one world.

    Args:
        world: the world to add the body to.
        position: feet position [m].
        radius: capsule radius [m, > 0]. height: total height [m, > 2 * radius].
        yaw: initial facing about Z [rad]. group: collision group (NPC or PLAYER).
    """

    def __init__(
        self,
        world: World,
        position: Iterable[float],
        *,
        radius: float = 0.35,
        height: float = 1.8,
        yaw: float = 0.0,
        group: int = groups.NPC,
    ) -> None:
        self.world = world
        self.radius = float(radius)
        self.height = float(height)
        self.body = world.add_capsule(position, radius=radius, height=height, yaw=yaw, group=group)
        self._row = world.poses.index(self.body)
        self.yaw = float(yaw)

    @property
    def position(self) -> np.ndarray:
        """Feet position from the pose cache (as of the last physics step) [m]."""
        p = self.world.poses.positions[self._row].copy()
        p[2] -= self.height / 2
        return p

    @property
    def velocity(self) -> np.ndarray:
        """Linear velocity as of the last physics step [m/s]."""
        return self.world.poses.velocities[self._row].copy()

    @property
    def forward(self) -> np.ndarray:
        """Unit facing vector in the ground plane."""
        return np.array([math.cos(self.yaw), math.sin(self.yaw), 0.0])

    @property
    def right(self) -> np.ndarray:
        """Unit vector to the character's right in the ground plane."""
        return np.array([math.sin(self.yaw), -math.cos(self.yaw), 0.0])

    def set_horizontal_velocity(self, vx: float, vy: float) -> None:
        """Set the horizontal velocity [m/s] for the next physics step; vertical velocity stays physics'."""
        if not (math.isfinite(vx) and math.isfinite(vy)):
            raise WorldError(f"character velocity must be finite, got ({vx!r}, {vy!r})")
        vz = float(self.world.poses.velocities[self._row, 2])
        self.world.set_velocity(self.body, (vx, vy, vz), yaw_rate=0.0)

    def teleport(self, position: object) -> None:
        """Move the body's feet to `position` [m] at once, keeping its velocity."""
        p = np.asarray(position, dtype=np.float64)
        if p.shape != (3,) or not np.isfinite(p).all():
            raise WorldError(f"teleport position must be 3 finite numbers, got {position!r}")
        self.world.teleport(self.body, (p[0], p[1], p[2] + self.height / 2))

    def turn_toward(self, heading: float, max_rate: float, dt: float) -> float:
        """Turn the facing toward `heading` [rad] by at most `max_rate * dt`; return the yaw change [rad]."""
        before = self.yaw
        self.yaw = turn_toward(before, heading, max_rate * dt)
        return wrap_angle(self.yaw - before)
