"""Collision groups: one bit per class of body, so ray tests and casts can select or exclude a class.

Pass a mask (bitwise OR of groups) to `World.ray_test` / `World.box_cast`; PyBullet applies it per ray batch.

Bit 1 is reserved: a PyBullet ray test always belongs to group 1, and a body is seen by rays only if its
own mask holds that bit. So no class of body uses bit 1, and every body's mask (`mask_of`) includes it.
"""

from __future__ import annotations

RAYS = 1  # reserved: the group every PyBullet ray test belongs to (never a body's group)
STATIC = 2  # level geometry: floors, walls, meshes (mass 0)
NPC = 4  # NPC character bodies
PLAYER = 8  # the player's body
PROP = 16  # dynamic props (crates that can be pushed)
LEDGE = 32  # invisible ledge guards (`scenes.ledge_guards`): only dynamic NPC capsules touch them
ALL = STATIC | NPC | PLAYER | PROP
CHARACTERS = NPC | PLAYER

NAMES: dict[int, str] = {STATIC: "static", NPC: "npc", PLAYER: "player", PROP: "prop", LEDGE: "ledge"}


def mask_of(group: int) -> int:
    """The collision mask a body of `group` gets: it touches every class but its own when it is static
    (pieces of the level never need contact pairs with each other), and is seen by rays."""
    others = ALL & ~STATIC if group == STATIC else ALL
    return others | RAYS


def capsule_mask(group: int, kinematic: bool) -> int:
    """A capsule's mask: `mask_of(group)`, less STATIC and its own group when kinematic (code places
    kinematic capsules: they need no contacts with the level or with their own kind), plus LEDGE for a
    dynamic NPC capsule (the ledge guards stop it)."""
    mask = mask_of(group)
    if kinematic:
        return mask & ~(STATIC | group)
    return mask | LEDGE if group == NPC else mask
