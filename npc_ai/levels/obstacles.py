"""Dynamic obstacles from the physics world: PyBullet bodies (a crate that physics pushes, a barrel) tracked
as obstacles of a `navigation.DynamicNavMesh`.

`navigation` never imports PyBullet: this module reads each body's collision shape once (`track`) and its
pose on every `sync` (one `getBasePositionAndOrientation` per body), and passes them on. The mesh's
carving policy decides what a move does (`navigation.CarveSettings`: re-carve once the body has been
still for a while, or at once).
"""

from __future__ import annotations

from typing import Any

from navigation.dynamic import DynamicNavMesh
from navigation.obstacles import Box, Cylinder, Shape, pose
from npc_ai.errors import LevelError

GEOM_BOX, GEOM_CYLINDER = 3, 4  # pybullet.GEOM_BOX, pybullet.GEOM_CYLINDER (checked by a test)
_Frame = tuple[tuple[float, float, float], tuple[float, float, float, float]]


class BodyObstacles:
    """Bodies of one physics client tracked as obstacles of one dynamic navmesh.

    Args:
        navmesh: the dynamic navmesh the bodies carve.
        client: the PyBullet client the bodies live in (a `BulletClient`, e.g. `World.client`).
    """

    def __init__(self, navmesh: DynamicNavMesh, client: Any) -> None:
        if not isinstance(navmesh, DynamicNavMesh):
            raise LevelError(f"navmesh must be a navigation.DynamicNavMesh, got {type(navmesh).__name__}")
        self.navmesh = navmesh
        self.client = client
        self._tracked: dict[int, tuple[int, _Frame]] = {}  # body -> (obstacle id, shape frame in the body)

    @property
    def bodies(self) -> dict[int, int]:
        """Tracked body id -> its obstacle id."""
        return {body: oid for body, (oid, _) in self._tracked.items()}

    def track(self, body: int) -> int:
        """Track a body whose base collision shape is one box or one cylinder; returns its obstacle id.

        Raises:
            LevelError: the body is already tracked, does not exist, or has another shape.
        """
        if body in self._tracked:
            raise LevelError(f"body {body} is already tracked (obstacle {self._tracked[body][0]})")
        try:
            shapes = self.client.getCollisionShapeData(body, -1)
        except Exception:  # pybullet.error for an unknown body
            raise LevelError(f"body {body}: no such body in this physics client") from None
        if len(shapes) != 1 or shapes[0][2] not in (GEOM_BOX, GEOM_CYLINDER):
            kinds = [s[2] for s in shapes]
            raise LevelError(
                f"body {body}: only a base of one box or one cylinder can be an obstacle "
                f"(shape types {kinds})"
            )
        _, _, kind, dims, _, local_pos, local_orn = shapes[0]
        shape: Shape = (
            Box((0.5 * dims[0], 0.5 * dims[1], 0.5 * dims[2]))
            if kind == GEOM_BOX
            else Cylinder(float(dims[1]), float(dims[0]))
        )
        frame: _Frame = (tuple(local_pos), tuple(local_orn))
        oid = self.navmesh.add(shape, pose(*self._shape_pose(body, frame)))
        self._tracked[body] = (oid, frame)
        return oid

    def untrack(self, body: int) -> None:
        """Stop tracking a body; its obstacle is removed (its hole filled at the next update)."""
        if body not in self._tracked:
            raise LevelError(f"body {body} is not tracked")
        oid, _ = self._tracked.pop(body)
        self.navmesh.remove(oid)

    def sync(self) -> None:
        """Give every tracked obstacle its body's pose now (call after the physics step)."""
        for body, (oid, frame) in self._tracked.items():
            position, orientation = self._shape_pose(body, frame)
            self.navmesh.set_pose(oid, position, orientation)

    def _shape_pose(self, body: int, frame: _Frame) -> _Frame:
        """World pose of the body's collision shape: its base pose composed with the shape's local frame."""
        position, orientation = self.client.getBasePositionAndOrientation(body)
        if frame == ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)):
            return tuple(position), tuple(orientation)
        out: _Frame = self.client.multiplyTransforms(position, orientation, frame[0], frame[1])
        return out
