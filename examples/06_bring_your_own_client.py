"""Embed the simulation in your own program: hand it your physics client (or a whole World).

You keep ownership: `sim.close()` removes the simulation's bodies but leaves your client connected,
and a `World` you pass with `Simulation(scene, world=...)` is left open for you to close.
"""

import pybullet
from pybullet_utils.bullet_client import BulletClient

import npc_ai

scene = npc_ai.load_level("arena")
client = BulletClient(connection_mode=pybullet.DIRECT)  # yours: e.g. shared with your own env

with npc_ai.Simulation(scene, seed=5, client=client) as sim:
    sim.run(1.0)
    print(f"bodies in your client while simulating: {client.getNumBodies()}")
print(f"after close: connected {bool(client.isConnected())}, bodies {client.getNumBodies()}")

# Or build the World yourself and let several things share it.
with npc_ai.World(scene, seed=5) as world:
    sim = npc_ai.Simulation(scene, world=world)  # the world's seed applies
    sim.run(1.0)
    sim.close()  # leaves the world open
    world.step(60)
    print(f"world still open at t = {world.time:.2f} s with {len(sim.npcs)} NPC bodies in it")
client.disconnect()
