"""What NPCs sense: pure, vectorised perception maths plus a thin shell that batches the PyBullet work.

The pure functions work on whole arrays (every eye against every target at once) and know nothing of
PyBullet. `Perception` is the stateful shell the simulation calls once per tick: it picks the NPCs whose
staggered perception timer fires, gathers candidate targets with an overlap query on the character layer,
keeps the pairs inside each view cone, and casts all their line-of-sight rays in one batch. The obstacle
probes of wandering NPCs are box casts: `probe_obstacles` for one NPC, `probe_obstacles_many` for all the
NPCs due in a tick, with the same answers row for row.

Conventions: world Z-up, metres, radians unless a name ends in `_deg`; yaw 0 faces +X.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from navigation import raycasts
from navigation.angles import wrap_angle
from npc_ai.errors import NpcAiError
from scenes import World, groups

if TYPE_CHECKING:
    from navigation.query import NavMeshQuery

EYE_CLEARANCE = 0.02  # [m] eye rays start this far outside the caster's capsule


class PerceptionError(NpcAiError, ValueError):
    """Arrays of the wrong shape or non-finite values were given to a perception function."""


def _rows(a: object, name: str) -> np.ndarray:
    arr = np.asarray(a, dtype=np.float64)
    if arr.ndim == 1 and arr.shape[0] == 3:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise PerceptionError(f"{name} must be an (n, 3) array of points [m], got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise PerceptionError(f"{name} must be finite")
    return arr


def forward_from_yaw(yaw: np.ndarray) -> np.ndarray:
    """(n, 3) horizontal unit forward vectors of headings `yaw` (n,) [rad]."""
    y = np.asarray(yaw, dtype=np.float64).reshape(-1)
    return np.column_stack([np.cos(y), np.sin(y), np.zeros_like(y)])


def _per_eye(value: object, n: int, name: str, lo: float, hi: float, rule: str) -> np.ndarray:
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim > 1 or (arr.ndim == 1 and arr.shape[0] != n):
        raise PerceptionError(f"{name} must be a number or ({n},) numbers, got shape {arr.shape}")
    if not (np.isfinite(arr).all() and (arr >= lo).all() and (arr <= hi).all()):
        raise PerceptionError(f"{name} must {rule}, got {value!r}")
    return np.broadcast_to(arr, (n,))


def in_view_cone(
    eye: np.ndarray,
    forward: np.ndarray,
    targets: np.ndarray,
    radius: float | np.ndarray,
    cos_half_angle: float | np.ndarray,
) -> np.ndarray:
    """Which targets lie inside each eye's view cone.

    A target is inside when its distance from the eye is at most `radius` and the angle between `forward`
    and the direction to it is at most the half angle (cosine >= `cos_half_angle`). A target exactly at the
    eye counts as inside. This is the function the simulation's perception runs.

    Args:
        eye: (n, 3) eye positions [m]. forward: (n, 3) forward vectors (any length > 0).
        targets: (m, 3) target positions [m].
        radius: view distance [m, >= 0], one for all eyes or (n,).
        cos_half_angle: cosine of the half angle [-1..1], one for all eyes or (n,).
    Returns:
        (n, m) bool mask.
    """
    e, f, t = _rows(eye, "eye"), _rows(forward, "forward"), _rows(targets, "targets")
    if len(f) != len(e):
        raise PerceptionError(f"eye and forward must have the same rows, got {len(e)} and {len(f)}")
    r = _per_eye(radius, len(e), "radius", 0.0, math.inf, "be a number of metres >= 0")
    c = _per_eye(cos_half_angle, len(e), "cos_half_angle", -1.0, 1.0, "lie in [-1, 1]")
    return _in_view_cone(e, f, t, r, c)


def _in_view_cone(e: np.ndarray, f: np.ndarray, t: np.ndarray, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    """`in_view_cone` of checked arrays: eyes (n, 3), forwards (n, 3), targets (m, 3), radii and cosines
    (n,) (what `Perception.sense` builds itself, every tick)."""
    d = t[None, :, :] - e[:, None, :]  # (n, m, 3)
    dist2 = np.einsum("nmk,nmk->nm", d, d)
    inside = dist2 <= (r * r)[:, None]
    dot = np.einsum("nmk,nk->nm", d, f)
    dist = np.sqrt(dist2)
    # cos(angle) >= c  <=>  dot >= c * dist * |f| (dist > 0); compare without dividing
    in_angle = dot >= c[:, None] * dist * np.linalg.norm(f, axis=1)[:, None] - 1e-12
    return inside & (in_angle | (dist2 == 0.0))


def within_range(a: np.ndarray, b: np.ndarray, radius: np.ndarray | float) -> np.ndarray:
    """(n, m) bool: is point b[j] within `radius` [m] (scalar or (n,)) of point a[i]?"""
    pa, pb = _rows(a, "a"), _rows(b, "b")
    r = np.broadcast_to(np.asarray(radius, dtype=np.float64), (len(pa),))
    d = pb[None, :, :] - pa[:, None, :]
    return np.einsum("nmk,nmk->nm", d, d) <= (r * r)[:, None]


def heard(
    listeners: np.ndarray, noises: np.ndarray, loudness: np.ndarray, hearing_range: np.ndarray | float
) -> np.ndarray:
    """(n, k) bool: does listener i hear noise j? Heard when distance^2 <= (hearing_range_i * loudness_j)^2.

    Args:
        listeners: (n, 3) ear positions [m]. noises: (k, 3) noise positions [m].
        loudness: (k,) loudness [>= 0, 1 = normal]. hearing_range: scalar or (n,) hearing range [m].
    """
    pl, pn = _rows(listeners, "listeners"), _rows(noises, "noises") if len(noises) else np.zeros((0, 3))
    loud = np.asarray(loudness, dtype=np.float64).reshape(-1)
    if loud.shape != (len(pn),) or not np.isfinite(loud).all() or (loud < 0).any():
        raise PerceptionError(f"loudness must be ({len(pn)},) numbers >= 0, got {loudness!r}")
    r = np.broadcast_to(np.asarray(hearing_range, dtype=np.float64), (len(pl),))
    d = pn[None, :, :] - pl[:, None, :]
    reach = r[:, None] * loud[None, :]
    return np.einsum("nmk,nmk->nm", d, d) <= reach * reach


def eye_rays(
    eyes: np.ndarray, targets: np.ndarray, clearance: np.ndarray | float
) -> tuple[np.ndarray, np.ndarray]:
    """Start and end points of line-of-sight rays from eyes[i] to targets[i] (both (p, 3)).

    Each ray starts `clearance` [m] (scalar or (p,)) from the eye along its own direction, so a ray never
    starts inside the caster's capsule (PyBullet may report a hit at fraction 0 on a body a ray starts in).
    """
    e, t = _rows(eyes, "eyes"), _rows(targets, "targets")
    if len(e) != len(t):
        raise PerceptionError(f"eyes and targets must have the same rows, got {len(e)} and {len(t)}")
    d = t - e
    n = np.linalg.norm(d, axis=1, keepdims=True)
    unit = np.divide(d, n, out=np.zeros_like(d), where=n > 0)
    c = np.broadcast_to(np.asarray(clearance, dtype=np.float64), (len(e),))[:, None]
    return e + unit * np.minimum(c, n), t


def heading_error(yaw: np.ndarray, origins: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """(n,) absolute angle [rad, 0..pi] between heading yaw[i] and the horizontal direction origins[i] ->
    targets[i]."""
    o, t = _rows(origins, "origins"), _rows(targets, "targets")
    want = np.arctan2(t[:, 1] - o[:, 1], t[:, 0] - o[:, 0])
    return np.abs(wrap_angle(want - np.asarray(yaw, dtype=np.float64)))


# -- the stateful shell ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Viewer:
    """One NPC as perception sees it this tick (built by the simulation).

    Attributes:
        eye: (3,) eye position [m]. yaw: facing [rad]. body: its capsule's body id.
        clearance: capsule radius + EYE_CLEARANCE [m]. radius: current sight radius [m] (the lose-sight
            radius while it holds a target). cos_half_angle: cosine of its view half angle.
    """

    eye: np.ndarray
    yaw: float
    body: int
    clearance: float
    radius: float
    cos_half_angle: float


@dataclass(frozen=True)
class Sighting:
    """What one viewer saw at one perception tick: the target bodies it sees, with their aim points."""

    visible: dict[int, np.ndarray]


class Perception:
    """Staggered, batched sight for many viewers.

    Args:
        world: the world to query. period_ticks: each viewer perceives once every this many ticks; viewer i
            fires on ticks where `(tick + i) % period_ticks == 0`, so the work is spread evenly.
        mask: groups a line-of-sight ray may be blocked by (the target's own group is added).
    """

    def __init__(
        self,
        world: World,
        *,
        period_ticks: int = 6,
        mask: int = groups.STATIC | groups.CHARACTERS,
    ) -> None:
        if not (isinstance(period_ticks, int) and period_ticks >= 1):
            raise PerceptionError(f"period_ticks must be an integer >= 1, got {period_ticks!r}")
        self.world = world
        self.period_ticks = period_ticks
        self.mask = mask
        self.rays_cast = 0
        self.batches = 0

    def due(self, index: int, tick: int) -> bool:
        """Does viewer `index` perceive on world tick `tick`?"""
        return (tick + index) % self.period_ticks == 0

    def sense(
        self,
        viewers: Sequence[Viewer],
        targets: dict[int, np.ndarray],
        target_groups: int = groups.PLAYER,
    ) -> list[Sighting]:
        """`see` for a list of viewers, one `Sighting` per viewer, in order.

        Args:
            viewers: the NPCs perceiving this tick.
            targets: body id -> aim point [m] of every body that may be seen.
            target_groups: the collision groups the candidate overlap query looks in.
        """
        out: list[Sighting] = [Sighting({}) for _ in viewers]
        if not viewers or not targets:
            return out
        seen, ids, pts = self.see(
            np.array([v.eye for v in viewers]),
            np.array([v.yaw for v in viewers]),
            np.array([v.clearance for v in viewers]),
            np.array([v.radius for v in viewers]),
            np.array([v.cos_half_angle for v in viewers]),
            targets,
            target_groups,
        )
        for i, j in np.argwhere(seen):
            out[i].visible[int(ids[j])] = pts[j].copy()
        return out

    def see(
        self,
        eyes: np.ndarray,
        yaws: np.ndarray,
        clearances: np.ndarray,
        radii: np.ndarray,
        cos_half_angles: np.ndarray,
        targets: dict[int, np.ndarray],
        target_groups: int = groups.PLAYER,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Line of sight from n eyes to every target in their cones, with one ray batch for all.

        Args:
            eyes: (n, 3) eye positions [m]. yaws: (n,) facings [rad]. clearances: (n,) how far outside
                its capsule each eye ray starts [m]. radii: (n,) current sight radii [m].
            cos_half_angles: (n,) cosines of the view half angles.
            targets: body id -> aim point [m] of every body that may be seen.
            target_groups: the collision groups the candidate overlap query looks in.
        Returns:
            (n, m) bool: eye i sees target j; (m,) the target body ids; (m, 3) their aim points [m].
        """
        m = len(targets)
        ids = np.fromiter(targets, dtype=np.int64, count=m)
        pts = np.array([targets[int(b)] for b in ids], dtype=np.float64).reshape(m, 3)
        seen = np.zeros((len(eyes), m), dtype=bool)
        if len(eyes) == 0 or m == 0:
            return seen, ids, pts
        # 1. candidates: targets (of the wanted groups) whose AABB overlaps the box around each eye, the
        # test an overlap query makes, in numpy: one AABB read per target, not one query per viewer
        lo, hi = self.world.aabbs(ids.tolist())
        wanted = np.array([bool(self.world.groups.get(int(b), groups.PROP) & target_groups) for b in ids])
        box = radii[:, None, None]
        cand = (lo[None] <= eyes[:, None] + box).all(axis=2) & (hi[None] >= eyes[:, None] - box).all(axis=2)
        cand &= wanted[None]
        if not cand.any():
            return seen, ids, pts
        # 2. view cones, all viewers at once
        cone = _in_view_cone(eyes, forward_from_yaw(yaws), pts, radii, cos_half_angles)
        pairs = np.argwhere(cand & cone)
        if len(pairs) == 0:
            return seen, ids, pts
        # 3. one ray batch for every remaining (viewer, target) pair
        starts, ends = eye_rays(eyes[pairs[:, 0]], pts[pairs[:, 1]], clearances[pairs[:, 0]])
        # rays end a little past the aim point so they reach the target's surface
        direction = ends - starts
        length = np.linalg.norm(direction, axis=1, keepdims=True)
        ends = ends + direction / np.maximum(length, 1e-9) * 0.5
        hits = self.world.ray_test(starts, ends, mask=self.mask | target_groups)
        self.rays_cast += len(pairs)
        self.batches += 1
        hit = hits.body == ids[pairs[:, 1]]
        seen[pairs[hit, 0], pairs[hit, 1]] = True
        return seen, ids, pts


# -- obstacle probes (box casts) ------------------------------------------------------------------------
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
    end = center + direction * reach
    hit = world.box_cast(half, center, end, yaw=yaw, mask=mask, ignore=[body])
    nudge = 0
    if hit.hit and hit.started_in_contact:
        # the skin already touches something beside the body: note the side (the normal points from the
        # obstacle toward the body), then cast again with the body's own width
        left = np.array([-math.sin(yaw), math.cos(yaw), 0.0])
        nudge = 1 if float(hit.normal @ left) >= 0 else -1
        hit = world.box_cast(narrow, center, end, yaw=yaw, mask=mask, ignore=[body])
    return (float(hit.distance) if hit.hit else math.inf), nudge


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

    The box starts at the body's centre with half depth `body_radius`, so a returned distance is the free
    gap in front of the capsule. The caster's own body is ignored. `edge_gap(yaw)`, when given, is a
    second limit on each gap (the simulation passes the distance to the navmesh edge, which also sees
    ledges that no box cast can).
    """
    half = (body_radius, body_radius + skin, 0.5 * (height - lift))
    narrow = (body_radius, body_radius, half[2])
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
SMALL_BATCH = 3
"""`probe_obstacles_many` probes this many NPCs or fewer one by one (`probe_obstacles`: the same answers),
the edge gaps still from one `edge_gaps` call: in a running simulation (caches cold after physics) the
batched casts' fixed costs (array checks, arrays of results) outweigh what they save up to three or four
NPCs (measured with `python -m npc_ai.bench.probes` and by forcing group sizes, warehouse, 100 NPCs)."""

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
    (and their re-casts); up to `SMALL_BATCH` NPCs by `probe_obstacles` itself. `edge_gaps`, when given,
    is called once, for the forward and both side headings of every NPC (3m rows: the side gaps are
    computed whether or not the sides are cast).

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
    if m <= SMALL_BATCH:
        rows = (f, yaw, radius, tall, pad, far, near, ids)
        return _one_by_one(world, rows, heading, limit, float(time), lift, mask)
    half = np.empty((m, 3))
    half[:, 0], half[:, 1], half[:, 2] = radius, radius + pad, 0.5 * (tall - lift)
    center = f.copy()
    center[:, 2] = f[:, 2] + lift + half[:, 2]
    forward, nudge = _cast_gaps(world, half, center, yaw, far, ids, mask, nudges=True)
    if limit is not None:
        forward = np.minimum(forward, limit[:m])
    left, right = np.full(m, np.nan), np.full(m, np.nan)
    sides = (forward < near).nonzero()[0]
    if sides.size:
        two = np.concatenate([sides, sides])  # the left casts of these rows, then their right casts
        turn = np.concatenate([sides + m, sides + 2 * m])
        gaps, _ = _cast_gaps(
            world, half[two], center[two], heading[turn], far[two], ids[two], mask, nudges=False
        )
        if limit is not None:
            gaps = np.minimum(gaps, limit[turn])
        left[sides], right[sides] = gaps[: sides.size], gaps[sides.size :]
    return ObstacleProbes(float(time), forward, left, right, nudge)


def _one_by_one(
    world: World,
    rows: tuple[np.ndarray, ...],
    heading: np.ndarray,
    limit: np.ndarray | None,
    time: float,
    lift: float,
    mask: int,
) -> ObstacleProbes:
    """`probe_obstacles_many` of at most `SMALL_BATCH` NPCs: `probe_obstacles` for each, its edge gaps
    read from `limit` (the gaps of `heading`: ahead, left and right of every row, from one call)."""
    f, yaw, radius, tall, pad, far, near, ids = rows
    m = len(f)
    out = np.full((4, m), np.nan)
    for i in range(m):
        gaps = {} if limit is None else dict(zip(heading[i::m].tolist(), limit[i::m].tolist(), strict=True))
        probe = probe_obstacles(
            world,
            body=int(ids[i]),
            feet=f[i],
            yaw=float(yaw[i]),
            body_radius=float(radius[i]),
            height=float(tall[i]),
            skin=float(pad[i]),
            reach=float(far[i]),
            obstacle_range=float(near[i]),
            time=time,
            lift=lift,
            mask=mask,
            edge_gap=None if limit is None else gaps.__getitem__,
        )
        out[0, i], out[3, i] = probe.forward, probe.nudge
        if probe.left is not None and probe.right is not None:
            out[1, i], out[2, i] = probe.left, probe.right
    return ObstacleProbes(time, out[0], out[1], out[2], out[3].astype(np.int64))


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
    center: np.ndarray,
    heading: np.ndarray,
    reach: np.ndarray,
    bodies: np.ndarray,
    mask: int,
    *,
    nudges: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """`_cast_gap` for k rows: (k,) free gaps [m] (inf: no hit), (k,) nudges (zeros unless `nudges`)."""
    turn = heading.tolist()
    end = _ahead(center, turn, reach)
    hits = world.box_casts(half, center, end, yaws=heading, mask=mask, ignore=bodies)
    nudge = np.zeros(len(turn), dtype=np.int64)
    again = (hits.hit & hits.started_in_contact).nonzero()[0]
    gap = np.where(hits.hit, hits.distance, math.inf)
    if again.size == 0:
        return gap, nudge
    if nudges:  # as `_cast_gap`: the side of the touch, from the normal (obstacle -> body)
        for i in again.tolist():
            left = np.array([-math.sin(turn[i]), math.cos(turn[i]), 0.0])
            nudge[i] = 1 if float(hits.normal[i] @ left) >= 0 else -1
    narrow = half[again].copy()
    narrow[:, 1] = narrow[:, 0]
    redo = world.box_casts(
        narrow, center[again], end[again], yaws=heading[again], mask=mask, ignore=bodies[again]
    )
    gap[again] = np.where(redo.hit, redo.distance, math.inf)
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
