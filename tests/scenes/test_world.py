"""Worlds built from scenes: built-in scenes, MovingAI maps, determinism, no half-built worlds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from scenes import (
    BUILTIN_SCENES,
    SceneError,
    SettingsError,
    World,
    WorldSettings,
    groups,
    load_scene,
    parse_scene,
)
from scenes._bullet import new_client
from scenes.movingai import blocked_rectangles

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", BUILTIN_SCENES)
def test_builtin_scene_builds_and_has_a_floor_under_every_spawn(name: str) -> None:
    scene = load_scene(name)
    with World(scene) as w:
        spawns = np.array([n.position for n in scene.npcs] + [scene.player.position])
        hits = w.ray_test(spawns + [0, 0, 0.5], spawns - [0, 0, 0.5], mask=groups.STATIC)
        assert hits.hit.all(), f"a spawn of {name} has no floor under it"
        np.testing.assert_allclose(hits.point[:, 2], spawns[:, 2], atol=0.05)


def test_monastery_loads_the_real_level_mesh() -> None:
    with World(load_scene("monastery")) as w:
        lo, hi = w.static_bounds()
        assert (hi - lo)[0] > 100 and (hi - lo)[1] > 100 and (hi - lo)[2] > 25  # the whole monastery
        # the courtyard floor is the mesh, 2 cm below zero
        hits = w.ray_test(np.array([[0.0, 0.0, 1.0]]), np.array([[0.0, 0.0, -1.0]]))
        assert hits.body[0] == w.static_bodies[0]
        assert hits.point[0, 2] == pytest.approx(-0.02, abs=0.01)


def test_compound_has_a_walkway_under_the_bridge() -> None:
    with World(load_scene("compound")) as w:
        hits = w.ray_test(np.array([[0.0, 8.0, 10.0]]), np.array([[0.0, 8.0, -1.0]]))
        assert hits.point[0, 2] == pytest.approx(3.0, abs=1e-4)  # the bridge deck
        under = w.ray_test(np.array([[0.0, 8.0, 2.0]]), np.array([[0.0, 8.0, -1.0]]))
        assert under.point[0, 2] == pytest.approx(0.0, abs=1e-4)  # the walkway below it


def test_movingai_map_blocked_cells_become_walls(movingai_dir: Path) -> None:
    scene = load_scene(movingai_dir / "arena.map")
    from navigation.movingai import read_map

    grid = read_map(movingai_dir / "arena.map")
    with World(scene) as w:
        ys, xs = np.mgrid[0 : grid.height, 0 : grid.width]
        centres = np.c_[xs.ravel() + 0.5, ys.ravel() + 0.5]
        starts = np.c_[centres, np.full(len(centres), 5.0)]
        hits = w.ray_test(starts, starts - [0, 0, 6.0])
        top = hits.point[:, 2].reshape(grid.height, grid.width)
        np.testing.assert_allclose(top[grid.blocked], 2.0, atol=1e-5)
        np.testing.assert_allclose(top[~grid.blocked], 0.0, atol=1e-5)


def test_blocked_rectangles_cover_exactly_the_blocked_cells() -> None:
    rng = np.random.default_rng(7)
    grid = rng.random((23, 31)) < 0.4
    cover = np.zeros(grid.shape, dtype=int)
    for x0, y0, x1, y1 in blocked_rectangles(grid):
        cover[y0:y1, x0:x1] += 1
    np.testing.assert_array_equal(cover, grid.astype(int))


def test_bad_movingai_map_is_a_scene_error(tmp_path: Path) -> None:
    f = tmp_path / "bad.map"
    f.write_text("type octile\nheight 2\nwidth 3\nmap\n...\n.X.\n")
    with pytest.raises(SceneError, match=r"bad\.map.*unknown map characters"):
        load_scene(f)


def test_failed_build_leaves_no_bodies_in_an_injected_client(tmp_path: Path) -> None:
    (tmp_path / "broken.urdf").write_text("<robot><link name='a'><visual>")
    f = tmp_path / "s.toml"
    f.write_text(
        '[scene]\nname = "s"\n[floor]\nsize = [5, 5]\n[[box]]\ncenter = [0,0,1]\nsize = [1,1,1]\n'
        '[[urdf]]\npath = "broken.urdf"\n'
    )
    scene = load_scene(f)
    client = new_client()
    try:
        before = client.getNumBodies()
        with pytest.raises(SceneError, match=r"urdf\[0\]: PyBullet could not load"):
            World(scene, client=client)
        assert client.getNumBodies() == before
    finally:
        client.disconnect()


def test_settings_are_validated() -> None:
    for bad in ({"dt": 0.0}, {"dt": float("nan")}, {"dt": 0.5}, {"substeps": 0}, {"ray_threads": -1}):
        with pytest.raises(SettingsError):
            WorldSettings(**bad)


def test_clock_and_pose_cache() -> None:
    with World(
        parse_scene('[scene]\nname = "c"\n[floor]\nsize = [10, 10]\n'), settings=WorldSettings(substeps=4)
    ) as w:
        body = w.add_capsule((0, 0, 0.05))
        w.step(60)
        assert w.tick == 60 and w.time == pytest.approx(1.0)
        row = w.poses.index(body)
        assert w.poses.positions[row, 2] == pytest.approx(0.9, abs=0.02)  # resting on the floor
        w.set_velocity(body, (1.0, 0.0, 0.0))
        w.step(30)
        assert w.poses.positions[row, 0] == pytest.approx(0.5, abs=0.05)  # frictionless slide at 1 m/s


DETERMINISM_SCRIPT = """
import sys
import numpy as np
from scenes import World, load_scene
from scenes import groups
seed = int(sys.argv[1])
with World(load_scene("warehouse"), seed=seed) as w:
    spawns = [n.position for n in w.scene.npcs] + [w.scene.player.position]
    bodies = [w.add_capsule(p, group=groups.NPC) for p in spawns]
    for _ in range(240):
        v = w.rng.uniform(-3, 3, size=(len(bodies), 2))
        for b, (vx, vy) in zip(bodies, v):
            w.set_velocity(b, (vx, vy, 0.0))
        w.step()
    print(w.state_digest())
"""


def _digest(seed: int) -> str:
    out = subprocess.run(
        [sys.executable, "-c", DETERMINISM_SCRIPT, str(seed)],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    return out.stdout.strip().splitlines()[-1]


def test_same_seed_in_two_processes_gives_identical_state() -> None:
    a, b, c = _digest(11), _digest(11), _digest(12)
    assert a == b
    assert a != c
