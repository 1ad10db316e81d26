"""What the simulation tells its crowd each tick (`npc_ai.body.crowd.Crowd`): each NPC's avoidance priority,
from its behaviour state, and the player as an obstacle the NPCs walk around."""

from __future__ import annotations

import numpy as np

from npc_ai.body.crowd import Crowd
from scenes import World

CROWD_PRIORITY = np.array([1.0, 1.0, 4.0, 4.0, 4.0, 2.0, 2.0])
"""Avoidance priority by state code (wander, patrol, aim, shoot, chase, search, investigate): a chaser
pushes through, a wanderer or a patrol yields."""


def feed_crowd(
    crowd: Crowd, states: np.ndarray, world: World, player_body: int | None, player_feet: np.ndarray | None,
    player_radius: float,
) -> None:  # fmt: skip
    """Set this tick's priorities from the NPCs' state codes (n,) and, with a player, its feet [m],
    velocity (from the world's pose cache) [m/s] and radius [m] as the crowd's one other body."""
    crowd.priority[:] = CROWD_PRIORITY[states]
    if player_body is not None and player_feet is not None:
        v = world.poses.velocities[world.poses.index(player_body)][None, :2]
        crowd.others = (np.asarray(player_feet, dtype=np.float64)[None], v, np.array([player_radius]))
