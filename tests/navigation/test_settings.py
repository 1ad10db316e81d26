"""BakeSettings and CarveSettings validation: tables of bad values and the field each message names."""

from __future__ import annotations

import pytest

from navigation.errors import NavSettingsError
from navigation.settings import BakeSettings, CarveSettings


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("agent_radius", -0.1, "agent_radius must be a finite number >= 0"),
        ("agent_height", 0.0, "agent_height must be a finite number > 0"),
        ("max_climb", float("nan"), "max_climb"),
        ("max_slope_deg", 90.0, "max_slope_deg must be a finite number >= 0.0 and < 90.0"),
        ("cell_size", 0.0, "cell_size"),
        ("cell_height", -1.0, "cell_height"),
        ("max_simplify_error", float("inf"), "max_simplify_error"),
        ("max_verts_per_poly", 2, "max_verts_per_poly must be an integer >= 3"),
        ("max_verts_per_poly", 4.5, "max_verts_per_poly"),
        ("min_region_area", -1, "min_region_area"),
        ("max_layers", 0, "max_layers"),
        ("keep_islands", 1, "keep_islands"),
    ],
)
def test_bad_settings(field: str, value: object, message: str) -> None:
    with pytest.raises(NavSettingsError, match=message):
        BakeSettings(**{field: value})


def test_defaults_are_recast_like() -> None:
    s = BakeSettings()
    assert 0.4 <= s.agent_radius <= 0.6 and s.agent_height == 2.0 and s.max_slope_deg == 45.0
    assert s.max_verts_per_poly == 6 and s.as_dict()["cell_size"] == s.cell_size
    with pytest.raises(AttributeError):
        s.cell_size = 1.0  # type: ignore[misc]


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("agent_radius", -0.1, "agent_radius must be a finite number >= 0"),
        ("agent_height", 0.0, "agent_height must be a finite number > 0"),
        ("arc_segments", 0, "arc_segments must be an integer >= 1"),
        ("arc_segments", 2.0, "arc_segments"),
        ("move_threshold", float("nan"), "move_threshold"),
        ("turn_threshold_deg", 181.0, "turn_threshold_deg must be <= 180"),
        ("turn_threshold_deg", -1.0, "turn_threshold_deg"),
        ("time_to_stationary", float("inf"), "time_to_stationary"),
        ("carve_only_stationary", 1, "carve_only_stationary must be True or False"),
        ("max_verts_per_poly", 2, "max_verts_per_poly must be an integer >= 3"),
    ],
)
def test_bad_carve_settings(field: str, value: object, message: str) -> None:
    with pytest.raises(NavSettingsError, match=message):
        CarveSettings(**{field: value})
