"""Where characters start: random streams per NPC name, and spawns spread so no two bodies overlap.

Both keep ablations paired: an NPC's random stream depends only on the world's seed and its own name, so
adding or removing another NPC changes nothing for it; spreading moves only the spawns that overlap an
earlier one, to the nearest free spot on the navmesh.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np

from navigation.query import NavMeshQuery
from npc_ai.errors import NpcAiError


class SpawnError(NpcAiError, ValueError):
    """No free spot on the navmesh was found near an overlapping spawn."""


def stream(seed: int, name: str, purpose: str = "") -> np.random.Generator:
    """The random stream of the character `name` (and `purpose`) in a world seeded with `seed`.

    A SeedSequence of (seed, sha256 of the name): independent of every other character's stream and of
    how many characters there are.
    """
    digest = hashlib.sha256(f"{name}\x00{purpose}".encode()).digest()
    words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]
    return np.random.default_rng(np.random.SeedSequence([int(seed) & 0xFFFFFFFF, *words]))


def _clear(p: np.ndarray, others: np.ndarray, gap: float, height: float) -> bool:
    if len(others) == 0:
        return True
    d = others - p
    close = (np.hypot(d[:, 0], d[:, 1]) < gap) & (np.abs(d[:, 2]) < height)
    return not bool(close.any())


def spread_spawns(
    points: np.ndarray, radius: float, height: float, query: NavMeshQuery, *, max_rings: int = 16
) -> tuple[np.ndarray, np.ndarray]:
    """Move every spawn that overlaps an earlier one to the nearest free spot on the navmesh.

    Two spawns overlap when their capsules of `radius` [m] would touch (horizontal distance below
    2 radius + 5 cm) at heights closer than `height` [m]. Candidate spots lie on rings around the spawn,
    one body width apart, nearest ring first, and must be on the mesh, on the spawn's island, and clear of
    every spawn placed so far. The first spawn never moves.

    Args:
        points: (n, 3) spawn feet [m].
        radius, height: the characters' capsule [m, > 0].
        query: the navmesh the characters walk.
        max_rings: how many rings to try before giving up [>= 1].
    Returns:
        (n, 3) spawn points, and an (n,) bool mask of the ones that moved.
    When no ring holds a free spot (a crowded island), the nearest free point of a hexagonal lattice of
    spacing 2 radius + 5 cm over the spawn's island is taken.

    Raises:
        SpawnError: no free spot left on the island of an overlapping spawn.
    """
    pts = np.array(points, dtype=np.float64).reshape(-1, 3)
    moved = np.zeros(len(pts), dtype=bool)
    gap = 2.0 * radius + 0.05
    mesh = query.mesh
    lattices: dict[int | None, _Lattice] = {}  # free spots of each island, built at the first ring failure
    for i in range(1, len(pts)):
        if _clear(pts[i], pts[:i], gap, height):
            continue
        home = query.polygon_at(pts[i])
        island = int(mesh.islands[home]) if home >= 0 else None
        spot = None
        for ring in range(1, max_rings + 1):
            r = ring * gap
            n = max(6, int(2.0 * math.pi * r / gap))
            for k in range(n):
                a = 2.0 * math.pi * k / n
                near = query.nearest_point(
                    pts[i] + (r * math.cos(a), r * math.sin(a), 0.0), max_distance=0.05
                )
                if not near.found or (island is not None and int(mesh.islands[near.polygon]) != island):
                    continue
                if _clear(near.point, pts[:i], gap, height):
                    spot = near.point
                    break
            if spot is not None:
                break
        if spot is None:  # a crowded island: the nearest free spot of a lattice over the whole island
            if island not in lattices:
                lattices[island] = _Lattice(query, island, gap)
            spot = lattices[island].nearest_free(pts[i], pts[:i], gap, height)
        if spot is None:
            raise SpawnError(
                f"spawn {i} at {np.round(pts[i], 2).tolist()} overlaps another and no free spot is left on "
                f"its navmesh island ({len(pts)} characters of radius {radius} m); spawn fewer characters"
            )
        pts[i] = spot
        moved[i] = True
    return pts, moved


class _Lattice:
    """Candidate spots on one navmesh island: a hexagonal lattice of spacing `gap` [m] over the island's
    polygons (each point on the mesh surface), for spawns whose neighbourhood is full."""

    def __init__(self, query: NavMeshQuery, island: int | None, gap: float) -> None:
        mesh = query.mesh
        polys = range(mesh.polygon_count) if island is None else np.flatnonzero(mesh.islands == island)
        found: list[np.ndarray] = []
        for p in polys:
            xy = mesh.polygon_xy(int(p))
            lo, hi = xy.min(axis=0), xy.max(axis=0)
            rows = np.arange(math.floor(lo[1] / (gap * _ROW)), math.ceil(hi[1] / (gap * _ROW)) + 1)
            for row in rows.tolist():
                y = row * gap * _ROW
                shift = 0.5 * gap * (row % 2)
                xs = np.arange(math.floor((lo[0] - shift) / gap), math.ceil((hi[0] - shift) / gap) + 1) * gap
                for x in (xs + shift).tolist():
                    if query._contains(int(p), x, y):
                        found.append(np.array([x, y, mesh.height_at(int(p), x, y)]))
        self.points = np.array(found).reshape(-1, 3)

    def nearest_free(self, p: np.ndarray, placed: np.ndarray, gap: float, height: float) -> np.ndarray | None:
        """The lattice point nearest `p` clear of every `placed` spawn, or None."""
        if len(self.points) == 0:
            return None
        d = self.points[:, None, :] - placed[None, :, :]
        blocked = ((np.hypot(d[..., 0], d[..., 1]) < gap) & (np.abs(d[..., 2]) < height)).any(axis=1)
        free = np.flatnonzero(~blocked)
        if free.size == 0:
            return None
        dist = np.hypot(*(self.points[free, :2] - p[:2]).T)
        return self.points[free[int(np.argmin(dist))]].copy()


_ROW = math.sqrt(3.0) / 2.0  # row spacing of a hexagonal lattice, in units of its point spacing


def unique_names(given: list[str], count: int) -> list[str]:
    """`count` NPC names: the spawns' own, then `npc<i>` for the unnamed and the extra ones, never reusing
    a name (a clash gets `_` appended)."""
    taken = {n for n in given if n}
    out: list[str] = []
    for i in range(count):
        name = given[i] if i < len(given) and given[i] else ""
        if not name:
            name = f"npc{i}"
            while name in taken:
                name += "_"
            taken.add(name)
        out.append(name)
    return out
