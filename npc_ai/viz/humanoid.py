"""A posed humanoid: pybullet_data's humanoid.urdf in a PyBullet world, posed from the animator each tick
(for the GUI and rendered frames), and a filmstrip renderer for clips.

Frames: poses are in the animator's convention (``clip.Pose``: character frame x forward, y left, z up,
Z-up local joint rotations, quaternions xyzw). humanoid.urdf is a Y-up model (DeepMimic): its joint
frames are the Z-up skeleton's frames conjugated by the change of basis ``C`` (+90 deg about x), so

* the base orientation is ``from_yaw(yaw) * rotations[0] * C`` (root rotation in the world, then the
  model's Y-up axes mapped to Z-up), at ``root_position + rotate_yaw(yaw, root_offset)``;
* a spherical joint's PyBullet quaternion is ``C^-1 * rotations[j] * C``;
* a revolute joint (knees, elbows) takes the angle of that quaternion about the joint axis (its twist;
  the DeepMimic and cleaned clips rotate knees and elbows about that axis only).

The puppet is visual only: collisions are disabled for every link (group and mask 0, so rays and bodies
pass through it), the base is fixed, and position motors hold the posed joint angles so gravity does not
make it sag between ``set_pose`` calls when the world steps.
"""

from __future__ import annotations

import math
import types
from pathlib import Path

import numpy as np

from npc_ai.animation import quat
from npc_ai.animation.animator import Animator
from npc_ai.animation.clip import Clip, Pose
from npc_ai.animation.deepmimic import URDF_SCALE, load_urdf_skeleton, pybullet_data_path
from npc_ai.animation.errors import AnimationError
from scenes._bullet import Client, silenced_c_output

_C = np.array([math.sin(math.pi / 4), 0.0, 0.0, math.cos(math.pi / 4)])  # Y-up model -> Z-up world
_C_INV = quat.conjugate(_C)
_HOLD_FORCE = 1e4  # [N m] motor force holding the posed joints against gravity while the world steps


def _humanoid_urdf() -> Path:
    return pybullet_data_path() / "humanoid" / "humanoid.urdf"


def _vector3(value: object, what: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise AnimationError(f"{what} must be 3 finite numbers, got {value!r}") from None
    if arr.shape != (3,) or not np.all(np.isfinite(arr)):
        raise AnimationError(f"{what} must be 3 finite numbers, got {value!r}")
    return arr


def _finite(value: object, what: str) -> float:
    try:
        out = float(np.asarray(value, dtype=np.float64))
    except (TypeError, ValueError):
        raise AnimationError(f"{what} must be a finite number, got {value!r}") from None
    if not math.isfinite(out):
        raise AnimationError(f"{what} must be a finite number, got {value!r}")
    return out


class PosedHumanoid:
    """humanoid.urdf loaded into ``client`` as a non-colliding visual puppet.

    Args:
        client: A ``pybullet_utils.bullet_client.BulletClient`` (the puppet lives in that world only).
        position: Initial trajectory point (character frame origin, on the floor) in the world [m].
        yaw: Initial facing [rad].
        scale: URDF ``globalScaling`` [m per model unit]; poses from the built-in clips assume
            ``URDF_SCALE`` (0.25).
        hold: Drive every joint with position motors to the posed angles (keeps the pose while the world
            steps; off saves a little step time if nothing steps between ``set_pose`` calls).

    Attributes:
        body: The PyBullet body id.
        scale: The URDF scaling [m per model unit].
        skeleton: The humanoid skeleton at ``scale`` (the joint order poses must have).
        link_index: Skeleton joint name -> PyBullet link index (-1 for the root).
    """

    def __init__(
        self,
        client: Client,
        *,
        position: object = (0.0, 0.0, 0.0),
        yaw: float = 0.0,
        scale: float = URDF_SCALE,
        hold: bool = True,
    ) -> None:
        if isinstance(client, types.ModuleType) or not hasattr(client, "loadURDF"):
            raise AnimationError(
                f"PosedHumanoid needs a pybullet_utils BulletClient (one client per world), got {client!r}"
            )
        scale = _finite(scale, "scale")
        if scale <= 0:
            raise AnimationError(f"scale must be > 0 metres per URDF unit, got {scale!r}")
        import pybullet as p

        self._client = client
        self._p = p
        self.hold = bool(hold)
        self.scale = scale
        self.skeleton, _ = load_urdf_skeleton(scale=scale)
        with silenced_c_output():  # the URDF importer warns about every axis-less joint
            self.body = client.loadURDF(str(_humanoid_urdf()), globalScaling=scale, useFixedBase=True)
        infos = [client.getJointInfo(self.body, j) for j in range(client.getNumJoints(self.body))]
        by_link = {info[12].decode(): info for info in infos}
        self.link_index: dict[str, int] = {}
        self._spherical: list[tuple[int, int]] = []  # (skeleton index, link index)
        self._revolute: list[tuple[int, int, np.ndarray]] = []  # (skeleton index, link index, Y-up axis)
        for k, name in enumerate(self.skeleton.names):
            if k == 0:
                self.link_index[name] = int(by_link[name][0]) if name in by_link else -1
                continue
            if name not in by_link:
                client.removeBody(self.body)
                raise AnimationError(f"humanoid.urdf has no link {name!r} for skeleton joint {name!r}")
            info = by_link[name]
            self.link_index[name] = int(info[0])
            if info[2] == p.JOINT_SPHERICAL:
                self._spherical.append((k, int(info[0])))
            elif info[2] == p.JOINT_REVOLUTE:
                axis = np.asarray(info[13], dtype=float)
                self._revolute.append((k, int(info[0]), axis / np.linalg.norm(axis)))
        self._sph_links = [link for _, link in self._spherical]
        self._rev_links = [link for _, link, _ in self._revolute]
        self._sph_k = np.array([k for k, _ in self._spherical], dtype=int)
        self._rev_k = np.array([k for k, _, _ in self._revolute], dtype=int)
        self._rev_axes = np.array([axis for _, _, axis in self._revolute]).reshape(-1, 3)
        for link in range(-1, client.getNumJoints(self.body)):
            client.setCollisionFilterGroupMask(self.body, link, 0, 0)
        self._removed = False
        rest = Pose(
            root_offset=np.array([0.0, 0.0, self.standing_height()]),
            rotations=np.broadcast_to(quat.IDENTITY, (self.skeleton.n_joints, 4)),
        )
        self.set_pose(rest, position, yaw)

    # ------------------------------------------------------------------ facts
    def standing_height(self) -> float:
        """Root height [m] of the identity pose standing with its soles on the floor (ankle height plus
        the foot box's lower half in humanoid.urdf: 0.2 model units)."""
        rest = self.skeleton.rest_positions()
        return float(-rest[:, 2].min() + 0.2 * self.scale)

    # ------------------------------------------------------------------ posing
    def _check_alive(self) -> None:
        if self._removed:
            raise AnimationError("this PosedHumanoid was removed")

    def set_pose(self, pose: Pose, root_position: object, yaw: float) -> None:
        """Pose the puppet: ``pose`` in the character frame (``Animator.pose``, ``Clip.sample(t).pose``)
        placed at the trajectory point ``root_position`` (3,) [m] facing ``yaw`` [rad].

        Raises:
            AnimationError: a pose of the wrong shape or with non-finite / zero-length values, a
                non-finite position or yaw, or a removed puppet.
        """
        self._check_alive()
        n = self.skeleton.n_joints
        if not isinstance(pose, Pose):
            raise AnimationError(f"set_pose needs a Pose, got {type(pose).__name__}")
        offset = _vector3(pose.root_offset, "pose.root_offset")
        try:
            rots = np.asarray(pose.rotations, dtype=float)
        except (TypeError, ValueError):
            raise AnimationError("pose.rotations must be numbers") from None
        if rots.shape != (n, 4):
            raise AnimationError(
                f"pose.rotations must have shape ({n}, 4) (one xyzw quaternion per humanoid joint: "
                f"{', '.join(self.skeleton.names)}), got {rots.shape}"
            )
        if not np.all(np.isfinite(rots)):
            raise AnimationError("pose.rotations has non-finite values")
        norms = np.linalg.norm(rots, axis=-1)
        if np.any(norms < 1e-6):
            bad = self.skeleton.names[int(np.argmin(norms))]
            raise AnimationError(f"pose.rotations has a zero-length quaternion (joint {bad!r})")
        rots = rots / norms[:, None]
        position = _vector3(root_position, "root_position")
        yaw = _finite(yaw, "yaw")

        c = self._client
        base_pos = position + quat.rotate_yaw(yaw, offset)
        base_rot = quat.normalize(quat.multiply(quat.multiply(quat.from_yaw(yaw), rots[0]), _C))
        c.resetBasePositionAndOrientation(self.body, base_pos.tolist(), base_rot.tolist())
        sph = quat.normalize(quat.multiply(quat.multiply(_C_INV, rots[self._sph_k]), _C))
        sph_list = sph.tolist()
        for link, q in zip(self._sph_links, sph_list, strict=True):
            c.resetJointStateMultiDof(self.body, link, q, [0.0, 0.0, 0.0])
        rev = quat.multiply(quat.multiply(_C_INV, rots[self._rev_k]), _C)
        twist = np.sum(rev[:, :3] * self._rev_axes, axis=-1)
        angles = 2.0 * np.arctan2(twist, rev[:, 3])
        angles = ((angles + np.pi) % (2 * np.pi) - np.pi).tolist()
        for link, angle in zip(self._rev_links, angles, strict=True):
            c.resetJointState(self.body, link, angle, 0.0)
        if self.hold:
            p = self._p
            if self._sph_links:
                c.setJointMotorControlMultiDofArray(
                    self.body,
                    self._sph_links,
                    p.POSITION_CONTROL,
                    targetPositions=sph_list,
                    forces=[[_HOLD_FORCE] * 3] * len(self._sph_links),
                )
            if self._rev_links:
                c.setJointMotorControlArray(
                    self.body,
                    self._rev_links,
                    p.POSITION_CONTROL,
                    targetPositions=angles,
                    forces=[_HOLD_FORCE] * len(self._rev_links),
                )

    def set_from_animator(self, animator: Animator, root_position: object, yaw: float) -> None:
        """``set_pose(animator.pose, root_position, yaw)`` (the NPC's trajectory point and facing)."""
        self.set_pose(animator.pose, root_position, yaw)

    # ------------------------------------------------------------------ read back
    def link_positions(self) -> dict[str, np.ndarray]:
        """World positions [m] of the link frames (the skeleton's joints), by skeleton joint name, read
        back from PyBullet (``getLinkStates`` with forward kinematics; the root is the base position)."""
        self._check_alive()
        c = self._client
        names = [name for name in self.skeleton.names if self.link_index[name] >= 0]
        links = [self.link_index[name] for name in names]
        states = c.getLinkStates(self.body, links, computeForwardKinematics=1)
        out = {name: np.array(state[4], dtype=float) for name, state in zip(names, states, strict=True)}
        root = self.skeleton.names[0]
        if root not in out:
            out[root] = np.array(c.getBasePositionAndOrientation(self.body)[0], dtype=float)
        return {name: out[name] for name in self.skeleton.names}

    def remove(self) -> None:
        """Remove the body from its world (idempotent)."""
        if not self._removed:
            self._removed = True
            self._client.removeBody(self.body)

    def __enter__(self) -> PosedHumanoid:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _check_humanoid_clip(clip: object, skeleton_names: tuple[str, ...]) -> Clip:
    if not isinstance(clip, Clip):
        raise AnimationError(f"render_filmstrip needs a Clip, got {type(clip).__name__}")
    if clip.skeleton.names != skeleton_names:
        raise AnimationError(
            f"clip {clip.name!r} is not on the humanoid.urdf skeleton (joints {clip.skeleton.names}); "
            "only DeepMimic clips can pose the humanoid"
        )
    return clip


def render_filmstrip(
    clip: Clip,
    out_png: str | Path,
    *,
    frames: int = 8,
    size: tuple[int, int] = (240, 320),
) -> Path:
    """Render ``frames`` poses of a humanoid clip side by side into one PNG.

    Opens its own DIRECT client with pybullet_data's plane.urdf as the floor, poses the humanoid at
    ``frames`` times spread over the clip (a loop's last frame repeats the first, so loops stop one step
    short of the end) along the clip's root trajectory, renders each with the TinyRenderer from a camera
    on the character's right side following it (its forward points right in the image), and writes the
    tiles left to right. Closes the client.

    Args:
        clip: A clip on the humanoid.urdf skeleton (the DeepMimic built-ins).
        out_png: Output path (parent directories are created).
        frames: Number of tiles [>= 1].
        size: (width, height) of one tile [px]; the PNG is ``frames * width`` wide, ``height`` tall.
    Returns:
        The PNG path.
    """
    if isinstance(frames, bool) or not isinstance(frames, (int, np.integer)) or frames < 1:
        raise AnimationError(f"frames must be an integer >= 1, got {frames!r}")
    dims = np.asarray(size, dtype=object)
    ok = dims.shape == (2,) and all(isinstance(v, (int, np.integer)) and 8 <= v <= 4096 for v in dims)
    if not ok:
        raise AnimationError(f"size must be (width, height) in pixels, 8..4096 each, got {size!r}")
    width, height = int(dims[0]), int(dims[1])
    from scenes._bullet import new_client
    from scenes._bullet import pybullet as p

    skeleton_names = load_urdf_skeleton()[0].names
    clip = _check_humanoid_clip(clip, skeleton_names)
    out = Path(out_png)
    times = np.linspace(0.0, clip.duration, int(frames), endpoint=not clip.loop or frames == 1)
    tiles = []
    client = new_client()
    try:
        client.loadURDF(str(pybullet_data_path() / "plane.urdf"))
        puppet = PosedHumanoid(client, scale=URDF_SCALE, hold=False)
        for link in range(-1, client.getNumJoints(puppet.body)):
            client.changeVisualShape(puppet.body, link, rgbaColor=[0.85, 0.45, 0.2, 1.0])
        projection = client.computeProjectionMatrixFOV(
            fov=40.0, aspect=width / height, nearVal=0.1, farVal=30.0
        )
        for t in times:
            sample = clip.sample(float(t))
            position = np.asarray(sample.positions, dtype=float)
            yaw = float(sample.yaw)
            puppet.set_pose(sample.pose, position, yaw)
            target = position + np.array([0.0, 0.0, 0.85])
            right = quat.rotate_yaw(yaw, np.array([0.0, -1.0, 0.0]))
            eye = target + 3.0 * right + np.array([0.0, 0.0, 0.2])
            view = client.computeViewMatrix(eye.tolist(), target.tolist(), [0.0, 0.0, 1.0])
            image = client.getCameraImage(
                width,
                height,
                viewMatrix=view,
                projectionMatrix=projection,
                renderer=p.ER_TINY_RENDERER,
                lightDirection=[1.0, -1.0, 2.0],
            )
            rgba = np.reshape(np.asarray(image[2], dtype=np.uint8), (height, width, 4))
            tiles.append(rgba[:, :, :3])
    finally:
        client.disconnect()
    strip = np.ascontiguousarray(np.concatenate(tiles, axis=1))
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        from PIL import Image

        Image.fromarray(strip).save(out)
    except ImportError:  # pragma: no cover - PIL ships with matplotlib
        import matplotlib.image

        matplotlib.image.imsave(out, strip)
    return out


__all__ = ["PosedHumanoid", "render_filmstrip"]
