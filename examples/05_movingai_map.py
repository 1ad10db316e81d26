"""A MovingAI grid map as a level: bake its navmesh, solve a path, and let NPCs hunt on it.

Usage: python examples/05_movingai_map.py [MAP_FILE]  (default: a small map written below).
1 cell = 1 m; cell (x, y) covers [x, x+1] x [y, y+1]; '@' and 'T' are walls, '.' is floor.
"""

import sys

import npc_ai
from navigation import parse_map
from npc_ai.levels import scene_from_grid

MAP = """type octile
height 8
width 12
map
............
..@@@@@@....
..@.........
..@..@@@@@..
..@......@..
..@@@@...@..
.........@..
............
"""

if len(sys.argv) > 1:
    scene = npc_ai.load_level(sys.argv[1])  # any .map file: the benchmark's maps load the same way
else:
    scene = scene_from_grid(parse_map(MAP, name="tiny.map"), name="tiny")
print(f"map {scene.name}: {scene.description}")

with npc_ai.Simulation(scene, seed=0, settings=npc_ai.SimulationSettings(npcs=2)) as sim:
    path = sim.query.find_path((0.5, 0.5, 0.0), (6.5, 4.5, 0.0))  # cell centres [m]
    print(f"path status: {path.status.value}, length {path.length:.2f} m")
    sim.run(3.0)
    print("\n".join(sim.summary()))
