"""A PyBullet world built from a scene: one client, a fixed-step clock, a seeded RNG, cached poses.

The world is the thin stateful shell around one physics client. It owns the client (or is handed one),
the scene's static bodies, the character bodies added to it, a `numpy.random.Generator` that is the only
source of randomness, and an event log. It satisfies `navigation.RaySource` structurally (without importing
`navigation`), so a navmesh can be baked from it.

`World.pybullet_calls` counts the physics-client calls the world's methods make, by kind (the PyBullet
function name): one `+=` per method call and kind, not one per body in the per-tick paths (step, pose
reads, velocity writes, rays), so it costs nothing measurable.
Building the level (`scenes.build`) and PyBullet's math helpers (`getQuaternionFromEuler`) are not counted.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, deque
from collections.abc import Iterable
from contextlib import nullcontext
from itertools import repeat

import numpy as np

from scenes import depenetration, groups, poses
from scenes._bullet import Client, collector_paused, new_client
from scenes._bullet import pybullet as pb
from scenes.boxcast import BoxCastHit, BoxCastHits, CastRows, as_point, box_shape, cast_rows
from scenes.build import build_static, static_boxes
from scenes.casts import CastTables, Tables, closed_casts, sweep_rows
from scenes.errors import WorldError
from scenes.events import EventLog
from scenes.model import Scene
from scenes.poses import PoseCache
from scenes.raycast import RayHits, hidden_from_rays, ray_test
from scenes.settings import WorldSettings
from scenes.static_rays import StaticRays

_HUGE_INERTIA = 1e9  # [kg m^2] about x and y, so capsules stay upright without resets
_STILL = (0.0, 0.0, 0.0)  # [rad/s] the angular velocity `set_velocities` gives


class World:
    """One PyBullet client holding one scene.

    Args:
        scene: the level to build.
        seed: seeds the world's `rng` (numpy Generator, PCG64).
        settings: tick length and substeps.
        gui: open the PyBullet GUI window (needs a display).
        client: an existing `BulletClient` to build into instead of opening one; the world then does not
            disconnect it on close, but removes the bodies it made.

    Attributes:
        pybullet_calls: PyBullet calls made by the world's methods since it was built, by kind
            ("stepSimulation", "getBasePositionAndOrientation", "rayTestBatch", ...); see the module doc.
    """

    def __init__(
        self,
        scene: Scene,
        *,
        seed: int = 0,
        settings: WorldSettings | None = None,
        gui: bool = False,
        client: Client | None = None,
    ) -> None:
        self.scene = scene
        self.settings = settings if settings is not None else WorldSettings()
        self.seed = int(seed)
        self.rng = np.random.default_rng(self.seed)
        self.events = EventLog()
        self._owns_client = client is None
        self.client = new_client(gui) if client is None else client
        self._cid: int = self.client._client  # the raw client id, for the hot loops' raw calls
        self.tick = 0
        self._tracked: list[int] = []
        self._tracked_ids = np.zeros(0, dtype=np.int64)  # `_tracked` as the pose cache's `bodies`
        self.groups: dict[int, int] = {}
        self._cast_shapes: dict[tuple[float, ...], int] = {}
        self._closed = False
        self._trimeshes: tuple[int, ...] = ()
        self.pybullet_calls: Counter[str] = Counter()
        s = self.settings
        try:
            self.client.setGravity(0, 0, scene.gravity)
            self.client.setPhysicsEngineParameter(**s.engine_parameters())
            visuals = gui if s.visuals is None else s.visuals
            if gui:  # a GUI client redraws after every body it gets: build the level unseen (~10x faster)
                self.client.configureDebugVisualizer(pb.COV_ENABLE_RENDERING, 0)
            level = build_static(self.client, scene, visuals=visuals)
            self.static_bodies: tuple[int, ...] = level.bodies
            self._trimeshes = level.trimeshes
            self._casts = CastTables(static_boxes(level.boxes), self._cid, level.bodies)
            if gui:
                self.client.configureDebugVisualizer(pb.COV_ENABLE_RENDERING, 1)
        except BaseException:
            self._disconnect()
            raise
        self.groups.update({b: groups.STATIC for b in self.static_bodies})
        self._static_rays = StaticRays(scene, self.static_bodies, visuals=visuals)  # for STATIC-only rays
        # the level's mask: every group but STATIC, less the groups whose bodies are all kinematic
        self.static_mask = groups.mask_of(groups.STATIC)
        self._static_set = frozenset(self.static_bodies)
        self._capsules: dict[int, int] = {}  # dynamic capsule -> its row in the pose cache
        self._kinematic: dict[int, int] = {}  # kinematic capsule -> its row (placed by code, never read)
        self._dynamic: list[int] = []  # the tracked bodies a step moves, read back after it
        self._dynamic_rows = np.zeros(0, dtype=np.int64)  # their rows in the pose cache
        self._kinematic_rows = np.zeros(0, dtype=bool)  # per pose-cache row: a kinematic capsule
        self.depenetrated = 0  # how many times a capsule was moved out of static geometry
        self.ledge_guards: tuple[int, ...] = ()  # static bodies only NPC capsules touch (scenes.ledge_guards)
        self._poses = self._read_poses()

    # -- lifecycle ---------------------------------------------------------------------------------------
    def _disconnect(self) -> None:
        if self._owns_client:
            self.client.disconnect()
        self._closed = True

    def close(self) -> None:
        """Disconnect the client (or remove this world's bodies from an injected client)."""
        if self._closed:
            return
        if not self._owns_client:
            bodies = (*self._tracked, *self.static_bodies, *self.ledge_guards)
            deque(map(self.client.removeBody, bodies), maxlen=0)
            self.pybullet_calls["removeBody"] += len(bodies)
        self._static_rays.close()
        self._disconnect()

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_open(self) -> None:
        if self._closed:
            raise WorldError("this world is closed")

    # -- clock -------------------------------------------------------------------------------------------
    @property
    def dt(self) -> float:
        """Tick length [s]."""
        return self.settings.dt

    @property
    def time(self) -> float:
        """Simulated time since the world was built [s] (tick count x dt, so it never drifts)."""
        return self.tick * self.settings.dt

    def step(self, ticks: int = 1) -> None:
        """Advance physics by `ticks` fixed ticks, then read the tracked poses once."""
        self._check_open()
        for _ in range(ticks):
            pb.stepSimulation(self._cid)  # the raw call: the client wrapper makes a partial per call
            self.tick += 1
        self.pybullet_calls["stepSimulation"] += max(0, ticks)
        self._poses = self._read_poses()
        if self.settings.max_penetration is not None and self._capsules:
            self._depenetrate(self.settings.max_penetration / 2)

    def _depenetrate(self, keep: float) -> None:
        """Move capsules the tick left deeper than `keep` [m] in static geometry back out (see
        `scenes.depenetration`); the pose cache follows."""
        p = self._poses
        self.depenetrated += depenetration.depenetrate(
            self.client,
            self._capsules,
            self._static_set,
            keep,
            p.positions,
            p.velocities,
            p.orientations,
            calls=self.pybullet_calls,
        )

    # -- bodies ------------------------------------------------------------------------------------------
    def add_capsule(
        self,
        position: Iterable[float],
        *,
        radius: float = 0.35,
        height: float = 1.8,
        mass: float = 70.0,
        yaw: float = 0.0,
        group: int = groups.NPC,
    ) -> int:
        """Add an upright dynamic capsule whose feet are at `position` [m]; return its body id.

        Its inertia about X and Y is huge so it does not tip over; friction-free sides slide along walls.
        """
        p = np.asarray(list(position), dtype=np.float64)
        if p.shape != (3,):
            raise WorldError(f"capsule position must be 3 finite numbers, got {position!r}")
        return self.add_capsules(p[None], radius=radius, height=height, mass=mass, yaws=[yaw], group=group)[0]

    def add_capsules(
        self,
        positions: np.ndarray,
        *,
        radius: float = 0.35,
        height: float = 1.8,
        mass: float = 70.0,
        yaws: Iterable[float] | None = None,
        group: int = groups.NPC,
        kinematic: bool = False,
    ) -> list[int]:
        """Add n upright dynamic capsules (see `add_capsule`) with feet at `positions` (n, 3) [m], facing
        `yaws` (n,) [rad, default 0]; return their body ids. The pose cache is read once at the end.

        `kinematic` True adds mass-0 capsules instead, which only `place_kinematic` (or `teleport`) moves:
        a step never moves them, dynamic bodies collide with them as with a wall that may move, rays
        see them, and static geometry and other kinematic bodies do not touch them (`mass` is unused)."""
        self._check_open()
        p = np.asarray(positions, dtype=np.float64)
        if p.ndim != 2 or p.shape[1] != 3 or not np.isfinite(p).all():
            raise WorldError(f"capsule positions must be (n, 3) finite numbers, got shape {p.shape}")
        yaw = np.zeros(len(p)) if yaws is None else np.asarray(list(yaws), dtype=np.float64)
        if yaw.shape != (len(p),) or not np.isfinite(yaw).all():
            raise WorldError(f"capsule yaws must be {len(p)} finite numbers, got {yaws!r}")
        if not (radius > 0 and height > 2 * radius and mass > 0):
            raise WorldError(
                f"capsule needs radius > 0, height > 2 * radius, mass > 0; got {radius}, {height}, {mass}"
            )
        c = self.client
        shape = c.createCollisionShape(pb.GEOM_CAPSULE, radius=radius, height=height - 2 * radius)
        mask = groups.capsule_mask(group, kinematic)
        out = []
        for (x, y, z), a in zip(p.tolist(), yaw.tolist(), strict=True):
            body: int = c.createMultiBody(
                0.0 if kinematic else mass,
                shape,
                -1,
                (x, y, z + height / 2),
                pb.getQuaternionFromEuler((0, 0, a)),
                # a kinematic capsule as a rigid body: a fixed-base multibody costs ~0.7 us more a step
                useMaximalCoordinates=kinematic,
            )
            c.changeDynamics(
                body,
                -1,
                localInertiaDiagonal=(_HUGE_INERTIA, _HUGE_INERTIA, 1.0),
                lateralFriction=0.0,
                linearDamping=0.0,
                angularDamping=0.9,
            )
            c.setCollisionFilterGroupMask(body, -1, group, mask)
            self.groups[body] = group
            self._tracked.append(body)
            (self._kinematic if kinematic else self._capsules)[body] = len(self._tracked) - 1
            self._casts.add_capsule(body, float(radius), float(height) / 2 - float(radius))
            out.append(body)
        from scenes import box_casts, capsule_casts, placement  # numba only once the world has capsules

        capsule_casts.warm_up()
        box_casts.warm_up()
        if kinematic:
            placement.warm_up()
        self._dynamic = [b for b in self._tracked if b not in self._kinematic]
        self._dynamic_rows = np.array(
            [r for r, b in enumerate(self._tracked) if b not in self._kinematic], dtype=np.int64
        )
        self._kinematic_rows = np.array([b in self._kinematic for b in self._tracked], dtype=bool)
        self._fit_static_mask()
        calls, n = self.pybullet_calls, len(out)
        calls["createCollisionShape"] += 1
        calls["createMultiBody"] += n
        calls["changeDynamics"] += n
        calls["setCollisionFilterGroupMask"] += n
        self._poses = self._read_poses()
        return out

    def _fit_static_mask(self) -> None:
        """Take the groups whose bodies are all kinematic out of the level's mask (put a group back when it
        gains a dynamic body): Bullet re-tests a kinematic capsule's pair with the floor every step unless
        both masks refuse it (1,000 NPCs on one floor: 2-3 ms a step before, 0.2 ms after)."""
        kinematic_only = {self.groups[b] for b in self._kinematic} - {self.groups[b] for b in self._capsules}
        mask = groups.mask_of(groups.STATIC)
        for group in kinematic_only:
            mask &= ~group
        if mask == self.static_mask:
            return
        links = 0
        for body in self.static_bodies:
            for link in range(-1, self.client.getNumJoints(body)):
                self.client.setCollisionFilterGroupMask(body, link, groups.STATIC, mask)
                links += 1
        self.pybullet_calls["getNumJoints"] += len(self.static_bodies)
        self.pybullet_calls["setCollisionFilterGroupMask"] += links
        self.static_mask = mask

    def _mask_of(self, body: int) -> int:
        """The collision mask this world gave `body` (a level body or a capsule)."""
        if body in self._static_set:
            return self.static_mask
        return groups.capsule_mask(self.groups[body], body in self._kinematic)

    def set_velocity(self, body: int, linear: Iterable[float], yaw_rate: float | None = None) -> None:
        """Set a body's linear velocity [m/s] and, if given, its yaw rate [rad/s]."""
        v = [float(x) for x in linear]
        # the raw call (the client wrapper makes a partial per call), the client id by position when it can be
        if yaw_rate is None:
            pb.resetBaseVelocity(body, linearVelocity=v, physicsClientId=self._cid)
        else:
            pb.resetBaseVelocity(body, v, (0.0, 0.0, float(yaw_rate)), self._cid)
        self.pybullet_calls["resetBaseVelocity"] += 1

    def set_velocities(self, bodies: Iterable[int], linear: np.ndarray) -> None:
        """Set the linear velocities (n, 3) [m/s] of n bodies and stop their spin, in one pass (about
        1 us a body: the raw PyBullet call, not the client wrapper's)."""
        v = np.asarray(linear, dtype=np.float64)
        if not np.isfinite(v).all():
            raise WorldError("body velocities must be finite")
        ids = bodies if isinstance(bodies, list) else list(bodies)
        if len(ids) != (n := len(v)):
            raise WorldError(f"set_velocities got {len(ids)} bodies and {n} velocities")
        # the client id passed by position: the raw call then parses no keyword (about 15 % of its cost)
        deque(map(pb.resetBaseVelocity, ids, v.tolist(), repeat(_STILL, n), repeat(self._cid, n)), maxlen=0)
        self.pybullet_calls["resetBaseVelocity"] += n

    def place_kinematic(self, rows: np.ndarray, centers: np.ndarray, dt: float) -> None:
        """Move the kinematic capsules of pose-cache rows `rows` (n,) to `centers` (n, 3) [m] at once (one
        raw teleport for each that moved, 2-5 us with the broadphase update); the cache gets the new
        positions and, as velocities, the moves over `dt` [s, > 0]. Orientations are kept (capsules are
        symmetric about Z).

        Raises:
            WorldError: centres not (n, 3) finite numbers, a row that is not a kinematic capsule's.
        """
        from scenes import placement  # numba only once the world has kinematic capsules

        c = np.ascontiguousarray(centers, dtype=np.float64)
        r = np.ascontiguousarray(rows, dtype=np.int64)
        if c.shape != (n := len(r), 3):
            raise WorldError(f"place_kinematic needs ({n}, 3) finite centres, got shape {c.shape}")
        p = self._poses
        moved = np.empty(n, dtype=np.int64)
        k = placement.place_rows(r, c, self._kinematic_rows, p.positions, p.velocities, float(dt), moved)
        if k == placement.NOT_FINITE:
            raise WorldError(f"place_kinematic needs ({n}, 3) finite centres, got non-finite ones")
        if k == placement.NOT_KINEMATIC:
            raise WorldError("place_kinematic moves kinematic capsules (add_capsules(kinematic=True)) only")
        moved = moved[:k]  # one raw teleport for each body that moved
        ids, orn, at = p.bodies[r[moved]].tolist(), p.orientations[r[moved]].tolist(), c[moved].tolist()
        deque(map(pb.resetBasePositionAndOrientation, ids, at, orn, repeat(self._cid, k)), maxlen=0)
        self.pybullet_calls["resetBasePositionAndOrientation"] += k

    def teleport(self, body: int, center: Iterable[float]) -> None:
        """Move a tracked body's centre to `center` [m] at once (velocity kept); the pose cache follows."""
        self._check_open()
        c = np.asarray(list(center), dtype=np.float64)
        if c.shape != (3,) or not np.isfinite(c).all():
            raise WorldError(f"teleport target must be 3 finite numbers, got {center!r}")
        row = self._capsules.get(body, self._kinematic.get(body))
        row = self._poses.index(body) if row is None else row
        orn = self._poses.orientations[row].tolist()
        pb.resetBasePositionAndOrientation(body, c.tolist(), orn, self._cid)  # the raw call
        self.pybullet_calls["resetBasePositionAndOrientation"] += 1
        self._poses.positions[row] = c

    @property
    def poses(self) -> PoseCache:
        """Poses of tracked bodies as of the end of the last tick (no PyBullet call)."""
        return self._poses

    def _read_poses(self) -> PoseCache:
        """Read the dynamic tracked bodies (`scenes.poses`); kinematic rows keep their placements."""
        tracked, n, calls = self._tracked, len(self._tracked), self.pybullet_calls
        if len(self._tracked_ids) != n:  # a body was added since the last read (none is ever dropped)
            self._tracked_ids = np.array(tracked, dtype=np.int64)
            self._tracked_ids.flags.writeable = False  # shared by every pose cache from now on
            pos, orn, vel = poses.read(self._cid, tracked)
            calls["getBasePositionAndOrientation"] += n
            calls["getBaseVelocity"] += n
            return PoseCache(self._tracked_ids, pos, orn, vel)
        if not self._kinematic:
            pos, orn, vel = poses.read(self._cid, tracked)
            cache = PoseCache(self._tracked_ids, pos, orn, vel)
        else:
            cache = poses.refresh(self._cid, self._poses, self._dynamic, self._dynamic_rows)
        calls["getBasePositionAndOrientation"] += len(self._dynamic)
        calls["getBaseVelocity"] += len(self._dynamic)
        return cache

    # -- queries -----------------------------------------------------------------------------------------
    def ray_test(
        self, starts: np.ndarray, ends: np.ndarray, *, mask: int | None = None, ignore: Iterable[int] = ()
    ) -> RayHits:
        """Batched rays (see `scenes.raycast.ray_test`; STATIC-only ones in a crowd: `scenes.static_rays`).
        Args:
            mask: collision groups the rays may hit (None: all).
            ignore: bodies every ray of this batch passes through (e.g. the caster).
        """
        self._check_open()
        want = -1 if mask is None else int(mask)
        skip = {b: (self.groups[b], self._mask_of(b)) for b in ignore if b in self.groups}
        threads, calls, level = self.settings.ray_threads, self.pybullet_calls, self._static_rays
        if level.serves(want, len(self._tracked)) and self._static_set.isdisjoint(skip):
            return level.ray_test(starts, ends, threads=threads, calls=calls)  # capsules cost nothing there
        with hidden_from_rays(self.client, skip, calls=calls) if skip else nullcontext():
            return ray_test(self.client, starts, ends, mask=want, threads=threads, calls=calls)

    def box_cast(
        self,
        half_extents: Iterable[float],
        start: Iterable[float],
        end: Iterable[float],
        *,
        yaw: float = 0.0,
        mask: int | None = None,
        ignore: Iterable[int] = (),
    ) -> BoxCastHit:
        """Sweep a box (half extents [m], rotated by `yaw` [rad]) from `start` to `end` (centres, [m]).

        What it can hit: the bodies in the `mask` groups (None: all) but those in `ignore`; `box_casts` with
        one row (the same answer, found the same way).
        """
        self._check_open()
        h = tuple(map(float, half_extents))
        shape = self._cast_shape(h)
        s, e = as_point(start), as_point(end)
        if s is None or e is None:
            raise WorldError(f"box cast start and end must be 3 finite numbers, got {start!r}, {end!r}")
        if not math.isfinite(yaw):
            raise WorldError(f"box cast yaw must be a finite number of radians, got {yaw!r}")
        rows: CastRows = ([h], [s], [e], [float(yaw)], [tuple(map(int, ignore))])
        want = -1 if mask is None else int(mask)
        return self._sweep(rows, [shape], want, self._casts.for_mask(self._poses, self.groups, want)).row(0)

    def box_casts(
        self,
        half_extents: object,
        starts: object,
        ends: object,
        *,
        yaws: object = None,
        mask: int | None = None,
        ignore: object = None,
    ) -> BoxCastHits:
        """m box casts in one call: row i is exactly `box_cast(half_extents[i], starts[i], ends[i],
        yaw=yaws[i], mask=mask, ignore=ignore[i])` (one AABB query and its sweep per row, as there: the
        query's candidates decide the result), with the per-row Python of that call gone (and all of it
        for float64 arrays that meet only the closed-form tables: `casts.closed_casts`).

        Args:
            half_extents: (3,) for every row or (m, 3) [m, > 0]. starts, ends: (m, 3) box centres [m].
            yaws: (m,) box headings [rad] (None: all 0). mask: collision groups a box may hit (None: all).
            ignore: None, or (m,) or (m, j) body ids each row passes through (-1: none).
        Returns:
            `BoxCastHits`, arrays with one row per cast.
        Raises:
            WorldError: arrays of the wrong shape, non-finite numbers, half extents <= 0.
        """
        self._check_open()
        want = -1 if mask is None else int(mask)
        tables = self._casts.for_mask(self._poses, self.groups, want)
        closed = closed_casts(half_extents, starts, ends, yaws, ignore, want, *tables)
        if closed is not None:  # float64 arrays that meet only the closed-form tables: no Python per row
            return closed
        rows = cast_rows(half_extents, starts, ends, yaws, ignore)
        return self._sweep(rows, [self._cast_shape(h) for h in rows[0]], want, tables)

    def _sweep(self, rows: CastRows, shapes: list[int], want: int, tables: Tables) -> BoxCastHits:
        """`casts.sweep_rows` with this world's `tables` (the casts' candidates, or none to gather)."""
        capsules, boxes, rest = tables
        return sweep_rows(
            self._cid, rows, shapes, self.groups, want, calls=self.pybullet_calls, capsules=capsules,
            boxes=boxes, rest=rest,
        )  # fmt: skip

    def _cast_shape(self, h: tuple[float, ...]) -> int:
        """The box collision shape of half extents h [m], made on first use and cached, looked up without
        numpy (by h, then by h rounded to 9 decimals)."""
        cached = self._cast_shapes
        shape = cached.get(h)
        if shape is None:
            key = tuple([round(v, 9) for v in h])
            shape = cached.get(key)
            if shape is None:
                shape = cached[key] = box_shape(self.client, np.asarray(h, dtype=np.float64))
                self.pybullet_calls["createCollisionShape"] += 1
            cached[h] = shape  # h itself too: the next lookup of these half extents rounds nothing
        return shape

    def boxes_overlap(
        self, centers: np.ndarray, half_extents: Iterable[float], *, mask: int = groups.STATIC
    ) -> np.ndarray:
        """(n,) bool: does an axis-aligned box of `half_extents` [m] at each of `centers` (n, 3) [m] overlap
        (penetrate) a body in the `mask` groups? Exact for convex shapes. A box wholly inside a closed
        triangle mesh (a `[[mesh]]` asset) touches no triangle, so its centre is also tested for being
        inside one: a ray from it crosses the mesh an odd number of times."""
        self._check_open()
        c = np.asarray(centers, dtype=np.float64)
        h = np.asarray(list(half_extents), dtype=np.float64)
        if c.ndim != 2 or c.shape[1] != 3 or not np.isfinite(c).all():
            raise WorldError(f"centers must be a finite (n, 3) array, got shape {c.shape}")
        shape = self._cast_shape(tuple(h.tolist()))
        out = np.zeros(len(c), dtype=bool)
        closest = 0
        # raw calls with plain lists: a probe per floor of a large level is ~100,000 boxes
        overlapping, closest_points = pb.getOverlappingObjects, pb.getClosestPoints
        cid, group_of = self._cid, self.groups
        with collector_paused():  # a list per row and per answer, all dropped by the end of the loop
            for i, (centre, lo, hi) in enumerate(
                zip(c.tolist(), (c - h).tolist(), (c + h).tolist(), strict=True)
            ):
                found = overlapping(lo, hi, physicsClientId=cid) or ()
                for body in {b for b, _link in found if group_of.get(b, groups.PROP) & mask}:
                    closest += 1
                    points = closest_points(
                        -1, body, 0.0, collisionShapeA=shape, collisionShapePositionA=centre,
                        physicsClientId=cid,
                    )  # fmt: skip
                    if any(p[8] < -1e-4 for p in points):
                        out[i] = True
                        break
        self.pybullet_calls["getOverlappingObjects"] += len(c)
        self.pybullet_calls["getClosestPoints"] += closest
        if self._trimeshes and mask & groups.STATIC:
            out |= self.inside_trimeshes(c)
        return out

    def inside_trimeshes(self, points: np.ndarray) -> np.ndarray:
        """(n,) bool: which points lie inside a closed triangle mesh of the level (`[[mesh]]` assets).

        Parity test: a ray from each point, tilted off the vertical so it does not run along a mesh
        edge, is restarted past every surface it meets; a point inside a closed mesh crosses that mesh
        an odd number of times. One ray batch per surface layer, for all points at once.
        """
        self._check_open()
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        crossings = np.zeros(len(p), dtype=np.int64)
        if not self._trimeshes or len(p) == 0:
            return crossings.astype(bool)
        top = max(self.client.getAABB(b, -1)[1][2] for b in self._trimeshes) + 1.0
        self.pybullet_calls["getAABB"] += len(self._trimeshes)
        up = np.array([0.0013, 0.0021, 1.0])
        up /= np.linalg.norm(up)
        origin = p.copy()
        active = origin[:, 2] < top
        meshes = np.array(self._trimeshes)
        for _ in range(256):  # at most this many surfaces above a point
            rows = np.flatnonzero(active)
            if rows.size == 0:
                break
            length = (top - origin[rows, 2]) / up[2]
            hits = self.ray_test(origin[rows], origin[rows] + length[:, None] * up, mask=groups.STATIC)
            hit = hits.hit
            crossings[rows[hit & np.isin(hits.body, meshes)]] += 1
            origin[rows[hit]] = hits.point[hit] + up * 1e-5
            active[rows[~hit]] = False
        return np.asarray(crossings % 2 == 1)

    def aabbs(self, bodies: Iterable[int]) -> tuple[np.ndarray, np.ndarray]:
        """(lo, hi): (n, 3) corners [m] of the broadphase AABBs of n bodies (one PyBullet call each), the
        boxes `overlap` tests."""
        self._check_open()
        ids = list(bodies)
        lo, hi = np.zeros((len(ids), 3)), np.zeros((len(ids), 3))
        get, cid = pb.getAABB, self._cid
        for i, b in enumerate(ids):
            lo[i], hi[i] = get(b, physicsClientId=cid)
        self.pybullet_calls["getAABB"] += len(ids)
        return lo, hi

    def overlap(self, lo: Iterable[float], hi: Iterable[float], *, mask: int | None = None) -> list[int]:
        """Bodies whose AABB overlaps the box [lo, hi] [m], filtered by collision groups (sorted ids)."""
        self._check_open()
        want = -1 if mask is None else int(mask)
        found = pb.getOverlappingObjects(list(lo), list(hi), self._cid) or ()
        self.pybullet_calls["getOverlappingObjects"] += 1
        return sorted({b for b, _link in found if self.groups.get(b, groups.PROP) & want})

    def static_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(lo, hi) corners [m] of the AABB around all static bodies."""
        self._check_open()
        if not self.static_bodies:
            raise WorldError("the world has no static geometry")
        lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
        links = 0
        for body in self.static_bodies:
            for link in range(-1, self.client.getNumJoints(body)):
                a, b = self.client.getAABB(body, link)
                lo, hi = np.minimum(lo, a), np.maximum(hi, b)
                links += 1
        self.pybullet_calls["getNumJoints"] += len(self.static_bodies)
        self.pybullet_calls["getAABB"] += links
        return lo, hi

    def state_digest(self) -> str:
        """sha256 of the exact bytes of every tracked pose and velocity (for determinism checks)."""
        p = self._poses
        h = hashlib.sha256()
        for a in (p.bodies, p.positions, p.orientations, p.velocities):
            h.update(np.ascontiguousarray(a).tobytes())
        h.update(str(self.tick).encode())
        return h.hexdigest()
