"""npc-ai: simulated enemies in a PyBullet world.

Wander / Aim / Chase behaviour with view-cone raycasts and obstacle box casts, on a navmesh pathfinder whose
agent follows root-motion animation from real motion capture. See README.md.
"""

__version__ = "0.1.0"
