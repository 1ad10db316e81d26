"""Plug in your own player: a controller called every tick that steers the player's body.

A controller is any callable `(player, time, watchers) -> None` (see `npc_ai.sim.player.PlayerController`):
a scripted route, a hand-written policy or a trained one. It steers with `player.go_to(point)`,
`player.move(speed, heading)` or `player.stop()`; `watchers` holds the eyes of the NPCs that see it.
"""

import math

import npc_ai


class RunAndHide:
    """Walk a loop of waypoints; while any NPC sees the player, run straight away from the first watcher."""

    def __init__(self, waypoints):
        self.waypoints, self.next = waypoints, 0

    def __call__(self, player, time, watchers):
        if len(watchers):  # seen: a simple policy from the observation
            away = player.position[:2] - watchers[0][:2]
            player.move(player.settings.run_speed, math.atan2(away[1], away[0]))
            return
        if player.arrived:
            self.next = (self.next + 1) % len(self.waypoints)
        player.go_to(self.waypoints[self.next])


route = RunAndHide([(12.0, -12.0, 0.0), (12.0, 12.0, 0.0), (-12.0, 12.0, 0.0)])
settings = npc_ai.SimulationSettings(npcs=3)
with npc_ai.Simulation(npc_ai.load_level("arena"), seed=1, settings=settings, player_controller=route) as sim:
    for _ in range(5):
        sim.run(1.0)
        watched = sum(npc.sees for npc in sim.npcs)
        print(
            f"t = {sim.time:.0f} s: player at {sim.player.position[:2].round(1).tolist()}, seen by {watched}"
        )
    print(f"player: waypoint {route.next}, spotted {sum(n.spotted for n in sim.npcs)} times")
