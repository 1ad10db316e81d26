"""A living navmesh (scene file 08_living_navmesh.toml): a water strip that query filters price or
exclude, a large agent size that a 1 m door keeps out, jumps found across a chasm, and a guard that
chases the player across it by the declared link. Run: python examples/08_living_navmesh.py"""

from pathlib import Path

from navigation import LinkedQuery, LinkSearch, NavMeshQuery, QueryFilter, find_links
from npc_ai.levels import StaticLevel, scene_links, scene_navmeshes
from npc_ai.sim import Simulation, SimulationSettings
from scenes import World, load_scene

scene = load_scene(Path(__file__).with_name("08_living_navmesh.toml"))
with World(scene) as world:
    meshes = scene_navmeshes(world, use_cache=False)  # "default" and "large", one ray sampling
    found = find_links(
        NavMeshQuery(meshes["default"]), LinkSearch(max_gap=3.0, max_drop=0.0), StaticLevel(world)
    )
for name, mesh in meshes.items():
    print(
        f"size {name}: {mesh.polygon_count} polygons, {mesh.total_area:.1f} m^2, areas {mesh.meta['areas']}"
    )

query = NavMeshQuery(meshes["default"])
filters = {"no filter": None, "water costs 1.5": QueryFilter(costs={"water": 1.5}),
           "water costs 10": QueryFilter(costs={"water": 10.0}),
           "water excluded": QueryFilter(exclude=frozenset({"water"}))}  # fmt: skip
for label, f in filters.items():  # across the water strip, or round it by its dry north end
    path = query.find_path((-27.0, 0.0, 0.0), (-19.0, 0.0, 0.0), filter=f)
    cost = "" if path.cost is None else f", cost {path.cost:.2f}"
    print(f"{label}: {path.status.value}, length {path.length:.2f} m{cost}, exact {path.exact}")
for name in ("default", "large"):  # either side of a wall whose only door is 1 m wide
    path = NavMeshQuery(meshes[name]).find_path((-18.0, 0.0, 0.0), (-14.0, 0.0, 0.0))
    print(f"{name} agent across the wall: {path.status.value}, length {path.length:.2f} m")

print(f"found {len(found)} jumps: " + ", ".join(f"{k.start[0]:.1f} -> {k.end[0]:.1f} m" for k in found))
across = LinkedQuery(query, scene_links(scene) + found).find_path((-8.0, 0.0, 1.2), (8.0, 1.0, 1.2))
print(f"platform to platform: {across.status.value}, cost {across.cost:.2f} m, links {list(across.links)}")

with Simulation(scene, seed=0, settings=SimulationSettings(use_cache=False)) as sim:
    sim.run(9.0)
    print("\n".join(sim.timeline(("lost", "chase", "link_enter", "link_exit"))))
    print(f"guard now at x = {sim.npcs[0].position[0]:.1f} m, {sim.npcs[0].state}")
