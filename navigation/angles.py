"""Headings about the vertical axis: wrapping and rate-limited turning (one implementation for everyone).

Yaw 0 faces +X and grows counter-clockwise, in radians. Scalars and numpy arrays both work.
"""

from __future__ import annotations

import math
from typing import TypeVar

import numpy as np

Angle = TypeVar("Angle", float, np.ndarray)


def wrap_angle(a: Angle) -> Angle:
    """`a` wrapped into [-pi, pi) [rad]; elementwise for arrays."""
    if isinstance(a, np.ndarray):
        return np.asarray((a + np.pi) % (2 * np.pi) - np.pi)
    return (a + math.pi) % (2 * math.pi) - math.pi


def turn_toward(yaw: Angle, heading: Angle, max_step: Angle | float) -> Angle:
    """The heading reached by turning from `yaw` toward `heading` by at most `max_step` [rad, >= 0],
    the short way round; wrapped into [-pi, pi)."""
    delta = wrap_angle(heading - yaw)
    if isinstance(delta, np.ndarray):
        return wrap_angle(yaw + np.clip(delta, -max_step, max_step))
    step = float(max_step)
    return wrap_angle(yaw + max(-step, min(step, delta)))
