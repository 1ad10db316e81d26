"""Shared scenario scene for the behaviour tests: an open floor with one long wall east of the NPC."""

from __future__ import annotations

from navigation.navmesh import NavMesh
from npc_ai.levels.navmesh import scene_navmesh
from npc_ai.sim.player import PlayerSettings
from npc_ai.sim.simulation import Simulation, SimulationSettings
from scenes import PlayerSpawn, Scene, World, parse_scene

RANGE_TOML = """
[scene]
name = "range"
[floor]
size = [40.0, 40.0]
[navmesh]
cell_size = 0.2
# a wall from y = 1 to 12 at x = 3.5..4.5: hides the north-east from the NPC at the origin
[[box]]
center = [4.0, 6.5, 1.5]
size = [1.0, 11.0, 3.0]
[archetype.guard]
move_probability = 0.0
[[npc]]
name = "guard"
position = [0.0, 0.0, 0.0]
yaw_deg = 0.0
archetype = "guard"
"""


def range_scene(**archetype: float) -> Scene:
    text = RANGE_TOML
    for k, v in archetype.items():
        text = text.replace("[archetype.guard]\n", f"[archetype.guard]\n{k} = {v}\n")
    return parse_scene(text, source="range.toml")


def bake(scene: Scene) -> NavMesh:
    with World(scene) as world:
        return scene_navmesh(world)[0]


def simulation(
    scene: Scene,
    mesh: NavMesh,
    *,
    player: tuple[float, float] | None,
    route: tuple[tuple[float, float, float], ...] = (),
    mode: str = "still",
    speed: float = 2.0,
    seed: int = 0,
    trail_every: int = 0,
) -> Simulation:
    spawn = (
        None if player is None else PlayerSpawn(position=(player[0], player[1], 0.0), route=route, loop=False)
    )
    scene = scene.with_player(spawn)
    ps = (
        None
        if player is None
        else PlayerSettings(mode=mode, speed=speed, run_speed=max(speed, 3.5), footstep_loudness=0.0)
    )
    return Simulation(
        scene, seed=seed, navmesh=mesh, settings=SimulationSettings(player=ps, trail_every=trail_every)
    )


def events(sim: Simulation, npc: str = "guard") -> list:
    return [e for e in sim.events if e.data.get("npc") == npc]
