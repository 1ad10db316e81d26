"""Random spawns land on the navmesh's main island (the largest by area), never on roofs or ledges."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from npc_ai.sim.player import PlayerSettings
from npc_ai.sim.simulation import Simulation, SimulationSettings
from scenes import Floor, Scene, load_scene
from tests.navigation.nav_helpers import big_polygon_small_island


def _island_of(sim: Simulation, position: np.ndarray) -> int:
    near = sim.query.nearest_point(position, 1.0)
    assert near.found
    return int(sim.query.mesh.islands[near.polygon])


def test_npcs_and_player_spawn_on_the_largest_island_not_the_largest_polygons() -> None:
    mesh = big_polygon_small_island()
    main = mesh.main_island
    assert main != int(mesh.islands[int(np.argmax(mesh.areas))])
    scene = Scene(name="two islands", floor=Floor(size=(60.0, 20.0)))
    settings = SimulationSettings(npcs=8, player=PlayerSettings(mode="still"))
    with Simulation(scene, seed=3, navmesh=mesh, settings=settings) as sim:
        assert len(sim.npcs) == 8 and sim.player is not None
        assert [_island_of(sim, n.position) for n in sim.npcs] == [main] * 8
        assert _island_of(sim, sim.player.position) == main
        assert all(n.position[0] >= -1e-6 for n in sim.npcs)  # island B lies at x >= 0


@pytest.mark.slow
def test_monastery_npcs_spawn_on_the_main_island_although_most_area_is_elsewhere() -> None:
    scene = dataclasses.replace(load_scene("monastery"), npcs=(), player=None)
    settings = SimulationSettings(npcs=8, player=PlayerSettings(mode="still"))
    with Simulation(scene, seed=0, settings=settings) as sim:
        mesh = sim.query.mesh
        _, polys = sim.query.random_points(np.random.default_rng(0), 4000)
        assert np.mean(mesh.islands[polys] != mesh.main_island) > 0.5  # roofs and ledges: most of the area
        assert [_island_of(sim, n.position) for n in sim.npcs] == [mesh.main_island] * 8
        assert sim.player is not None and _island_of(sim, sim.player.position) == mesh.main_island
