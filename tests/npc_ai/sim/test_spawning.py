"""Spawns: per-NPC random streams from (seed, name), overlapping spawns spread, unique names."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from navigation.grid_bake import bake_polygons
from navigation.query import NavMeshQuery
from npc_ai.sim.simulation import Simulation, SimulationSettings
from npc_ai.sim.spawning import SpawnError, spread_spawns, stream
from scenes import NpcSpawn, load_scene


def test_a_stream_depends_on_the_seed_and_the_name_only() -> None:
    draws = {(seed, name): stream(seed, name).random(4).tolist() for seed in (0, 1) for name in ("a", "b")}
    assert stream(0, "a").random(4).tolist() == draws[(0, "a")]
    assert len({tuple(v) for v in draws.values()}) == 4
    assert stream(0, "a", "spawn").random() != stream(0, "a").random()


def test_adding_an_npc_leaves_every_other_npcs_draws_alone() -> None:
    runs = {}
    for n in (3, 4):
        settings = SimulationSettings(npcs=n, player=None)
        with Simulation(load_scene("arena"), seed=9, settings=settings) as sim:
            runs[n] = {npc.name: (npc.position.copy(), npc.rng.bit_generator.state) for npc in sim.npcs}
    assert len(runs[4]) == len(runs[3]) + 1
    for name, (position, state) in runs[3].items():
        np.testing.assert_array_equal(runs[4][name][0], position)
        assert runs[4][name][1] == state


def test_eight_npcs_on_one_spot_start_apart_on_the_mesh() -> None:
    scene = load_scene("arena")
    spot = (-10.0, -10.0, 0.0)
    scene = scene.with_npcs(*(NpcSpawn(position=spot, name=f"g{i}") for i in range(8)), keep_existing=False)
    with Simulation(scene, seed=1, settings=SimulationSettings(player=None)) as sim:
        feet = np.array([npc.position for npc in sim.npcs])
        radius = sim.npcs[0].locomotor.agent.settings.radius
        moved = [e for e in sim.events if e.event == "spawn_moved"]
        for a, b in itertools.combinations(feet, 2):
            assert np.hypot(*(a - b)[:2]) >= 2 * radius
        assert all(sim.query.nearest_point(p).distance < 0.1 for p in feet)
        assert len(moved) == 7
        sim.run(3.0)
        assert np.isfinite([npc.position for npc in sim.npcs]).all()


def test_spreading_keeps_clear_spawns_and_fails_where_nothing_is_free() -> None:
    with Simulation(load_scene("arena"), seed=1, settings=SimulationSettings(npcs=1, player=None)) as sim:
        q = sim.query
        clear = np.array([[-10.0, -10.0, 0.0], [-5.0, -10.0, 0.0]])
        out, moved = spread_spawns(clear, 0.4, 1.8, q)
        np.testing.assert_array_equal(out, clear)
        assert not moved.any()
        # no ring to search: the island's lattice still finds every spawn a free spot
        crowd, moved = spread_spawns(np.zeros((30, 3)) + [-10.0, -10.0, 0.0], 0.4, 1.8, q, max_rings=0)
        assert moved[1:].all() and not moved[0]
        gaps = [np.hypot(*(a - b)[:2]) for a, b in itertools.combinations(crowd, 2)]
        assert min(gaps) >= 0.85 - 1e-9
        assert all(q.nearest_point(p).distance < 1e-6 for p in crowd)
    # a 2 m room eroded by 0.4 m holds a few bodies, not six
    room = NavMeshQuery(bake_polygons([(0, 0), (2, 0), (2, 2), (0, 2)], agent_radius=0.4))
    with pytest.raises(SpawnError, match="no free spot is left on its navmesh island"):
        spread_spawns(np.zeros((6, 3)) + [1.0, 1.0, 0.0], 0.4, 1.8, room)


def test_unnamed_npcs_never_take_a_given_name() -> None:
    scene = load_scene("arena").with_npcs(
        NpcSpawn(position=(-10.0, -10.0, 0.0)),
        NpcSpawn(position=(-6.0, -10.0, 0.0), name="npc0"),
        keep_existing=False,
    )
    with Simulation(scene, seed=1, settings=SimulationSettings(npcs=3, player=None)) as sim:
        names = [npc.name for npc in sim.npcs]
    assert len(set(names)) == 3 and names[1] == "npc0"
