"""Bake a NavMesh from anything that answers ray casts (a PyBullet world): heightfield -> regions ->
erosion -> contours -> convex polygons with per-polygon height planes.

Regions are the connected pieces of one heightfield layer (the k-th floor from the bottom of each cell),
so no region overlaps itself seen from above: a bridge and the walkway under it are different regions
and different polygons, joined only where the span graph steps from one to the other (a ramp's top).
Region boundaries shared by stepping-connected regions are kept vertex-for-vertex when contours are
simplified, so their edges become portals. Islands (regions not reachable from the largest one) are
kept and flagged (FLAG_ISLAND) when `keep_islands`, dropped otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import shapely
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from navigation.bake_kernels import insert_on_edges, split_regions, spread_obstacles
from navigation.decompose import cell_outlines, decompose_many
from navigation.errors import NavMeshError
from navigation.heightfield import _DIRS, Heightfield, sample_heightfield
from navigation.navmesh import NavMesh, build_navmesh, fit_plane
from navigation.outline_simplify import simplify_outlines
from navigation.protocols import RayHitsLike, RaySource
from navigation.settings import BakeSettings

BAKE_VERSION = 5  # bumped when the same world and settings bake a different mesh (put it in cache keys)
_COPLANAR_COS = float(np.cos(np.radians(5.0)))  # floors whose normals differ more are split


BakeProgress = Callable[[str, int, int | None], None]
"""`progress(stage, done, total)`: `done` of `total` units of a bake stage are done (`total` None: unknown).
Stages, in order: "casting rays" (rays), "finding regions", "building polygons" (regions), "linking
polygons"."""


class _CountingSource:
    """A RaySource that reports every ray batch it passes on (and offers what the source offers)."""

    def __init__(self, source: RaySource, progress: BakeProgress) -> None:
        self._source = source
        self._progress = progress
        self.rays = 0

    def ray_test(self, starts: np.ndarray, ends: np.ndarray, **kwargs: Any) -> RayHitsLike:
        hits = self._source.ray_test(starts, ends, **kwargs)
        self.rays += len(starts)
        self._progress("casting rays", self.rays, None)
        return hits

    def static_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return self._source.static_bounds()

    def __getattr__(self, name: str) -> Any:  # boxes_overlap, when the source offers it
        return getattr(self._source, name)


def bake_from_rays(
    source: RaySource, settings: BakeSettings | None = None, *, progress: BakeProgress | None = None
) -> NavMesh:
    """Sample the source's walkable surfaces with vertical ray batches and build a navmesh [m].

    `progress(stage, done, total)`, when given, is called as the bake goes (see `BakeProgress`); it does
    not change the result.
    """
    settings = settings or BakeSettings()
    if progress is not None:
        source = _CountingSource(source, progress)
    return bake_heightfield(sample_heightfield(source, settings), settings, progress=progress)


def _no_progress(stage: str, done: int, total: int | None) -> None:
    pass


def _span_graph(hf: Heightfield) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Span ids (ny, nx, L) (-1 = none) and the (a, b) span id pairs of every stepping connection."""
    ny, nx, L = hf.z.shape
    sid = np.full((ny, nx, L), -1, dtype=np.int64)
    w = hf.walkable
    sid[w] = np.arange(int(w.sum()))
    iy, ix, k = np.nonzero(w)
    src, dst = [], []
    for d, (dx, dy) in enumerate(_DIRS):
        link = hf.links[iy, ix, k, d]
        ok = link >= 0
        src.append(sid[iy[ok], ix[ok], k[ok]])
        dst.append(sid[iy[ok] + dy, ix[ok] + dx, link[ok]])
    return sid, np.concatenate(src), np.concatenate(dst)


def _components(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    m = coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n))
    labels: np.ndarray = connected_components(m, directed=False)[1]  # scipy has no type stubs
    return labels


def _split_conflicts(
    hf: Heightfield, sid: np.ndarray, iy: np.ndarray, ix: np.ndarray, k: np.ndarray, region: np.ndarray
) -> np.ndarray:
    """Re-partition regions in which two side-by-side cells are not stepping-connected (a ramp's top
    beside the floor under the bridge it climbs to): their outline would join what a cliff separates.
    Greedy flood fill that only adds a span if every neighbour already in its region is linked to it."""
    ny, nx, _ = hf.z.shape
    cell = iy * nx + ix
    order = np.lexsort((cell, region))
    keys = region[order] * (nx * ny) + cell[order]
    bad: set[int] = set()
    for d, (dx, dy) in enumerate(_DIRS):
        jx, jy = ix + dx, iy + dy
        inside = (jx >= 0) & (jx < nx) & (jy >= 0) & (jy < ny) & (region >= 0)
        q = region * (nx * ny) + jy * nx + jx
        pos = np.clip(np.searchsorted(keys, q), 0, len(keys) - 1)
        there = inside & (keys[pos] == q)
        other = order[pos]
        link = hf.links[iy, ix, k, d]
        linked = np.where(
            link >= 0, sid[np.clip(jy, 0, ny - 1), np.clip(jx, 0, nx - 1), np.maximum(link, 0)], -2
        )
        conflict = there & (linked != other)
        bad.update(np.unique(region[conflict]).tolist())
    if not bad:
        return region
    out = region.astype(np.int64)
    rows = np.flatnonzero(np.isin(region, np.array(sorted(bad))))
    rows = rows[np.argsort(region[rows], kind="stable")]  # region by region, spans in increasing id
    starts = np.flatnonzero(np.diff(region[rows], prepend=-2))
    starts = np.append(starts, len(rows)).astype(np.int64)
    links = np.ascontiguousarray(hf.links, dtype=np.int64)
    iy, ix, k = (np.ascontiguousarray(a, dtype=np.int64) for a in (iy, ix, k))
    split_regions(links, sid, iy, ix, k, rows.astype(np.int64), starts, out, int(region.max()) + 1)
    return out


LEVEL = 1e-9  # [m] cell samples within this of one height are a level floor (`_fit_cells`)


def _fit_vertices(pts: np.ndarray) -> np.ndarray:
    """`fit_plane` through a polygon's vertices (k, 3) [m], levelled as `_fit_cells` levels cell samples."""
    if np.ptp(pts[:, 2]) <= LEVEL:
        return np.array([0.0, 0.0, round(float(pts[:, 2].mean()), 9)])
    return fit_plane(pts)


def _fit_cells(pts: np.ndarray) -> np.ndarray:
    """Least-squares plane z = a x + b y + c through (k, 3) cell samples. Samples in a row (a strip one
    cell wide) still give the slope along the row (the minimum-norm solution about their centroid is
    level across it), where a flat fallback would put the strip's ends off by half its rise. Samples within
    `LEVEL` of one height (the rays' round-off: 1.6e-15 m on warehouse) give exactly (0, 0, that height to
    the nanometre), so every polygon of a level floor gets the same plane."""
    if np.ptp(pts[:, 2]) <= LEVEL:  # a level floor: exactly level (a fit leaves slopes of 1e-17 behind)
        return np.array([0.0, 0.0, round(float(pts[:, 2].mean()), 9)])
    m = pts.mean(axis=0)
    A = np.column_stack([pts[:, 0] - m[0], pts[:, 1] - m[1]])
    (a, b), *_ = np.linalg.lstsq(A, pts[:, 2] - m[2], rcond=None)
    return np.array([a, b, m[2] - a * m[0] - b * m[1]])


def _neighbours(
    hf: Heightfield, sid: np.ndarray, iy: np.ndarray, ix: np.ndarray, k: np.ndarray
) -> np.ndarray:
    """(n, 4) span id linked in each direction of _DIRS (-1 = none)."""
    out = np.full((len(iy), 4), -1, dtype=np.int64)
    for d, (dx, dy) in enumerate(_DIRS):
        link = hf.links[iy, ix, k, d]
        ok = link >= 0
        out[ok, d] = sid[iy[ok] + dy, ix[ok] + dx, link[ok]]
    return out


def _erode(
    nb: np.ndarray, ix: np.ndarray, iy: np.ndarray, alive: np.ndarray, radius_cells: float
) -> tuple[np.ndarray, np.ndarray]:
    """Which alive spans keep the whole of their cell at least `radius_cells` from the nearest obstacle,
    measured on the span graph, and each span's clearance [cells] (exact up to that distance, a lower
    bound beyond it; inf when no obstacle was reached).

    A span is kept when its clearance is `radius_cells + 1` or more: the wall that made a cell an obstacle
    may stand anywhere up to the centre of the next cell (the ray sampling there still found floor), and
    the mesh is the union of the kept cells, whose sides lie half a cell nearer the wall than their
    centres. So a body of the agent radius on the mesh never reaches into a wall; the mesh edge lies the
    radius to a cell and a half more from the wall (Recast keeps the radius from the last walkable
    cell's centre instead, which lets a body reach up to half a cell into the wall; bake version 3 did
    the same: 0.3 m clearance for a 0.4 m radius on 0.2 m cells, measured on warehouse).

    An obstacle is the centre of a neighbour cell the span cannot step into (no link, or a link to a
    dropped span); the distance is Euclidean to that centre, minus half a cell (as for a cell-centred
    distance transform). Nearest obstacles spread over linked spans, diagonals included (brushfire), so
    a bridge is eroded by its own edges and never by the walkway beneath it, and the side of a ramp that
    rises above max_climb erodes both the ramp and the floor beside it.
    """
    n = len(ix)
    nb = np.where((nb >= 0) & alive[np.maximum(nb, 0)], nb, -1)
    c = np.column_stack([ix, iy]).astype(np.float64) + 0.5
    obs = np.full((n, 2), np.inf)
    best = np.full(n, np.inf)
    for d, (dx, dy) in enumerate(_DIRS):
        blocked = nb[:, d] < 0
        o = c + (dx, dy)
        closer = blocked & (best > 1.0)
        obs[closer], best[closer] = o[closer], 1.0
    # diagonal neighbours through either pair of straight links
    diag = []
    for d1, d2 in ((0, 2), (0, 3), (1, 2), (1, 3)):
        a = np.where(nb[:, d1] >= 0, nb[np.maximum(nb[:, d1], 0), d2], -1)
        b = np.where(nb[:, d2] >= 0, nb[np.maximum(nb[:, d2], 0), d1], -1)
        diag.append(np.where(a >= 0, a, b))
    around = np.ascontiguousarray(np.column_stack([nb, *diag]), dtype=np.int64)
    sweeps = int(np.ceil(radius_cells + 1.5)) + 2
    spread_obstacles(around, np.ascontiguousarray(c[:, 0]), np.ascontiguousarray(c[:, 1]), obs, best, sweeps)
    clearance = best - 0.5
    return alive & (clearance - 1.0 >= radius_cells - 1e-9), clearance


def _eroded_away(
    settings: BakeSettings,
    hf: Heightfield,
    ix: np.ndarray,
    iy: np.ndarray,
    alive: np.ndarray,
    clearance: np.ndarray,
) -> NavMeshError:
    """The error for a bake whose erosion by the agent radius left nothing: why, and what to change."""
    cs = hf.cell_size
    width = (int(ix[alive].max()) - int(ix[alive].min()) + 1) * cs
    depth = (int(iy[alive].max()) - int(iy[alive].min()) + 1) * cs
    farthest = math.floor(float(clearance[alive].max()) * cs * 100) / 100  # rounded down
    # the largest radius that keeps a cell (`_erode`: a cell more than the radius clear), rounded down
    most = max(0.0, math.floor((float(clearance[alive].max()) - 1.0) * cs * 100) / 100)
    return NavMeshError(
        f"agent_radius {settings.agent_radius:g} m erodes away every walkable region: the walkable surface "
        f"spans {width:.2f} x {depth:.2f} m and no point of it is more than {farthest:.2f} m from an edge or "
        f"a wall (sampled every cell_size = {cs:g} m); lower agent_radius to {most:.2f} m or less, or give "
        "the level more room"
    )


def _insert_t_junctions(
    polys: list[list[int]], poly_region: list[int], vxy: np.ndarray, shared: dict[int, np.ndarray]
) -> list[list[int]]:
    """Put the portal corners a region shares with its neighbours into its polygon edges that run through
    them, so two regions simplified and decomposed separately meet edge-for-edge (vertex-for-vertex)."""
    n_regions = max([*poly_region, *shared.keys(), -1]) + 1
    counts = np.zeros(n_regions, dtype=np.int64)
    for r, cand in shared.items():
        counts[r] = cand.size
    cand_offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    flat = [shared[r] for r in range(n_regions) if counts[r]]
    cand = np.concatenate(flat).astype(np.int64) if flat else np.zeros(0, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum([len(p) for p in polys])]).astype(np.int64)
    verts = np.fromiter((v for p in polys for v in p), dtype=np.int64, count=int(offsets[-1]))
    xy = np.ascontiguousarray(vxy, dtype=np.float64)
    new_off, new = insert_on_edges(
        offsets, verts, np.asarray(poly_region, dtype=np.int64), xy, cand_offsets, cand
    )
    flat_new = new.tolist()
    bounds = new_off.tolist()
    return [flat_new[bounds[p] : bounds[p + 1]] for p in range(len(polys))]


def _portal_corners(
    ix: np.ndarray, iy: np.ndarray, region: np.ndarray, sa: np.ndarray, sb: np.ndarray
) -> tuple[dict[int, set[tuple[int, int]]], np.ndarray, np.ndarray]:
    """The corners of the cell sides that linked spans sa -> sb of different regions share.

    Returns:
        Per region, its pinned corners (x, y) [cells]; the (m, 3) distinct (x, y, region) nodes in
        lexicographic order; and per node, a label that is the same for every region meeting at that
        corner through such links (their shared vertex).
    """
    if len(sa) == 0:
        return {}, np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=np.int64)
    dx, dy = ix[sb] - ix[sa], iy[sb] - iy[sa]
    x0, y0 = ix[sa] + np.maximum(dx, 0), iy[sa] + np.maximum(dy, 0)
    x1, y1 = np.where(dx != 0, x0, x0 + 1), np.where(dx != 0, y0 + 1, y0)
    ra, rb = region[sa], region[sb]
    n = len(sa)
    # four nodes per link: (corner 0, ra), (corner 0, rb), (corner 1, ra), (corner 1, rb)
    nodes = np.column_stack(
        [np.concatenate([x0, x0, x1, x1]), np.concatenate([y0, y0, y1, y1]), np.concatenate([ra, rb, ra, rb])]
    ).astype(np.int64)
    # the distinct nodes in (x, y, region) order, as np.unique(axis=0) gives them, through one int64 code
    low = nodes.min(axis=0)
    span = nodes.max(axis=0) - low + 1
    code = ((nodes[:, 0] - low[0]) * span[1] + (nodes[:, 1] - low[1])) * span[2] + (nodes[:, 2] - low[2])
    _, first, inv = np.unique(code, return_index=True, return_inverse=True)
    uniq = nodes[first]
    inv = inv.reshape(-1)
    label = _components(
        len(uniq),
        np.concatenate([inv[:n], inv[2 * n : 3 * n]]),
        np.concatenate([inv[n : 2 * n], inv[3 * n :]]),
    )
    pinned: dict[int, set[tuple[int, int]]] = {}
    for x, y, r in uniq.tolist():
        pinned.setdefault(r, set()).add((x, y))
    return pinned, uniq, label.astype(np.int64)


def _node_labels(cxy: np.ndarray, reg: np.ndarray, nodes: np.ndarray, label: np.ndarray) -> np.ndarray:
    """(n,) the label of node (x, y, region) for each corner cxy (n, 2) [cells] of region reg (n,), -1 for
    a corner that is no node. `nodes` (m, 3) in lexicographic order."""
    out = np.full(len(cxy), -1, dtype=np.int64)
    if len(nodes) == 0 or len(cxy) == 0:
        return out
    keys = np.column_stack([cxy, reg])
    low = np.minimum(keys.min(axis=0), nodes.min(axis=0))
    span = np.maximum(keys.max(axis=0), nodes.max(axis=0)) - low + 1

    def code(a: np.ndarray) -> np.ndarray:
        c: np.ndarray = ((a[:, 0] - low[0]) * span[1] + (a[:, 1] - low[1])) * span[2] + (a[:, 2] - low[2])
        return c

    have = code(nodes)  # increasing: nodes are in lexicographic order
    want = code(keys)
    pos = np.clip(np.searchsorted(have, want), 0, len(have) - 1)
    found = have[pos] == want
    out[found] = label[pos[found]]
    return out


def _merge_vertices(
    verts: np.ndarray,
    reg: np.ndarray,
    z: np.ndarray,
    samples: np.ndarray,
    nodes: np.ndarray,
    label: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One vertex per portal corner shared by the regions meeting there, one per other corner.

    Args:
        verts: (n, 2) every region's polygon corners [cells], region after region; reg: (n,) their regions.
        z: (n,) each corner's height from its region's cell samples [m]; samples: (n,) how many (0: none).
        nodes, label: the portal corner nodes and their shared vertex labels (`_portal_corners`).
    Returns:
        (n,) the vertex id of each corner (ids in order of first appearance); (n,) the node label of each
        corner that is a portal corner of its region (-1 for the others); (nv, 2) vertex positions
        [cells]; (nv,) vertex heights [m]: the mean of the heights of its corners that had samples (0.0
        when none had).
    """
    c = np.rint(verts)
    integral = (np.abs(verts - c) < 1e-9).all(axis=1)
    pin = np.where(integral, _node_labels(c.astype(np.int64), reg, nodes, label), -1)
    n_labels = int(label.max()) + 1 if len(label) else 0
    key = np.where(pin >= 0, pin, n_labels + np.arange(len(verts)))  # a corner that is no node: its own
    _, first, inv = np.unique(key, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    vid = rank[inv.reshape(-1)]
    xy = verts[np.sort(first)]
    # heights: the mean of each vertex's sampled corners, in order, as np.mean of their list gives it
    has = samples > 0
    count = np.bincount(vid[has], minlength=len(xy))
    vz = np.zeros(len(xy))
    once = np.flatnonzero(has & (count[vid] == 1))
    vz[vid[once]] = z[once]
    many = np.flatnonzero(has & (count[vid] > 1))
    many = many[np.argsort(vid[many], kind="stable")]
    for group in np.split(many, np.flatnonzero(np.diff(vid[many])) + 1) if len(many) else []:
        vz[vid[group[0]]] = float(np.mean(z[group].tolist()))
    return vid, pin, xy, vz


def bake_heightfield(
    hf: Heightfield, settings: BakeSettings, *, progress: BakeProgress | None = None
) -> NavMesh:
    """Regions, erosion by agent radius (on the span graph), contours, convex polygons, portals.

    `progress(stage, done, total)`, when given, is called as the bake goes (see `BakeProgress`).
    """
    report = progress if progress is not None else _no_progress
    report("finding regions", 0, None)
    cs = hf.cell_size
    sid, a, b = _span_graph(hf)
    n = int(sid.max()) + 1
    iy, ix, k = np.nonzero(sid >= 0)  # in span id order
    comp = _components(n, a, b)
    sizes = np.bincount(comp)
    alive = sizes[comp] >= settings.min_region_area
    if not settings.keep_islands:
        alive &= comp == int(np.argmax(sizes))
    if not alive.any():
        largest = int(sizes.max())
        raise NavMeshError(
            f"no walkable region has min_region_area ({settings.min_region_area}) cells: the largest has "
            f"{largest} cells ({largest * cs * cs:g} m^2 at cell_size {cs:g} m); lower min_region_area or "
            "cell_size, or give the level more floor"
        )
    nrm = hf.normal[iy, ix, k]
    coplanar = np.einsum("ij,ij->i", nrm[a], nrm[b]) >= _COPLANAR_COS  # a ramp is its own region
    same = (k[a] == k[b]) & coplanar & alive[a] & alive[b]
    region = _components(n, a[same], b[same])
    region = np.where(alive, region, -1)
    region = _split_conflicts(hf, sid, iy, ix, k, region)
    kept, clearance = _erode(_neighbours(hf, sid, iy, ix, k), ix, iy, alive, settings.agent_radius / cs)
    if not (kept & (region >= 0)).any():
        raise _eroded_away(settings, hf, ix, iy, alive, clearance)
    cross = (region[a] != region[b]) & alive[a] & alive[b]
    # portal corners between stepping-connected regions: the corners of the cell sides they share, one
    # vertex for all the regions that meet at a corner (connected components of (corner, region) nodes)
    pa, pb = a[cross], b[cross]
    both = kept[pa] & kept[pb]
    pinned, nodes, label = _portal_corners(ix, iy, region, pa[both], pb[both])
    local_polys: list[list[int]] = []  # vertex ids into all regions' vertices, region after region
    poly_region: list[int] = []
    planes: list[np.ndarray | None] = []
    heights: list[np.ndarray] = []
    samples: list[np.ndarray] = []
    first_vertex = 0
    use = np.flatnonzero((region >= 0) & kept)
    use = use[np.argsort(region[use], kind="stable")]
    starts = np.flatnonzero(np.diff(region[use], prepend=-2))
    # every region's cell outline, simplified between its portal corners, in convex polygons (all at once)
    rids = region[use[starts]].tolist()
    owner = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(use))))
    outlines = cell_outlines(ix[use], iy[use], owner, len(starts))
    parts, part_owner = simplify_outlines(
        outlines, [pinned.get(r, set()) for r in rids], settings.max_simplify_error
    )
    pieces = decompose_many(parts, part_owner, len(starts), settings.max_verts_per_poly)
    for done, (lo, hi) in enumerate(zip(starts.tolist(), [*starts[1:].tolist(), len(use)], strict=True)):
        report("building polygons", done, len(starts))
        spans = use[lo:hi]
        r = rids[done]
        sx, sy = ix[spans], iy[spans]
        x0, y0 = int(sx.min()), int(sy.min())
        km = np.zeros((int(sy.max()) - y0 + 1, int(sx.max()) - x0 + 1), dtype=bool)
        km[sy - y0, sx - x0] = True
        zpad = np.full((km.shape[0] + 2, km.shape[1] + 2), np.nan)  # NaN beyond the region's cells
        zpad[sy - y0 + 1, sx - x0 + 1] = hf.z[sy, sx, k[spans]]
        verts, rpolys = pieces[done]
        # each corner's height: the mean of the (up to 4) cell samples around it, in row-major order
        rx, ry = (np.rint(verts).astype(np.int64) - (x0, y0)).T
        near = np.column_stack([zpad[ry, rx], zpad[ry, rx + 1], zpad[ry + 1, rx], zpad[ry + 1, rx + 1]])
        finite = np.isfinite(near)
        count = finite.sum(axis=1)
        heights.append(np.where(finite, near, 0.0).sum(axis=1) / np.maximum(count, 1))
        samples.append(count)
        ccx, ccy = sx + 0.5, sy + 0.5
        cz = hf.z[sy, sx, k[spans]]
        # the cell centres strictly inside each polygon, row by row: the region's cells in each polygon's
        # bounding box, tested in one vectorised call
        flat = np.concatenate([verts[poly] for poly in rpolys])
        ring_of = np.repeat(np.arange(len(rpolys)), [len(poly) for poly in rpolys])
        shapes = shapely.polygons(shapely.linearrings(flat, indices=ring_of))
        local = np.full(km.shape, -1, dtype=np.int64)
        local[sy - y0, sx - x0] = np.arange(len(spans))
        box_lo = np.ceil(shapely.bounds(shapes)[:, :2] - 0.5).astype(np.int64) - (x0, y0)
        box_hi = np.floor(shapely.bounds(shapes)[:, 2:] - 0.5).astype(np.int64) - (x0, y0)
        cand = [
            local[ylo : yhi + 1, xlo : xhi + 1].ravel()
            for xlo, ylo, xhi, yhi in np.column_stack([np.maximum(box_lo, 0), box_hi]).tolist()
        ]
        which = np.repeat(np.arange(len(rpolys)), [len(c) for c in cand])
        where = np.concatenate(cand)
        ok = where >= 0
        where, which = where[ok], which[ok]
        inside = shapely.contains_xy(shapes[which], ccx[where], ccy[where])
        where, which = where[inside], which[inside]
        bounds = np.searchsorted(which, np.arange(len(rpolys) + 1))
        for j, poly in enumerate(rpolys):
            local_polys.append([first_vertex + i for i in poly])
            poly_region.append(r)
            inside = where[bounds[j] : bounds[j + 1]]
            if len(inside) >= 2:
                pts = np.column_stack([ccx[inside], ccy[inside], cz[inside]])
                pts[:, :2] = hf.origin + pts[:, :2] * cs
                planes.append(_fit_cells(pts))
            else:
                planes.append(None)
        first_vertex += len(verts)
    if not local_polys:
        raise NavMeshError(
            "the agent radius erodes away every walkable region: lower agent_radius or raise cell_size"
        )
    report("linking polygons", 0, None)
    allv = np.concatenate([v for v, _ in pieces])
    vreg = np.repeat(np.asarray(rids, dtype=np.int64), [len(v) for v, _ in pieces])
    vid, pin, xy, vz = _merge_vertices(
        allv, vreg, np.concatenate(heights), np.concatenate(samples), nodes, label
    )
    vid_list = vid.tolist()
    polys = [[vid_list[i] for i in poly] for poly in local_polys]
    used = np.zeros(len(xy), dtype=bool)
    used[vid[np.fromiter((i for poly in local_polys for i in poly), dtype=np.int64)]] = True
    # per region, the vertex ids of its portal corners that some polygon uses, sorted
    id_of_label = np.full(len(label), -1, dtype=np.int64)  # labels are < the number of nodes
    id_of_label[pin[pin >= 0]] = vid[pin >= 0]
    node_id = id_of_label[label]
    ok = node_id >= 0
    ok[ok] = used[node_id[ok]]
    shared = {r: np.unique(node_id[ok & (nodes[:, 2] == r)]) for r in pinned}
    polys = _insert_t_junctions(polys, poly_region, xy, shared)
    V = np.zeros((len(xy), 3))
    V[:, :2] = hf.origin + xy * cs
    V[:, 2] = vz
    P = np.array(
        [pl if pl is not None else _fit_vertices(V[poly]) for poly, pl in zip(polys, planes, strict=True)]
    )
    meta = {"source": "rays", "bake_version": BAKE_VERSION, "settings": settings.as_dict()}
    return build_navmesh(V, polys, planes=P, meta=meta)
