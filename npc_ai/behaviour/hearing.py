"""What NPCs hear: noises (footsteps, shots, impacts) that carry through the open and less through walls.

A noise of loudness L is heard by a listener within `hearing_range * L` metres in the open. When static
geometry stands between the noise and the listener (one ray, `EAR_HEIGHT` above both floors, for every
pair that is within the open range; one batch for all of them), the reach is `occluded_hearing_factor` of
that. Noises are made on the floor: their positions are feet, the shooter's for a shot.

`audible` is the pure rule over arrays; `listen` is the shell the simulation's perceive phase calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from npc_ai.behaviour.perception import heard
from scenes import World, groups

if TYPE_CHECKING:
    from npc_ai.behaviour.batch import BehaviourBatch
    from npc_ai.behaviour.brain import Noise

EAR_HEIGHT = 1.2  # [m] the occlusion ray runs this far above the noise's and the listener's floors


def audible(
    listeners: np.ndarray,
    noises: np.ndarray,
    loudness: np.ndarray,
    hearing_range: np.ndarray,
    blocked: np.ndarray,
    occluded_factor: np.ndarray,
) -> np.ndarray:
    """(n, k) bool: does listener i hear noise j? Within `hearing_range_i * loudness_j` [m] in the open,
    within `occluded_factor_i` of that where `blocked[i, j]` (a wall between them); never a silent one.

    Args:
        listeners: (n, 3) feet [m]. noises: (k, 3) positions [m]. loudness: (k,) [>= 0].
        hearing_range: (n,) [m]. blocked: (n, k) bool. occluded_factor: (n,) [0..1].
    """
    reach = np.where(blocked, np.asarray(occluded_factor, dtype=np.float64)[:, None], 1.0)
    d = np.asarray(noises, dtype=np.float64)[None, :, :] - np.asarray(listeners, dtype=np.float64)[:, None, :]
    limit = np.asarray(hearing_range, dtype=np.float64)[:, None] * np.asarray(loudness)[None, :] * reach
    loud = np.asarray(loudness, dtype=np.float64)[None, :] > 0.0  # a silent noise is never heard
    return (np.einsum("nmk,nmk->nm", d, d) <= limit * limit) & loud


def listen(world: World, b: BehaviourBatch, noises: Sequence[Noise]) -> int:
    """The hearing of the perceive phase: every noise of the last tick against every NPC, with one ray
    batch for the pairs in open range; each NPC that hears a noise (not its own) goes through
    `BehaviourBatch.hear`, in (NPC, noise) order. Returns the rays cast."""
    if not noises or not b.n:
        return 0
    feet = b.positions()
    where = np.array([z.position for z in noises], dtype=np.float64).reshape(-1, 3)
    loud = np.array([z.loudness for z in noises], dtype=np.float64)
    in_range = heard(feet, where, loud, b.cfg.hearing_range)  # the open range (checks the arrays)
    in_range &= ~b.ignores([z.source for z in noises])  # no occlusion ray for a noise it will not heed
    pairs = np.argwhere(in_range)
    blocked = np.zeros(in_range.shape, dtype=bool)
    if len(pairs):
        lift = np.array([0.0, 0.0, EAR_HEIGHT])
        hits = world.ray_test(where[pairs[:, 1]] + lift, feet[pairs[:, 0]] + lift, mask=groups.STATIC)
        blocked[pairs[:, 0], pairs[:, 1]] = hits.hit
    mask = audible(feet, where, loud, b.cfg.hearing_range, blocked, b.cfg.occluded_hearing_factor)
    for i, j in np.argwhere(mask).tolist():
        if noises[j].source != b.names[i]:
            b.hear(i, noises[j], occluded=bool(blocked[i, j]))
    return len(pairs)


def shout_reach(world: World, b: BehaviourBatch, i: int) -> np.ndarray:
    """The allies (row indices, in order) that row i's alert reaches: all of them by radio; otherwise those
    within its `alert_radius` that see it (a clear line between the eyes) or hear its shout (`audible` at
    `shout_loudness`, through walls at `occluded_hearing_factor`), with one ray batch for the candidates."""
    others = np.flatnonzero(np.arange(b.n) != i)
    if b.settings[i].radio or others.size == 0:
        return others
    feet = b.positions()
    gap = feet[others, :2] - feet[i, :2]
    near = others[np.hypot(gap[:, 0], gap[:, 1]) <= b.cfg.alert_radius[i]]
    if near.size == 0:
        return near
    lift = np.array([0.0, 0.0, EAR_HEIGHT])
    eyes = feet[near] + lift
    blocked = world.ray_test(
        np.repeat((feet[i] + lift)[None], near.size, axis=0), eyes, mask=groups.STATIC
    ).hit
    loud = np.array([b.settings[i].shout_loudness])
    heard_shout = audible(
        feet[near],
        feet[i][None],
        loud,
        b.cfg.hearing_range[near],
        blocked[:, None],
        b.cfg.occluded_hearing_factor[near],
    )[:, 0]
    return near[~blocked | heard_shout]
