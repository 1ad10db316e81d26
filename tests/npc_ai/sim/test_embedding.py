"""Embedding the simulation: an injected world or client (and who closes what), two simulations in one
process, a user-written player controller, and `arrived` as a property everywhere."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

from navigation.agent import NavAgent
from npc_ai.behaviour.brain import Npc
from npc_ai.body.locomotor import Locomotor
from npc_ai.sim.player import Player, PlayerSettings, PlayerSettingsError
from npc_ai.sim.simulation import Simulation, SimulationError, SimulationSettings
from scenes import World, WorldSettings, load_scene
from scenes._bullet import new_client


@pytest.fixture(scope="module")
def arena():
    return load_scene("arena")


def test_injected_client_gets_the_bodies_and_stays_connected(arena) -> None:
    client = new_client()
    try:
        assert client.getNumBodies() == 0
        sim = Simulation(arena, seed=1, client=client, settings=SimulationSettings(npcs=3))
        assert sim.world.client is client
        # the level, its ledge guards, three NPCs and the player all live in the caller's client
        assert sim.world.ledge_guards  # arena has raised platforms
        expected = len(sim.world.static_bodies) + len(sim.world.ledge_guards) + 3 + 1
        assert client.getNumBodies() == expected
        bodies = {client.getBodyUniqueId(i) for i in range(client.getNumBodies())}
        assert {n.body for n in sim.npcs} | {sim.player.body} <= bodies  # type: ignore[union-attr]
        sim.run(0.5)
        sim.close()
        assert client.isConnected()
        assert client.getNumBodies() == 0  # the simulation's world removed what it made
    finally:
        client.disconnect()


def test_injected_world_is_used_and_left_open(arena) -> None:
    with World(arena, seed=5) as world:
        before = world.client.getNumBodies()
        with Simulation(arena, world=world, settings=SimulationSettings(npcs=2)) as sim:
            assert sim.world is world
            sim.run(0.25)
            assert world.tick == sim.world.tick > 0
        world.step()  # still open: the caller owns it
        assert world.client.getNumBodies() == before + 2 + 1 + len(world.ledge_guards)
    with pytest.raises(Exception, match="closed"):
        world.step()


def test_own_world_is_closed(arena) -> None:
    sim = Simulation(arena, settings=SimulationSettings(npcs=1, player=None))
    client = sim.world.client
    sim.close()
    assert not client.isConnected()


def _run(sim: Simulation, ticks: int) -> tuple[str, list]:
    for _ in range(ticks):
        sim.step()
    return sim.world.state_digest(), [(e.t, dict(e.data)) for e in sim.events]


def test_two_simulations_with_separate_clients_match_for_one_seed(arena) -> None:
    settings = SimulationSettings(npcs=4, player=PlayerSettings(mode="wander"))
    clients = [new_client(), new_client(), new_client()]
    try:
        a, b, c = (
            Simulation(arena, seed=seed, client=cl, settings=settings)
            for seed, cl in zip((11, 11, 12), clients, strict=True)
        )
        for _ in range(6):  # interleaved: the clients must not share any state
            ra, rb, rc = _run(a, 30), _run(b, 30), _run(c, 30)
            assert ra == rb
        assert ra != rc  # another seed does differ, so the comparison means something
        assert len(ra[1]) > 0
        for sim in (a, b, c):
            sim.close()
    finally:
        for cl in clients:
            cl.disconnect()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"world": "w", "client": "c"}, "either world= or client="),
        ({"world": "other"}, "holds scene 'warehouse'"),
        ({"world": "w", "seed": 3}, "seed 3 contradicts the injected world's seed 0"),
        ({"world": "w", "gui": True}, "gui=True cannot apply to an injected world"),
        ({"client": "c", "gui": True}, "with an injected client, open it in GUI mode"),
        ({"world": "w", "settings": SimulationSettings(world=WorldSettings(substeps=2))}, "settings.world"),
        ({"world": 42}, "world must be a scenes.World"),
    ],
)
def test_bad_injection(arena, kwargs, message) -> None:
    with World(arena) as world, World(load_scene("warehouse")) as other:
        things = {"w": world, "other": other, "c": world.client}
        kwargs = {k: things.get(v, v) if isinstance(v, str) else v for k, v in kwargs.items()}
        with pytest.raises(SimulationError, match=message):
            Simulation(arena, **kwargs)
        assert world.client.isConnected()


def test_injected_world_with_its_settings_and_seed_is_accepted(arena) -> None:
    ws = WorldSettings(substeps=2)
    with World(arena, seed=4, settings=ws) as world:
        settings = SimulationSettings(npcs=0, player=None, world=ws)
        with Simulation(arena, world=world, seed=4, settings=settings) as sim:
            sim.step()


class Waypoints:
    """A scripted player: walk to each waypoint in turn (a controller object with `__call__`)."""

    def __init__(self, points) -> None:
        self.points = [np.asarray(p, dtype=float) for p in points]
        self.calls = 0

    def __call__(self, player: Player, time: float, watchers: np.ndarray) -> None:
        self.calls += 1
        assert watchers.ndim == 2 and watchers.shape[1] == 3
        if player.arrived and len(self.points) > 1:
            self.points.pop(0)
        player.go_to(self.points[0])


def test_player_controller_object_drives_the_player(arena) -> None:
    ctrl = Waypoints([(3.0, 5.0, 0.0), (-4.0, -4.0, 0.0)])  # the player starts at (3, 12)
    ps = PlayerSettings(mode="still", speed=3.0, footstep_loudness=0.0)
    settings = SimulationSettings(npcs=0, player=ps)
    with Simulation(arena, seed=0, settings=settings, player_controller=ctrl) as sim:
        assert sim.player is not None and sim.player.controller is ctrl
        sim.run(12.0)
        assert ctrl.calls == round(12.0 / sim.dt)
        assert len(ctrl.points) == 1  # reached the first waypoint
        assert np.hypot(*(sim.player.position[:2] - (-4.0, -4.0))) < 1.0


def test_player_controller_function_and_late_plug_in(arena) -> None:
    def east(player: Player, time: float, watchers: np.ndarray) -> None:
        player.move(2.0, 0.0)

    settings = SimulationSettings(npcs=0, player=PlayerSettings(mode="still"))
    with Simulation(arena, seed=0, settings=settings) as sim:
        p = sim.player
        assert p is not None and p.controller is None
        start = p.position
        sim.run(0.5)
        assert np.hypot(*(p.position - start)[:2]) < 0.01  # "still" without a controller
        p.controller = east
        sim.run(1.0)
        moved = p.position - start
        assert moved[0] > 1.0 and abs(moved[1]) < 0.5
        assert abs(math.remainder(p.yaw, 2 * math.pi)) < 0.2
        p.controller = lambda player, t, w: player.stop()
        sim.run(1.0)
        assert p.locomotor.speed < 0.1


def test_player_controller_bad_input(arena) -> None:
    with pytest.raises(SimulationError, match="needs a player"):
        Simulation(arena, settings=SimulationSettings(player=None), player_controller=lambda *a: None)
    with pytest.raises(SimulationError, match="must be callable"):
        Simulation(arena, player_controller=3)  # type: ignore[arg-type]
    with Simulation(arena, settings=SimulationSettings(npcs=0)) as sim:
        with pytest.raises(PlayerSettingsError, match="move speed"):
            sim.player.move(-1.0, 0.0)  # type: ignore[union-attr]
        with pytest.raises(PlayerSettingsError, match="move heading"):
            sim.player.move(1.0, float("nan"))  # type: ignore[union-attr]


@pytest.mark.parametrize("cls", [Npc, Locomotor, NavAgent, Player])
def test_arrived_is_a_property_everywhere(cls) -> None:
    assert isinstance(inspect.getattr_static(cls, "arrived"), property)


def test_npc_arrived_is_a_bool(arena) -> None:
    with Simulation(arena, seed=0, settings=SimulationSettings(npcs=2, player=None)) as sim:
        seen = set()
        for _ in range(240):
            sim.step()
            for npc in sim.npcs:
                assert type(npc.arrived) is bool
                seen.add(npc.arrived)
        assert False in seen  # `if npc.arrived:` is not always true
