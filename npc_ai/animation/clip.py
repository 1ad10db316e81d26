"""Animation clips: a skeleton, a root track and joint rotation tracks, sampled at any time.

Frames and conventions (used by the whole package):
    * World: Z-up, metres, radians; quaternions are xyzw (see ``quat``).
    * Character frame: origin on the floor under the character (the *trajectory* point), x forward
      (the facing direction), y left, z up. ``yaw`` is the heading of +x in the world (atan2(y, x)).
    * Root track = trajectory (ground position + facing yaw per frame, the part root motion moves) plus
      the remaining root transform: the root joint's offset in the character frame (hip sway, height)
      and its rotation in the character frame (``rotations[:, 0]``).
    * Frames are uniform at ``fps``; duration = (n_frames - 1) / fps. A looping clip's last frame is
      the first pose again, displaced by one cycle (DeepMimic's convention); loops are treated as
      straight: sampling at t + k * duration adds k * cycle displacement (world frame) to the trajectory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.ndimage import gaussian_filter1d

from . import kernels, quat
from .errors import AnimationError, AnimationSettingsError
from .skeleton import Skeleton, forward_kinematics


def frame_coords(
    t: np.ndarray,
    duration: float | np.ndarray,
    fps: float | np.ndarray,
    n_frames: int | np.ndarray,
    loop: bool | np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where times ``t`` [s] fall in clips of ``duration`` [s], ``fps``, ``n_frames`` and ``loop`` (scalars or
    arrays broadcasting with t): frame index i, fraction a in [0, 1] toward frame i + 1, and cycle count k
    (loops wrap and count cycles; one-shot clips clamp, k = 0). One rule for every sampler
    (`kernels.frame_coord`)."""
    t = np.asarray(t, dtype=np.float64)
    if not np.all(np.isfinite(t)):
        raise AnimationSettingsError("sample times must be finite")
    parts = np.broadcast_arrays(
        t,
        np.asarray(duration, dtype=np.float64),
        np.asarray(fps, dtype=np.float64),
        np.asarray(n_frames, dtype=np.int64),
        np.asarray(loop, dtype=np.bool_),
    )
    shape = parts[0].shape
    i, a, k = kernels.frame_coords_flat(*(np.ascontiguousarray(p).reshape(-1) for p in parts))
    return i.reshape(shape), a.reshape(shape), k.reshape(shape)


@dataclass(frozen=True, eq=False)
class Pose:
    """A pose in the character frame.

    Attributes:
        root_offset: (..., 3) root joint position in the character frame [m].
        rotations: (..., J, 4) local joint rotations, [..., 0] the root's rotation in the character frame.
    """

    root_offset: np.ndarray
    rotations: np.ndarray


def blend_poses(poses: list[Pose], weights: np.ndarray) -> Pose:
    """Weighted blend of poses (weights are normalised): lerp of root offsets, nlerp of rotations."""
    w = np.asarray(weights, dtype=float)
    total = float(np.sum(w))
    if len(poses) == 0 or len(poses) != len(w) or not total > 0:
        raise AnimationSettingsError(
            f"blend_poses needs one positive-sum weight per pose, got {len(poses)} / {w!r}"
        )
    w = w / total
    offsets = np.stack([p.root_offset for p in poses])
    rots = np.stack([p.rotations for p in poses])
    return Pose(
        root_offset=np.tensordot(w, offsets, axes=1),
        rotations=quat.weighted_average(rots, w),
    )


@dataclass(frozen=True, eq=False)
class ClipSample:
    """A clip sampled at times (leading axis T, or none for a scalar time).

    Attributes:
        positions: (..., 3) trajectory (character frame origin) in the world [m].
        yaw: (...) facing yaw [rad].
        pose: The pose in the character frame.
    """

    positions: np.ndarray
    yaw: np.ndarray
    pose: Pose


@dataclass(frozen=True, eq=False)
class Clip:
    """A skeletal animation clip (see the module docstring for frames and units).

    Attributes:
        name: Short name ('walk', or the file stem).
        skeleton: The joint hierarchy.
        fps: Frame rate [1/s, > 0].
        positions: (F, 3) trajectory positions (character frame origin) in the world [m].
        yaw: (F,) facing yaw, unwrapped [rad].
        root_offsets: (F, 3) root joint position in the character frame [m].
        rotations: (F, J, 4) local joint rotations; [:, 0] the root's rotation in the character frame.
        loop: Whether the clip cycles.
        feet: Names of the (left, right) foot joints used for contacts and metrics.
        source: Where the clip came from (a path or a description).
    """

    name: str
    skeleton: Skeleton
    fps: float
    positions: np.ndarray
    yaw: np.ndarray
    root_offsets: np.ndarray
    rotations: np.ndarray
    loop: bool
    feet: tuple[str, str]
    source: str = ""
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        f = np.asarray(self.positions).shape[0] if np.ndim(self.positions) == 2 else -1
        j = self.skeleton.n_joints
        shapes = {
            "positions": ((f, 3), self.positions),
            "yaw": ((f,), self.yaw),
            "root_offsets": ((f, 3), self.root_offsets),
            "rotations": ((f, j, 4), self.rotations),
        }
        if f < 2:
            raise AnimationError(f"clip {self.name!r} needs at least 2 frames of (F, 3) positions")
        for key, (shape, value) in shapes.items():
            arr = np.array(value, dtype=float)
            if arr.shape != shape:
                raise AnimationError(f"clip {self.name!r}: {key} must have shape {shape}, got {arr.shape}")
            if not np.all(np.isfinite(arr)):
                raise AnimationError(f"clip {self.name!r}: {key} has non-finite values")
            if key == "rotations":
                arr = quat.normalize(arr)
            arr.setflags(write=False)
            object.__setattr__(self, key, arr)
        if not (math.isfinite(self.fps) and self.fps > 0):
            raise AnimationSettingsError(
                f"clip {self.name!r}: fps must be a positive number, got {self.fps!r}"
            )
        for foot in self.feet:
            self.skeleton.index(foot)
        object.__setattr__(self, "feet", tuple(self.feet))

    # ------------------------------------------------------------------ basic facts
    @property
    def n_frames(self) -> int:
        return int(self.positions.shape[0])

    @property
    def duration(self) -> float:
        """Clip length [s] (one cycle for a loop)."""
        return (self.n_frames - 1) / self.fps

    @property
    def frame_times(self) -> np.ndarray:
        """(F,) frame times [s]."""
        return np.arange(self.n_frames) / self.fps

    @property
    def cycle_displacement(self) -> np.ndarray:
        """(3,) trajectory displacement over one cycle (loops) or the whole clip [m]."""
        return self.positions[-1] - self.positions[0]

    @property
    def foot_indices(self) -> tuple[int, int]:
        return self.skeleton.index(self.feet[0]), self.skeleton.index(self.feet[1])

    def root_speed(self) -> float:
        """Mean horizontal trajectory speed [m/s]: cycle displacement / duration for loops, path length
        / duration otherwise."""
        if self.loop:
            return float(np.linalg.norm(self.cycle_displacement[:2]) / self.duration)
        steps = np.linalg.norm(np.diff(self.positions[:, :2], axis=0), axis=1)
        return float(np.sum(steps) / self.duration)

    # ------------------------------------------------------------------ sampling
    def _frame_coords(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Frame index i, fraction a in [0, 1] and cycle count k for times t."""
        return frame_coords(np.asarray(t, dtype=float), self.duration, self.fps, self.n_frames, self.loop)

    def sample_root(self, t: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Root trajectory only at times ``t`` [s]: positions (..., 3) [m] and yaw (...) [rad] (what root
        motion needs; much cheaper than `sample`, which also slerps every joint)."""
        if np.ndim(t) == 0:  # scalar fast path: plain floats beat numpy's per-call overhead by ~10x
            return self._sample_root_scalar(float(t))
        i, a, k = self._frame_coords(np.asarray(t, dtype=np.float64))
        a3 = a[..., None]
        pos = (
            (1 - a3) * self.positions[i] + a3 * self.positions[i + 1] + k[..., None] * self.cycle_displacement
        )
        yaw_cycle = self.yaw[-1] - self.yaw[0] if self.loop else 0.0
        return pos, (1 - a) * self.yaw[i] + a * self.yaw[i + 1] + k * yaw_cycle

    def _sample_root_scalar(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        if not math.isfinite(t):
            raise AnimationSettingsError("sample times must be finite")
        i, a, k = kernels.frame_coord(t, self.duration, self.fps, self.n_frames, self.loop)
        pos = (1 - a) * self.positions[i] + a * self.positions[i + 1] + k * self.cycle_displacement
        yaw_cycle = float(self.yaw[-1] - self.yaw[0]) if self.loop else 0.0
        yaw = (1 - a) * float(self.yaw[i]) + a * float(self.yaw[i + 1]) + k * yaw_cycle
        return pos, np.asarray(yaw)

    def sample(self, t: float | np.ndarray) -> ClipSample:
        """Sample the clip at times ``t`` [s] (scalar or array): lerp of positions and offsets, slerp of
        rotations; loops wrap and carry the cycle displacement, one-shot clips clamp."""
        pos, yaw = self.sample_root(t)
        i, a, _ = self._frame_coords(np.asarray(t, dtype=np.float64))
        a3 = a[..., None]
        off = (1 - a3) * self.root_offsets[i] + a3 * self.root_offsets[i + 1]
        rots = quat.slerp(self.rotations[i], self.rotations[i + 1], a[..., None])
        return ClipSample(positions=pos, yaw=yaw, pose=Pose(root_offset=off, rotations=rots))

    def local_positions(self, t: float | np.ndarray | None = None) -> np.ndarray:
        """Joint positions in the character frame [m], (F, J, 3) at the frames or (..., J, 3) at times t."""
        if t is None:
            if "local" not in self._cache:
                self._cache["local"] = forward_kinematics(self.skeleton, self.root_offsets, self.rotations)[0]
            return self._cache["local"]
        pose = self.sample(t).pose
        return forward_kinematics(self.skeleton, pose.root_offset, pose.rotations)[0]

    def world_positions(self, t: float | np.ndarray | None = None) -> np.ndarray:
        """Joint positions in the world [m], (F, J, 3) at the frames or (..., J, 3) at times t."""
        if t is None:
            pos, yaw, local = self.positions, self.yaw, self.local_positions()
        else:
            s = self.sample(t)
            pos, yaw = s.positions, s.yaw
            local = forward_kinematics(self.skeleton, s.pose.root_offset, s.pose.rotations)[0]
        return compose_world(local, pos, yaw)

    # ------------------------------------------------------------------ derived clips
    def replace(self, **changes: object) -> Clip:
        """A copy with some attributes changed (validated again)."""
        fields = {
            "name": self.name,
            "skeleton": self.skeleton,
            "fps": self.fps,
            "positions": self.positions,
            "yaw": self.yaw,
            "root_offsets": self.root_offsets,
            "rotations": self.rotations,
            "loop": self.loop,
            "feet": self.feet,
            "source": self.source,
        }
        fields.update(changes)
        return Clip(**fields)  # type: ignore[arg-type]

    def with_play_rate(self, rate: float, name: str | None = None) -> Clip:
        """The same frames played ``rate`` times faster (fps scaled): speed and cadence scale by rate."""
        if not (math.isfinite(rate) and rate > 0):
            raise AnimationSettingsError(f"play rate must be a positive number, got {rate!r}")
        return self.replace(fps=self.fps * rate, name=name or f"{self.name}x{rate:g}")

    def resample(self, fps: float) -> Clip:
        """This clip sampled at about ``fps`` [1/s, > 0] with its own interpolation (``sample``: lerp of
        positions, yaw and root offsets, slerp of rotations).

        The duration is kept exactly: the new clip has ``n = max(1, round(duration * fps))`` frame steps
        at ``n / duration`` frames per second (the requested rate adjusted by under half a frame per clip),
        so a loop keeps its period, its cycle displacement and its seam (the last frame is the first pose,
        one cycle on). Name, skeleton, feet and loop flag are kept; the source notes the resampling.
        """
        if not (isinstance(fps, (int, float)) and math.isfinite(fps) and fps > 0):
            raise AnimationSettingsError(
                f"resample fps must be a positive number of frames per second, got {fps!r}"
            )
        dur = self.duration
        steps = max(1, round(dur * fps))
        times = np.arange(steps + 1) * (dur / steps)
        times[-1] = dur
        s = self.sample(times)
        positions, yaw = np.array(s.positions), np.array(s.yaw)
        offsets, rots = np.array(s.pose.root_offset), np.array(s.pose.rotations)
        ends = (self.positions, self.yaw, self.root_offsets, self.rotations)
        for new, old in zip((positions, yaw, offsets, rots), ends, strict=True):
            new[0], new[-1] = old[0], old[-1]  # the end frames exactly (a loop's seam stays closed)
        return self.replace(
            fps=steps / dur,
            positions=positions,
            yaw=yaw,
            root_offsets=offsets,
            rotations=rots,
            source=f"{self.source} (resampled {self.fps:.4g} -> {steps / dur:.4g} Hz)",
        )

    def in_place(self) -> Clip:
        """The clip with its horizontal root motion removed (trajectory held at the first frame's point;
        the facing yaw and the hip sway in the pose are kept)."""
        pos = np.broadcast_to(self.positions[0], self.positions.shape).copy()
        return self.replace(positions=pos, name=f"{self.name}_in_place")

    def subclip(self, start_s: float, end_s: float, loop: bool = False, name: str | None = None) -> Clip:
        """Frames from ``start_s`` to ``end_s`` [s] (rounded to frames, at least 2 frames)."""
        i0 = round(start_s * self.fps)
        i1 = round(end_s * self.fps)
        if not (0 <= i0 < i1 < self.n_frames):
            raise AnimationSettingsError(
                f"subclip [{start_s}, {end_s}] s is outside clip {self.name!r} (0..{self.duration} s)"
            )
        sl = slice(i0, i1 + 1)
        return self.replace(
            positions=self.positions[sl],
            yaw=self.yaw[sl],
            root_offsets=self.root_offsets[sl],
            rotations=self.rotations[sl],
            loop=loop,
            name=name or f"{self.name}[{start_s:g}:{end_s:g}]",
        )

    @classmethod
    def from_root_track(
        cls,
        name: str,
        skeleton: Skeleton,
        fps: float,
        root_world_positions: np.ndarray,
        root_world_rotations: np.ndarray,
        local_rotations: np.ndarray,
        loop: bool,
        feet: tuple[str, str],
        source: str = "",
        smoothing_s: float = 0.4,
    ) -> Clip:
        """Build a clip from world root transforms (Z-up): split them into a smooth trajectory and the
        remaining root transform.

        Facing: the rest-pose forward is ``left x up`` where left = left foot - right foot in the identity
        pose; the root's rotated forward, projected on the floor, gives a raw heading per frame. Loops take
        its circular mean (a constant facing) and a straight-line trajectory through the mean hip position,
        and their last frame's pose is set to the first one's so sampling is exactly periodic;
        one-shot clips low-pass both with a Gaussian of ``smoothing_s`` [s] (removes the per-stride hip
        sway and pelvis twist, which stay in the pose).
        """
        p = np.asarray(root_world_positions, dtype=float)
        q = quat.normalize(np.asarray(root_world_rotations, dtype=float))
        rest = skeleton.rest_positions()
        left = rest[skeleton.index(feet[0])] - rest[skeleton.index(feet[1])]
        forward = np.cross(left, [0.0, 0.0, 1.0])
        norm = np.linalg.norm(forward[:2])
        if norm < 1e-9:
            raise AnimationError(f"clip {name!r}: cannot derive a facing from feet {feet} (they coincide)")
        forward = np.array([forward[0], forward[1], 0.0]) / norm
        raw_yaw = np.unwrap(quat.yaw_of(q, forward))
        n = p.shape[0]
        if loop:
            cyc = raw_yaw[:-1]
            yaw = np.full(n, math.atan2(np.mean(np.sin(cyc)), np.mean(np.cos(cyc))))
            disp = p[-1, :2] - p[0, :2]
            ramp = np.arange(n)[:, None] / (n - 1) * disp
            start = np.mean(p[:-1, :2] - ramp[:-1], axis=0)
            traj_xy = start + ramp
        else:
            sigma = max(smoothing_s * fps, 1e-6)
            yaw = gaussian_filter1d(raw_yaw, sigma, mode="nearest")
            traj_xy = gaussian_filter1d(p[:, :2], sigma, axis=0, mode="nearest")
        traj = np.column_stack([traj_xy, np.zeros(n)])
        offsets = quat.rotate_yaw(-yaw, p - traj)
        rots = np.array(local_rotations, dtype=float, copy=True)
        rots[:, 0] = quat.multiply(quat.from_yaw(-yaw), q)
        if loop:  # close the loop exactly: the last frame is the first pose, one cycle on
            offsets[-1] = offsets[0]
            rots[-1] = rots[0]
        return cls(
            name=name,
            skeleton=skeleton,
            fps=float(fps),
            positions=traj,
            yaw=yaw,
            root_offsets=offsets,
            rotations=rots,
            loop=loop,
            feet=feet,
            source=source,
        )


def compose_world(local: np.ndarray, positions: np.ndarray, yaw: np.ndarray) -> np.ndarray:
    """Place character-frame points in the world along a root trajectory.

    Args:
        local: (T, ..., 3) points in the character frame (x forward, y left, z up) [m].
        positions: (T, 3) character frame origins in the world [m].
        yaw: (T,) facing yaw [rad].
    Returns:
        (T, ..., 3) world points [m].
    """
    local = np.asarray(local, dtype=float)
    positions = np.asarray(positions, dtype=float)
    yaw = np.asarray(yaw, dtype=float)
    extra = local.ndim - positions.ndim
    shape = positions.shape[:-1] + (1,) * extra
    return positions.reshape(shape + (3,)) + quat.rotate_yaw(yaw.reshape(shape), local)
