"""The two Gymnasium envs: registered, `check_env`-clean with warnings as errors (every render mode made
through the spec), observations inside their documented spaces, any scene, the discrete variant."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

import npc_ai.envs  # noqa: E402 - after the skip
from npc_ai.envs import GuardEnv, StealthEnv  # noqa: E402
from npc_ai.envs.sensing import GOAL_FIELDS, SELF_FIELDS, TARGET_FIELDS  # noqa: E402
from tests.conftest import MOVINGAI, REPO  # noqa: E402

SMALL = {"guards": 2, "rays": 8}


@pytest.mark.parametrize("action_type", ["continuous", "discrete"])
@pytest.mark.parametrize("env_id", npc_ai.envs.IDS)
def test_check_env_passes_with_warnings_as_errors(env_id: str, action_type: str) -> None:
    from gymnasium.utils.env_checker import check_env

    env = gym.make(env_id, render_mode="rgb_array", action_type=action_type, **SMALL)
    env.reset(seed=0)  # compile any kernels (and their one-off warnings) outside the check
    env.step(env.action_space.sample())
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env.unwrapped)  # the unwrapped env still has the spec: every render mode is made
    finally:
        env.close()


@pytest.mark.parametrize("env_id", npc_ai.envs.IDS)
def test_check_env_passes_with_kinematic_guards(env_id: str) -> None:
    """`bodies="kinematic"`: the guards are placed on the navmesh instead of pushed by physics."""
    from gymnasium.utils.env_checker import check_env

    env = gym.make(env_id, bodies="kinematic", **SMALL)
    env.reset(seed=0)
    env.step(env.action_space.sample())
    try:
        assert env.unwrapped.match.sim.locomotion.kinematic
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env.unwrapped)
    finally:
        env.close()
    with pytest.raises(npc_ai.envs.EnvOptionsError, match="bodies must be"):
        gym.make(env_id, bodies="ragdoll")


@pytest.mark.parametrize("cls", [StealthEnv, GuardEnv])
@pytest.mark.parametrize("action_type", ["continuous", "discrete"])
def test_observations_stay_in_their_documented_space(cls, action_type: str) -> None:
    env = cls(action_type=action_type, time_limit_s=2.0, **SMALL)
    env.action_space.seed(1)
    obs, _ = env.reset(seed=1)
    space = env.observation_space
    assert space["self"].shape == (len(SELF_FIELDS),)
    assert space["targets"].shape[1] == len(TARGET_FIELDS)
    assert ("goal" in space.spaces) == (cls is StealthEnv)
    if cls is StealthEnv:
        assert space["goal"].shape == (len(GOAL_FIELDS),)
        assert space["targets"].shape[0] == 8  # one slot per possible guard
    steps = 0
    while True:
        assert space.contains(obs), {k: v for k, v in obs.items() if not space[k].contains(v)}
        obs, reward, terminated, truncated, _info = env.step(env.action_space.sample())
        steps += 1
        assert isinstance(reward, float) and np.isfinite(reward)
        if terminated or truncated:
            break
    assert steps <= env.config.max_steps == 30
    env.close()


def test_the_scan_measures_distances_in_metres() -> None:
    """Facing a wall of the arena from a known spot, ray 0 reads the gap to it."""
    env = StealthEnv(guards=0, rays=4, ray_range=40.0)
    obs, _ = env.reset(seed=0)
    sim = env.match.sim
    p = sim.player
    p.warp((0.0, -10.0, 0.0))
    env.match.player_command.speed = 0.0
    for _ in range(30):  # turn to face -Y (south), toward the wall at y = -15
        env.step(np.array([-1.0, -1.0 if np.sin(p.yaw) > -0.999 else 0.0], dtype=np.float32))
    obs, *_ = env.step(np.array([-1.0, 0.0], dtype=np.float32))
    south = obs["scan"][0]
    gap = p.position[1] - (-15.0)
    assert obs["scan_hit"][0] == 1  # the level
    assert south == pytest.approx(gap, abs=0.6)  # the wall's own thickness and the capsule's radius
    env.close()


@pytest.mark.parametrize(
    "scene",
    [
        "warehouse",
        pytest.param("toml", id="scene-file"),
        pytest.param("map", id="movingai-map"),
    ],
)
def test_any_scene_works_through_the_reset_options(scene: str, tmp_path: Path) -> None:
    if scene == "toml":
        from scenes import BUILTIN_SCENES  # noqa: F401 - the built-in files are TOML like any other

        path = tmp_path / "yard.toml"
        path.write_text(
            '[scene]\nname = "yard"\n[floor]\nsize = [24.0, 24.0]\n[[box]]\ncenter = [0.0, 0.0, 1.0]\n'
            "size = [2.0, 6.0, 2.0]\n",
            encoding="utf-8",
        )
        scene = str(path)
    elif scene == "map":
        maps = sorted(MOVINGAI.glob("*.map"), key=lambda p: p.stat().st_size)
        if not maps:
            pytest.skip("no MovingAI maps in ../shared/data")
        scene = str(maps[0])
    env = StealthEnv(**SMALL)
    obs, info = env.reset(seed=2, options={"scene": scene, "guards": 1, "difficulty": "hard"})
    assert info["guards"] == 1
    assert env.observation_space.contains(obs)
    obs, *_ = env.step(env.action_space.sample())
    assert env.observation_space.contains(obs)
    obs, info = env.reset(seed=2)  # options hold for one episode: back to the constructor's scene
    assert env.match.sim.scene.name == "arena" and info["guards"] == 2
    env.close()


def test_the_rgb_frame_shows_level_agents_and_cones() -> None:
    env = GuardEnv(render_mode="rgb_array", **SMALL)
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    colours = {tuple(c) for c in frame.reshape(-1, 3)[::7]}
    from npc_ai.envs.render import GUARD, NAVMESH, PLAYER

    assert NAVMESH in colours and PLAYER in colours and GUARD["learner"] in colours
    env.close()


def test_human_mode_without_a_display_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from npc_ai.envs import RenderModeError

    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    with pytest.raises(RenderModeError, match="needs a display"):
        StealthEnv(render_mode="human")
    with pytest.raises(RenderModeError, match="render_mode must be"):
        StealthEnv(render_mode="ascii")


def test_close_twice_is_fine_and_reset_seeds_reproduce() -> None:
    env = GuardEnv(**SMALL)
    a, _ = env.reset(seed=5)
    env.step(env.action_space.sample())
    b, _ = env.reset(seed=5)
    for k in a:
        assert np.array_equal(a[k], b[k])
    env.close()
    env.close()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="no xvfb-run for a virtual display")
def test_check_env_with_the_human_mode_under_a_virtual_display() -> None:
    """Where a display exists "human" is listed, so check_env opens the PyBullet GUI too (one GUI window per
    process is all PyBullet allows: a second one is a RenderModeError that says so)."""
    code = (
        "import warnings, gymnasium as gym, npc_ai.envs\n"
        "from gymnasium.utils.env_checker import check_env\n"
        "env = gym.make('npc_ai/Guard-v0', render_mode='rgb_array', rays=8)\n"
        "assert 'human' in env.metadata['render_modes']\n"
        "env.reset(seed=0)\n"
        "with warnings.catch_warnings():\n"
        "    warnings.simplefilter('error')\n"
        "    check_env(env.unwrapped)\n"
        "gui = npc_ai.envs.GuardEnv(render_mode='human', rays=8)\n"
        "try:\n"
        "    npc_ai.envs.GuardEnv(render_mode='human')\n"
        "except npc_ai.envs.RenderModeError as e:\n"
        "    assert 'one GUI' in str(e)\n"
        "else:\n"
        "    raise SystemExit('a second GUI env did not raise')\n"
        "gui.reset(seed=0)\n"
        "assert gui.step(gui.action_space.sample())[0] is not None and gui.render() is None\n"
        "gui.close()\n"
        "print('human ok')\n"
    )
    out = subprocess.run(
        ["xvfb-run", "-a", sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=REPO
    )
    assert "human ok" in out.stdout, out.stderr[-2000:]


def test_the_envs_get_their_client_from_the_public_scenes_new_client() -> None:
    import scenes
    from scenes import World, load_scene

    client = scenes.new_client()  # headless, the caller's to close
    assert client.isConnected() and scenes.new_client.__doc__
    with World(load_scene("arena"), client=client) as world:
        world.step(2)
    assert client.isConnected()  # an injected client outlives its world
    client.disconnect()
    env = GuardEnv(**SMALL)
    assert env.match.client.isConnected()
    env.close()
    assert not env.match.client.isConnected()


def _tinted_after_facing(env, at: tuple[float, float], yaw: float):
    """Guard 0 standing at `at` facing `yaw`: the frame's pixels that differ from the static layer (cones,
    discs), with the renderer."""
    sim = env.match.sim
    npc = sim.npcs[0]
    npc.locomotor.warp((at[0], at[1], 0.0))
    npc.locomotor.batch.yaw[npc.index] = yaw
    sim.player.warp((10.0, 10.0, 0.0))  # out of the way
    env.step(np.array([-1.0, 0.0], dtype=np.float32))  # stand: the learner keeps its facing
    frame = env.render()
    top_down = env._renderer
    return (frame != top_down.base).any(axis=2), top_down


def test_a_view_cone_stops_at_the_wall_it_faces() -> None:
    """A guard 1 m from the arena's south wall (inner face y = -15, 0.5 m thick), facing it: its cone
    (15 m of sight) is drawn up to the wall and not into it; the pixels before the wall are tinted."""
    env = GuardEnv(render_mode="rgb_array", guards=1, rays=8)
    env.reset(seed=0)
    tinted, top_down = _tinted_after_facing(env, (0.0, -14.0), -math.pi / 2)
    near = np.abs(top_down.x) < 3.0
    pixel = 1.0 / top_down.scale
    assert not (tinted & near & (top_down.y < -15.0 - pixel)).any()  # nothing drawn in the wall
    assert (tinted & near & (top_down.y > -14.9) & (top_down.y < -14.6)).any()  # the cone is there
    env.close()


def test_a_view_cone_leaves_the_shadow_of_a_pillar_undrawn() -> None:
    """The pillar at (-7, -7) (1 m square) 1 m in front of the guard hides a strip behind it, while the cone
    goes on beside it."""
    env = GuardEnv(render_mode="rgb_array", guards=1, rays=8)
    env.reset(seed=0)
    tinted, top_down = _tinted_after_facing(env, (-7.0, -9.5), math.pi / 2)  # facing north, at the pillar
    x, y = top_down.x, top_down.y
    shadow = (np.abs(x + 7.0) < 0.2) & (y > -6.0) & (y < -2.0)
    beside = (np.abs(x + 9.0) < 0.2) & (y > -6.0) & (y < -4.0)
    assert shadow.any() and not (tinted & shadow).any()
    assert (tinted & beside).any()
    env.close()
