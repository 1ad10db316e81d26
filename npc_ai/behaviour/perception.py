"""What NPCs sense: pure, vectorised perception maths plus a thin shell that batches the PyBullet work.

The pure functions work on whole arrays (every eye against every target at once) and know nothing of
PyBullet. `Perception` is the stateful shell the simulation calls once per tick: it picks the NPCs whose
staggered perception timer fires, gathers candidate targets with an overlap query on the character layer,
keeps the pairs inside each view cone, and casts all their line-of-sight rays in one batch. The obstacle
probes of wandering NPCs (box casts) are in `npc_ai.behaviour.probes`.

Conventions: world Z-up, metres, radians unless a name ends in `_deg`; yaw 0 faces +X.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from navigation.angles import wrap_angle
from npc_ai.errors import NpcAiError
from scenes import World, groups

EYE_CLEARANCE = 0.02  # [m] eye rays start this far outside the caster's capsule
RAY_OVERSHOOT = 0.5  # [m] line-of-sight rays end this far past the aim point (to reach the surface)


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


@njit(cache=True)
def _inside(
    ex: float, ey: float, ez: float, fx: float, fy: float, fz: float, tx: float, ty: float, tz: float,
    r: float, c: float,
) -> bool:  # fmt: skip
    """Is the point t inside the cone of the eye e looking along f (any length > 0), radius r [m],
    cosine of the half angle c? (A point at the eye is inside.)"""
    dx, dy, dz = tx - ex, ty - ey, tz - ez
    dist2 = dx * dx + dy * dy + dz * dz
    if dist2 > r * r:
        return False
    if dist2 == 0.0:
        return True
    # cos(angle) >= c  <=>  dot >= c * dist * |f| (dist > 0); compare without dividing
    dot = dx * fx + dy * fy + dz * fz
    return dot >= c * math.sqrt(dist2) * math.sqrt(fx * fx + fy * fy + fz * fz) - 1e-12


@njit(cache=True)
def _cone_mask(e: np.ndarray, f: np.ndarray, t: np.ndarray, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    out = np.zeros((e.shape[0], t.shape[0]), dtype=np.bool_)
    for i in range(e.shape[0]):
        for j in range(t.shape[0]):
            out[i, j] = _inside(
                e[i, 0], e[i, 1], e[i, 2], f[i, 0], f[i, 1], f[i, 2], t[j, 0], t[j, 1], t[j, 2], r[i], c[i]
            )
    return out


def _in_view_cone(e: np.ndarray, f: np.ndarray, t: np.ndarray, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    """`in_view_cone` of checked arrays: eyes (n, 3), forwards (n, 3), targets (m, 3), radii and cosines
    (n,)."""
    return _cone_mask(
        np.ascontiguousarray(e), np.ascontiguousarray(f), np.ascontiguousarray(t),
        np.ascontiguousarray(r), np.ascontiguousarray(c),
    )  # fmt: skip


@njit(cache=True)
def _eye_ray(
    ex: float,
    ey: float,
    ez: float,
    tx: float,
    ty: float,
    tz: float,
    clearance: float,
    out: np.ndarray,
    k: int,
) -> None:
    """Row k of `out` (p, 3): the start of the line-of-sight ray from e to t, `clearance` [m] from the eye
    along the ray (at most the whole way)."""
    dx, dy, dz = tx - ex, ty - ey, tz - ez
    n = math.sqrt(dx * dx + dy * dy + dz * dz)
    step = min(clearance, n)
    if n > 0.0:
        dx, dy, dz = dx / n, dy / n, dz / n
    else:
        dx, dy, dz = 0.0, 0.0, 0.0
    out[k, 0], out[k, 1], out[k, 2] = ex + dx * step, ey + dy * step, ez + dz * step


@njit(cache=True)
def _eye_rays(e: np.ndarray, t: np.ndarray, c: np.ndarray) -> np.ndarray:
    out = np.empty((e.shape[0], 3))
    for k in range(e.shape[0]):
        _eye_ray(e[k, 0], e[k, 1], e[k, 2], t[k, 0], t[k, 1], t[k, 2], c[k], out, k)
    return out


@njit(cache=True)
def _sight_rays(
    eyes: np.ndarray, yaws: np.ndarray, clearances: np.ndarray, radii: np.ndarray, cos_half: np.ndarray,
    pts: np.ndarray, lo: np.ndarray, hi: np.ndarray, wanted: np.ndarray, overshoot: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The line-of-sight rays of `Perception.see`: for each (eye i, target j) pair whose target is wanted,
    whose AABB [lo, hi] overlaps the box of half size radii[i] around the eye, and which lies inside the
    eye's view cone: the pair (p, 2), the ray start (p, 3) `clearances[i]` out from the eye and the ray end
    (p, 3), `overshoot` [m] past the aim point."""
    n, m = eyes.shape[0], pts.shape[0]
    pairs = np.empty((n * m, 2), dtype=np.int64)
    p = 0
    for i in range(n):
        ex, ey, ez, r = eyes[i, 0], eyes[i, 1], eyes[i, 2], radii[i]
        fx, fy = math.cos(yaws[i]), math.sin(yaws[i])
        for j in range(m):
            if not wanted[j]:
                continue
            if not (lo[j, 0] <= ex + r and lo[j, 1] <= ey + r and lo[j, 2] <= ez + r):
                continue
            if not (hi[j, 0] >= ex - r and hi[j, 1] >= ey - r and hi[j, 2] >= ez - r):
                continue
            if _inside(ex, ey, ez, fx, fy, 0.0, pts[j, 0], pts[j, 1], pts[j, 2], r, cos_half[i]):
                pairs[p, 0], pairs[p, 1] = i, j
                p += 1
    starts, ends = np.empty((p, 3)), np.empty((p, 3))
    for k in range(p):
        i, j = pairs[k, 0], pairs[k, 1]
        _eye_ray(
            eyes[i, 0], eyes[i, 1], eyes[i, 2], pts[j, 0], pts[j, 1], pts[j, 2], clearances[i], starts, k
        )
        dx, dy, dz = pts[j, 0] - starts[k, 0], pts[j, 1] - starts[k, 1], pts[j, 2] - starts[k, 2]
        length = max(math.sqrt(dx * dx + dy * dy + dz * dz), 1e-9)
        ends[k, 0] = pts[j, 0] + dx / length * overshoot
        ends[k, 1] = pts[j, 1] + dy / length * overshoot
        ends[k, 2] = pts[j, 2] + dz / length * overshoot
    return pairs[:p], starts, ends


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
    c = np.ascontiguousarray(np.broadcast_to(np.asarray(clearance, dtype=np.float64), (len(e),)))
    return _eye_rays(np.ascontiguousarray(e), np.ascontiguousarray(t), c), t


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
        # candidates: targets (of the wanted groups) whose AABB overlaps the box around each eye (the test
        # an overlap query makes, one AABB read per target), inside the eye's view cone; one ray batch for
        # every such (viewer, target) pair, rays ending a little past the aim point to reach the surface
        lo, hi = self.world.aabbs(ids.tolist())
        wanted = np.array([bool(self.world.groups.get(int(b), groups.PROP) & target_groups) for b in ids])
        pairs, starts, ends = _sight_rays(
            np.ascontiguousarray(eyes, dtype=np.float64), np.ascontiguousarray(yaws, dtype=np.float64),
            np.ascontiguousarray(clearances, dtype=np.float64), np.ascontiguousarray(radii, dtype=np.float64),
            np.ascontiguousarray(cos_half_angles, dtype=np.float64), pts, lo, hi, wanted, RAY_OVERSHOOT,
        )  # fmt: skip
        if len(pairs) == 0:
            return seen, ids, pts
        hits = self.world.ray_test(starts, ends, mask=self.mask | target_groups)
        self.rays_cast += len(pairs)
        self.batches += 1
        hit = hits.body == ids[pairs[:, 1]]
        seen[pairs[hit, 0], pairs[hit, 1]] = True
        return seen, ids, pts
