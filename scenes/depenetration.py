"""Move character capsules out of static geometry they were pushed into.

Characters are dynamic capsules whose velocity code sets every tick. A crowd pushing one body against a
wall (or a pile of bodies pressing one into the floor) makes the solver share the push between the wall
and the body, and the body ends up centimetres inside the wall: Bullet corrects penetration only by a
fraction (ERP) per step, and the push comes back every tick. Game character controllers resolve this with
an explicit depenetration pass after the move (Unity's `CharacterController`, Unreal's
`ResolvePenetration`); this module is that pass.

After the physics step, one `performCollisionDetection()` recomputes the contacts at the bodies' final
poses and one `getContactPoints()` lists them all: no call per body. `displacements` then finds, per
capsule, the smallest move that leaves every static contact at most `keep` deep (projected Gauss-Seidel
over its contacts, so a corner or a wedge between floor and ceiling is handled together), and the inward
part of the velocity along each contact normal is removed, so the next step does not push it straight
back in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping

import numpy as np

from scenes._bullet import Client
from scenes._bullet import pybullet as pb

ROUNDS = 64  # Gauss-Seidel sweeps over one body's contacts at most (a corner needs one)


def static_contacts(
    client: Client,
    bodies: Collection[int],
    static: Collection[int],
    keep: float,
    *,
    calls: Counter[str] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Contacts deeper than `keep` [m] between `bodies` and `static` bodies at the current poses.

    Returns (body ids (n,), unit normals out of the static geometry toward the body (n, 3), depths [m,
    > keep] (n,)), sorted by body id (ties keep PyBullet's deterministic order). `calls`, when given,
    counts the two PyBullet calls made.
    """
    if calls is not None:
        calls["performCollisionDetection"] += 1
        calls["getContactPoints"] += 1
    client.performCollisionDetection()
    ids: list[int] = []
    normals: list[tuple[float, float, float]] = []
    depths: list[float] = []
    for c in client.getContactPoints() or ():
        depth = -float(c[8])
        if depth <= keep:
            continue
        a, b, n = c[1], c[2], c[7]  # contactNormalOnB points from B toward A
        if a in bodies and b in static:
            ids.append(a)
            normals.append(n)
        elif b in bodies and a in static:
            ids.append(b)
            normals.append((-n[0], -n[1], -n[2]))
        else:
            continue
        depths.append(depth)
    order = np.argsort(np.asarray(ids, dtype=np.int64), kind="stable")
    return (
        np.asarray(ids, dtype=np.int64)[order],
        np.asarray(normals, dtype=np.float64).reshape(-1, 3)[order],
        np.asarray(depths, dtype=np.float64)[order],
    )


FEW = 8
"""With at most this many dynamic capsules (a player among kinematic NPCs), `depenetrate` asks for each
capsule's closest points to each static body (`static_contacts_of`) instead of recomputing every contact
of the world (`performCollisionDetection` also walks the pairs of the bodies that code places)."""


def static_contacts_of(
    client: Client,
    bodies: Collection[int],
    static: Collection[int],
    keep: float,
    *,
    calls: Counter[str] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`static_contacts` for a few `bodies`: one `getClosestPoints(body, static body, 0)` per pair, at the
    current poses (the same rule and order: by body id, then PyBullet's order)."""
    ids: list[int] = []
    normals: list[tuple[float, float, float]] = []
    depths: list[float] = []
    cid = client._client  # the raw call: the client wrapper builds a partial per call
    for body in sorted(bodies):
        for other in static:
            for c in pb.getClosestPoints(body, other, 0.0, physicsClientId=cid) or ():
                depth = -float(c[8])
                if depth > keep:  # contactNormalOnB points from the static body toward this one
                    ids.append(body)
                    normals.append(c[7])
                    depths.append(depth)
    if calls is not None:
        calls["getClosestPoints"] += len(bodies) * len(static)
    return (
        np.asarray(ids, dtype=np.int64),
        np.asarray(normals, dtype=np.float64).reshape(-1, 3),
        np.asarray(depths, dtype=np.float64),
    )


def displacement(normals: np.ndarray, depths: np.ndarray, keep: float) -> np.ndarray:
    """The move (3,) [m] that leaves each contact (unit normal toward the body, depth [m]) at most `keep`
    deep, found by projected Gauss-Seidel: each sweep pushes along every contact still too deep by what
    is missing. One contact: exactly `(depth - keep) * normal`. Opposed contacts (a body squeezed
    between two walls closer than its width) cannot all be met; the move then shares the push."""
    move = np.zeros(3)
    for _ in range(ROUNDS):
        done = True
        for n, d in zip(normals, depths, strict=True):
            missing = d - keep - float(move @ n)
            if missing > 1e-9:
                move += missing * n
                done = False
        if done:
            break
    return move


def remove_inward(velocity: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """`velocity` [m/s] without its part into any of the contacts (unit normals toward the body)."""
    v = np.array(velocity, dtype=np.float64)
    for n in normals:
        inward = float(v @ n)
        if inward < 0.0:
            v -= inward * n
    return v


def depenetrate(
    client: Client,
    rows: Mapping[int, int],
    static: Collection[int],
    keep: float,
    positions: np.ndarray,
    velocities: np.ndarray,
    orientations: np.ndarray,
    *,
    calls: Counter[str] | None = None,
) -> int:
    """Move every body of `rows` (body id -> row of `positions`, `velocities`, `orientations`) that is
    deeper than `keep` [m] in `static` geometry back out; update those arrays in place; return how many
    bodies moved. `calls`, when given, counts the PyBullet calls made (by kind, once per kind)."""
    few = len(rows) <= FEW
    find = static_contacts_of if few else static_contacts
    ids, normals, depths = find(client, rows, static, keep, calls=calls)
    if not len(ids):
        return 0
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    if calls is not None:
        calls["resetBasePositionAndOrientation"] += len(starts)
        calls["resetBaseVelocity"] += len(starts)
    ends = np.r_[starts[1:], len(ids)]
    for s, e in zip(starts, ends, strict=True):
        body, row = int(ids[s]), rows[int(ids[s])]
        positions[row] += displacement(normals[s:e], depths[s:e], keep)
        velocities[row] = remove_inward(velocities[row], normals[s:e])
        client.resetBasePositionAndOrientation(body, positions[row].tolist(), orientations[row].tolist())
        client.resetBaseVelocity(body, linearVelocity=velocities[row].tolist())
    return len(starts)
