"""Routes of the sync benchmark: a shove makes the drift limit matter, and the path ratio stays honest."""

from __future__ import annotations

import numpy as np
import pytest

from navigation.query import NavMeshQuery
from npc_ai.bench.sync import make_routes, run_route
from npc_ai.body.coupling import MODES
from npc_ai.levels import load_level
from npc_ai.levels.navmesh import scene_navmesh
from scenes import World


@pytest.fixture(scope="module")
def arena() -> tuple[object, NavMeshQuery]:
    scene = load_level("arena")
    with World(scene) as world:
        mesh, _ = scene_navmesh(world)
    return scene, NavMeshQuery(mesh)


@pytest.mark.slow  # the default suite stays under 5 minutes; CI runs the slow set too
def test_a_shove_drifts_the_unlimited_loop_and_the_default_pulls_its_agent_back(arena) -> None:
    scene, query = arena
    route = make_routes(query, np.random.default_rng(0), 1, 8.0)[0]
    runs = {
        mode: run_route(scene, query, route, MODES[mode], seed=0, timeout_s=30.0, shove=True)
        for mode in ("root_motion", "root_motion_no_limit")
    }
    radius = 0.4
    assert runs["root_motion_no_limit"].drift.max() > radius  # the shove carried the body away
    assert runs["root_motion"].drift.max() <= radius + 1e-3  # the agent was pulled back to it
    assert runs["root_motion"].pulls > 0 and runs["root_motion_no_limit"].pulls == 0
    for run in runs.values():
        assert run.reached and run.shoved
        assert run.trace.shoved is not None and 10 <= run.trace.shoved.sum() <= 20  # 0.25 s at 60 Hz
        # the path walked leaves out where the shove carried the body: it stays near the shortest path
        assert run.travelled_m / route.reachable_m < 1.05


def test_recording_goes_on_a_second_past_arrival(arena) -> None:
    scene, query = arena
    route = make_routes(query, np.random.default_rng(1), 1, 8.0)[0]
    run = run_route(scene, query, route, MODES["agent_drives"], seed=0, timeout_s=30.0, settle_s=1.0)
    assert run.reached and run.trace.arrival is not None
    assert len(run.trace.root_yaw) == run.trace.arrival + 60


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"settle_s": -1.0}, "settle_s"),
        ({"settle_s": float("nan")}, "settle_s"),
        ({"shove_every": -1}, "shove_every"),
        ({"shove_every": 1.5}, "shove_every"),
        ({"workers": 0}, "workers"),
        ({"bootstrap": 10}, "bootstrap"),
        ({"modes": ("root_motion_feedforward",)}, "unknown coupling modes"),
    ],
)
def test_bad_sync_settings_are_refused_with_the_field_named(kwargs: dict, message: str) -> None:
    from npc_ai.bench.sync import SyncSettings
    from npc_ai.errors import BenchmarkSettingsError

    with pytest.raises(BenchmarkSettingsError, match=message):
        SyncSettings(**kwargs)
