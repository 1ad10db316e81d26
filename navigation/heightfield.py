"""Ray-sampled layered heightfield: every walkable floor under each cell, and how cells step to each other.

One vertical ray per cell centre, restarted `cell_height` below each hit, finds every surface under a
point (a bridge and the walkway beneath it). A floor is walkable if its normal is within `max_slope_deg`
of vertical and an upward ray finds at least `agent_height` of free space above it. Two floors in
4-neighbouring cells are connected when their heights differ by at most `max_climb`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from navigation.errors import NavMeshError
from navigation.protocols import RayHits, RaySource
from navigation.settings import BakeSettings

MAX_RAYS_PER_BATCH = 16_383
_DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1))


@dataclass(frozen=True)
class Heightfield:
    """Walkable spans on a cell grid.

    Attributes:
        origin: (2,) world x, y of the grid's corner [m]; cell (ix, iy) spans origin + [ix, ix+1] * cell_size.
        cell_size: horizontal cell size [m].
        shape: (ny, nx) cells.
        z: (ny, nx, L) floor heights [m], NaN where a cell has fewer than L floors; sorted ascending.
        normal: (ny, nx, L, 3) surface normals at the floors.
        links: (ny, nx, L, 4) index of the connected floor in the neighbour cell in directions
            +x, -x, +y, -y, or -1.
    """

    origin: np.ndarray
    cell_size: float
    shape: tuple[int, int]
    z: np.ndarray
    normal: np.ndarray
    links: np.ndarray

    @property
    def walkable(self) -> np.ndarray:
        """(ny, nx, L) bool: which span slots hold a walkable floor."""
        return np.isfinite(self.z)


def _cast(source: RaySource, starts: np.ndarray, ends: np.ndarray) -> RayHits:
    parts = []
    for i in range(0, len(starts), MAX_RAYS_PER_BATCH):
        parts.append(source.ray_test(starts[i : i + MAX_RAYS_PER_BATCH], ends[i : i + MAX_RAYS_PER_BATCH]))
    if not parts:
        z = np.zeros(0)
        return RayHits(z.astype(int), z, np.zeros((0, 3)), np.zeros((0, 3)))
    return RayHits(
        *(np.concatenate([getattr(p, f) for p in parts]) for f in ("body", "fraction", "point", "normal"))
    )


def sample_heightfield(source: RaySource, settings: BakeSettings) -> Heightfield:
    """Cast vertical ray batches over the source's static bounds and keep the walkable floors."""
    lo, hi = (np.asarray(b, dtype=np.float64) for b in source.static_bounds())
    if lo.shape != (3,) or hi.shape != (3,) or not (np.isfinite(lo).all() and np.isfinite(hi).all()):
        raise NavMeshError(f"static_bounds() must return two finite (3,) corners, got {lo!r}, {hi!r}")
    if (hi[:2] <= lo[:2]).any():
        raise NavMeshError(f"static_bounds() is empty: lo {lo.tolist()} hi {hi.tolist()}")
    cs, ch = settings.cell_size, settings.cell_height
    nx, ny = (math.ceil((hi[i] - lo[i]) / cs) for i in (0, 1))
    if nx * ny > 4_000_000:
        raise NavMeshError(f"{nx} x {ny} cells is too many: raise cell_size (now {cs} m)")
    ix, iy = np.meshgrid(np.arange(nx), np.arange(ny))
    cx = lo[0] + (ix.ravel() + 0.5) * cs
    cy = lo[1] + (iy.ravel() + 0.5) * cs
    top, bottom = hi[2] + 1.0, lo[2] - 1.0
    fc_parts, fz_parts, fn_parts = [], [], []
    cells = np.arange(nx * ny)
    zstart = np.full(nx * ny, top)
    min_nz = math.cos(math.radians(settings.max_slope_deg))
    found = np.zeros(nx * ny, dtype=np.int64)
    for _ in range(settings.max_layers + 32):
        if cells.size == 0:
            break
        starts = np.column_stack([cx[cells], cy[cells], zstart])
        ends = np.column_stack([cx[cells], cy[cells], np.full(len(cells), bottom)])
        hits = _cast(source, starts, ends)
        inside = hits.hit & (hits.fraction <= 1e-9)  # started inside a solid: step down, record nothing
        hit = hits.hit & ~inside
        floor = hit & (hits.normal[:, 2] >= min_nz - 1e-9)
        fc_parts.append(cells[floor])
        fz_parts.append(hits.point[floor, 2])
        fn_parts.append(hits.normal[floor])
        found[cells[hit]] += 1
        nxt = (hit | inside) & (found[cells] < settings.max_layers)
        zstart = np.where(hit, hits.point[:, 2], zstart)[nxt] - ch
        cells = cells[nxt]
    fc, fz, fn = np.concatenate(fc_parts), np.concatenate(fz_parts), np.concatenate(fn_parts)
    if fc.size == 0:
        raise NavMeshError("no walkable surface found: check static_bounds, max_slope_deg and the level")
    # clearance: an upward ray from just above each floor must travel agent_height unobstructed
    lift = min(ch, 0.05)
    up_s = np.column_stack([cx[fc], cy[fc], fz + lift])
    up_e = np.column_stack([cx[fc], cy[fc], fz + settings.agent_height])
    up = _cast(source, up_s, up_e)
    keep = ~up.hit
    if not keep.any():
        raise NavMeshError(f"no floor has agent_height ({settings.agent_height} m) of free space above it")
    fc, fz, fn = fc[keep], fz[keep], fn[keep]
    order = np.lexsort((fz, fc))
    fc, fz, fn = fc[order], fz[order], fn[order]
    rank = np.arange(len(fc)) - np.searchsorted(fc, fc, side="left")
    L = int(rank.max()) + 1
    Z = np.full((ny * nx, L), np.nan)
    N = np.zeros((ny * nx, L, 3))
    Z[fc, rank] = fz
    N[fc, rank] = fn
    Z = Z.reshape(ny, nx, L)
    N = N.reshape(ny, nx, L, 3)
    links = _links(Z, settings.max_climb)
    return Heightfield(lo[:2].copy(), cs, (ny, nx), Z, N, links)


def _links(Z: np.ndarray, max_climb: float) -> np.ndarray:
    """For each span and direction, the neighbour span with the closest height if within max_climb."""
    ny, nx, L = Z.shape
    out = np.full((ny, nx, L, 4), -1, dtype=np.int64)
    pad = np.full((ny + 2, nx + 2, L), np.nan)
    pad[1:-1, 1:-1] = Z
    for d, (dx, dy) in enumerate(_DIRS):
        Zn = pad[1 + dy : 1 + dy + ny, 1 + dx : 1 + dx + nx]  # neighbour cell's floors
        dz = np.abs(Z[..., :, None] - Zn[..., None, :])  # (ny, nx, L, L)
        dz = np.where(np.isnan(dz), np.inf, dz)
        best = np.argmin(dz, axis=-1)
        ok = np.take_along_axis(dz, best[..., None], axis=-1)[..., 0] <= max_climb + 1e-9
        out[..., d] = np.where(ok, best, -1)
    return out
