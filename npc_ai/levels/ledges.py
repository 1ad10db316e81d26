"""The ledges of a navmesh: its boundary edges where nothing stops a body that goes on, only a drop.

The mesh's boundary (edges with no polygon across) runs inside the walkable surface, eroded by the agent
radius and up to a cell and a half more. Beyond a wall edge a wall stands within that margin; beyond a
ledge edge (a platform's rim, a bridge's side, the high part of a ramp's side) the floor ends and falls
away. `find_ledges` tells them apart with two ray batches over pieces of the boundary (at most `piece`
[m] long), from each piece's midpoint, on its outward side:

- a wall ray, level, at `climb` + 0.1 m above the edge (over any step a body could climb), out to `reach`
  [m]: a hit is a wall (or an obstacle taller than a step), which stops a body;
- a floor ray, down from that height at `reach` beyond the edge to `climb` + 0.05 m below it: a hit is
  floor a body could stand on (the ground beside the foot of a ramp, an open floor).

A piece with neither is a ledge. `reach` must pass the margin: the agent radius plus two cells, plus a
little (`Simulation` passes that). The simulation guards the ledges (`scenes.ledge_guards`) so that a
crowd never pushes a dynamic NPC off them.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from navigation.links import OffMeshLink
from navigation.navmesh import NavMesh
from navigation.settings import BakeSettings
from npc_ai.errors import LevelError
from scenes import World, groups
from scenes.ledge_guards import add_ledge_guards


@dataclass(frozen=True)
class Ledges:
    """Pieces of a mesh's boundary that are ledges: `starts`, `ends` (k, 3) [m], `outward` (k, 2) unit
    vectors pointing off the mesh."""

    starts: np.ndarray
    ends: np.ndarray
    outward: np.ndarray

    @property
    def count(self) -> int:
        return len(self.starts)

    @classmethod
    def none(cls) -> Ledges:
        """No ledges."""
        return cls(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 2)))


def boundary_pieces(mesh: NavMesh, piece: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The mesh's boundary edges cut into pieces at most `piece` [m] long: (starts, ends (k, 3) [m], outward
    (k, 2) unit vectors). Polygons run counter-clockwise from above, so off the mesh is on an edge's right."""
    a, b = mesh.boundary_edges()
    length = np.hypot(*(b[:, :2] - a[:, :2]).T)
    a, b, length = a[length > 1e-6], b[length > 1e-6], length[length > 1e-6]
    cuts = np.maximum(1, np.ceil(length / piece)).astype(np.int64)
    row = np.repeat(np.arange(len(a)), cuts)
    k = np.arange(cuts.sum()) - np.repeat(np.cumsum(cuts) - cuts, cuts)
    t0 = (k / cuts[row])[:, None]
    t1 = ((k + 1) / cuts[row])[:, None]
    starts = a[row] + (b[row] - a[row]) * t0
    ends = a[row] + (b[row] - a[row]) * t1
    d = (b - a)[:, :2] / length[:, None]
    outward = np.column_stack([d[:, 1], -d[:, 0]])[row]
    return starts, ends, outward


def find_ledges(world: World, mesh: NavMesh, *, climb: float, reach: float, piece: float = 1.0) -> Ledges:
    """The pieces of `mesh`'s boundary that are ledges in `world` (see the module docstring).

    Args:
        climb: the highest step a body climbs [m, >= 0]. reach: how far beyond an edge to look [m, > 0].
        piece: the longest piece tested as one [m, > 0].
    Raises:
        LevelError: `mesh` is not a NavMesh, or a number out of its range.
    """
    if not isinstance(mesh, NavMesh):
        raise LevelError(f"find_ledges: mesh must be a navigation.NavMesh, got {type(mesh).__name__}")
    for name, value, low in (("climb", climb, 0.0), ("reach", reach, 1e-9), ("piece", piece, 1e-9)):
        if not (isinstance(value, int | float) and math.isfinite(value) and value >= low):
            raise LevelError(
                f"find_ledges: {name} must be a finite number of metres >= {low:g}, got {value!r}"
            )
    starts, ends, outward = boundary_pieces(mesh, piece)
    if len(starts) == 0:
        return Ledges(starts, ends, outward)
    mid = (starts + ends) / 2
    up = np.array([0.0, 0.0, climb + 0.1])
    out = np.column_stack([outward, np.zeros(len(outward))])
    wall = world.ray_test(mid + up + 0.05 * out, mid + up + reach * out, mask=groups.STATIC)
    floor_top = mid + up + reach * out
    floor = world.ray_test(floor_top, floor_top - [0.0, 0.0, 2 * climb + 0.15], mask=groups.STATIC)
    ledge = ~wall.hit & ~floor.hit
    return Ledges(starts[ledge], ends[ledge], outward[ledge])


LINK_CLEARANCE = 1.0  # [m] no guard piece within this of an off-mesh link's end (the crossing passes there)

# the ledges found per (mesh, scene content, climb, reach): an environment's reset builds the same level
# with the same mesh again, and finding them is two ray batches (arena: 1.1 ms of a 4-7 ms reset)
_FOUND: dict[tuple[int, str, float, float], tuple[weakref.ref[NavMesh], Ledges]] = {}
_FOUND_MAX = 16


def guard_ledges(
    world: World,
    mesh: NavMesh,
    bake: BakeSettings,
    body_radius: float,
    links: Sequence[OffMeshLink] = (),
) -> Ledges:
    """Find `mesh`'s ledges (`find_ledges`, looking the bake's agent radius plus two cells and 0.2 m beyond
    the edge; remembered for this mesh and scene content, so a rebuilt level skips the rays) and guard
    them for capsules of `body_radius` [m] (`scenes.ledge_guards`), leaving a gap at every link end
    (`LINK_CLEARANCE`). Returns the guarded pieces."""
    reach = bake.agent_radius + 2 * bake.cell_size + 0.2
    content = world.scene.content_hash
    key = (id(mesh), content, bake.max_climb, reach)
    cached = _FOUND.get(key)
    if content and cached is not None and cached[0]() is mesh:
        found = cached[1]
    else:
        found = find_ledges(world, mesh, climb=bake.max_climb, reach=reach)
        if content:  # a scene built in code has no content hash: its level may differ under one mesh
            if len(_FOUND) >= _FOUND_MAX:
                _FOUND.clear()
            _FOUND[key] = (weakref.ref(mesh), found)
    keep = np.ones(found.count, dtype=bool)
    mid = (found.starts + found.ends) / 2
    for link in links:
        for end in (link.start, link.end):
            gap = mid - np.asarray(end, dtype=np.float64)
            keep &= ~((np.hypot(gap[:, 0], gap[:, 1]) < LINK_CLEARANCE) & (np.abs(gap[:, 2]) < 1.0))
    ledges = Ledges(found.starts[keep], found.ends[keep], found.outward[keep])
    if ledges.count:
        add_ledge_guards(
            world, ledges.starts, ledges.ends, ledges.outward, offset=body_radius, height=bake.agent_height
        )
    return ledges
