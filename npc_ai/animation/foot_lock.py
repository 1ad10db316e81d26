"""Runtime foot locking: planted feet pinned where they landed with position-space two-bone IK.

Each tick, ``FootLock.update`` takes the animated hip, knee and ankle of both legs in the world (the pose
placed by the character's position and yaw) and the animation's planted weights, and returns new knee and
ankle positions:

* Lock: when a foot's planted weight rises through ``lock_threshold`` the foot locks at the ankle's
  current horizontal position (the animated ankle; mid-release the blended one, so nothing jumps). While
  locked, the ankle target is the lock point's xy at the animated height z (heel rise stays).
* Release: when the weight drops below the threshold, or the animated ankle wanders farther than
  ``max_lock_distance_m`` horizontally from the lock point (the body was pushed or turned away), the target
  blends from the lock point back to the animated ankle over ``release_s`` (smoothstep). A foot released by
  distance locks again only once its weight has dropped below the threshold and risen through it again.
* IK: the hip-target distance is clamped to [|thigh - shin|, max_reach * (thigh + shin)] (bone lengths
  measured on the animated pose), then the knee is placed by the law of cosines in the plane of the hip,
  the target and the animated knee, so it bends the way the animation bends it. The hip never moves and
  both bone lengths are kept exactly; a free, reachable foot comes back as animated.
* Diagnostics (``FootLockResult``): per foot, whether it is locked, how far the target had to be moved
  to be reachable (``stretch_m``), the leg's extension (hip-ankle distance / leg length, <= max_reach) and
  how far the IK moved the ankle from the animated one (``pose_error_m``): what locking changed, reported.

The foot below the ankle (toe joints, ``foot_joints``) keeps its animated world orientation, so it moves
rigidly with the ankle: ``FootLockResult.offset`` adds the ankle's displacement to those joints.
Units: metres, seconds; world Z-up. Pure numpy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import quat
from .errors import AnimationSettingsError
from .skeleton import Skeleton

_TINY = 1e-9  # relative to the leg length: below it a direction is degenerate


@dataclass(frozen=True)
class FootLockSettings:
    """How planted feet are locked and released.

    Attributes:
        lock_threshold: Planted weight at or above which a foot locks [0 < value <= 1].
        release_s: Time over which a released foot blends back to its animated position (smoothstep)
            [s, >= 0; 0 releases at once].
        max_reach: Longest allowed hip-ankle distance as a fraction of the leg length (thigh + shin)
            [0 < value <= 1]: the IK never straightens a leg beyond it.
        max_lock_distance_m: Horizontal distance of the animated ankle from its lock point beyond which
            the lock is released [m, > 0].
    """

    lock_threshold: float = 0.5
    release_s: float = 0.15
    max_reach: float = 0.999
    max_lock_distance_m: float = 0.25

    def __post_init__(self) -> None:
        checks = (
            ("lock_threshold", 0.0, 1.0, "a planted weight in (0, 1]"),
            ("release_s", None, None, "a non-negative number of seconds"),
            ("max_reach", 0.0, 1.0, "a fraction of the leg length in (0, 1]"),
            ("max_lock_distance_m", 0.0, None, "a positive number of metres"),
        )
        for name, above, most, what in checks:
            value = getattr(self, name)
            ok = isinstance(value, (int, float)) and math.isfinite(value)
            ok = ok and (value >= 0 if above is None else value > above) and (most is None or value <= most)
            if not ok:
                raise AnimationSettingsError(f"{name} must be {what}, got {value!r}")


@dataclass(frozen=True, eq=False)
class FootLockResult:
    """One tick of foot locking for the (left, right) feet; world frame, metres.

    Attributes:
        knee, ankle: (2, 3) solved knee and ankle positions.
        animated_ankle: (2, 3) the ankle as animated.
        target: (2, 3) the ankle target before the reach clamp.
        locked: (2,) bool, foot held at its lock point this tick.
        weight: (2,) lock weight [0..1]: 1 locked, falling to 0 over a release, 0 free.
        stretch_m: (2,) how far the target was moved to be reachable (0 when reachable) [m].
        extension: (2,) solved hip-ankle distance / leg length (<= max_reach).
        pose_error_m: (2,) distance from the solved ankle to the animated ankle [m].
    """

    knee: np.ndarray
    ankle: np.ndarray
    animated_ankle: np.ndarray
    target: np.ndarray
    locked: np.ndarray
    weight: np.ndarray
    stretch_m: np.ndarray
    extension: np.ndarray
    pose_error_m: np.ndarray

    def offset(self, points: np.ndarray) -> np.ndarray:
        """Animated world points of each foot's joints below the ankle ((2, 3) or (2, n, 3); left foot
        first, e.g. the toes of ``foot_joints``) moved rigidly with the solved ankle: the foot keeps its
        animated orientation, so every joint of it moves by the ankle's displacement [m]."""
        p = np.asarray(points, dtype=float)
        if p.ndim not in (2, 3) or p.shape[0] != 2 or p.shape[-1] != 3:
            raise AnimationSettingsError(f"offset points must have shape (2, 3) or (2, n, 3), got {p.shape}")
        shift = self.ankle - self.animated_ankle
        return p + (shift if p.ndim == 2 else shift[:, None, :])


def foot_joints(skeleton: Skeleton, ankle: int) -> tuple[int, ...]:
    """Indices of the joints below ``ankle`` (its descendants: toes), the ones ``offset`` moves."""
    below: set[int] = {ankle}
    for j in range(ankle + 1, skeleton.n_joints):
        if int(skeleton.parents[j]) in below:
            below.add(j)
    return tuple(sorted(below - {ankle}))


def leg_points_world(
    joints: np.ndarray, chains: Sequence[tuple[int, int, int]], position: np.ndarray, yaw: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """World (hip, knee, ankle), each (2, 3) [m], of character-frame joint positions ``joints`` (J, 3)
    (``Animator.joint_positions()``) for the (left, right) ``chains`` (``leg_chain``), placed at the
    character's ``position`` (3,) [m] and ``yaw`` [rad]."""
    idx = np.asarray(chains, dtype=int)
    if idx.shape != (2, 3):
        raise AnimationSettingsError(f"chains must be two (hip, knee, ankle) index triples, got {chains!r}")
    local = np.asarray(joints, dtype=float)[idx]  # (2, 3 joints, 3)
    world = np.asarray(position, dtype=float) + quat.rotate_yaw(yaw, local)
    return world[:, 0], world[:, 1], world[:, 2]


def _unit(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = np.linalg.norm(v, axis=-1)
    return v / np.maximum(n, 1e-300)[..., None], n


def _perpendicular(v: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The unit part of v perpendicular to unit u, and its length before normalising. Projected out twice:
    for v nearly along u one pass cancels to a part 1e-9 off square (a knee 1e-9 m off its bone length)."""
    p = v - np.sum(v * u, axis=-1, keepdims=True) * u
    return _unit(p - np.sum(p * u, axis=-1, keepdims=True) * u)


def two_bone_positions(
    hip: np.ndarray,
    target: np.ndarray,
    thigh: np.ndarray,
    shin: np.ndarray,
    pole: np.ndarray,
    max_reach: float = 1.0,
    bend_hint: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Position-space two-bone IK, vectorised over leading axes.

    Args:
        hip: (..., 3) hip positions [m]. target: (..., 3) wanted ankle positions [m].
        thigh, shin: (...) bone lengths [m, > 0].
        pole: (..., 3) points on the side the knee bends to (the animated knee) [m].
        max_reach: Longest hip-ankle distance as a fraction of thigh + shin.
        bend_hint: (..., 3) bend direction used when the pole lies on the hip-target line (default: any
            direction perpendicular to it). A target at the hip is approached from below (-z).
    Returns:
        knee (..., 3) and ankle (..., 3) [m] with |knee - hip| = thigh and |ankle - knee| = shin, and
        stretch (...) [m]: how far the target was moved to be reachable (0 when it was).
    """
    hip, target, pole = (np.asarray(a, dtype=float) for a in (hip, target, pole))
    thigh, shin = np.asarray(thigh, dtype=float), np.asarray(shin, dtype=float)
    length = thigh + shin
    u, dist = _unit(target - hip)
    u = np.where((dist > _TINY * length)[..., None], u, np.array([0.0, 0.0, -1.0]))
    inner = np.maximum(np.abs(thigh - shin), _TINY * length)  # the leg cannot fold tighter than this
    d = np.maximum(np.minimum(dist, max_reach * length), inner)
    along = (thigh**2 - shin**2 + d**2) / (2 * d)  # hip -> knee, measured along u
    side = np.sqrt(np.maximum(thigh**2 - along**2, 0.0))
    bend, size = _perpendicular(pole - hip, u)
    axis = np.where(
        (np.abs(u[..., 2]) < 0.9)[..., None], np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0])
    )
    fallback = _unit(np.cross(u, axis))[0]
    if bend_hint is not None:
        hinted, hsize = _perpendicular(np.broadcast_to(bend_hint, u.shape).astype(float), u)
        fallback = np.where((hsize > _TINY)[..., None], hinted, fallback)
    bend = np.where((size > _TINY * length)[..., None], bend, fallback)
    knee = hip + along[..., None] * u + side[..., None] * bend
    ankle = np.where((dist == d)[..., None], target, hip + d[..., None] * u)  # a reachable target exactly
    return knee, ankle, np.abs(dist - d)


def _smoothstep(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)


def _legs(name: str, value: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    a = np.asarray(value, dtype=float)
    if a.shape != shape or not np.all(np.isfinite(a)):
        raise AnimationSettingsError(f"{name} must be a finite {shape} array (left, right), got {a.shape}")
    return a


class FootLock:
    """Foot-locking state of one character: a lock point per foot and the release blends (see the module
    docstring). Call ``update`` once per tick; ``reset`` after a teleport."""

    def __init__(self, settings: FootLockSettings | None = None) -> None:
        self.settings = settings or FootLockSettings()
        self.reset()

    def reset(self) -> None:
        """Drop every lock and release blend (e.g. after the character is teleported)."""
        self._locked = np.zeros(2, dtype=bool)
        self._lock = np.zeros((2, 3))  # lock points (xyz at lock time), valid where locked
        self._from = np.zeros((2, 2))  # xy a release blends away from
        self._elapsed = np.full(2, np.inf)  # time since each release began [s]; inf: no release
        self._above = np.zeros(2, dtype=bool)  # planted weight at/above the threshold last tick
        self._bend = np.zeros((2, 3))  # last knee bend direction (for a straight animated leg)

    @property
    def lock_points(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """World (3,) lock point of the (left, right) foot [m], or None when it is not locked."""
        pts = [self._lock[i].copy() if self._locked[i] else None for i in (0, 1)]
        return pts[0], pts[1]

    def _release_weight(self) -> np.ndarray:
        if self.settings.release_s <= 0:
            return np.zeros(2)
        return 1.0 - _smoothstep(self._elapsed / self.settings.release_s)

    def update(
        self, hip: np.ndarray, knee: np.ndarray, ankle: np.ndarray, planted: np.ndarray, dt: float
    ) -> FootLockResult:
        """Advance by ``dt`` [s, >= 0] and solve both legs.

        Args:
            hip, knee, ankle: (2, 3) animated world positions of the (left, right) leg joints [m].
            planted: (2,) planted weight of each foot [0..1] (``Animator.planted()``).
        """
        s = self.settings
        hip, knee, ankle = (_legs(n, v, (2, 3)) for n, v in (("hip", hip), ("knee", knee), ("ankle", ankle)))
        planted = _legs("planted", planted, (2,))
        if not (isinstance(dt, (int, float)) and math.isfinite(dt) and dt >= 0):
            raise AnimationSettingsError(f"dt must be a non-negative number of seconds, got {dt!r}")
        thigh = np.linalg.norm(knee - hip, axis=-1)
        shin = np.linalg.norm(ankle - knee, axis=-1)
        if np.any(np.minimum(thigh, shin) <= 0):
            raise AnimationSettingsError(
                f"leg bones must have positive lengths, got thigh {thigh}, shin {shin}"
            )
        anim_xy = ankle[:, :2]
        above = planted >= s.lock_threshold
        # releases: the weight fell, or the animated ankle wandered too far from its lock point
        wandered = np.linalg.norm(anim_xy - self._lock[:, :2], axis=-1) > s.max_lock_distance_m
        release = self._locked & (~above | wandered)
        self._from[release] = self._lock[release, :2]
        self._elapsed[release] = 0.0
        self._locked &= ~release
        # locks: the weight rose through the threshold; lock where the ankle is now (blend included)
        start = above & ~self._above & ~self._locked
        w = np.where(np.isfinite(self._elapsed), self._release_weight(), 0.0)
        now_xy = (1 - w[:, None]) * anim_xy + w[:, None] * self._from
        self._lock[start] = np.column_stack([now_xy, ankle[:, 2]])[start]
        self._locked |= start
        self._elapsed[start] = np.inf
        self._above = above
        # release blends advance; finished ones end
        releasing = np.isfinite(self._elapsed)
        self._elapsed[releasing] += dt
        weight = np.where(self._locked, 1.0, np.where(releasing, self._release_weight(), 0.0))
        self._elapsed[releasing & (weight <= 0.0)] = np.inf
        source = np.where(self._locked[:, None], self._lock[:, :2], self._from)
        target = ankle.copy()
        target[:, :2] = (1 - weight[:, None]) * anim_xy + weight[:, None] * source
        new_knee, new_ankle, stretch = two_bone_positions(
            hip, target, thigh, shin, knee, s.max_reach, bend_hint=self._bend
        )
        bend, size = _perpendicular(new_knee - hip, _unit(new_ankle - hip)[0])
        keep = size > _TINY * (thigh + shin)
        self._bend[keep] = bend[keep]
        return FootLockResult(
            knee=new_knee,
            ankle=new_ankle,
            animated_ankle=ankle,
            target=target,
            locked=self._locked.copy(),
            weight=weight,
            stretch_m=stretch,
            extension=np.linalg.norm(new_ankle - hip, axis=-1) / (thigh + shin),
            pose_error_m=np.linalg.norm(new_ankle - ankle, axis=-1),
        )
