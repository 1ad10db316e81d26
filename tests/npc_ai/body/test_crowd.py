"""Local avoidance in the batched locomotion: NPCs on a head-on course pass each other (their agents never
closer than their radii allow, their bodies farther apart than without avoidance, where only the capsules
kept them apart), and a standing NPC is walked around."""

from __future__ import annotations

import numpy as np
import pytest

from navigation.agent import AgentSettings
from navigation.avoidance import AvoidanceSettings
from navigation.query import NavMeshQuery
from npc_ai.body.batch import LocomotionBatch
from npc_ai.levels.navmesh import scene_navmesh
from scenes import World, load_scene

DT = 1.0 / 60.0
AGENT = AgentSettings(radius=0.4, speed=3.5)
LANE_Y = -8.0  # a straight, open lane of the arena from x = -8 to 8


@pytest.fixture(scope="module")
def arena_query() -> NavMeshQuery:
    with World(load_scene("arena")) as w:
        return NavMeshQuery(scene_navmesh(w)[0])


def _head_on(query: NavMeshQuery, avoidance: AvoidanceSettings | None, *, stand: bool = False):  # type: ignore[no-untyped-def]
    """Two NPCs swap ends of the lane at walking speed (or one walks through the other, standing in the
    middle); returns (least distance between the agents (while both follow paths) and between the bodies
    over the run [m], how far each ended from its goal [m])."""
    with World(load_scene("arena")) as w:
        starts = np.array([[-6.0, LANE_Y, 0.0], [6.0, LANE_Y + 0.05, 0.0]])
        if stand:
            starts[1] = [0.0, LANE_Y, 0.0]
        batch = LocomotionBatch(w, query, starts, np.array([0.0, np.pi]), agent=AGENT, avoidance=avoidance)
        goals = [np.array([6.0, LANE_Y, 0.0]), np.array([-6.0, LANE_Y, 0.0])]
        batch.views[0].set_destination(goals[0], speed=1.4)
        if not stand:
            batch.views[1].set_destination(goals[1], speed=1.4)
        agents, bodies = np.inf, np.inf
        for _ in range(int(14.0 / DT)):
            batch.before_physics(DT)
            a = batch.agents.next_position  # where avoidance put them (the drift limit may pull them later)
            agents = min(agents, float(np.hypot(*(a[0, :2] - a[1, :2]))))
            w.step()
            batch.after_physics()
            p = batch.positions
            bodies = min(bodies, float(np.hypot(*(p[0, :2] - p[1, :2]))))
        p = batch.positions
        ends = [float(np.hypot(*(p[0, :2] - goals[0][:2]))), float(np.hypot(*(p[1, :2] - goals[1][:2])))]
    return agents, bodies, ends


@pytest.mark.slow  # three 14 s runs (about 6 s)
def test_npcs_on_a_head_on_course_pass_each_other(arena_query) -> None:
    agents, bodies, ends = _head_on(arena_query, AvoidanceSettings())
    _, bumped, _ = _head_on(arena_query, None)
    assert agents >= 2 * AGENT.radius - 0.02  # the agents keep their radii apart
    assert bumped < 2 * 0.35 + 0.02  # without avoidance the capsules (0.35 m) meet and push
    assert bodies > bumped  # the bodies follow their agents around each other (with root motion's lag)
    assert max(ends) < 0.5  # both got through and arrived


def test_a_standing_npc_is_walked_around(arena_query) -> None:
    agents, _, ends = _head_on(arena_query, AvoidanceSettings(), stand=True)
    assert agents >= 2 * AGENT.radius - 0.02
    assert ends[0] < 0.5
