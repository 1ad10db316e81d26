"""Progress on stderr: `StderrProgress`, and the bake's progress callback."""

from __future__ import annotations

import io

import numpy as np

from npc_ai.cli.progress import StderrProgress
from npc_ai.levels.navmesh import scene_navmesh
from scenes import World, load_scene


def feed(progress: StderrProgress) -> None:
    progress("casting rays", 1000, None)
    progress("casting rays", 5000, None)
    progress("building polygons", 0, 4)
    progress("building polygons", 4, 4)
    progress.close()


def test_not_a_terminal_one_plain_line_per_stage() -> None:
    out = io.StringIO()
    feed(StderrProgress("baking arena", stream=out, tty=False))
    assert out.getvalue() == ("npc-ai: baking arena: casting rays\nnpc-ai: baking arena: building polygons\n")


def test_a_terminal_gets_bars_that_are_cleared() -> None:
    out = io.StringIO()
    feed(StderrProgress("baking arena", stream=out, tty=True))
    text = out.getvalue()
    assert "\rbaking arena: casting rays: " in text  # (redrawn at most every 0.1 s)
    assert "\rbaking arena: building polygons:   0%" in text and "0/4" in text
    assert "npc-ai:" not in text
    assert "\n" not in text and text.endswith("\r")  # redrawn in place, cleared at the end


def test_quiet_writes_nothing() -> None:
    out = io.StringIO()
    feed(StderrProgress("baking arena", stream=out, tty=True, quiet=True))
    feed(StderrProgress("baking arena", stream=out, tty=False, quiet=True))
    assert out.getvalue() == ""


def test_the_bake_reports_its_stages_in_order_and_bakes_the_same_mesh(tmp_path) -> None:
    calls: list[tuple[str, int, int | None]] = []
    later: list[tuple[str, int, int | None]] = []
    with World(load_scene("arena")) as world:
        plain, _ = scene_navmesh(world, use_cache=False)
        told, _ = scene_navmesh(world, use_cache=False, progress=lambda *a: calls.append(a))
        scene_navmesh(world, cache_dir=tmp_path)  # bakes and stores
        _, from_cache = scene_navmesh(world, cache_dir=tmp_path, progress=lambda *a: later.append(a))
    assert from_cache and later == []  # loading from the cache reports nothing
    stages = list(dict.fromkeys(stage for stage, _, _ in calls))
    assert stages == ["casting rays", "finding regions", "building polygons", "linking polygons"]
    rays = [done for stage, done, _ in calls if stage == "casting rays"]
    assert rays == sorted(rays) and rays[0] > 0
    regions = [(done, total) for stage, done, total in calls if stage == "building polygons"]
    assert all(0 <= done < total for done, total in regions)  # reported before each region
    assert [d for d, _ in regions] == list(range(regions[0][1]))
    np.testing.assert_array_equal(plain.vertices, told.vertices)
    np.testing.assert_array_equal(plain.poly_verts, told.poly_verts)
