"""Agent sizes: checked on construction; bake_sizes refuses bad lists with NavSettingsError and gives one
mesh per size, the wider one eroded further, from one sampling."""

from __future__ import annotations

import math

import pytest
from fake_world import FakeWorld, box

from navigation.errors import NavSettingsError
from navigation.settings import BakeSettings
from navigation.sizes import AgentSize, bake_sizes


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("", 0.3, 2.0), "non-empty name"),
        (("a", -0.1, 2.0), "radius must be >= 0"),
        (("a", 0.3, 0.0), "height must be > 0"),
        (("a", math.nan, 2.0), "finite"),
        (("a", 0.3, "tall"), "finite number"),
        (("a", True, 2.0), "finite number"),
    ],
)
def test_bad_sizes_are_refused(args: tuple, words: str) -> None:
    with pytest.raises(NavSettingsError, match=words):
        AgentSize(*args)


def test_bad_size_lists_are_refused() -> None:
    world = FakeWorld([box(0, 10, 0, 10, -1, 0)])
    with pytest.raises(NavSettingsError, match="at least one"):
        bake_sizes(world, [])
    with pytest.raises(NavSettingsError, match="AgentSize"):
        bake_sizes(world, [("a", 0.3, 2.0)])  # type: ignore[list-item]
    with pytest.raises(NavSettingsError, match="given twice"):
        bake_sizes(world, [AgentSize("a", 0.3, 2.0), AgentSize("a", 0.5, 2.0)])


def test_one_mesh_per_size_in_the_order_given() -> None:
    sizes = [AgentSize("wide", 0.8, 2.0), AgentSize("thin", 0.2, 2.0)]
    room = [box(0, 10, 0, 10, -1, 0), box(4, 5, 0, 6, 0, 3)]  # a floor and a wall across most of it
    meshes = bake_sizes(FakeWorld(room), sizes, BakeSettings(cell_size=0.2))
    assert list(meshes) == ["wide", "thin"]
    assert meshes["wide"].total_area < meshes["thin"].total_area
    assert meshes["thin"].meta["agent_size"] == {"name": "thin", "radius": 0.2, "height": 2.0}
