"""The navmesh cache key covers what the level is made of, not only the scene's TOML text (issue 10):
the content of every mesh, URDF and SDF file, the files those reference, and the folder they resolve from."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from npc_ai.levels import load_level, scene_navmesh
from npc_ai.levels import navmesh as levels_navmesh
from npc_ai.levels.navmesh import asset_fingerprint
from scenes import World, parse_scene

Point = tuple[float, float, float]


def _box_faces(first: int) -> list[tuple[int, int, int]]:
    """The 12 outward triangles of a box whose 8 corners start at vertex `first` (1-based OBJ indices):
    four bottom corners counter-clockwise, then the four top ones."""
    a, b, c, d, e, f, g, h = range(first, first + 8)
    return [
        (a, c, b), (a, d, c), (e, f, g), (e, g, h), (a, b, f), (a, f, e),
        (b, c, g), (b, g, f), (c, d, h), (c, h, g), (d, a, e), (d, e, h),
    ]  # fmt: skip


def _square(half: float, z: float) -> list[Point]:
    return [(-half, -half, z), (half, -half, z), (half, half, z), (-half, half, z)]


def level_obj(*, block: bool) -> str:
    """A 20 x 20 m floor (two triangles at z = 0), with a closed 6 x 6 x 2 m block on it when `block`."""
    verts = _square(10.0, 0.0)
    faces = [(1, 2, 3), (1, 3, 4)]
    if block:
        verts += _square(3.0, 0.0) + _square(3.0, 2.0)
        faces += _box_faces(5)
    return "".join(f"v {x} {y} {z}\n" for x, y, z in verts) + "".join(f"f {a} {b} {c}\n" for a, b, c in faces)


NAVMESH = "[navmesh]\nagent_radius = 0.3\ncell_size = 0.25\n"
MESH_SCENE = '[scene]\nname = "lvl"\n[[mesh]]\npath = "level.obj"\n' + NAVMESH


def _bake(scene_file: Path, cache: Path) -> tuple[int, bool, int]:
    """(cached-or-baked polygon count, from_cache, polygon count of a true bake) of a scene file."""
    with World(load_level(scene_file)) as world:
        mesh, from_cache = scene_navmesh(world, cache_dir=cache)
        true = scene_navmesh(world, use_cache=False).mesh
    return mesh.polygon_count, from_cache, true.polygon_count


def _cli_bake(scene_file: Path, cache: Path) -> tuple[int, bool]:
    """(polygon count, loaded from the cache) of `npc-ai nav bake` in a fresh process (PyBullet keeps the
    meshes it read for the life of a process, so an edited file is only seen by a new one)."""
    out = subprocess.run(
        [sys.executable, "-m", "npc_ai", "nav", "bake", str(scene_file), "--quiet"],
        capture_output=True,
        text=True,
        env={**os.environ, "NPC_AI_CACHE": str(cache)},
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    polygons = re.search(r"^(\d+) polygons", out.stdout, re.MULTILINE)
    assert polygons is not None, out.stdout
    return int(polygons.group(1)), "loaded from the cache" in out.stdout


@pytest.mark.slow  # two CLI processes that bake (the default suite stays under 5 minutes)
def test_an_edited_level_obj_is_rebaked(tmp_path: Path) -> None:
    (tmp_path / "level.obj").write_text(level_obj(block=False))
    (tmp_path / "s.toml").write_text(MESH_SCENE)
    flat, from_cache, true = _bake(tmp_path / "s.toml", tmp_path / "cache")
    assert (flat, from_cache) == (true, False)
    assert _cli_bake(tmp_path / "s.toml", tmp_path / "cache") == (flat, True)  # unchanged: cached
    (tmp_path / "level.obj").write_text(level_obj(block=True))  # the same TOML text
    (tmp_path / "fresh").mkdir()  # the edited level where no process has read it: its true bake
    (tmp_path / "fresh" / "level.obj").write_text(level_obj(block=True))
    (tmp_path / "fresh" / "s.toml").write_text(MESH_SCENE)
    true = _bake(tmp_path / "fresh" / "s.toml", tmp_path / "cache")[2]
    assert true > flat
    # before the fix: (1, True), the old 1-polygon mesh from the cache
    assert _cli_bake(tmp_path / "s.toml", tmp_path / "cache") == (true, False)


def test_the_same_toml_in_two_folders_gets_each_folders_mesh(tmp_path: Path) -> None:
    for folder, block in (("a", False), ("b", True)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "level.obj").write_text(level_obj(block=block))
        (tmp_path / folder / "s.toml").write_text(MESH_SCENE)
    a, _, true_a = _bake(tmp_path / "a" / "s.toml", tmp_path / "cache")
    b, b_cached, true_b = _bake(tmp_path / "b" / "s.toml", tmp_path / "cache")
    assert true_a != true_b
    assert (a, b, b_cached) == (true_a, true_b, False)


URDF = """<?xml version="1.0" ?>
<robot name="block">
  <link name="base">
    <collision><geometry><mesh filename="{mesh}" scale="1 1 1"/></geometry></collision>
  </link>
</robot>
"""

SDF = """<?xml version="1.0" ?>
<sdf version="1.6"><world name="w"><model name="block"><static>1</static><link name="base">
  <collision name="c"><geometry><mesh><uri>{mesh}</uri></mesh></geometry></collision>
</link></model></world></sdf>
"""


@pytest.mark.parametrize(
    ("kind", "text", "mesh"),
    [
        ("urdf", URDF, "meshes/level.obj"),
        ("urdf", URDF, "package://meshes/level.obj"),
        ("sdf", SDF, "meshes/level.obj"),
    ],
)
def test_a_mesh_that_a_urdf_or_sdf_references_is_part_of_the_key(
    tmp_path: Path, kind: str, text: str, mesh: str
) -> None:
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "level.obj").write_text(level_obj(block=False))
    (tmp_path / f"level.{kind}").write_text(text.format(mesh=mesh))
    (tmp_path / "s.toml").write_text(f'[scene]\nname = "lvl"\n[[{kind}]]\npath = "level.{kind}"\n' + NAVMESH)
    flat, _, true = _bake(tmp_path / "s.toml", tmp_path / "cache")
    assert flat == true
    (tmp_path / "meshes" / "level.obj").write_text(level_obj(block=True))  # the URDF/SDF text is unchanged
    count, from_cache, true = _bake(tmp_path / "s.toml", tmp_path / "cache")
    assert from_cache is False
    assert count == true > flat


def test_pybullet_data_assets_are_keyed_by_their_files_and_pybullets_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scene = parse_scene('[scene]\nname = "m"\n[[urdf]]\npath = "pybullet_data:samurai.urdf"\n')
    key = asset_fingerprint(scene)
    names = [Path(str(part[1])).name for part in key if isinstance(part, tuple) and len(part) == 3]
    assert names == ["samurai.urdf", "samurai_monastry.obj"]  # the URDF and the mesh it references
    monkeypatch.setattr(levels_navmesh, "_pybullet_version", lambda: "0.0-test")
    assert asset_fingerprint(scene) != key
    # a scene without pybullet_data files does not depend on pybullet's version
    plain = parse_scene('[scene]\nname = "p"\n[floor]\nsize = [4, 4]\n')
    assert asset_fingerprint(plain) == ()


def test_a_reference_that_cannot_be_found_is_keyed_by_its_name(tmp_path: Path) -> None:
    (tmp_path / "a.urdf").write_text(URDF.format(mesh="meshes/gone.obj"))
    missing = asset_fingerprint(
        parse_scene('[scene]\nname = "u"\n[[urdf]]\npath = "a.urdf"\n', base_dir=tmp_path)
    )
    assert any("meshes/gone.obj" in str(part) for part in missing)
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "gone.obj").write_text(level_obj(block=False))
    found = asset_fingerprint(
        parse_scene('[scene]\nname = "u"\n[[urdf]]\npath = "a.urdf"\n', base_dir=tmp_path)
    )
    assert found != missing
