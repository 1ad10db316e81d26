"""A bake asked for an absurd number of cells says so in readable numbers (not a 300-digit count)."""

from __future__ import annotations

import re

import pytest

from navigation import BakeSettings, NavMeshError
from navigation.ray_bake import bake_from_rays
from scenes import World, parse_scene


@pytest.mark.parametrize("cell_size", [1e-300, 1e-4])
def test_too_many_cells_is_a_short_typed_error(cell_size: float) -> None:
    scene = parse_scene('[scene]\nname = "t"\n[floor]\nsize = [10, 10]\n')
    with World(scene) as world, pytest.raises(NavMeshError, match="raise cell_size") as info:
        bake_from_rays(world, BakeSettings(cell_size=cell_size))
    message = str(info.value)
    assert len(message) < 160
    assert not re.search(r"\d{12,}", message)  # no number with a dozen digits
    assert message.startswith("the level is 10 x 10 m")
