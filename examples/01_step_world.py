"""Load a scene and step its PyBullet world: add a capsule, cast a ray, read the cached poses."""

import numpy as np

import npc_ai
from scenes import groups

scene = npc_ai.load_level("arena")  # a built-in scene, a .toml scene file or a MovingAI .map
print(f"scene {scene.name}: {len(scene.boxes)} boxes, {len(scene.npcs)} NPC spawns")

# The world owns one physics client (closed on exit) and the only random Generator (world.rng).
with npc_ai.World(scene, seed=7) as world:
    body = world.add_capsule((0.0, -4.0, 0.0), group=groups.NPC)  # feet position [m]
    world.set_velocity(body, (1.0, 0.0, 0.0))  # [m/s]

    # Batched rays: (n, 3) starts and ends; the capsule itself is ignored.
    starts = np.array([[0.0, -4.0, 1.6], [0.0, -4.0, 0.5]])
    ends = starts + [0.0, 30.0, 0.0]
    hits = world.ray_test(starts, ends, ignore=[body])
    print("ray hits:", hits.hit.tolist(), "first hit at", hits.point[0].round(2).tolist())

    world.step(60)  # one second at the default 60 Hz
    row = world.poses.index(body)
    print(f"t = {world.time:.2f} s after {world.tick} ticks")
    print("capsule centre [m]:", world.poses.positions[row].round(2).tolist())
