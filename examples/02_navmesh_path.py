"""Bake a scene's navmesh and find paths: an exact shortest path, and a partial one to an unreachable goal."""

import npc_ai

scene = npc_ai.load_level("compound")  # two levels joined by a ramp and a bridge
with npc_ai.World(scene) as world:
    # Baked from the world's static bodies, then cached on disk ($NPC_AI_CACHE) by scene and settings.
    mesh, from_cache = npc_ai.scene_navmesh(world)
print(f"navmesh: {mesh.polygon_count} polygons, {mesh.total_area:.0f} m2, from cache: {from_cache}")

query = npc_ai.NavMeshQuery(mesh)
start, goal = (-16.0, -16.0, 0.0), (10.0, 8.0, 3.0)  # feet positions [m]; the goal is on a platform
path = query.find_path(start, goal)
print(f"path status: {path.status.value}, length {path.length:.2f} m, {len(path.points)} corners")
for x, y, z in path.points:
    print(f"  ({x:6.2f}, {y:6.2f}, {z:5.2f})")

# An unreachable goal is not an error: the answer is a partial path to the nearest reachable point.
blocked = query.find_path(start, (0.0, 0.0, 40.0))
print(f"path status: {blocked.status.value}, ends at {blocked.points[-1].round(2).tolist()}")
