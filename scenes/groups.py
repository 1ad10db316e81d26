"""Collision groups: one bit per class of body, so ray tests and casts can select or exclude a class.

Pass a mask (bitwise OR of groups) to `World.ray_test` / `World.box_cast`; PyBullet applies it per ray batch.
"""

from __future__ import annotations

STATIC = 1  # level geometry: floors, walls, meshes (mass 0)
NPC = 2  # NPC character bodies
PLAYER = 4  # the player's body
PROP = 8  # dynamic props (crates that can be pushed)
ALL = STATIC | NPC | PLAYER | PROP
CHARACTERS = NPC | PLAYER

NAMES: dict[int, str] = {STATIC: "static", NPC: "npc", PLAYER: "player", PROP: "prop"}
