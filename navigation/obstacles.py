"""Dynamic obstacle shapes (boxes, cylinders), their poses and footprints: the horizontal area an agent's
centre must keep out of, which `navigation.carve` cuts out of a navmesh.

A pose is what a physics engine reports (position [m], orientation as a unit quaternion x, y, z, w), so a
crate that physics pushes or tips over is passed on as read; this module imports no engine. A footprint is
the convex hull of the shape's outline seen from above (exact for a tilted box; a cylinder's circles are
polygons circumscribing them), grown by the agent radius.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon

from navigation import arguments
from navigation.errors import NavMeshError
from navigation.settings import CarveSettings

_BOX_SIGNS = np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=np.float64)


def _size(value: object, name: str) -> float:
    """A finite size > 0 [m] (a half extent, a radius, a height)."""
    v = arguments.distance(value, name, zero_ok=False, inf_ok=False)
    if v > arguments.COORDINATE_LIMIT:
        raise NavMeshError(f"{name} must be at most {arguments.COORDINATE_LIMIT:g} m, got {v!r}")
    return v


@dataclass(frozen=True)
class Box:
    """A box obstacle (a crate, a pallet) in its own frame, centred on its pose.

    Attributes:
        half_extents: half sizes along its local x, y, z [m, > 0], as PyBullet's GEOM_BOX takes them.
    """

    half_extents: tuple[float, float, float]

    def __post_init__(self) -> None:
        h = self.half_extents
        if isinstance(h, str | bytes) or not hasattr(h, "__len__") or len(h) != 3:
            raise NavMeshError(f"half_extents must be 3 numbers [m], got {arguments.shown(h)}")
        sizes = tuple(_size(v, f"half_extents[{i}]") for i, v in enumerate(h))
        object.__setattr__(self, "half_extents", sizes)

    def corners(self, arc_segments: int) -> np.ndarray:
        """(8, 3) corners in the box's frame [m]."""
        out: np.ndarray = _BOX_SIGNS * np.asarray(self.half_extents)
        return out


@dataclass(frozen=True)
class Cylinder:
    """An upright (local z) cylinder obstacle (a barrel, a pillar), centred on its pose.

    Attributes:
        radius: [m, > 0]. height: distance between its end faces [m, > 0] (PyBullet's GEOM_CYLINDER).
    """

    radius: float
    height: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", _size(self.radius, "radius"))
        object.__setattr__(self, "height", _size(self.height, "height"))

    def corners(self, arc_segments: int) -> np.ndarray:
        """(8 k, 3) corners of the polygons (4 k sides) circumscribing both end circles, in the cylinder's
        frame [m] (k = arc_segments)."""
        n = 4 * arc_segments
        a = 2.0 * math.pi * np.arange(n) / n
        r = self.radius / math.cos(math.pi / n)
        ring = np.column_stack([r * np.cos(a), r * np.sin(a)])
        h = 0.5 * self.height
        return np.vstack([np.column_stack([ring, np.full(n, -h)]), np.column_stack([ring, np.full(n, h)])])


Shape = Box | Cylinder


@dataclass(frozen=True)
class Pose:
    """Where an obstacle is: `position` (x, y, z) [m] and `orientation`, a unit quaternion (x, y, z, w).
    Build it with `pose`, which checks and normalises."""

    position: tuple[float, float, float]
    orientation: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)

    def rotation(self) -> np.ndarray:
        """(3, 3) rotation matrix of the orientation."""
        x, y, z, w = self.orientation
        return np.array(
            [
                [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
            ]
        )


def yaw_quaternion(yaw: float) -> tuple[float, float, float, float]:
    """The quaternion (x, y, z, w) of a turn by `yaw` [rad] about z."""
    return (0.0, 0.0, math.sin(0.5 * yaw), math.cos(0.5 * yaw))


def pose(position: object, orientation: object = None, *, yaw: float | None = None) -> Pose:
    """A checked `Pose`: position 2 or 3 numbers [m] (z 0 when missing), and either an orientation
    quaternion (x, y, z, w; any non-zero length, normalised) or a `yaw` about z [rad] (default 0).

    Raises:
        NavMeshError: a malformed or non-finite position or quaternion, or both a quaternion and a yaw.
    """
    x, y, z = arguments.xyz(position, "position")
    if math.isnan(z):
        z = 0.0
    if orientation is not None and yaw is not None:
        raise NavMeshError("give an orientation quaternion or a yaw, not both")
    if orientation is None:
        q = yaw_quaternion(0.0 if yaw is None else arguments.angle(yaw, "yaw"))
        return Pose((x, y, z), q)
    try:
        a = np.asarray(orientation, dtype=np.float64)
    except (TypeError, ValueError):
        a = np.zeros(0)
    if isinstance(orientation, str | bytes) or a.shape != (4,) or not np.isfinite(a).all():
        raise NavMeshError(
            f"orientation must be a quaternion of 4 finite numbers (x, y, z, w), got "
            f"{arguments.shown(orientation)}"
        )
    norm = float(np.linalg.norm(a))
    if norm < 1e-9:
        raise NavMeshError(f"orientation must be a non-zero quaternion, got {arguments.shown(orientation)}")
    qx, qy, qz, qw = (a / norm).tolist()
    return Pose((x, y, z), (qx, qy, qz, qw))


def turn_between(a: Pose, b: Pose) -> float:
    """The angle of the rotation from a's orientation to b's [rad, 0..pi]."""
    dot = abs(sum(p * q for p, q in zip(a.orientation, b.orientation, strict=True)))
    return 2.0 * math.acos(min(1.0, dot))


def has_moved(a: Pose, b: Pose, settings: CarveSettings) -> bool:
    """b is farther than `move_threshold` from a, or turned more than `turn_threshold_deg`."""
    if math.dist(a.position, b.position) > settings.move_threshold:
        return True
    return turn_between(a, b) > math.radians(settings.turn_threshold_deg)


@dataclass(frozen=True)
class Footprint:
    """The area an obstacle takes from the navmesh.

    Attributes:
        polygon: the convex outline seen from above, grown by the agent radius [m].
        bottom, top: the obstacle's lowest and highest points [m].
    """

    polygon: Polygon
    bottom: float
    top: float


def footprint(shape: Shape, where: Pose, settings: CarveSettings) -> Footprint:
    """The footprint of `shape` at `where`, grown by `settings.agent_radius`: the convex hull of the
    outline's corners each replaced by a regular polygon of 4 `arc_segments` sides circumscribing the
    agent's circle (the exact Minkowski sum with that polygon, which holds the circle)."""
    corners = shape.corners(settings.arc_segments) @ where.rotation().T + np.asarray(where.position)
    xy = corners[:, :2]
    if settings.agent_radius > 0:
        n = 4 * settings.arc_segments
        a = 2.0 * math.pi * (np.arange(n) + 0.5) / n
        r = settings.agent_radius / math.cos(math.pi / n)
        disc = np.column_stack([r * np.cos(a), r * np.sin(a)])
        xy = (xy[:, None, :] + disc[None, :, :]).reshape(-1, 2)
    hull = shapely.convex_hull(shapely.multipoints(xy))
    if not isinstance(hull, Polygon) or hull.area <= 0:  # a shape seen edge-on, with no radius to grow by
        raise NavMeshError(f"the obstacle covers no area seen from above at {where.position}")
    return Footprint(shapely.normalize(hull), float(corners[:, 2].min()), float(corners[:, 2].max()))
