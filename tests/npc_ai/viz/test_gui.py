"""The PyBullet GUI overlay (npc_ai.viz.gui): its geometry and settings here, then a real GUI window under
Xvfb, run in a child process that saves screenshots and what it saw; this process checks them.

The window test needs Xvfb (Debian: `apt-get install xvfb`) and skips, saying so, without it.
"""

from __future__ import annotations

import json
import math
import os
import select
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from npc_ai.sim.player import PlayerSettings
from npc_ai.sim.simulation import Simulation, SimulationSettings
from npc_ai.viz import gui
from npc_ai.viz.gui import (
    STATE_COLOURS,
    GuiError,
    GuiSettings,
    arc_directions,
    cone_segments,
    path_segments,
    state_colour,
)
from tests.npc_ai.sim_helpers import bake, range_scene

XVFB = shutil.which("Xvfb")


# -- geometry and settings (no window) ---------------------------------------------------------------------
def test_arc_directions_span_the_cone_from_edge_to_edge():
    dirs = arc_directions(np.array([0.0, math.pi / 2]), np.radians([60.0, 30.0]), 4)
    assert dirs.shape == (2, 5, 3)
    np.testing.assert_allclose(np.linalg.norm(dirs, axis=-1), 1.0)
    np.testing.assert_allclose(dirs[:, :, 2], 0.0)
    angles = np.degrees(np.arctan2(dirs[..., 1], dirs[..., 0]))
    np.testing.assert_allclose(angles[0], [-60, -30, 0, 30, 60], atol=1e-9)
    np.testing.assert_allclose(angles[1], [60, 75, 90, 105, 120], atol=1e-9)


def test_cone_segments_are_two_edges_from_the_apex_then_a_closed_arc():
    apex = np.array([1.0, 2.0, 0.1])
    arc = apex + 5.0 * arc_directions(np.array([0.0]), np.array([0.5]), 3)[0]
    lines = cone_segments(apex, arc)
    assert lines.shape == (5, 2, 3)
    np.testing.assert_allclose(lines[:2, 0], [apex, apex])
    np.testing.assert_allclose(lines[:2, 1], arc[[0, -1]])
    np.testing.assert_allclose(lines[2:, 0], arc[:-1])
    np.testing.assert_allclose(lines[2:, 1], arc[1:])
    np.testing.assert_allclose(np.linalg.norm(lines[:2, 1] - apex, axis=1), 5.0)


def test_path_segments_start_at_the_feet_and_pass_every_corner():
    corners = np.array([[1.0, 0, 0], [1.0, 2.0, 0], [3.0, 2.0, 0]])
    lines = path_segments(np.zeros(3), corners)
    assert lines.shape == (3, 2, 3)
    np.testing.assert_allclose(lines[:, 1], corners)
    np.testing.assert_allclose(lines[1:, 0], corners[:-1])
    assert path_segments(np.zeros(3), np.zeros((0, 3))).shape == (0, 2, 3)


def test_every_state_has_its_own_saturated_colour():
    from npc_ai.behaviour import STATE_NAMES

    assert set(STATE_COLOURS) == set(STATE_NAMES)
    assert len(set(STATE_COLOURS.values())) == len(STATE_COLOURS)
    assert state_colour("no such state") == gui.OTHER_COLOUR
    for colour in [*STATE_COLOURS.values(), gui.PLAYER_COLOUR]:
        assert max(colour) - min(colour) > 0.5, colour  # tells NPCs apart from the grey and brown level


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"every": 0}, "every must be an integer >= 1"),
        ({"every": 2.5}, "every must be an integer >= 1"),
        ({"arc_segments": 0}, "arc_segments must be an integer >= 1"),
        ({"cone_width": 0.0}, "cone_width must be a positive number"),
        ({"path_width": math.nan}, "path_width must be a positive number"),
        ({"text_size": -1.0}, "text_size must be a positive number"),
        ({"follow_distance": math.inf}, "follow_distance must be a positive number"),
        ({"level_pitch_deg": -5.0}, "level_pitch_deg must be in -89..-10"),
        ({"follow_pitch_deg": 10.0}, "follow_pitch_deg must be in -89..-5"),
    ],
)
def test_bad_settings_are_refused(kwargs, message):
    with pytest.raises(GuiError, match=message):
        GuiSettings(**kwargs)


def test_without_the_gui_no_overlay_is_made(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a GuiOverlay was made for a DIRECT simulation")

    monkeypatch.setattr(gui.GuiOverlay, "__init__", refuse)
    scene = range_scene()
    sim = Simulation(
        scene, navmesh=bake(scene), settings=SimulationSettings(player=PlayerSettings(mode="still"))
    )
    with sim:
        sim.run(0.2)
        assert sim.gui_overlay is None


# -- a real window under Xvfb -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def display():
    """A fresh Xvfb server on a display number it picks itself (-displayfd); yields ":N"."""
    if XVFB is None:
        pytest.skip(
            "Xvfb is not installed: the GUI window test needs a virtual X display (apt-get install xvfb)"
        )
    read_end, write_end = os.pipe()
    server = subprocess.Popen(
        [XVFB, "-displayfd", str(write_end), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
        pass_fds=(write_end,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_end)
    try:
        ready, _, _ = select.select([read_end], [], [], 30.0)
        number = os.read(read_end, 64).decode().strip() if ready else ""
        if not number.isdigit():
            pytest.fail(f"Xvfb did not report a display number within 30 s (exit status {server.poll()})")
        yield f":{number}"
    finally:
        os.close(read_end)
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


# The child: the warehouse demo in a GUI window (navmesh baked in DIRECT mode first: every PyBullet call of
# a GUI client waits for the window, which is slow with software OpenGL), half a second of simulation, then
# a camera image and a grab of the whole screen, and the follow keys.
CHILD = r"""
import json, sys, time
from pathlib import Path

import numpy as np
from PIL import Image

from npc_ai.levels import load_level
from npc_ai.levels.navmesh import scene_navmesh
from npc_ai.sim.player import PlayerSettings
from npc_ai.sim.simulation import Simulation, SimulationSettings
from npc_ai.viz.gui import KEY_FOLLOW_NPC, KEY_FOLLOW_PLAYER, KEY_LEVEL
from scenes import World
from scenes._bullet import pybullet as pb

out = Path(sys.argv[1])
scene = load_level("warehouse")
with World(scene) as world:
    mesh = scene_navmesh(world)[0]
settings = SimulationSettings(npcs=4, player=PlayerSettings(mode="wander"))
sim = Simulation(scene, seed=0, settings=settings, gui=True, navmesh=mesh)
c, overlay = sim.world.client, sim.gui_overlay


def settle():  # the window applies camera resets and debug items at its next frames
    time.sleep(0.5)
    return c.getDebugVisualizerCamera()


def near(cam, point):
    return float(np.linalg.norm(np.asarray(cam[11]) - np.asarray(point)))


result = {}
sim.run(0.5)
cam = settle()
lo, hi = sim.world.static_bounds()
result["level_centre"] = ((lo + hi) / 2).tolist()
result["target"] = list(cam[11])
result["distance"] = cam[10]
result["items"] = overlay.item_count
result["item_ids"] = overlay.item_ids
result["redraws"] = overlay.redraws
result["paths"] = sum(len(n.locomotor.agent.corners) > 0 for n in sim.npcs)
width, height, view, proj = cam[0], cam[1], cam[2], cam[3]
image = c.getCameraImage(width, height, view, proj, renderer=pb.ER_BULLET_HARDWARE_OPENGL)
rgb = np.reshape(np.asarray(image[2], dtype=np.uint8), (image[1], image[0], 4))[:, :, :3]
Image.fromarray(rgb).save(out / "camera.png")
try:  # the real window, with its debug lines and texts (Pillow grabs X screens when built with XCB)
    from PIL import ImageGrab

    ImageGrab.grab(xdisplay=sys.argv[2]).save(out / "window.png")
except Exception as error:
    result["no_window_grab"] = repr(error)

overlay.on_keys({KEY_FOLLOW_NPC})
first = overlay.following
overlay.on_keys({KEY_FOLLOW_NPC})
result["followed"] = [first, overlay.following]
sim.run(0.1)
npc = next(n for n in sim.npcs if n.name == overlay.following)
cam = settle()
result["follow_gap"] = near(cam, npc.position + [0, 0, 1])
result["follow_distance"] = cam[10]
ImageGrab.grab(xdisplay=sys.argv[2]).save(out / "follow.png") if "no_window_grab" not in result else None
overlay.on_keys({KEY_FOLLOW_PLAYER})
sim.run(0.1)
cam = settle()
result["player_gap"] = near(cam, sim.player.position + [0, 0, 1])
overlay.on_keys({KEY_LEVEL})
sim.run(0.1)
cam = settle()
result["back_gap"] = near(cam, result["target"])
result["back_following"] = overlay.following
sim.close()
(out / "result.json").write_text(json.dumps(result))
"""


def _state_coloured(path: Path) -> int:
    """How many pixels have the hue of a state colour or the player's, strongly saturated."""
    from PIL import Image

    hsv = np.asarray(Image.open(path).convert("RGB").convert("HSV")).astype(np.int64)
    hue, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    strong = (sat > 130) & (val > 60)
    found = np.zeros(hue.shape, dtype=bool)
    for colour in [*STATE_COLOURS.values(), gui.PLAYER_COLOUR]:
        h = Image.new("RGB", (1, 1), tuple(round(255 * x) for x in colour)).convert("HSV").getpixel((0, 0))[0]
        gap = np.abs(hue - h)
        found |= strong & (np.minimum(gap, 256 - gap) <= 8)
    return int(found.sum())


def _largest_colour_share(path: Path) -> float:
    from PIL import Image

    rgb = np.asarray(Image.open(path).convert("RGB")) >> 4  # 16 levels per channel
    codes = (rgb[..., 0] << 8) | (rgb[..., 1] << 4) | rgb[..., 2]
    return float(np.bincount(codes.ravel()).max() / codes.size)


@pytest.mark.slow
def test_gui_window_frames_the_level_and_draws_every_npc(display, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "WAYLAND_DISPLAY"}
    env["DISPLAY"] = display
    run = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path), display],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, f"the GUI child failed:\n{run.stderr[-3000:]}"
    result = json.loads((tmp_path / "result.json").read_text())

    # the level view: the camera looks at the middle of the level, from far enough to see all of it
    centre = np.asarray(result["level_centre"])
    assert np.linalg.norm(np.asarray(result["target"])[:2] - centre[:2]) < 0.5, result
    assert result["distance"] > 15.0, result  # the warehouse is 40 x 30 m, not a close-up of a pillar
    # the debug items: made, valid, redrawn
    assert result["items"] > 4 * 14 and all(i >= 0 for i in result["item_ids"]), result
    assert result["redraws"] >= 5 and result["paths"] >= 1, result

    # the camera image: NPC bodies in their state colours, no single colour filling the frame
    camera = tmp_path / "camera.png"
    npc_pixels = _state_coloured(camera)
    assert npc_pixels >= 40, f"no NPC-coloured pixels in {camera}"
    share = _largest_colour_share(camera)
    assert share < 0.8, f"one colour fills {share:.0%} of {camera}"

    # the window itself shows the cones, paths and texts on top of the same scene
    window = tmp_path / "window.png"
    if window.exists():
        assert _state_coloured(window) >= npc_pixels + 500, f"no debug lines drawn in {window}"
        assert _largest_colour_share(window) < 0.8

    # the keys: f follows the first NPC and then the next, p the player, l goes back to the level view
    assert result["followed"][0] != result["followed"][1] and None not in result["followed"], result
    assert result["follow_gap"] < 0.5 and result["follow_distance"] < 15.0, result
    assert result["player_gap"] < 0.5, result
    assert result["back_following"] is None and result["back_gap"] < 0.5, result
