"""Quaternion maths in numpy, vectorised over leading axes.

Convention: quaternions are ``(..., 4)`` arrays in scalar-last order ``(x, y, z, w)`` (as
``scipy.spatial.transform.Rotation``), unit norm, active rotations. Angles are radians.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])

# Change of basis from a Y-up frame (x, y, z) to the Z-up world (x, -z, y): +90 deg about x.
Y_UP_TO_Z_UP = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
_Y_UP_TO_Z_UP_Q = np.array([np.sin(np.pi / 4), 0.0, 0.0, np.cos(np.pi / 4)])


def normalize(q: np.ndarray) -> np.ndarray:
    """Unit quaternions ``(..., 4)``; zero-norm inputs become the identity."""
    q = np.asarray(q, dtype=float)
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    safe = np.where(n > 1e-12, n, 1.0)
    return np.where(n > 1e-12, q / safe, IDENTITY)


def conjugate(q: np.ndarray) -> np.ndarray:
    """Inverse of unit quaternions ``(..., 4)``."""
    q = np.asarray(q, dtype=float)
    return np.concatenate([-q[..., :3], q[..., 3:]], axis=-1)


def multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product ``a * b`` (apply ``b`` first, then ``a``), broadcasting over leading axes."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    ax, ay, az, aw = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bx, by, bz, bw = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack(
        [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ],
        axis=-1,
    )


def rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors ``v (..., 3)`` by unit quaternions ``q (..., 4)`` (broadcasting)."""
    q = np.asarray(q, dtype=float)
    v = np.asarray(v, dtype=float)
    # v + 2w (u x v) + 2 u x (u x v), written out: np.cross is slow on the small arrays FK uses
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    vx, vy, vz = v[..., 0], v[..., 1], v[..., 2]
    tx = 2.0 * (y * vz - z * vy)
    ty = 2.0 * (z * vx - x * vz)
    tz = 2.0 * (x * vy - y * vx)
    return np.stack(
        [vx + w * tx + (y * tz - z * ty), vy + w * ty + (z * tx - x * tz), vz + w * tz + (x * ty - y * tx)],
        axis=-1,
    )


def from_axis_angle(axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """Quaternions for rotations of ``angle (...)`` [rad] about unit ``axis (..., 3)``."""
    axis = np.asarray(axis, dtype=float)
    half = 0.5 * np.asarray(angle, dtype=float)[..., None]
    return np.concatenate([axis * np.sin(half), np.cos(half) * np.ones_like(axis[..., :1])], axis=-1)


def from_yaw(yaw: ArrayLike) -> np.ndarray:
    """Quaternions for rotations of ``yaw (...)`` [rad] about the world z axis."""
    half = 0.5 * np.asarray(yaw, dtype=float)
    zero = np.zeros_like(half)
    return np.stack([zero, zero, np.sin(half), np.cos(half)], axis=-1)


def slerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Spherical interpolation from ``a`` to ``b`` (``(..., 4)``) at fractions ``t (...)``, shortest arc."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    t = np.asarray(t, dtype=float)[..., None]
    dot = np.sum(a * b, axis=-1, keepdims=True)
    b = np.where(dot < 0.0, -b, b)
    dot = np.abs(dot)
    theta = np.arccos(np.clip(dot, -1.0, 1.0))
    sin_theta = np.sin(theta)
    near = sin_theta < 1e-6
    safe = np.where(near, 1.0, sin_theta)
    wa = np.where(near, 1.0 - t, np.sin((1.0 - t) * theta) / safe)
    wb = np.where(near, t, np.sin(t * theta) / safe)
    return normalize(wa * a + wb * b)


def weighted_average(q: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Normalised weighted sum of quaternions ``q (n, ..., 4)``, ``weights (n,)``, signs aligned to q[0].

    Exact slerp-equivalent ordering is not needed for blending poses that are close; this is the
    usual "nlerp" blend used by game animation runtimes.
    """
    q = np.asarray(q, dtype=float)
    w = np.asarray(weights, dtype=float).reshape((-1,) + (1,) * (q.ndim - 1))
    sign = np.where(np.sum(q * q[:1], axis=-1, keepdims=True) < 0.0, -1.0, 1.0)
    return normalize(np.sum(w * sign * q, axis=0))


def yaw_of(q: np.ndarray, forward: np.ndarray) -> np.ndarray:
    """Heading [rad] of the rotated ``forward (3,)`` axis projected on the ground plane (atan2(y, x))."""
    f = rotate(q, np.broadcast_to(np.asarray(forward, dtype=float), np.shape(q)[:-1] + (3,)))
    return np.arctan2(f[..., 1], f[..., 0])


def y_up_to_z_up_rotation(q: np.ndarray) -> np.ndarray:
    """Express rotations given in a Y-up frame in the Z-up world (conjugation by the change of basis)."""
    c = _Y_UP_TO_Z_UP_Q
    return multiply(multiply(c, q), conjugate(c))


def y_up_to_z_up_vector(v: np.ndarray) -> np.ndarray:
    """Express vectors ``(..., 3)`` given in a Y-up frame in the Z-up world."""
    return np.asarray(v, dtype=float) @ Y_UP_TO_Z_UP.T


def rotate_yaw(yaw: ArrayLike, v: ArrayLike) -> np.ndarray:
    """Rotate vectors ``v (..., 3)`` about z by ``yaw (...)`` [rad] (cheaper than a quaternion)."""
    v = np.asarray(v, dtype=float)
    c = np.cos(yaw)
    s = np.sin(yaw)
    return np.stack([c * v[..., 0] - s * v[..., 1], s * v[..., 0] + c * v[..., 1], v[..., 2]], axis=-1)
