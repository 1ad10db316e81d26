"""Cover: an NPC under fire runs to the nearest navmesh point that hides it from the shooter.

Under fire means a shot that hits the NPC or passes within its `under_fire_radius` (`under_fire`, for every
NPC at once: the distance from each NPC's chest to the shot's segment). An archetype with `cover` then
enters the Cover state (`npc_ai.behaviour.states`): `find_cover` samples `CANDIDATES` navmesh points within
`cover_radius` (area-uniform, on its island) and casts, in one batch, three rays from each toward the
shooter's eye: from the chest (`CHEST` above the floor) and from both shoulders (the body radius to each
side). A point hides the NPC when all three are blocked by static geometry; the nearest such point is its
cover. There it faces the shooter for `cover_s`, then fights on (Aim when it sees the player, else Chase
its memory, else home).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from npc_ai.behaviour.search import area_samples
from scenes import groups

if TYPE_CHECKING:
    from npc_ai.behaviour.batch import BehaviourBatch

CANDIDATES = 48  # navmesh points considered for cover
CHEST = 1.2  # [m] above the floor: the height that must be hidden


def under_fire(positions: np.ndarray, start: np.ndarray, end: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """(n,) bool: is each NPC's chest (feet `positions` (n, 3) + `CHEST`) within `radius` (n,) [m] of the
    shot's segment `start` -> `end` [m]?"""
    chest = np.asarray(positions, dtype=np.float64) + [0.0, 0.0, CHEST]
    a, b = np.asarray(start, dtype=np.float64), np.asarray(end, dtype=np.float64)
    ab = b - a
    t = np.clip((chest - a) @ ab / max(float(ab @ ab), 1e-12), 0.0, 1.0)
    gap = chest - (a + t[:, None] * ab)
    return np.einsum("ij,ij->i", gap, gap) <= np.asarray(radius, dtype=np.float64) ** 2


def find_cover(b: BehaviourBatch, i: int, shooter_eye: np.ndarray) -> np.ndarray | None:
    """The nearest navmesh point [m] within row i's `cover_radius` that hides it from `shooter_eye` [m]
    (see the module docstring), or None when none of the candidates does."""
    here = b.positions()[i]
    pts = area_samples(b, i, here, b.settings[i].cover_radius)[:CANDIDATES]
    if len(pts) == 0:
        return None
    eye = np.asarray(shooter_eye, dtype=np.float64)
    away = pts[:, :2] - eye[:2]
    side = np.column_stack([-away[:, 1], away[:, 0]]) / np.maximum(np.hypot(*away.T), 1e-9)[:, None]
    r = float(b.locomotion.radius)
    offsets = (np.zeros(2), r * np.ones(2), -r * np.ones(2))
    starts = np.vstack(
        [pts + [0.0, 0.0, CHEST] + np.column_stack([side * o, np.zeros(len(pts))]) for o in offsets]
    )
    hits = b.locomotion.world.ray_test(starts, np.repeat(eye[None], len(starts), axis=0), mask=groups.STATIC)
    hidden = hits.hit.reshape(3, len(pts)).all(axis=0)
    if not hidden.any():
        return None
    d = np.hypot(*(pts[:, :2] - here[:2]).T)
    d[~hidden] = np.inf
    return pts[int(np.argmin(d))].copy()
