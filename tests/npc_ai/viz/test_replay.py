"""The replay picture: view cones clipped by walls, every mark in the legend, all static geometry, the frame
fitted to the action."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest

from npc_ai.sim.player import PlayerSettings
from npc_ai.sim.simulation import Simulation, SimulationSettings
from npc_ai.viz.replay import LABELS, draw_replay, height_map, level_outlines, plot_replay, view_cone
from scenes import Scene, World, groups, load_scene
from scenes.model import Box, Floor, Platform, Ramp, Stairs

WALL_FACE_X = 2.75  # the wall below spans x in [2.75, 3.25], y in [-5, 5], z in [0, 2]


def walled() -> Scene:
    return Scene(
        name="walled",
        floor=Floor(size=(40.0, 40.0)),
        boxes=(Box(center=(3.0, 0.0, 1.0), half_extents=(0.25, 5.0, 1.0)),),
    )


def drawn(ax) -> list:
    return [*ax.collections, *ax.lines, *ax.patches, *ax.images]


def test_view_cone_stops_at_the_wall_and_reaches_the_radius_elsewhere() -> None:
    with World(walled()) as world:
        facing_wall = view_cone(world, (0.0, 0.0, 1.6), 0.0, 15.0, 30.0, rays=33)
        away = view_cone(world, (0.0, 0.0, 1.6), math.pi, 15.0, 30.0, rays=33)
    assert np.allclose(facing_wall[0], (0.0, 0.0)) and len(facing_wall) == 34
    # second method: the analytic wall face. Every ray of a 60-degree fan meets it (|y| <= 2.75 tan 30 < 5)
    np.testing.assert_allclose(facing_wall[1:, 0], WALL_FACE_X, atol=1e-3)
    np.testing.assert_allclose(
        facing_wall[1:, 1], WALL_FACE_X * np.tan(np.radians(np.linspace(-30, 30, 33))), atol=1e-3
    )
    np.testing.assert_allclose(np.hypot(*away[1:].T), 15.0, atol=1e-6)  # nothing behind: the full radius


def test_cones_in_the_replay_never_see_through_walls() -> None:
    settings = SimulationSettings(player=PlayerSettings(mode="route"))
    with Simulation(load_scene("warehouse"), seed=0, settings=settings) as sim:
        sim.run(20.0)
        assert any(e.event == "spotted" for e in sim.events)
        ax = draw_replay(sim)
        cones = [p for p in ax.patches if p.get_gid() == "cone"]
        assert cones
        for cone in cones:
            xy = cone.get_xy()[:-1]  # closed: the last point repeats the first
            eye, rim = xy[0], xy[1:]
            reach = np.hypot(*(rim - eye).T)
            assert reach.max() <= 15.0 + 1e-6
            assert reach.min() < 15.0 - 1.0  # warehouse shelves cut every cone drawn here
            # nothing static between the eye and 99% of the way to each rim point (at eye height)
            z = 1.6 + float(sim.npcs[0].position[2])
            starts = np.column_stack([np.repeat(eye[None], len(rim), axis=0), np.full(len(rim), z)])
            ends = np.column_stack([eye + 0.99 * (rim - eye), np.full(len(rim), z)])
            hits = sim.world.ray_test(starts, ends, mask=groups.STATIC)
            assert not (np.asarray(hits.body) >= 0).any()
        plt.close(ax.figure)


def test_every_kind_of_mark_is_in_the_legend_and_all_geometry_is_drawn() -> None:
    settings = SimulationSettings(player=PlayerSettings(mode="wander"))
    with Simulation(load_scene("compound"), seed=0, settings=settings) as sim:
        sim.run(20.0)
        ax = draw_replay(sim)
    artists = drawn(ax)
    kinds = {a.get_gid() for a in artists}
    assert None not in kinds, [a for a in artists if a.get_gid() is None]
    labels = {t.get_text() for t in ax.get_legend().get_texts()}
    assert {LABELS[k] for k in kinds} <= labels
    assert len(labels) == len(kinds)  # and nothing in the legend that is not drawn
    # compound's geometry: walls and crates, the ramp, two platforms and the bridge, their legs
    assert {"height", "navmesh", "box", "ramp", "platform", "leg"} <= kinds
    platforms = next(a for a in artists if a.get_gid() == "platform")
    assert len(platforms.get_paths()) == 3
    assert {"cone", "npc-start", "npc-end", "player", "player-start", "player-end"} <= kinds
    plt.close(ax.figure)


def test_outlines_of_every_primitive_kind() -> None:
    scene = Scene(
        name="kinds",
        floor=Floor(size=(20.0, 20.0)),
        boxes=(Box(center=(1.0, 2.0, 0.5), half_extents=(0.5, 1.0, 0.5), yaw_deg=90.0),),
        ramps=(Ramp(start=(-5.0, 0.0, 0.0), end=(-5.0, 4.0, 1.0), width=2.0),),
        stairs=(Stairs(start=(5.0, -5.0, 0.0), steps=3, rise=0.2, run=0.3, width=1.0),),
        platforms=(Platform(center=(0.0, -6.0), size=(4.0, 2.0), height=2.0, legs=True),),
    )
    out = level_outlines(scene)
    assert {k: len(v) for k, v in out.items()} == {"box": 1, "ramp": 1, "stairs": 3, "platform": 1, "leg": 4}

    def bounds(poly: np.ndarray) -> list[float]:
        return [*poly.min(axis=0), *poly.max(axis=0)]

    np.testing.assert_allclose(bounds(out["box"][0]), [0.0, 1.5, 2.0, 2.5], atol=1e-6)  # turned 90 degrees
    x0, y0, x1, y1 = bounds(out["ramp"][0])
    assert (x0, x1) == pytest.approx((-6.0, -4.0), abs=1e-6) and y0 < 0.0 + 1e-6 and y1 > 4.0 - 0.1
    np.testing.assert_allclose(bounds(out["stairs"][2]), [5.6, -5.5, 5.9, -4.5], atol=1e-6)
    np.testing.assert_allclose(bounds(out["platform"][0]), [-2.0, -7.0, 2.0, -5.0], atol=1e-6)


def test_a_mesh_level_is_drawn_as_a_height_map() -> None:
    with World(load_scene("monastery")) as world:
        heights, extent = height_map(world, (-20.0, -20.0), (20.0, 20.0), cells=120)
    assert heights.shape == (120, 120) and extent == pytest.approx((-20.0, 20.0, -20.0, 20.0))
    found = heights[np.isfinite(heights)]
    assert found.size > 0.9 * heights.size
    courtyard = heights[50:70, 50:70]  # around (0, 0): the courtyard floor at z = -0.02
    np.testing.assert_allclose(courtyard, -0.02, atol=0.05)
    assert found.max() - found.min() > 3.0  # walls and roofs stand above it


def test_the_frame_fits_the_action_not_the_level() -> None:
    settings = SimulationSettings(npcs=1, player=None)
    with Simulation(load_scene("warehouse"), seed=0, settings=settings) as sim:
        sim.run(4.0)
        trail = sim.trace.arrays()["positions"][:, :, :2].reshape(-1, 2)
        level_lo, level_hi = sim.world.static_bounds()
        ax = draw_replay(sim)
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert x0 <= trail[:, 0].min() and trail[:, 0].max() <= x1
    assert y0 <= trail[:, 1].min() and trail[:, 1].max() <= y1
    assert (x1 - x0) < 0.6 * (level_hi[0] - level_lo[0]) and (y1 - y0) < 0.8 * (level_hi[1] - level_lo[1])
    assert min(x1 - x0, y1 - y0) >= 12.0 - 1e-9  # but never a tiny frame
    plt.close(ax.figure)


def test_replay_writes_a_png(tmp_path: Path) -> None:
    with Simulation(load_scene("warehouse"), seed=0, settings=SimulationSettings(npcs=4)) as sim:
        sim.run(5.0)
        out = plot_replay(sim, tmp_path / "replay.png")
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 20_000


def test_the_replay_marks_the_suspicion_levels_an_npc_reached() -> None:
    from tests.npc_ai.sim_helpers import bake, range_scene, simulation

    scene = range_scene(detection_time_s=0.5)
    with simulation(scene, bake(scene), player=(5.0, 0.0), trail_every=6) as sim:
        sim.run(2.0)
        reached = [e.data["level"] for e in sim.events if e.event == "suspicion"]
        assert reached == ["suspicious", "investigate", "hostile"]
        ax = draw_replay(sim)
    kinds = {a.get_gid() for a in drawn(ax)}
    assert {f"suspicion-{level}" for level in reached} <= kinds
    labels = {t.get_text() for t in ax.get_legend().get_texts()}
    assert {LABELS[f"suspicion-{level}"] for level in reached} <= labels
    rings = [a for a in ax.lines if a.get_gid() == "suspicion-suspicious" and a.get_marker() == "o"]
    assert len(rings) == 1 and np.allclose(rings[0].get_xydata()[0], [0.0, 0.0], atol=0.05)  # where it stood
    plt.close(ax.figure)
