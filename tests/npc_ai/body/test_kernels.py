"""The compiled locomotion kernels: `warm_up` compiles every signature the package uses (no tick compiles)."""

from __future__ import annotations

import numba
import numpy as np

from navigation import agent_kernels, angles
from navigation.agent import AgentSettings, NavAgent
from navigation.agent_batch import AgentBatch
from navigation.query import NavMeshQuery
from npc_ai.body import kernels
from npc_ai.body.batch import LocomotionBatch
from npc_ai.levels.navmesh import scene_navmesh
from scenes import World, load_scene

DT = 1.0 / 60.0


def _signatures() -> dict[str, int]:
    out = {}
    for module in (agent_kernels, angles, kernels):
        for name, d in vars(module).items():
            if isinstance(d, numba.core.registry.CPUDispatcher):
                out[f"{module.__name__}.{name}"] = len(d.signatures)
    return out


def test_warm_up_compiles_what_the_package_calls() -> None:
    """After `warm_up`, real use (a batch of characters, agents alone, one NavAgent) adds no signature."""
    kernels.warm_up()
    before = _signatures()
    rng = np.random.default_rng(5)
    with World(load_scene("warehouse")) as world:
        query = NavMeshQuery(scene_navmesh(world)[0])
        starts = np.array([query.random_point(rng)[0] for _ in range(4)])
        batch = LocomotionBatch(world, query, starts, np.zeros(4), agent=AgentSettings(radius=0.3))
        batch.views[0].set_destination(query.random_point(rng)[0])
        batch.views[1].set_destination(query.random_point(rng)[0], speed=1.4)
        batch.views[2].move_freely(2.0, 1.0)
        for t in range(90):
            if t == 45:
                batch.views[3].warp(query.random_point(rng)[0])
                batch.views[0].stop()
            batch.before_physics(DT)
            world.step()
            batch.after_physics()
            assert batch.views[1].remaining_distance >= 0.0
        agents = AgentBatch(query, starts)
        agents.set_destination(0, query.random_point(rng)[0])
        agents.update(DT)
        agents.update(DT, np.array([0, 2]))
        agents.set_next_position([0, 1], starts[:2] + 0.1)
        agents.follow(None, starts + 0.05)
        agents.remaining_distance()
        agent = NavAgent(query, starts[0])
        agent.set_destination(query.random_point(rng)[0])
        for _ in range(30):
            agent.update(DT)
        agent.next_position = agent.next_position + [0.05, 0.0, 0.0]
        assert np.isfinite(agent.desired_velocity).all() and agent.remaining_distance >= 0.0
    assert angles.turn_toward(np.zeros(2), np.ones(2), 0.1).shape == (2,)
    assert angles.wrap_angle(np.zeros((2, 2))).shape == (2, 2)
    assert _signatures() == before
