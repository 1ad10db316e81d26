"""NPCs cross off-mesh links: a guard chases the player across a chasm by jumping (the jump clip's root
motion, `link_enter` then `link_exit`), a link handler can take the crossing over, and bad handlers are
refused."""

from __future__ import annotations

import math

import numpy as np
import pytest

from npc_ai.sim import Simulation, SimulationSettings
from npc_ai.sim.links import JumpMotion
from scenes import parse_scene

GAP_CHASE = """
[scene]
name = "gap-chase"
description = "two platforms over a 1.6 m chasm; a guard on one, the player on the other"

[floor]
size = [30.0, 14.0]

[[platform]]
center = [-6.0, 0.0]
size = [10.0, 8.0]
height = 1.2

[[platform]]
center = [5.6, 0.0]
size = [10.0, 8.0]
height = 1.2

[[link]]
start = [-1.4, 0.0, 1.2]
end = [1.0, 0.0, 1.2]
bidirectional = true
kind = "jump"
name = "chasm"

[[npc]]
name = "guard"
position = [-6.0, 0.0, 1.2]
yaw_deg = 0

[[box]]
center = [7.0, -1.0, 2.2]
size = [0.4, 6.0, 2.0]

[player]
position = [4.0, 0.0, 1.2]
route = [[4.0, 0.0, 1.2], [9.0, -2.0, 1.2]]
loop = false

[navmesh]
agent_radius = 0.3
cell_size = 0.1
max_climb = 0.3
"""
SCENE = parse_scene(GAP_CHASE)
PLATFORM_Z = 1.2


def _run(seconds: float, **kwargs: object) -> tuple[Simulation, list[np.ndarray]]:
    """Run the scene; also return the guard's feet on each tick it spends crossing the link."""
    bodies = kwargs.pop("bodies", "dynamic")
    sim = Simulation(SCENE, seed=0, settings=SimulationSettings(use_cache=False, bodies=bodies), **kwargs)
    crossing = []
    for _ in range(round(seconds * 60)):
        sim.step()
        if sim.links is not None and sim.links.active[0] >= 0:
            crossing.append(sim.npcs[0].position.copy())
    return sim, crossing


def _events(sim: Simulation, *names: str) -> list[tuple[float, str, dict]]:
    return [(e.t, e.event, dict(e.data)) for e in sim.events if e.event in names]


@pytest.mark.parametrize("bodies", ["dynamic", "kinematic"])
def test_a_guard_chases_the_player_across_the_chasm_by_jumping(bodies: str) -> None:
    sim, crossing = _run(9.0, bodies=bodies)
    events = _events(sim, "lost", "chase", "link_enter", "link_exit")
    names = [e for _, e, _ in events]
    assert names.index("lost") < names.index("chase") < names.index("link_enter") < names.index("link_exit")
    (t_in, _, enter), (t_out, _, leave) = [e for e in events if e[1].startswith("link")][:2]
    assert enter["name"] == leave["name"] == "chasm" and enter["kind"] == "jump" and not enter["reverse"]
    assert enter["from"][0] == pytest.approx(-1.4, abs=0.05) and leave["to"][0] == pytest.approx(
        1.0, abs=0.05
    )
    motion = JumpMotion()
    assert t_out - t_in == pytest.approx(motion.duration, abs=2 / 60)  # the clip's length
    path = np.array(crossing)
    assert (np.diff(path[:, 0]) >= -1e-9).all()  # root motion: always forward over the chasm
    assert path[:, 2].min() >= PLATFORM_Z - 1e-6  # never into the chasm
    assert path[:, 2].max() - PLATFORM_Z == pytest.approx(motion.lift.max(), abs=0.02)  # the clip's lift
    guard = sim.npcs[0]
    assert guard.position[0] > 1.0 and guard.position[2] == pytest.approx(PLATFORM_Z, abs=0.05)  # across
    assert sim.links.crossings[0] == 1


def test_the_walk_to_a_link_counts_the_rest_of_the_plan() -> None:
    sim, _ = _run(4.0)  # chasing, not yet at the chasm
    guard = sim.npcs[0]
    assert guard.state == "chase" and sim.links.next_link[0] == 0
    ag = sim.locomotion.agents
    assert ag.beyond[0] > 2.4  # the jump and the walk beyond it
    assert sim.locomotion.remaining(0) > ag.beyond[0]  # the walk to the chasm and everything after


def test_a_link_handler_takes_the_crossing_over() -> None:
    calls = []

    def straight(npc, link, reverse, elapsed):  # a user's callback
        calls.append((npc.name, link.name, reverse, elapsed))
        if elapsed >= 0.5:
            return None
        a, b = np.array(link.start), np.array(link.end)
        return a + (b - a) * (elapsed / 0.5)

    sim, crossing = _run(8.0, link_handler=straight)
    (t_in, _, _), (t_out, _, _) = _events(sim, "link_enter", "link_exit")[:2]
    assert t_out - t_in == pytest.approx(0.5, abs=2 / 60)
    assert calls[0][:3] == ("guard", "chasm", False) and calls[0][3] == pytest.approx(1 / 60)
    assert np.allclose(np.array(crossing)[:, 2], PLATFORM_Z + 0.0, atol=0.02)  # no lift: a straight line


def test_bad_link_handlers_are_refused() -> None:
    from npc_ai.sim.simulation import SimulationError

    with pytest.raises(SimulationError, match="link_handler must be callable"):
        Simulation(SCENE, seed=0, settings=SimulationSettings(use_cache=False), link_handler="jump")  # type: ignore[arg-type]
    with pytest.raises(SimulationError, match="3 finite numbers or None"):
        _run(8.0, link_handler=lambda npc, link, reverse, elapsed: (math.nan, 0.0, 0.0))


def test_scenes_without_links_plan_as_before() -> None:
    no_link = GAP_CHASE.split("[[link]]")[0] + GAP_CHASE.split('name = "chasm"')[1]
    settings = SimulationSettings(use_cache=False, bodies="kinematic")  # ledges exact by construction
    sim = Simulation(parse_scene(no_link), seed=0, settings=settings)
    assert sim.links is None and sim.locomotion.agents.planner is None
    for _ in range(60 * 8):
        sim.step()
    assert sim.npcs[0].position[0] <= -1.3  # the chasm stops it: the chase ends at the edge
    assert not _events(sim, "link_enter")


def test_found_links_are_used_when_the_scene_asks() -> None:
    from navigation import NavMeshError
    from npc_ai.levels import scene_links

    no_link = GAP_CHASE.split("[[link]]")[0] + GAP_CHASE.split('name = "chasm"')[1]
    found = parse_scene(no_link + "\n[links]\nfind = true\nmax_gap = 3.0\nmax_drop = 0.0\n")
    with pytest.raises(NavMeshError, match="pass the navmesh's query"):
        scene_links(found)
    sim = Simulation(found, seed=0, settings=SimulationSettings(use_cache=False, bodies="kinematic"))
    assert sim.links is not None and {link.kind for link in sim.links.linked.links} == {"jump"}
    for _ in range(60 * 9):
        sim.step()
    (_, _, enter), (_, _, leave) = _events(sim, "link_enter", "link_exit")[:2]
    assert (
        enter["kind"] == leave["kind"] == "jump" and sim.npcs[0].position[0] > 1.0
    )  # across by a jump it found itself


def test_a_link_off_the_navmesh_is_refused_with_the_link_named() -> None:
    from npc_ai.sim.simulation import SimulationError

    bad = GAP_CHASE.replace("end = [1.0, 0.0, 1.2]", "end = [1.0, 0.0, 9.0]")  # in the air
    with pytest.raises(SimulationError, match=r"the scene's links: links\[0\] end .* is not within 1 m"):
        Simulation(parse_scene(bad), seed=0, settings=SimulationSettings(use_cache=False))
