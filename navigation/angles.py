"""Headings about the vertical axis: wrapping and rate-limited turning (one implementation for everyone).

Yaw 0 faces +X and grows counter-clockwise, in radians. Scalars and numpy arrays both work. The rules are
the compiled scalar functions `wrap` and `turn` (numba; compiled loops call them directly); `wrap_angle`
and `turn_toward` apply them to Python numbers or, elementwise, to arrays.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar, cast

import numpy as np
from numba import njit

Angle = TypeVar("Angle", float, np.ndarray)


# compiled at import (or loaded from the on-disk cache), not on the first call
@njit("float64(float64)", cache=True)
def wrap(a: float) -> float:
    """`a` [rad] wrapped into [-pi, pi) (Python's float modulo, as numpy's)."""
    return (a + math.pi) % (2 * math.pi) - math.pi


@njit("float64(float64, float64, float64)", cache=True)
def turn(yaw: float, heading: float, max_step: float) -> float:
    """The heading [rad] reached by turning from `yaw` toward `heading` by at most `max_step` [rad, >= 0],
    the short way round; wrapped into [-pi, pi)."""
    delta = wrap(heading - yaw)
    return wrap(yaw + max(-max_step, min(max_step, delta)))


@njit("void(float64[::1], float64[::1])", cache=True)
def _wrap_all(a: np.ndarray, out: np.ndarray) -> None:
    for i in range(a.size):
        out[i] = wrap(a[i])


@njit("void(float64[::1], float64[::1], float64[::1], float64[::1])", cache=True)
def _turn_all(yaw: np.ndarray, heading: np.ndarray, max_step: np.ndarray, out: np.ndarray) -> None:
    for i in range(yaw.size):
        out[i] = turn(yaw[i], heading[i], max_step[i])


def wrap_angle(a: Angle) -> Angle:
    """`a` wrapped into [-pi, pi) [rad]; elementwise for arrays."""
    if isinstance(a, np.ndarray) and _rows_of_floats(a):
        out = np.empty(a.shape)
        _wrap_all(a, out)
        return cast(Angle, out)
    if isinstance(a, np.ndarray):
        x = np.ascontiguousarray(a, dtype=np.float64).ravel()
        out = np.empty_like(x)
        _wrap_all(x, out)
        return out.reshape(np.shape(a))
    return wrap(float(a))


def _rows_of_floats(*arrays: Any) -> bool:
    """Are all `arrays` 1-D C-contiguous float64 arrays of one length?"""
    first = arrays[0]
    if not isinstance(first, np.ndarray):
        return False
    shape = first.shape
    for a in arrays:
        if not (
            isinstance(a, np.ndarray)
            and a.ndim == 1
            and a.shape == shape
            and a.dtype == np.float64
            and a.flags.c_contiguous
        ):
            return False
    return True


def turn_toward(yaw: Angle, heading: Angle, max_step: Angle | float) -> Angle:
    """The heading reached by turning from `yaw` toward `heading` by at most `max_step` [rad, >= 0],
    the short way round; wrapped into [-pi, pi)."""
    if _rows_of_floats(yaw, heading, max_step):  # the tick's case: no broadcasting, no copies
        y, h, m = cast(tuple[np.ndarray, np.ndarray, np.ndarray], (yaw, heading, max_step))
        out = np.empty(y.shape)
        _turn_all(y, h, m, out)
        return cast(Angle, out)
    if isinstance(yaw, np.ndarray) or isinstance(heading, np.ndarray) or isinstance(max_step, np.ndarray):
        y, h, m = np.broadcast_arrays(
            np.asarray(yaw, dtype=np.float64),
            np.asarray(heading, dtype=np.float64),
            np.asarray(max_step, dtype=np.float64),
        )
        out = np.empty(y.shape)
        _turn_all(
            np.ascontiguousarray(y).ravel(),
            np.ascontiguousarray(h).ravel(),
            np.ascontiguousarray(m).ravel(),
            out.ravel(),
        )
        return out
    return turn(float(yaw), float(heading), float(max_step))
