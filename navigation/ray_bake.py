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

import numpy as np
import shapely
from scipy import ndimage
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from shapely.geometry import Polygon

from navigation.decompose import as_multipolygon, decompose, mask_to_geometry
from navigation.errors import NavMeshError
from navigation.heightfield import _DIRS, Heightfield, sample_heightfield
from navigation.navmesh import NavMesh, build_navmesh, fit_plane
from navigation.protocols import RaySource
from navigation.settings import BakeSettings

_COPLANAR_COS = float(np.cos(np.radians(5.0)))  # floors whose normals differ more are split


def bake_from_rays(source: RaySource, settings: BakeSettings | None = None) -> NavMesh:
    """Sample the source's walkable surfaces with vertical ray batches and build a navmesh [m]."""
    settings = settings or BakeSettings()
    return bake_heightfield(sample_heightfield(source, settings), settings)


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
    return connected_components(m, directed=False)[1]


def _dp_keep(pts: np.ndarray, tol: float) -> np.ndarray:
    """Douglas-Peucker on an open chain: which points to keep (ends always kept)."""
    keep = np.zeros(len(pts), dtype=bool)
    keep[[0, -1]] = True
    stack = [(0, len(pts) - 1)]
    while stack:
        i, j = stack.pop()
        if j <= i + 1:
            continue
        a, b = pts[i], pts[j]
        ab = b - a
        L = float(np.hypot(*ab))
        rel = pts[i + 1 : j] - a
        d = np.abs(ab[0] * rel[:, 1] - ab[1] * rel[:, 0]) / L if L > 0 else np.hypot(rel[:, 0], rel[:, 1])
        m = int(np.argmax(d))
        if d[m] > tol + 1e-12:
            keep[i + 1 + m] = True
            stack += [(i, i + 1 + m), (i + 1 + m, j)]
    return keep


def _simplify_ring(coords: np.ndarray, pinned: set[tuple[int, int]], tol: float) -> np.ndarray:
    pts = coords[:-1]
    pins = [i for i, p in enumerate(map(tuple, np.rint(pts).astype(int).tolist())) if p in pinned]
    if len(pins) < 2:
        far = int(np.argmax(np.hypot(*(pts - pts[0]).T)))
        pins = sorted(set(pins) | {0, far})
    keep = np.zeros(len(pts), dtype=bool)
    for a, b in zip(pins, [*pins[1:], pins[0] + len(pts)], strict=True):
        idx = np.arange(a, b + 1) % len(pts)
        keep[idx[_dp_keep(pts[idx], tol)]] = True
    return pts[keep]


def _simplify(geom: shapely.Geometry, pinned: set[tuple[int, int]], tol: float) -> shapely.Geometry:
    """Simplify every ring by at most tol [cells], never moving or dropping a pinned corner."""
    geom = shapely.segmentize(geom, 1.0)
    out = []
    for poly in as_multipolygon(geom).geoms:
        for t in (tol, tol / 2, 0.0):
            shell = _simplify_ring(np.asarray(poly.exterior.coords), pinned, t)
            holes = [_simplify_ring(np.asarray(r.coords), pinned, t) for r in poly.interiors]
            if len(shell) < 3:
                continue
            cand = Polygon(shell, [h for h in holes if len(h) >= 3])
            if cand.is_valid and cand.area > 0:
                out.append(cand)
                break
        else:
            out.append(poly)
    return shapely.MultiPolygon(out)


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
    out = region.copy()
    next_label = int(region.max()) + 1
    for r in sorted(bad):
        spans = np.flatnonzero(region == r)
        todo = set(spans.tolist())
        for seed in spans.tolist():
            if seed not in todo:
                continue
            label = next_label
            next_label += 1
            occupied: dict[int, int] = {int(cell[seed]): seed}
            todo.discard(seed)
            out[seed] = label
            stack = [seed]
            while stack:
                u = stack.pop()
                for d, (dx, dy) in enumerate(_DIRS):
                    lk = hf.links[iy[u], ix[u], k[u], d]
                    if lk < 0:
                        continue
                    v = int(sid[iy[u] + dy, ix[u] + dx, lk])
                    if v not in todo or int(cell[v]) in occupied:
                        continue
                    ok = True
                    for d2, (ex, ey) in enumerate(_DIRS):
                        x2, y2 = ix[v] + ex, iy[v] + ey
                        if not (0 <= x2 < nx and 0 <= y2 < ny):
                            continue
                        w = occupied.get(int(y2 * nx + x2))
                        if w is not None:
                            l2 = hf.links[iy[v], ix[v], k[v], d2]
                            if l2 < 0 or int(sid[y2, x2, l2]) != w:
                                ok = False
                                break
                    if ok:
                        todo.discard(v)
                        occupied[int(cell[v])] = v
                        out[v] = label
                        stack.append(v)
    return out


def bake_heightfield(hf: Heightfield, settings: BakeSettings) -> NavMesh:
    """Regions, erosion by agent radius (exact EDT per region), contours, convex polygons, portals."""
    ny, nx, _ = hf.z.shape
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
        raise NavMeshError(f"no walkable region has min_region_area ({settings.min_region_area}) cells")
    nrm = hf.normal[iy, ix, k]
    coplanar = np.einsum("ij,ij->i", nrm[a], nrm[b]) >= _COPLANAR_COS  # a ramp is its own region
    same = (k[a] == k[b]) & coplanar & alive[a] & alive[b]
    region = _components(n, a[same], b[same])
    region = np.where(alive, region, -1)
    region = _split_conflicts(hf, sid, iy, ix, k, region)
    cross = (region[a] != region[b]) & alive[a] & alive[b]
    # erosion: distance to the nearest cell that is neither this region nor a region it steps into
    masks: dict[int, np.ndarray] = {}
    for r in np.unique(region[region >= 0]):
        m = np.zeros((ny, nx), dtype=bool)
        sel = region == r
        m[iy[sel], ix[sel]] = True
        masks[int(r)] = m
    touching: dict[int, set[int]] = {r: set() for r in masks}
    for ra, rb in zip(region[a[cross]].tolist(), region[b[cross]].tolist(), strict=True):
        touching[ra].add(rb)
    kept = np.zeros(n, dtype=bool)
    for r, m in masks.items():
        open_ = m.copy()
        for o in touching[r]:
            open_ |= masks[o]
        dist = ndimage.distance_transform_edt(np.pad(open_, 1))[1:-1, 1:-1]
        ok = (dist - 0.5) * cs >= settings.agent_radius - 1e-9
        sel = region == r
        kept[sel] = ok[iy[sel], ix[sel]]
    # portal corners between stepping-connected regions, unified across regions with union-find
    parent: dict[tuple[int, int, int], tuple[int, int, int]] = {}

    def find(x: tuple[int, int, int]) -> tuple[int, int, int]:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    pinned: dict[int, set[tuple[int, int]]] = {r: set() for r in masks}
    pa, pb = a[cross], b[cross]
    both = kept[pa] & kept[pb]
    for sa, sb in zip(pa[both].tolist(), pb[both].tolist(), strict=True):
        dx, dy = ix[sb] - ix[sa], iy[sb] - iy[sa]
        x0, y0 = int(ix[sa]) + max(dx, 0), int(iy[sa]) + max(dy, 0)
        corners = [(x0, y0), (x0, y0 + 1)] if dx else [(x0, y0), (x0 + 1, y0)]
        ra, rb = int(region[sa]), int(region[sb])
        for c in corners:
            pinned[ra].add(c)
            pinned[rb].add(c)
            u, v = find((*c, ra)), find((*c, rb))
            if u != v:
                parent[u] = v
    keys: dict[tuple, int] = {}
    vxy: list[tuple[float, float]] = []
    vz: list[list[float]] = []
    polys: list[list[int]] = []
    planes: list[np.ndarray | None] = []
    for r in masks:
        sel = (region == r) & kept
        if not sel.any():
            continue
        km = np.zeros((ny, nx), dtype=bool)
        km[iy[sel], ix[sel]] = True
        inr = region == r
        zmap = np.full((ny, nx), np.nan)
        zmap[iy[inr], ix[inr]] = hf.z[iy[inr], ix[inr], k[inr]]
        geom = _simplify(mask_to_geometry(km), pinned[r], settings.max_simplify_error)
        verts, rpolys = decompose(geom, settings.max_verts_per_poly)
        ids = []
        for cxy in verts:
            cx, cy = round(float(cxy[0])), round(float(cxy[1]))
            key = ("p", *find((cx, cy, r))) if (cx, cy) in pinned[r] else ("r", r, cx, cy)
            if key not in keys:
                keys[key] = len(vxy)
                vxy.append((float(cxy[0]), float(cxy[1])))
                vz.append([])
            near = zmap[max(cy - 1, 0) : cy + 1, max(cx - 1, 0) : cx + 1]
            if np.isfinite(near).any():
                vz[keys[key]].append(float(np.nanmean(near)))
            ids.append(keys[key])
        ccx, ccy = ix[sel] + 0.5, iy[sel] + 0.5
        cz = hf.z[iy[sel], ix[sel], k[sel]]
        for poly in rpolys:
            polys.append([ids[i] for i in poly])
            inside = shapely.contains_xy(Polygon(verts[poly]), ccx, ccy)
            if inside.sum() >= 3:
                pts = np.column_stack([ccx[inside], ccy[inside], cz[inside]])
                pts[:, :2] = hf.origin + pts[:, :2] * cs
                planes.append(fit_plane(pts))
            else:
                planes.append(None)
    if not polys:
        raise NavMeshError(
            "the agent radius erodes away every walkable region: lower agent_radius or raise cell_size"
        )
    V = np.zeros((len(vxy), 3))
    V[:, :2] = hf.origin + np.asarray(vxy) * cs
    V[:, 2] = [float(np.mean(z)) if z else 0.0 for z in vz]
    P = np.array(
        [pl if pl is not None else fit_plane(V[poly]) for poly, pl in zip(polys, planes, strict=True)]
    )
    meta = {"source": "rays", "settings": settings.as_dict()}
    return build_navmesh(V, polys, planes=P, meta=meta)
