"""Invisible guards along ledges: static boxes that stop dynamic NPC capsules and nothing else.

A wall stops a capsule that a crowd pushes toward it; the edge of a platform, a bridge or a ramp's side
does not, and the capsule falls (compound, 30 NPCs converging for 10 minutes: bodies pushed off the ramp's
sides and stood on other NPCs, up to 1.5 m off the navmesh). Game engines keep characters from walking off
ledges in their movement code (Unreal's `bCanWalkOffLedges`); here physics pushes the bodies, so the guard
is physical, and the solver weighs it with every other contact of the crowd (a body teleported back
instead lands in the crowd that pushed it).

Each guard is a box `thickness` [m] thick and `height` [m] tall standing outside a segment: its inner face
runs `offset` [m] beyond the segment, so a capsule of radius `offset` keeps its centre on the segment's
side. The boxes in one `CELL` square form one static body (a compound collision shape, at most
`BOXES_PER_BODY` boxes). Their group is `groups.LEDGE` and their mask holds only `groups.NPC`: a dynamic
NPC capsule (whose mask includes LEDGE, `groups.capsule_mask`) touches them; the player, props, the level
and every ray pass through.
"""

from __future__ import annotations

import numpy as np

from scenes import groups
from scenes._bullet import pybullet as pb
from scenes.errors import WorldError
from scenes.world import World

BOXES_PER_BODY = 64  # boxes of one compound static body at most
CELL = 8.0  # [m] the guards of one body lie in one square this wide (by their centres)


def add_ledge_guards(
    world: World,
    starts: np.ndarray,
    ends: np.ndarray,
    outward: np.ndarray,
    *,
    offset: float,
    height: float,
    thickness: float = 0.3,
) -> tuple[int, ...]:
    """Guard segments `starts[i]` -> `ends[i]` (k, 3) [m] on their `outward` side ((k, 2) unit vectors);
    returns the guard bodies (also in `world.ledge_guards`, removed with the world).

    Args:
        offset: how far beyond the segment the guard's inner face stands [m, >= 0] (a capsule radius).
        height: the guard's height above the segment's lower end [m, > 0]; it also reaches 0.3 m below.
        thickness: [m, > 0].
    Raises:
        WorldError: the world is closed; shapes that do not match, non-finite numbers, or bad sizes.
    """
    world._check_open()
    a = np.asarray(starts, dtype=np.float64).reshape(-1, 3)
    b = np.asarray(ends, dtype=np.float64).reshape(-1, 3)
    n = np.asarray(outward, dtype=np.float64).reshape(-1, 2)
    if not (len(a) == len(b) == len(n)) or not all(np.isfinite(x).all() for x in (a, b, n)):
        raise WorldError("ledge guards need (k, 3) starts and ends and (k, 2) outward vectors, all finite")
    if not (offset >= 0 and height > 0 and thickness > 0):
        raise WorldError(
            f"ledge guards need offset >= 0, height > 0, thickness > 0; got {offset}, {height}, {thickness}"
        )
    d = b[:, :2] - a[:, :2]
    length = np.hypot(d[:, 0], d[:, 1])
    keep = length > 1e-6
    a, b, n, d, length = a[keep], b[keep], n[keep], d[keep], length[keep]
    low = np.minimum(a[:, 2], b[:, 2]) - 0.3
    high = np.maximum(a[:, 2], b[:, 2]) + height
    mid = (a[:, :2] + b[:, :2]) / 2 + n * (offset + thickness / 2)
    centres = np.column_stack([mid, (low + high) / 2])
    halves = np.column_stack([length / 2, np.full(len(length), thickness / 2), (high - low) / 2])
    yaw = np.arctan2(d[:, 1], d[:, 0])
    turns = np.column_stack([np.zeros((len(yaw), 2)), np.sin(yaw / 2), np.cos(yaw / 2)])
    # one body per `CELL` square (at most BOXES_PER_BODY boxes): a body's AABB spans only its boxes, so the
    # broadphase pairs a capsule with the guards near it, not with every guard of the level
    cell = np.floor(mid / CELL).astype(np.int64)
    order = np.lexsort((cell[:, 1], cell[:, 0]))
    key = cell[order]
    new_cell = np.r_[True, (key[1:] != key[:-1]).any(axis=1)]
    rank = np.arange(len(order)) - np.maximum.accumulate(np.where(new_cell, np.arange(len(order)), 0))
    first = np.flatnonzero(new_cell | (rank % BOXES_PER_BODY == 0))
    cid = world._cid
    bodies = []
    for lo, hi in zip(first.tolist(), [*first[1:].tolist(), len(order)], strict=True):
        part = order[lo:hi]
        m = len(part)
        shape = pb.createCollisionShapeArray(
            [pb.GEOM_BOX] * m,
            halfExtents=halves[part].tolist(),
            collisionFramePositions=centres[part].tolist(),
            collisionFrameOrientations=turns[part].tolist(),
            physicsClientId=cid,
        )
        body = pb.createMultiBody(0.0, shape, -1, (0.0, 0.0, 0.0), physicsClientId=cid)
        pb.setCollisionFilterGroupMask(body, -1, groups.LEDGE, groups.NPC, physicsClientId=cid)
        bodies.append(int(body))
    calls = world.pybullet_calls
    calls["createCollisionShapeArray"] += len(bodies)
    calls["createMultiBody"] += len(bodies)
    calls["setCollisionFilterGroupMask"] += len(bodies)
    world.ledge_guards += tuple(bodies)
    return tuple(bodies)
