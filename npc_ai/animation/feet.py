"""Foot models: which points of a foot are measured for contacts and skating, and the leg chains that
foot locking solves.

Contact points (``contact_points``):
    * ``"joint"``: the clip's foot joint (``Clip.feet``: the ankle on the DeepMimic humanoid, the toe joint
      on a BVH skeleton that has one), one point per foot. The reference notes' "lowest foot joint".
    * ``"sole"``: points on the part of the foot that touches the floor, two per foot (heel, toe), each
      judged on its own. On the DeepMimic humanoid they are the centres of the rear and front bottom edges
      of the ankle link's collision box in pybullet_data's humanoid.urdf (0.177 x 0.055 x 0.090 m after
      the 0.25 scale; its bottom face touches z = 0 in the walk's stance), posed by the ankle's global
      rotation. On a BVH skeleton (no foot geometry) they are the ankle joint (heel proxy) and the toe
      joint. Each point's contact band is taken relative to that point's own lowest height.

A foot skates at a frame when any of its points skates, so the skate ratio ("frames in which either foot
skates") is the fraction of frames in which any point skates. Frames: points are returned in the world
(Z-up, metres) along any root trajectory.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import quat
from .clip import Clip, compose_world
from .errors import AnimationError, AnimationSettingsError
from .skeleton import forward_kinematics

CONTACT_POINT_MODELS = ("joint", "sole")


@dataclass(frozen=True)
class ContactPoint:
    """A measured point of a foot.

    Attributes:
        side: 0 left, 1 right. joint: Joint the point rides on. offset: (3,) position in that joint's frame
        (Z-up skeleton convention) [m]. name: 'ankle', 'heel', 'toe', ...
    """

    side: int
    joint: str
    offset: tuple[float, float, float]
    name: str


@lru_cache(maxsize=4)
def urdf_collision_boxes(
    path: str | None = None, scale: float | None = None
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Collision boxes of a URDF by link name: (centre (3,), size (3,)) in the link's frame converted to
    the Z-up convention, metres (URDF units x ``scale``; default the DeepMimic humanoid at 0.25)."""
    from .deepmimic import URDF_SCALE, pybullet_data_path

    scale = URDF_SCALE if scale is None else scale
    file = Path(path) if path is not None else pybullet_data_path() / "humanoid" / "humanoid.urdf"
    root = ET.fromstring(file.read_bytes().rstrip(b"\x00 \t\r\n"))
    boxes: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for link in root.findall("link"):
        col = link.find("collision")
        box = col.find("geometry/box") if col is not None else None
        if col is None or box is None:
            continue
        origin = col.find("origin")
        xyz = np.array(
            [float(v) for v in (origin.get("xyz", "0 0 0") if origin is not None else "0 0 0").split()]
        )
        size = np.array([float(v) for v in box.get("size", "0 0 0").split()])
        boxes[link.get("name", "")] = (xyz * scale, size * scale)
    return boxes


def _humanoid_sole(side: int, joint: str) -> list[ContactPoint]:
    """Heel and toe centres of the bottom face of the ankle link's box (Y-up model frame -> Z-up)."""
    centre, size = urdf_collision_boxes()[joint]
    half = size / 2
    points = []
    for name, sx in (("heel", -1.0), ("toe", 1.0)):
        y_up = centre + np.array([sx * half[0], -half[1], 0.0])  # bottom face (-y in the Y-up model)
        z_up = quat.y_up_to_z_up_vector(y_up)
        points.append(ContactPoint(side, joint, (float(z_up[0]), float(z_up[1]), float(z_up[2])), name))
    return points


def _is_humanoid(clip: Clip) -> bool:
    from .deepmimic import FEET

    return tuple(clip.feet) == FEET and all(f in urdf_collision_boxes() for f in FEET)


def leg_chain(clip: Clip, side: int) -> tuple[int, int, int]:
    """(hip, knee, ankle) joint indices of foot ``side``: the foot joint itself when it is an ankle or
    foot joint, its parent when it is a toe joint."""
    sk = clip.skeleton
    ankle = clip.foot_indices[side]
    if "toe" in sk.names[ankle].lower():
        ankle = int(sk.parents[ankle])
    knee = int(sk.parents[ankle])
    hip = int(sk.parents[knee]) if knee > 0 else -1
    if knee <= 0 or hip < 0:
        raise AnimationError(f"clip {clip.name!r}: foot {clip.feet[side]!r} has no hip-knee-ankle chain")
    return hip, knee, ankle


def foot_contact_points(clip: Clip, contact_points: str = "joint") -> list[ContactPoint]:
    """The measured points of both feet (left points first) for a contact-point model (module docstring)."""
    if contact_points not in CONTACT_POINT_MODELS:
        raise AnimationSettingsError(
            f"contact_points must be one of {CONTACT_POINT_MODELS}, got {contact_points!r}"
        )
    zero = (0.0, 0.0, 0.0)
    if contact_points == "joint":
        return [ContactPoint(side, clip.feet[side], zero, "foot") for side in (0, 1)]
    if _is_humanoid(clip):
        return [p for side in (0, 1) for p in _humanoid_sole(side, clip.feet[side])]
    out = []
    for side in (0, 1):
        ankle = clip.skeleton.names[leg_chain(clip, side)[2]]
        out.append(ContactPoint(side, ankle, zero, "ankle"))
        if ankle != clip.feet[side]:
            out.append(ContactPoint(side, clip.feet[side], zero, "toe"))
    return out


def contact_points_local(
    clip: Clip, root_offset: np.ndarray, rotations: np.ndarray, points: list[ContactPoint]
) -> np.ndarray:
    """(T, P, 3) contact points in the character frame for poses (root_offset (T, 3), rotations (T, J, 4))."""
    pos, glob = forward_kinematics(clip.skeleton, root_offset, rotations)
    idx = [clip.skeleton.index(p.joint) for p in points]
    offsets = np.array([p.offset for p in points])
    return pos[..., idx, :] + quat.rotate(glob[..., idx, :], offsets)


def contact_points_world(
    clip: Clip,
    times: np.ndarray,
    positions: np.ndarray,
    yaw: np.ndarray,
    contact_points: str = "joint",
) -> np.ndarray:
    """(T, P, 3) world contact points of ``clip`` posed at ``times`` [s] along a root trajectory
    (positions (T, 3) [m], yaw (T,) [rad]); P = 2 for 'joint', 4 for 'sole' (left heel, left toe, right
    heel, right toe)."""
    points = foot_contact_points(clip, contact_points)
    pose = clip.sample(np.asarray(times, dtype=float)).pose
    local = contact_points_local(clip, pose.root_offset, pose.rotations, points)
    return compose_world(local, positions, yaw)
