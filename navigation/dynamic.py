"""A navmesh with dynamic obstacles: boxes and cylinders added, moved and removed, carved by a local
rebuild of the polygons under them (Recast/Detour's TileCache, Unity's NavMeshObstacle carving).

The mesh data stays immutable: a `DynamicNavMesh` holds the static base mesh and the obstacles, and each
`update` that changes a hole produces a new `NavMesh` plus a `CarveUpdate` saying which base polygons were
rebuilt and where every polygon of the previous mesh went, so agents whose corridor crosses a rebuilt
polygon re-plan (with a new `NavMeshQuery` of the new mesh) and the others keep theirs, renumbered.

The mesh after any sequence of changes equals (array for array) `navigation.carve.carve_navmesh` of the
base by the holes carved now: the "full rebuild" of the changed world from the same base mesh.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from shapely.geometry import Polygon

from navigation import arguments
from navigation.carve import BaseIndex, Pieces, assemble, carve_navmesh, carve_polygons
from navigation.errors import NavMeshError
from navigation.navmesh import NavMesh
from navigation.obstacles import Box, Cylinder, Footprint, Pose, Shape, footprint, has_moved, pose
from navigation.settings import CarveSettings


@dataclass(frozen=True)
class CarveUpdate:
    """What one `DynamicNavMesh.update` changed.

    Attributes:
        mesh: the mesh now (the previous one when nothing changed).
        changed: sorted ids of the base polygons rebuilt (empty when nothing changed).
        remap: (previous mesh's polygon count,) the id each previous polygon has in `mesh`, -1 where it
            was rebuilt or a rebuilt neighbour reshaped it (a corner they share moved, a side split):
            a polygon kept has the same corners, bit for bit.
        carved: ids of the obstacles whose hole was cut or moved.
        cleared: ids of the obstacles whose hole was removed (moving, or removed).
    """

    mesh: NavMesh
    changed: np.ndarray
    remap: np.ndarray
    carved: tuple[int, ...] = ()
    cleared: tuple[int, ...] = ()

    @property
    def any(self) -> bool:
        """Some polygon was rebuilt (a new mesh)."""
        return bool(self.changed.size)

    def affects(self, corridor: Sequence[int] | np.ndarray) -> bool:
        """A corridor of the previous mesh (polygon ids) crosses a rebuilt polygon: re-plan it."""
        ids = np.asarray(corridor, dtype=np.int64)
        return bool(ids.size) and bool((self.remap[ids] < 0).any())

    def renumber(self, corridor: Sequence[int] | np.ndarray) -> tuple[int, ...]:
        """A corridor the update does not affect, in the new mesh's polygon ids.

        Raises:
            NavMeshError: the corridor crosses a rebuilt polygon (re-plan it instead).
        """
        ids = np.asarray(corridor, dtype=np.int64)
        new = self.remap[ids] if ids.size else ids
        if (new < 0).any():
            raise NavMeshError("the corridor crosses a rebuilt polygon: find a new path on the new mesh")
        return tuple(new.tolist())


@dataclass
class _Obstacle:
    """One obstacle's state: its shape, the pose last given, where it was last still (`rest`, with its
    footprint) and for how long, and the hole cut for it (a rest footprint, the base polygons under it)."""

    shape: Shape
    latest: Pose
    rest: Pose
    rest_footprint: Footprint
    still_for: float
    hole: Footprint | None = None
    under: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


class DynamicNavMesh:
    """A static base mesh plus dynamic obstacles, carved into it by local rebuilds.

    Changes (`add_box`, `add_cylinder`, `set_pose`, `remove`) are recorded; `update(dt)` applies them
    with the carving policy of `CarveSettings` and returns a `CarveUpdate`. A new obstacle is carved at
    the next update; one that moves follows `carve_only_stationary`.

    Args:
        base: the mesh without obstacles (a scene's baked navmesh).
        settings: agent radius and height, thresholds; default `CarveSettings()`.
    """

    def __init__(self, base: NavMesh, settings: CarveSettings | None = None) -> None:
        if not isinstance(base, NavMesh):
            raise NavMeshError(f"base must be a NavMesh, got {arguments.shown(base)}")
        if settings is not None and not isinstance(settings, CarveSettings):
            raise NavMeshError(f"settings must be a CarveSettings, got {arguments.shown(settings)}")
        self.base = base
        self.settings = settings or CarveSettings()
        self.index = BaseIndex(base)
        self._obstacles: dict[int, _Obstacle] = {}
        self._next_id = 0
        self._gone: list[tuple[int, np.ndarray]] = []  # removed obstacles whose hole is still cut
        self._under: dict[int, set[int]] = {}  # base polygon -> obstacles whose hole covers it
        self._pieces: dict[int, Pieces] = {}
        self._mesh = base
        self._origin = np.arange(base.polygon_count, dtype=np.int64)
        self._rank = np.zeros(base.polygon_count, dtype=np.int64)

    @property
    def mesh(self) -> NavMesh:
        """The mesh with the holes cut so far (the base until an update carves something)."""
        return self._mesh

    @property
    def origin(self) -> np.ndarray:
        """(mesh polygon count,) the base polygon each polygon of `mesh` was cut from."""
        return self._origin

    @property
    def obstacle_ids(self) -> tuple[int, ...]:
        """The ids of the obstacles present, in the order they were added."""
        return tuple(self._obstacles)

    def is_carved(self, obstacle: int) -> bool:
        """The obstacle's hole is cut in `mesh` (False while it moves under `carve_only_stationary`)."""
        return self._get(obstacle).hole is not None

    def shape(self, obstacle: int) -> Shape:
        """The obstacle's shape."""
        return self._get(obstacle).shape

    def pose(self, obstacle: int) -> Pose:
        """The pose last given for the obstacle."""
        return self._get(obstacle).latest

    # --- changes ---------------------------------------------------------------------------------
    def add_box(
        self, half_extents: object, position: object, orientation: object = None, *, yaw: float | None = None
    ) -> int:
        """Add a box (half sizes along its local axes [m]) at a pose (see `navigation.obstacles.pose`);
        returns its id. Raises NavMeshError on a bad size or pose (nothing is added)."""
        return self.add(Box(half_extents), pose(position, orientation, yaw=yaw))  # type: ignore[arg-type]

    def add_cylinder(self, radius: float, height: float, position: object, orientation: object = None) -> int:
        """Add an upright (local z) cylinder [m] at a pose; returns its id. Raises NavMeshError."""
        return self.add(Cylinder(radius, height), pose(position, orientation))

    def add(self, shape: Shape, where: Pose) -> int:
        """Add an obstacle of any shape at a checked pose; returns its id (ids are never reused)."""
        if not isinstance(shape, Box | Cylinder):
            raise NavMeshError(f"shape must be a Box or a Cylinder, got {arguments.shown(shape)}")
        if not isinstance(where, Pose):
            raise NavMeshError(
                f"where must be a Pose (navigation.obstacles.pose), got {arguments.shown(where)}"
            )
        fp = footprint(shape, where, self.settings)  # refuses a shape with no area from above, before adding
        oid = self._next_id
        self._next_id += 1
        self._obstacles[oid] = _Obstacle(shape, where, where, fp, self.settings.time_to_stationary)
        return oid

    def set_pose(
        self, obstacle: int, position: object, orientation: object = None, *, yaw: float | None = None
    ) -> None:
        """The obstacle's pose now (as a physics engine reads a pushed body: position [m], quaternion
        x, y, z, w). Moves beyond the thresholds restart its stillness timer."""
        ob = self._get(obstacle)
        where = pose(position, orientation, yaw=yaw)
        if has_moved(ob.rest, where, self.settings):
            fp = footprint(ob.shape, where, self.settings)  # may refuse the pose: nothing is changed then
            ob.rest, ob.rest_footprint, ob.still_for = where, fp, 0.0
        ob.latest = where

    def remove(self, obstacle: int) -> None:
        """Remove an obstacle; its hole is filled at the next update."""
        ob = self._get(obstacle)
        del self._obstacles[obstacle]
        if ob.hole is not None:
            self._gone.append((obstacle, ob.under))

    def _get(self, obstacle: int) -> _Obstacle:
        ob = self._obstacles.get(obstacle) if isinstance(obstacle, int | np.integer) else None
        if ob is None:
            raise NavMeshError(
                f"no obstacle with id {arguments.shown(obstacle)} (ids: {list(self._obstacles)})"
            )
        return ob

    # --- carving ---------------------------------------------------------------------------------
    def update(self, dt: float = 0.0) -> CarveUpdate:
        """Advance the stillness timers by dt [s, >= 0] and cut, move or remove the holes the policy asks
        for, rebuilding only the base polygons under them."""
        step = _seconds(dt)
        s = self.settings
        dirty: set[int] = set()
        carved: list[int] = []
        cleared = [oid for oid, _ in self._gone]
        for oid, under in self._gone:
            self._leave(oid, under, dirty)
        self._gone.clear()
        for oid, ob in self._obstacles.items():
            ob.still_for += step
            still = not s.carve_only_stationary or ob.still_for >= s.time_to_stationary - 1e-12
            want = ob.rest_footprint if still else None
            if want is ob.hole:
                continue
            if ob.hole is not None:
                self._leave(oid, ob.under, dirty)
            if want is None:
                ob.hole, ob.under = None, np.zeros(0, dtype=np.int64)
                cleared.append(oid)
                continue
            ob.hole = want
            ob.under = self.index.touched(want, s.agent_height)
            for p in ob.under.tolist():
                self._under.setdefault(p, set()).add(oid)
            dirty.update(ob.under.tolist())
            carved.append(oid)
        previous = self._mesh
        if not dirty:
            same = np.arange(previous.polygon_count, dtype=np.int64)
            return CarveUpdate(previous, np.zeros(0, dtype=np.int64), same, tuple(carved), tuple(cleared))
        cutters: dict[int, list[Polygon]] = {}
        for p in dirty:
            keys = sorted(self._under.get(p, ()))
            if keys:
                cutters[p] = [self._hole(k).polygon for k in keys]
            else:
                self._pieces.pop(p, None)
        self._pieces.update(carve_polygons(self.index, cutters, s.max_verts_per_poly))
        if self._pieces:
            mesh, origin, rank = assemble(self.index, self._pieces)
        else:  # every hole filled: the base mesh again
            n = self.base.polygon_count
            mesh, origin, rank = self.base, np.arange(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        changed = np.array(sorted(dirty), dtype=np.int64)
        remap = _remap(self._origin, self._rank, origin, changed, self.base.polygon_count)
        remap[_reshaped(previous, mesh, remap)] = -1
        self._mesh, self._origin, self._rank = mesh, origin, rank
        return CarveUpdate(mesh, changed, remap, tuple(carved), tuple(cleared))

    def _leave(self, oid: int, under: np.ndarray, dirty: set[int]) -> None:
        """Take obstacle oid's hole off the base polygons `under` (marked dirty)."""
        for p in under.tolist():
            keys = self._under.get(p)
            if keys is not None:
                keys.discard(oid)
                if not keys:
                    del self._under[p]
            dirty.add(p)

    def _hole(self, obstacle: int) -> Footprint:
        hole = self._obstacles[obstacle].hole
        if hole is None:  # pragma: no cover - `_under` only lists obstacles with a hole
            raise NavMeshError(f"obstacle {obstacle} has no hole")
        return hole

    def holes(self) -> list[Footprint]:
        """The holes of the obstacles present, by obstacle id: after `update`, exactly those cut in
        `mesh` (a removal or a move since then shows here first)."""
        return [ob.hole for ob in self._obstacles.values() if ob.hole is not None]

    def rebuild_from_scratch(self) -> NavMesh:
        """`carve_navmesh` of the base by `holes()`: the full rebuild that `mesh` equals after every
        `update`."""
        return carve_navmesh(self.base, self.holes(), self.settings, self.index)


def _seconds(dt: object) -> float:
    """A time step [s] in 0..`arguments.MAX_DT` (0: apply the changes without advancing the timers)."""
    ok = isinstance(dt, int | float | np.integer | np.floating) and not isinstance(dt, bool | np.bool_)
    if not (ok and 0.0 <= float(dt) <= arguments.MAX_DT):  # type: ignore[arg-type]
        raise NavMeshError(
            f"dt must be a number of seconds in [0, {arguments.MAX_DT:g}], got {arguments.shown(dt)}"
        )
    return float(dt)  # type: ignore[arg-type]


def _remap(
    old_origin: np.ndarray, old_rank: np.ndarray, new_origin: np.ndarray, changed: np.ndarray, n_base: int
) -> np.ndarray:
    """Old mesh polygon id -> new id (-1 where its base polygon was rebuilt): an unchanged base
    polygon keeps its pieces, in order, at its new first place."""
    rebuilt = np.zeros(n_base, dtype=bool)
    rebuilt[changed] = True
    first = np.searchsorted(new_origin, old_origin)
    return np.where(rebuilt[old_origin], -1, first + old_rank).astype(np.int64)


def _reshaped(old: NavMesh, new: NavMesh, remap: np.ndarray) -> np.ndarray:
    """(old polygon count,) the polygons `remap` keeps whose corners differ in `new` (in number or in
    place, to the bit): a rebuilt neighbour's cut moves a corner they share (a point welded on their
    edge takes the first side's coordinates, and the two sides' cuts may differ in the last bit) or
    splits a side (a cut flush with it, `navigation.carve.join_t_junctions`)."""
    out = np.zeros(len(remap), dtype=bool)
    o = np.flatnonzero(remap >= 0)
    n = remap[o]
    k = np.diff(old.poly_offsets)[o]
    out[o] = k != np.diff(new.poly_offsets)[n]
    o, n, k = o[~out[o]], n[~out[o]], k[~out[o]]
    if o.size:
        step = np.arange(k.sum()) - np.repeat(np.cumsum(k) - k, k)
        a = old.vertices[old.poly_verts[np.repeat(old.poly_offsets[o], k) + step]]
        b = new.vertices[new.poly_verts[np.repeat(new.poly_offsets[n], k) + step]]
        out[o] = np.logical_or.reduceat((a != b).any(axis=1), np.cumsum(k) - k)
    return out
