"""Heading maths: one implementation used by the nav agent, the character and the behaviour layer."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from navigation.angles import turn_toward, wrap_angle


def approx(x: float) -> object:
    return pytest.approx(x, abs=1e-9)


ANGLES = st.floats(-50.0, 50.0)


@given(ANGLES)
def test_wrap_lands_in_range_and_keeps_the_direction(a: float) -> None:
    w = wrap_angle(a)
    assert -math.pi <= w < math.pi
    assert math.cos(w) == approx(math.cos(a)) and math.sin(w) == approx(math.sin(a))


@given(ANGLES, ANGLES, st.floats(0.0, 4.0))
def test_turn_is_rate_limited_the_short_way_and_arrays_agree(yaw: float, heading: float, step: float) -> None:
    new = turn_toward(yaw, heading, step)
    moved = wrap_angle(new - yaw)
    gap = wrap_angle(heading - yaw)
    assert abs(moved) <= step + 1e-9
    assert moved * gap >= -1e-12  # never turns away from the heading
    if abs(gap) <= step:
        assert abs(wrap_angle(new - heading)) < 1e-9  # close enough: arrives exactly
    vec = turn_toward(np.array([yaw, yaw]), np.array([heading, heading]), step)
    np.testing.assert_allclose(vec, [new, new], atol=1e-12)


def test_turning_across_the_seam_goes_through_pi() -> None:
    assert turn_toward(math.pi - 0.1, -math.pi + 0.1, 0.05) == approx(math.pi - 0.05)
    assert turn_toward(-math.pi + 0.1, math.pi - 0.1, 0.05) == approx(-math.pi + 0.05)
