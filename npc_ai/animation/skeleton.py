"""Skeletons (joint hierarchy + rest offsets) and forward kinematics vectorised over frames.

Frames: the world is Z-up, metres. Each joint's frame is its parent's frame translated by the joint's
rest ``offset`` and rotated by the joint's local rotation. Joint 0 is the root (parent -1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import quat
from .errors import AnimationError


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=a.dtype, copy=True)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Skeleton:
    """A joint hierarchy.

    Attributes:
        names: Joint names, root first.
        parents: (J,) parent index of each joint; -1 for the root only, otherwise < the joint's own index.
        offsets: (J, 3) rest translation of each joint from its parent, in the parent's frame [m]. offsets[0]
            is ignored (the root is placed by the clip).
    """

    names: tuple[str, ...]
    parents: np.ndarray
    offsets: np.ndarray

    def __post_init__(self) -> None:
        parents = np.asarray(self.parents, dtype=int)
        offsets = np.asarray(self.offsets, dtype=float)
        n = len(self.names)
        if n == 0:
            raise AnimationError("a skeleton needs at least one joint")
        if len(set(self.names)) != n:
            raise AnimationError(f"skeleton joint names must be unique, got {self.names!r}")
        if parents.shape != (n,) or offsets.shape != (n, 3):
            raise AnimationError(
                f"skeleton of {n} joints needs parents ({n},) and offsets ({n}, 3), "
                f"got {parents.shape} and {offsets.shape}"
            )
        if parents[0] != -1 or np.any(parents[1:] < 0) or np.any(parents[1:] >= np.arange(1, n)):
            raise AnimationError(
                "skeleton parents must be -1 for joint 0 and an earlier joint for the others"
            )
        if not np.all(np.isfinite(offsets)):
            raise AnimationError("skeleton offsets must be finite")
        object.__setattr__(self, "names", tuple(self.names))
        object.__setattr__(self, "parents", _readonly(parents))
        object.__setattr__(self, "offsets", _readonly(offsets))

    @property
    def n_joints(self) -> int:
        return len(self.names)

    def index(self, name: str) -> int:
        """Index of the joint called ``name``; raises AnimationError naming the known joints."""
        try:
            return self.names.index(name)
        except ValueError:
            raise AnimationError(
                f"no joint {name!r} in skeleton; joints are {', '.join(self.names)}"
            ) from None

    def rest_positions(self) -> np.ndarray:
        """(J, 3) joint positions of the identity pose with the root at the origin [m]."""
        return forward_kinematics(self, np.zeros(3), np.broadcast_to(quat.IDENTITY, (self.n_joints, 4)))[0]


def ancestors(skeleton: Skeleton, joints: Sequence[int]) -> list[int]:
    """The joints and all their ancestors, in index order (parents before children)."""
    keep: set[int] = set()
    for j in joints:
        j = int(j)
        while j >= 0 and j not in keep:
            keep.add(j)
            j = int(skeleton.parents[j]) if j > 0 else -1
    return sorted(keep)


def forward_kinematics(
    skeleton: Skeleton,
    root_position: np.ndarray,
    rotations: np.ndarray,
    only: Sequence[int] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Joint positions and global rotations for poses, vectorised over leading axes.

    Args:
        skeleton: The hierarchy.
        root_position: (..., 3) root joint position in the output frame [m].
        rotations: (..., J, 4) local joint rotations (xyzw); rotations[..., 0, :] is the root's rotation
            in the output frame.
        only: compute just these joints and their ancestors (the others are NaN): a leg needs 5 of the
            humanoid's 15 joints.
    Returns:
        positions (..., J, 3) [m] and global rotations (..., J, 4), in the output frame.
    """
    rotations = np.asarray(rotations, dtype=float)
    root_position = np.asarray(root_position, dtype=float)
    lead = np.broadcast_shapes(root_position.shape[:-1], rotations.shape[:-2])
    n = skeleton.n_joints
    positions = np.full(lead + (n, 3), np.nan) if only is not None else np.empty(lead + (n, 3))
    globals_ = np.full(lead + (n, 4), np.nan) if only is not None else np.empty(lead + (n, 4))
    positions[..., 0, :] = root_position
    globals_[..., 0, :] = rotations[..., 0, :]
    parents = skeleton.parents
    offsets = skeleton.offsets
    for j in range(1, n) if only is None else [j for j in ancestors(skeleton, only) if j > 0]:
        p = parents[j]
        g = globals_[..., p, :]
        positions[..., j, :] = positions[..., p, :] + quat.rotate(g, offsets[j])
        globals_[..., j, :] = quat.multiply(g, rotations[..., j, :])
    return positions, globals_
