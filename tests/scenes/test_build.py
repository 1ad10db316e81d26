"""Every kind of scene element builds into the geometry its parameters describe."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scenes import World, load_scene, parse_scene

YARD = """
[scene]
name = "yard"
[floor]
size = [30, 30]
[[ramp]]
start = [-6, -4, 0]
end = [-6, 2, 1.5]
width = 2
[[platform]]
center = [-6, 4]
size = [4, 4]
height = 1.5
legs = true
[[stairs]]
start = [6, -6, 0]
steps = 5
rise = 0.15
run = 0.3
width = 1.5
direction_deg = 90
[[urdf]]
path = "pybullet_data:table/table.urdf"
position = [5, 5, 0]
[[sdf]]
path = "pybullet_data:stadium.sdf"
position = [0, 0, -3]
[[mesh]]
path = "pybullet_data:cube.obj"
position = [-10, 10, 0.5]
orientation_deg = [0, 0, 30]
"""


def top(world: World, x: float, y: float, z_from: float = 10.0) -> float:
    hits = world.ray_test(np.array([[x, y, z_from]]), np.array([[x, y, -1.0]]))
    assert hits.hit[0], f"nothing under ({x}, {y})"
    return float(hits.point[0, 2])


@pytest.fixture(scope="module")
def yard():
    with World(parse_scene(YARD)) as w:
        yield w


def test_ramp_surface_rises_linearly(yard: World) -> None:
    for frac in (0.1, 0.5, 0.9):
        y = -4 + 6 * frac
        assert top(yard, -6.0, y) == pytest.approx(1.5 * frac, abs=1e-4)


def test_stairs_treads_step_up_by_the_rise(yard: World) -> None:
    for i in range(5):
        assert top(yard, 6.0, -6 + (i + 0.5) * 0.3) == pytest.approx(0.15 * (i + 1), abs=1e-4)


def test_platform_on_legs_leaves_headroom_below(yard: World) -> None:
    assert top(yard, -6.0, 4.0) == pytest.approx(1.5, abs=1e-4)
    assert top(yard, -6.0, 4.0, z_from=1.0) == pytest.approx(0.0, abs=1e-4)  # ground under the deck
    leg = yard.ray_test(np.array([[-7.85, 0.0, 0.5]]), np.array([[-7.85, 3.0, 0.5]]))
    assert leg.point[0, 1] == pytest.approx(2.0, abs=1e-4)  # a 0.3 m leg in the deck's corner


def test_urdf_sdf_and_mesh_assets_are_in_the_world(yard: World) -> None:
    assert top(yard, 5.0, 5.0) == pytest.approx(0.625, abs=0.05)  # pybullet_data's table top
    assert top(yard, -10.0, 10.0) == pytest.approx(1.0, abs=1e-3)  # the unit cube mesh on the floor
    # the boxes, ramps, stairs and platforms share compound bodies; each asset keeps its own
    assert len(yard.static_bodies) >= 1 + len(yard.scene.assets)


def test_example_in_the_format_reference_loads() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "scene-format.md").read_text()
    example = doc.split("## Example\n```toml\n", 1)[1].split("```", 1)[0]
    with World(parse_scene(example)) as w:
        assert len(w.static_bodies) >= 1


def test_mesh_relative_to_scene_file(tmp_path: Path) -> None:
    (tmp_path / "tri.obj").write_text("v -5 -5 0\nv 5 -5 0\nv 5 5 0\nv -5 5 0\nf 1 2 3\nf 1 3 4\n")
    (tmp_path / "s.toml").write_text(
        '[scene]\nname = "m"\n[[mesh]]\npath = "tri.obj"\nposition = [0, 0, 2]\n'
    )
    with World(load_scene(tmp_path / "s.toml")) as w:
        assert top(w, 1.0, 1.0) == pytest.approx(2.0, abs=1e-4)
