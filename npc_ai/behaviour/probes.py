"""Obstacle probes of wandering NPCs: box casts of the body's width ahead and, when something is near, to
both sides, limited by the distance to the navmesh edge (which also sees ledges and drops).

`probe_obstacles` probes one NPC, `probe_obstacles_many` all the NPCs due in a tick with the same answers
row for row (`World.box_casts` for the casts, one `NavMeshQuery.raycast_many` for the edge gaps).

Conventions: world Z-up, metres, radians; yaw 0 faces +X.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from navigation import raycasts
from npc_ai.behaviour.perception import PerceptionError, _rows
from scenes import World, groups

if TYPE_CHECKING:
    from navigation.query import NavMeshQuery


# -- obstacle probes (box casts) ------------------------------------------------------------------------
SLAB = 0.02  # [m] half depth of the box a probe sweeps (a slab of the body's cross-section)


@dataclass(frozen=True)
class ObstacleProbe:
    """Free distances around a wandering NPC, from box casts of its width and height.

    Attributes:
        time: when it was cast [s].
        forward: free gap ahead of the body [m] (`inf` when nothing is within the probe range).
        left, right: free gaps at +90 and -90 degrees [m] (None when the sides were not cast).
        nudge: +1 / -1 when the skin of the forward box already touched something on the right / left at
            the start (turn left / right, away from it), 0 otherwise.
    """

    time: float
    forward: float
    left: float | None = None
    right: float | None = None
    nudge: int = 0


def _cast_gap(
    world: World,
    half: tuple[float, float, float],
    narrow: tuple[float, float, float],
    center: np.ndarray,
    yaw: float,
    reach: float,
    body: int,
    mask: int,
) -> tuple[float, int]:
    direction = np.array([math.cos(yaw), math.sin(yaw), 0.0])
    behind = narrow[1] - SLAB  # the slab starts this far behind the capsule's front [m]
    end = center + direction * (reach + behind)
    hit = world.box_cast(half, center, end, yaw=yaw, mask=mask, ignore=[body])
    nudge = 0
    if hit.hit and hit.started_in_contact:
        # the skin already touches something beside the body: note the side (the normal points from the
        # obstacle toward the body), then cast again with the body's own width
        left = np.array([-math.sin(yaw), math.cos(yaw), 0.0])
        nudge = 1 if float(hit.normal @ left) >= 0 else -1
        hit = world.box_cast(narrow, center, end, yaw=yaw, mask=mask, ignore=[body])
    return (max(0.0, float(hit.distance) - behind) if hit.hit else math.inf), nudge


def probe_obstacles(
    world: World,
    *,
    body: int,
    feet: np.ndarray,
    yaw: float,
    body_radius: float,
    height: float,
    skin: float,
    reach: float,
    obstacle_range: float,
    time: float,
    lift: float = 0.3,
    mask: int = groups.STATIC | groups.NPC,
    edge_gap: Callable[[float], float] | None = None,
) -> ObstacleProbe:
    """Box-cast forward from the body (the NPC's depth, its width plus `skin` a side, its height above
    `lift`) up to `reach` [m]; if the gap ahead is below `obstacle_range`, cast at -90 and +90 degrees too.

    The box is a thin slab (half depth `SLAB`) of the body's cross-section that starts at the body's centre
    and sweeps `reach` past the capsule's front; a returned gap is its travel less the `body_radius - SLAB`
    from the slab to the capsule's front (0 when the capsule's front half already touches something). A
    slab, not a box of the body's depth: a box's corners reach past the round capsule, so a body beside a
    wall would find every heading blocked. The caster's own body is ignored. `edge_gap(yaw)`, when given, is a
    second limit on each gap (the simulation passes the distance to the navmesh edge, which also sees
    ledges that no box cast can).
    """
    half = (SLAB, body_radius + skin, 0.5 * (height - lift))
    narrow = (SLAB, body_radius, half[2])
    center = np.array([feet[0], feet[1], feet[2] + lift + half[2]])

    def cast(heading: float) -> tuple[float, int]:
        gap, nudge = _cast_gap(world, half, narrow, center, heading, reach, body, mask)
        return (gap if edge_gap is None else min(gap, edge_gap(heading))), nudge

    forward, nudge = cast(yaw)
    if forward >= obstacle_range:
        return ObstacleProbe(time, forward, nudge=nudge)
    left, _ = cast(yaw + math.pi / 2)
    right, _ = cast(yaw - math.pi / 2)
    return ObstacleProbe(time, forward, left, right, nudge)


# -- obstacle probes of many NPCs at once -----------------------------------------------------------------
EdgeGaps = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""`edge_gaps(origins (k, 3) [m], headings (k,) [rad], reach (k,) [m]) -> (k,) gaps [m]`: a second limit on
each probe gap (inf where nothing limits it); `navmesh_edge_gaps` makes the simulation's."""


@dataclass(frozen=True)
class ObstacleProbes:
    """The obstacle probes of m NPCs cast together (`probe_obstacles_many`); row i holds what
    `probe_obstacles` returns for NPC i (`probe(i)` gives that `ObstacleProbe`).

    Attributes:
        time: when they were cast [s].
        forward: (m,) free gap ahead of each body [m] (inf when nothing is within the probe range).
        left, right: (m,) free gaps at +90 and -90 degrees [m]; NaN where the sides were not cast.
        nudge: (m,) int64: +1 / -1 when the skin of the forward box touched something on the right / left
            at the start, else 0 (see `ObstacleProbe`).
    """

    time: float
    forward: np.ndarray
    left: np.ndarray
    right: np.ndarray
    nudge: np.ndarray

    def __len__(self) -> int:
        return int(self.forward.shape[0])

    def probe(self, i: int) -> ObstacleProbe:
        """Row i as the `ObstacleProbe` `probe_obstacles` returns (left and right None when not cast)."""
        forward, nudge = float(self.forward[i]), int(self.nudge[i])
        if math.isnan(self.left[i]):
            return ObstacleProbe(self.time, forward, nudge=nudge)
        return ObstacleProbe(self.time, forward, float(self.left[i]), float(self.right[i]), nudge)


def probe_obstacles_many(
    world: World,
    *,
    bodies: ArrayLike,
    feet: ArrayLike,
    yaws: ArrayLike,
    body_radius: float | np.ndarray,
    height: float | np.ndarray,
    skin: float | np.ndarray,
    reach: float | np.ndarray,
    obstacle_range: float | np.ndarray,
    time: float,
    lift: float = 0.3,
    mask: int = groups.STATIC | groups.NPC,
    edge_gaps: EdgeGaps | None = None,
) -> ObstacleProbes:
    """`probe_obstacles` for m NPCs at once, row for row the same gaps and nudges: every forward box cast
    in one `World.box_casts`, the narrower re-casts of those that started in contact in another, then the
    +-90 degree casts of the NPCs whose forward gap (edge gap included) is below their `obstacle_range`
    (and their re-casts). `edge_gaps`, when given, is called once, for the forward and both side headings
    of every NPC (3m rows: the side gaps are computed whether or not the sides are cast). One NPC too: its
    casts cost as many calls as `probe_obstacles` makes, or fewer (both sides in one).

    Args:
        bodies: (m,) the NPCs' body ids (each cast ignores its own). feet: (m, 3) feet positions [m].
        yaws: (m,) headings [rad]. body_radius, height: capsule radius and height [m, > 0], one for all or
            (m,). skin: box width added on each side [m, >= 0]; reach: probe range [m, > 0];
            obstacle_range: a forward gap below it casts the sides [m, >= 0]; each one for all or (m,).
        time: when they are cast [s]. lift: the boxes start this far above the feet [m, < height].
        mask: groups the boxes may hit. edge_gaps: see `EdgeGaps` (origins are the feet).
    Raises:
        PerceptionError: arrays of the wrong shape, non-finite numbers, sizes out of range, a wrong
            `edge_gaps` answer.
    """
    f = _rows(feet, "feet") if np.size(feet) else np.zeros((0, 3))
    m = len(f)
    ids = np.asarray(bodies)
    if ids.shape != (m,) or ids.dtype.kind not in "iu":
        raise PerceptionError(f"bodies must be ({m},) body ids (one per row of feet), got {bodies!r}")
    if np.ndim(yaws) != 1:
        raise PerceptionError(f"yaws must be ({m},) finite numbers of radians, got {yaws!r}")
    yaw = _per_npc(yaws, m, "yaws", -math.inf, "be finite numbers of radians")
    radius = _per_npc(body_radius, m, "body_radius", 0.0, "be a number of metres > 0")
    tall = _per_npc(height, m, "height", lift, f"be a number of metres > lift ({lift})")
    pad = _per_npc(skin, m, "skin", 0.0, "be a number of metres >= 0", or_equal=True)
    far = _per_npc(reach, m, "reach", 0.0, "be a number of metres > 0")
    near = _per_npc(obstacle_range, m, "obstacle_range", 0.0, "be a number of metres >= 0", or_equal=True)
    if m == 0:
        return ObstacleProbes(float(time), np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int64))
    heading = np.concatenate([yaw, yaw + math.pi / 2, yaw - math.pi / 2])  # ahead, left, right of each row
    limit = None
    if edge_gaps is not None:  # every heading in one call (a side gap unused is cheaper than a second call)
        three = np.concatenate([far, far, far])
        limit = _edge_gaps(edge_gaps, np.concatenate([f, f, f]), heading, three)
    half = np.empty((m, 3))
    half[:, 0], half[:, 1], half[:, 2] = SLAB, radius + pad, 0.5 * (tall - lift)
    center = f.copy()
    center[:, 2] = f[:, 2] + lift + half[:, 2]
    forward, nudge = _cast_gaps(world, half, radius, center, yaw, far, ids, mask, nudges=True)
    if limit is not None:
        forward = np.minimum(forward, limit[:m])
    left, right = np.full(m, np.nan), np.full(m, np.nan)
    sides = (forward < near).nonzero()[0]
    if sides.size:
        two = np.concatenate([sides, sides])  # the left casts of these rows, then their right casts
        turn = np.concatenate([sides + m, sides + 2 * m])
        gaps, _ = _cast_gaps(
            world, half[two], radius[two], center[two], heading[turn], far[two], ids[two], mask, nudges=False
        )
        if limit is not None:
            gaps = np.minimum(gaps, limit[turn])
        left[sides], right[sides] = gaps[: sides.size], gaps[sides.size :]
    return ObstacleProbes(float(time), forward, left, right, nudge)


def _per_npc(
    value: object, n: int, name: str, low: float, rule: str, *, or_equal: bool = False
) -> np.ndarray:
    """(n,) float64 from one finite number for all rows or (n,) of them, each > `low` (>= when
    `or_equal`); PerceptionError naming `name` and the `rule` otherwise."""
    if type(value) is float or type(value) is int:  # one setting for every row: the common case, kept cheap
        v = float(value)
        if not (math.isfinite(v) and (v > low or (or_equal and v == low))):
            raise PerceptionError(f"{name} must {rule}, got {value!r}")
        return np.full(n, v)
    if type(value) is np.ndarray and value.dtype == np.float64:
        arr = value
    else:
        arr = np.asarray(value, dtype=np.float64) if _is_numbers(value) else np.full(1, np.nan)
    if arr.ndim > 1 or (arr.ndim == 1 and arr.shape[0] != n):
        raise PerceptionError(f"{name} must be a number or ({n},) numbers, got shape {arr.shape}")
    if arr.size:
        least, most = np.minimum.reduce(arr, axis=None), np.maximum.reduce(arr, axis=None)
        if not ((least > low or (or_equal and least == low)) and most < math.inf):  # False for NaN
            raise PerceptionError(f"{name} must {rule}, got {value!r}")
    return arr if arr.ndim == 1 else np.full(n, float(arr))


def _is_numbers(value: object) -> bool:
    try:
        return np.asarray(value).dtype.kind in "iuf"
    except Exception:  # an odd object that fails on conversion is not numbers
        return False


def _cast_gaps(
    world: World,
    half: np.ndarray,
    radius: np.ndarray,
    center: np.ndarray,
    heading: np.ndarray,
    reach: np.ndarray,
    bodies: np.ndarray,
    mask: int,
    *,
    nudges: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """`_cast_gap` for k rows: (k,) free gaps [m] (inf: no hit), (k,) nudges (zeros unless `nudges`).
    The rows whose box started in contact are cast again, narrower, in a second call (the closed-form
    casts cost per row: casting every row both ways would double them for a rare retry)."""
    turn = heading.tolist()
    behind = radius - SLAB  # the slabs start this far behind the capsules' fronts [m]
    end = _ahead(center, turn, reach + behind)
    hits = world.box_casts(half, center, end, yaws=heading, mask=mask, ignore=bodies)
    nudge = np.zeros(len(turn), dtype=np.int64)
    again = (hits.hit & hits.started_in_contact).nonzero()[0]
    gap = np.where(hits.hit, np.maximum(0.0, hits.distance - behind), math.inf)
    if again.size == 0:
        return gap, nudge
    if nudges:  # as `_cast_gap`: the side of the touch, from the normal (obstacle -> body)
        for i in again.tolist():
            left = np.array([-math.sin(turn[i]), math.cos(turn[i]), 0.0])
            nudge[i] = 1 if float(hits.normal[i] @ left) >= 0 else -1
    narrow = half[again].copy()
    narrow[:, 1] = radius[again]
    redo = world.box_casts(
        narrow, center[again], end[again], yaws=heading[again], mask=mask, ignore=bodies[again]
    )
    gap[again] = np.where(redo.hit, np.maximum(0.0, redo.distance - behind[again]), math.inf)
    return gap, nudge


def _edge_gaps(
    edge_gaps: EdgeGaps, origins: np.ndarray, heading: np.ndarray, reach: np.ndarray
) -> np.ndarray:
    out = np.asarray(edge_gaps(origins, heading, reach), dtype=np.float64)
    if out.shape != heading.shape or np.isnan(out).any():
        raise PerceptionError(f"edge_gaps must return ({len(heading)},) gaps [m], got {out!r}")
    return out


def navmesh_edge_gaps(query: NavMeshQuery) -> EdgeGaps:
    """The `edge_gaps` of `probe_obstacles_many` from a navmesh: per row, how far [m] the mesh goes from
    origins[i] along headings[i] within reach[i], by one `NavMeshQuery.raycast_many` for all rows. The rule
    of `Simulation._mesh_gap`: inf when the start is off the mesh or the whole ray stays on it, else the
    fraction walked times the reach (a wall edge, a ledge or a drop stops the walk)."""

    def gaps(origins: np.ndarray, headings: np.ndarray, reach: np.ndarray) -> np.ndarray:
        hits = query.raycast_many(origins, _ahead(origins, headings.tolist(), reach))
        return np.where(hits.status == raycasts.PARTIAL, hits.fraction * reach, math.inf)

    return gaps


def _ahead(points: np.ndarray, headings: list[float], reach: np.ndarray) -> np.ndarray:
    """(k, 3) points[i] + reach[i] * (cos, sin, 0) of headings[i] [m], with the float operations of
    `points[i] + np.array([math.cos(h), math.sin(h), 0.0]) * reach[i]` (math's cos and sin)."""
    out = np.empty_like(points)
    turn = np.array([(math.cos(t), math.sin(t)) for t in headings]).reshape(-1, 2)
    out[:, :2] = points[:, :2] + turn * reach[:, None]
    out[:, 2] = points[:, 2] + 0.0
    return out
