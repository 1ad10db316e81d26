"""Per-NPC area filters: a guard told to keep out of the water walks round it (and never enters), a
priced strip is crossed when that is cheaper, a filter can be taken back, and bad filters are refused."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import box

from navigation import QueryFilter
from npc_ai.sim import Simulation, SimulationError, SimulationSettings
from scenes import parse_scene

HALL = """
[scene]
name = "wet-hall"

[floor]
size = [24.0, 12.0]

[[area]]
name = "water"
footprint = [[-1.5, -7.0], [1.5, -7.0], [1.5, 3.0], [-1.5, 3.0]]

[[npc]]
name = "guard"
position = [-8.0, -2.0, 0.0]

[navmesh]
agent_radius = 0.3
cell_size = 0.1
"""
WATER = box(-1.5, -7.0, 1.5, 3.0)
GOAL = np.array([8.0, -2.0, 0.0])


def _walk(area_filter: QueryFilter | None, seconds: float = 14.0) -> tuple[Simulation, list[np.ndarray]]:
    settings = SimulationSettings(use_cache=False, player=None, bodies="kinematic")
    sim = Simulation(parse_scene(HALL), seed=0, settings=settings)
    sim.control("guard", lambda npc, t: npc.go_to(GOAL, 2.0) if t < 0.05 else None)
    sim.step()
    sim.filter_areas("guard", area_filter)
    feet = []
    for _ in range(round(seconds * 60)):
        sim.step()
        feet.append(sim.npcs[0].position.copy())
    return sim, feet


def test_a_guard_kept_out_of_the_water_walks_round_it() -> None:
    sim, feet = _walk(QueryFilter(exclude=frozenset({"water"})))
    mesh = sim.query.mesh
    assert all(mesh.area_ids[p] == 0 for p in sim.locomotion.agents.corridors[0] if p >= 0)
    assert not any(WATER.buffer(-0.05).contains(shapely.Point(p[:2])) for p in feet)  # never in the water
    assert max(p[1] for p in feet) > 3.0  # round its dry north end
    assert np.hypot(*(feet[-1][:2] - GOAL[:2])) < 0.5


def test_a_priced_strip_is_crossed_when_cheaper_and_plain_planning_comes_back() -> None:
    _, feet = _walk(QueryFilter(costs={"water": 1.2}), seconds=10.0)
    assert any(WATER.contains(shapely.Point(p[:2])) for p in feet)  # straight across
    sim, feet = _walk(QueryFilter(exclude=frozenset({"water"})), seconds=1.0)
    sim.filter_areas("guard", None)  # taken back: the plain path, straight through the water
    assert sim.locomotion.agents.planner is None
    assert any(sim.query.mesh.area_ids[p] == 1 for p in sim.locomotion.agents.corridors[0] if p >= 0)


def test_bad_area_filters_are_refused_and_the_simulation_goes_on() -> None:
    sim = Simulation(parse_scene(HALL), seed=0, settings=SimulationSettings(use_cache=False, player=None))
    with pytest.raises(SimulationError, match="unknown area 'lava'"):
        sim.filter_areas("guard", QueryFilter(exclude=frozenset({"lava"})))
    with pytest.raises(SimulationError, match="QueryFilter"):
        sim.filter_areas("guard", {"water": 2.0})  # type: ignore[arg-type]
    with pytest.raises(SimulationError, match="no NPC named 'ghost'"):
        sim.filter_areas("ghost", None)
    assert sim.locomotion.agents.planner is None
    sim.step()
    linked = HALL + '\n[[link]]\nstart = [-8.0, 4.0, 0.0]\nend = [8.0, 4.0, 0.0]\nkind = "door"\n'
    with_links = Simulation(
        parse_scene(linked), seed=0, settings=SimulationSettings(use_cache=False, player=None)
    )
    with pytest.raises(SimulationError, match="not supported yet"):
        with_links.filter_areas("guard", QueryFilter(costs={"water": 2.0}))
