"""Run NPCs and read their state every tick: where they are, what they are doing, what they see."""

import npc_ai
from scenes import NpcSpawn

# Place one more guard in code, facing the player's start (a validated copy; the loaded scene is unchanged).
rookie = NpcSpawn(position=(-8.0, 10.0, 0.0), yaw_deg=180.0, name="rookie")
scene = npc_ai.load_level("warehouse").with_npcs(rookie)
# The player wanders the navmesh and runs for cover when seen.
settings = npc_ai.SimulationSettings(player=npc_ai.PlayerSettings(mode="wander"))

with npc_ai.Simulation(scene, seed=3, settings=settings) as sim:
    for tick in range(4 * 60):  # four simulated seconds at 60 Hz
        sim.step()
        if tick % 60 != 59:
            continue
        print(f"t = {sim.time:.1f} s, player at {sim.player.position[:2].round(1).tolist()}")
        for npc in sim.npcs:
            x, y, _ = npc.position  # feet [m]
            seen = "sees the player" if npc.sees else "sees nothing"
            memory = f", remembers {npc.memory.source}" if npc.memory is not None else ""
            where = f"({x:6.1f}, {y:6.1f})"
            print(f"  {npc.name:<8} {where} {npc.state:<7} {seen}{memory}, arrived {npc.arrived}")
    print("events:", ", ".join(sorted({e.event for e in sim.events})))
