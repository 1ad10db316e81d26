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
    World,
    WorldSettings,
    WorldSettingsError,
    groups,
    load_scene,
    parse_scene,
)
from scenes._bullet import new_client

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
        assert hits.body[0] in w.static_bodies
        assert hits.point[0, 2] == pytest.approx(-0.02, abs=0.01)


def test_compound_has_a_walkway_under_the_bridge() -> None:
    with World(load_scene("compound")) as w:
        hits = w.ray_test(np.array([[0.0, 8.0, 10.0]]), np.array([[0.0, 8.0, -1.0]]))
        assert hits.point[0, 2] == pytest.approx(3.0, abs=1e-4)  # the bridge deck
        under = w.ray_test(np.array([[0.0, 8.0, 2.0]]), np.array([[0.0, 8.0, -1.0]]))
        assert under.point[0, 2] == pytest.approx(0.0, abs=1e-4)  # the walkway below it


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
        with pytest.raises(WorldSettingsError):
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
