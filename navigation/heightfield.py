"""Ray-sampled layered heightfield: every walkable floor under each cell, and how cells step to each other.

One vertical ray per cell centre, restarted `cell_height` below each hit, finds every surface under a
point (a bridge and the walkway beneath it). A floor is walkable if its normal is within `max_slope_deg`
of vertical and a ray cast down from `agent_height` above it meets nothing before the floor itself (plus a
solid probe where rays are blind). Two floors in 4-neighbouring cells are connected when their heights
differ by at most `max_climb`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from navigation.bake_kernels import link_floors
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
        walkable: np.ndarray = np.isfinite(self.z)
        return walkable


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
        raise NavMeshError(
            f"the level is {float(nx) * cs:.3g} x {float(ny) * cs:.3g} m: {float(nx):.3g} x "
            f"{float(ny):.3g} cells of {cs} m is too many; raise cell_size or shrink the level"
        )
    ix, iy = np.meshgrid(np.arange(nx), np.arange(ny))
    cx = lo[0] + (ix.ravel() + 0.5) * cs
    cy = lo[1] + (iy.ravel() + 0.5) * cs
    top, bottom = hi[2] + 1.0, lo[2] - 1.0
    fc_parts, fz_parts, fn_parts, covered_parts, from_parts = [], [], [], [], []
    cells = np.arange(nx * ny)
    zstart = np.full(nx * ny, top)
    min_nz = math.cos(math.radians(settings.max_slope_deg))
    found = np.zeros(nx * ny, dtype=np.int64)
    step = np.full(nx * ny, ch)  # how far below the last hit the next ray starts [m]
    max_step = max(ch, settings.agent_height / 2)
    # No floor lies below the level's bottom, so under a hit less than agent_height above it any floor
    # would be within agent_height of that hit, and fail the clearance test: such a column is done.
    deepest = lo[2] + settings.agent_height
    for _ in range(settings.max_layers + 64):
        if cells.size == 0:
            break
        starts = np.column_stack([cx[cells], cy[cells], zstart])
        ends = np.column_stack([cx[cells], cy[cells], np.full(len(cells), bottom)])
        hits = _cast(source, starts, ends)
        # A ray that starts inside a convex solid reports a hit at fraction 0: record nothing and step
        # further down, doubling the step (capped at agent_height / 2, so a skipped floor could not have
        # had room for the agent anyway) to cross thick solids in few passes.
        inside = hits.hit & (hits.fraction <= 1e-9)
        hit = hits.hit & ~inside
        nrm = _edge_normals(source, hits, hit, min_nz, settings)
        floor = hit & (nrm[:, 2] >= min_nz - 1e-9)
        fc_parts.append(cells[floor])
        fz_parts.append(hits.point[floor, 2])
        fn_parts.append(nrm[floor])
        covered_parts.append(found[cells[floor]] > 0)  # something was hit above this floor
        from_parts.append(zstart[floor])  # the ray that found it came down from here
        found[cells[hit]] += 1
        nxt = (inside | (hit & (hits.point[:, 2] >= deepest))) & (found[cells] < settings.max_layers)
        step[cells[hit]] = ch
        step[cells[inside]] = np.minimum(step[cells[inside]] * 2.0, max_step)
        zstart = (np.where(hit, hits.point[:, 2], zstart) - step[cells])[nxt]
        cells = cells[nxt]
    fc, fz, fn = np.concatenate(fc_parts), np.concatenate(fz_parts), np.concatenate(fn_parts)
    covered, free_from = np.concatenate(covered_parts), np.concatenate(from_parts)
    if fc.size == 0:
        raise NavMeshError("no walkable surface found: check static_bounds, max_slope_deg and the level")
    keep = _clearance(source, cx[fc], cy[fc], fz, covered, free_from, settings)
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
    _cut_walls(source, lo[:2], Z, links, settings)
    return Heightfield(lo[:2].copy(), cs, (ny, nx), Z, N, links)


def _edge_normals(
    source: RaySource, hits: RayHits, hit: np.ndarray, min_nz: float, settings: BakeSettings
) -> np.ndarray:
    """Hit normals, with the rounded normals of box edges replaced by the floor's own.

    A vertical ray that lands within the collision margin of a box's top edge reports a normal between
    the top face and the side (about 45 degrees), so the top of a platform would lose its outermost row
    of cells exactly where a ramp or step meets it (scenes built on round coordinates put cell centres on
    edges). Such steep hits are re-cast slightly offset in x and y; if an offset ray meets a walkable
    surface at the same height, that surface's normal is used.
    """
    nrm = hits.normal.copy()
    steep = np.flatnonzero(hit & (nrm[:, 2] < min_nz - 1e-9))
    if steep.size == 0:
        return nrm
    d = min(0.02, settings.cell_size / 8)
    offsets = np.array([[d, 0.0], [-d, 0.0], [0.0, d], [0.0, -d]])
    p = hits.point[steep]
    starts = np.repeat(p, 4, axis=0)
    starts[:, :2] += np.tile(offsets, (len(p), 1))
    ends = starts.copy()
    starts[:, 2] += settings.cell_height
    ends[:, 2] -= settings.cell_height
    again = _cast(source, starts, ends)
    ok = (
        again.hit
        & (again.fraction > 1e-9)
        & (again.normal[:, 2] >= min_nz - 1e-9)
        & (np.abs(again.point[:, 2] - starts[:, 2] + settings.cell_height) <= settings.cell_height / 2)
    ).reshape(-1, 4)
    first = np.argmax(ok, axis=1)
    found = ok.any(axis=1)
    nrm[steep[found]] = again.normal.reshape(-1, 4, 3)[found, first[found]]
    return nrm


def _clearance(
    source: RaySource,
    x: np.ndarray,
    y: np.ndarray,
    z: np.ndarray,
    covered: np.ndarray,
    free_from: np.ndarray,
    settings: BakeSettings,
) -> np.ndarray:
    """Which floors have `agent_height` of free space above them.

    A ray cast down from `agent_height` above a floor must meet that floor first. The ray that found the
    floor came down from `free_from` [m] and met nothing before it, so a floor found from at least
    `agent_height` above (every uncovered floor: found from above the level) needs no second ray when the
    source offers a probe (below). Rays
    are blind inside convex solids, though (PyBullet reports a ray that starts inside a box as a hit at
    fraction 0 or not at all, depending on the numbers), so a floor found under another surface (`covered`:
    a floor under a shelf, a wall, a bridge) is also checked with a thin solid probe box when the source
    offers `boxes_overlap`.
    """
    ch, h = settings.cell_height, settings.agent_height
    lift = min(ch, 0.05)
    probe = getattr(source, "boxes_overlap", None)
    keep = np.ones(len(z), dtype=bool)
    # without a probe, the ray is the only (if unreliable) check of a covered floor
    rows = np.flatnonzero((free_from < z + h) | (covered if probe is None else False))
    starts = np.column_stack([x[rows], y[rows], z[rows] + h])
    ends = np.column_stack([x[rows], y[rows], z[rows] - 2.0 * ch])
    down = _cast(source, starts, ends)
    keep[rows] = down.hit & (down.fraction > 1e-9) & (np.abs(down.point[:, 2] - z[rows]) <= ch / 2)
    check = np.flatnonzero(keep & covered)
    if probe is not None and check.size:
        half = np.array([settings.cell_size * 0.25, settings.cell_size * 0.25, (h - lift) / 2])
        centres = np.column_stack([x[check], y[check], z[check] + lift + half[2]])
        keep[check] = ~np.asarray(probe(centres, half), dtype=bool)
    return keep


_RUN_TOLERANCE = 1e-6  # links whose ray heights differ by at most this share one long ray [m]
_ON_CENTRE = (
    1e-6  # a run ray's hit this close to a cell centre [cells] is on it (and rays reach past the last)
)


def _cut_walls(
    source: RaySource, origin: np.ndarray, Z: np.ndarray, links: np.ndarray, settings: BakeSettings
) -> None:
    """Drop (in place) the links that a horizontal ray between the two cell centres finds blocked.

    Vertical rays cannot see a wall with no thickness (one sheet of triangles in a level mesh): both sides
    have the same floor height and would be linked straight through it. Each +x / +y link is tested at
    knee height (just above max_climb) and at head height (just below agent_height); a hit cuts the link
    both ways, so the wall erodes the floor on each side.

    Links in a row at the same height (a run) share one ray from the run's first cell centre to its last:
    a hit cuts the link it lies in and the ray restarts at the next centre, so a run costs one ray plus one
    per wall in it, not one per link.
    """
    cs = settings.cell_size
    low = settings.max_climb + min(0.05, settings.agent_height / 4)
    high = max(low, settings.agent_height - min(0.05, settings.agent_height / 4))
    for d, back in ((0, 1), (2, 3)):
        dx, dy = _DIRS[d]
        iy, ix, k = np.nonzero(links[..., d] >= 0)
        if iy.size == 0:
            continue
        k2 = links[iy, ix, k, d]
        z = np.maximum(Z[iy, ix, k], Z[iy + dy, ix + dx, k2])
        order, first, length = _runs(Z.shape, iy, ix, k, k2, z, dx, dy)
        head = order[first]
        a = np.column_stack([origin[0] + (ix[head] + 0.5) * cs, origin[1] + (iy[head] + 0.5) * cs])
        step = np.array([dx * cs, dy * cs])
        blocked = np.zeros(len(iy), dtype=bool)
        for h in (low, high):
            # runs still to cast, and the link each one's ray starts at (counted from the run's start)
            run = np.arange(len(head))
            pos = np.zeros(len(head), dtype=np.int64)
            while run.size:
                zr = z[head[run]] + h
                span = length[run] - pos
                starts = np.column_stack([a[run] + pos[:, None] * step, zr])
                ends = np.column_stack([a[run] + (length[run] + _ON_CENTRE)[:, None] * step, zr])
                hits = _cast(source, starts, ends)
                hit = hits.hit
                run, pos = run[hit], pos[hit]
                t = pos + hits.fraction[hit] * (span[hit] + _ON_CENTRE)  # links from the run start
                at = np.minimum(np.floor(t + _ON_CENTRE).astype(np.int64), length[run] - 1)
                blocked[order[first[run] + at]] = True
                # a hit on a cell centre also ends the link before it, as that link's own ray would see
                near = np.rint(t).astype(np.int64)
                on = (np.abs(t - near) <= _ON_CENTRE) & (near >= 1) & (near - 1 < at)
                blocked[order[first[run[on]] + near[on] - 1]] = True
                more = at + 1 < length[run]
                run, pos = run[more], at[more] + 1
        links[iy[blocked], ix[blocked], k[blocked], d] = -1
        links[iy[blocked] + dy, ix[blocked] + dx, k2[blocked], back] = -1


def _runs(
    shape: tuple[int, ...],
    iy: np.ndarray,
    ix: np.ndarray,
    k: np.ndarray,
    k2: np.ndarray,
    z: np.ndarray,
    dx: int,
    dy: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Chain the links of one direction into runs: a link continues into the link that leaves the span it
    reaches when their ray heights `z` [m] agree within _RUN_TOLERANCE and no other link continues into it.

    Returns:
        order: (n,) the links, run by run, each run from its first link on.
        first: (r,) where each run starts in `order`.
        length: (r,) links per run.
    """
    n = len(iy)
    lid = np.full(shape, -1, dtype=np.int64)
    lid[iy, ix, k] = np.arange(n)
    succ = lid[iy + dy, ix + dx, k2]
    ok = succ >= 0
    ok[ok] = np.abs(z[succ[ok]] - z[ok]) <= _RUN_TOLERANCE
    indeg = np.bincount(succ[ok], minlength=n)
    ok &= indeg[np.maximum(succ, 0)] == 1
    has_pred = np.zeros(n, dtype=bool)
    has_pred[succ[ok]] = True
    succ = np.where(ok, succ, -1)
    run = np.full(n, -1, dtype=np.int64)
    pos = np.zeros(n, dtype=np.int64)
    cur = np.flatnonzero(~has_pred)
    run[cur] = np.arange(len(cur))
    depth = 0
    while cur.size:  # one step along every run at once (runs are at most a row of the grid long)
        nxt = succ[cur]
        keep = nxt >= 0
        depth += 1
        run[nxt[keep]] = run[cur[keep]]
        pos[nxt[keep]] = depth
        cur = nxt[keep]
    order = np.lexsort((pos, run))
    length = np.bincount(run)
    first = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
    return order, first, length


def _links(Z: np.ndarray, max_climb: float) -> np.ndarray:
    """For each span and direction, the neighbour span with the closest height if within max_climb."""
    out = np.empty((*Z.shape, 4), dtype=np.int64)
    link_floors(np.ascontiguousarray(Z, dtype=np.float64), float(max_climb), out)
    return out
