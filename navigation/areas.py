"""Area types: marking navmesh polygons with an area id from footprint volumes (Recast's convex volumes).

An `AreaVolume` is a footprint (a simple polygon seen from above, any winding) with a height range and
an area id (1..MAX_AREA; 0, GROUND_AREA, is every polygon no volume marks). `mark_areas` cuts each polygon
a volume reaches along the footprints' outlines, so every polygon of the result lies wholly inside or
outside each footprint, and gives the pieces their area: where volumes overlap, the later one wins (as
Recast marks them in order). The mesh's walkable surface, its portals between the pieces and its islands
are unchanged: only the polygons under a footprint edge are re-cut (`navigation.decompose`), and a path
without a query filter is the same length on both meshes. Query filters (`navigation.filters`) then give
the areas costs or exclude them.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon

from navigation.carve import BaseIndex, Pieces, _locate, assemble, join_t_junctions
from navigation.decompose import decompose_many
from navigation.errors import NavMeshError
from navigation.navmesh import GROUND_AREA, MAX_AREA, NavMesh


@dataclass(frozen=True)
class AreaVolume:
    """A volume whose floors get one area id.

    Attributes:
        area: the area id it marks [1..MAX_AREA].
        footprint: its outline seen from above, (x, y) corners [m] (at least 3, a simple polygon with a
            non-zero area; either winding).
        bottom, top: the height range [m] of the floors it marks (bottom <= top; default: any height). A
            polygon is marked where its height range meets this one.
    """

    area: int
    footprint: tuple[tuple[float, float], ...]
    bottom: float = -math.inf
    top: float = math.inf

    def __post_init__(self) -> None:
        if isinstance(self.area, bool) or not isinstance(self.area, int | np.integer):
            raise NavMeshError(f"area must be a whole number 1..{MAX_AREA}, got {self.area!r}")
        if not 1 <= int(self.area) <= MAX_AREA:
            raise NavMeshError(
                f"area must be 1..{MAX_AREA} ({GROUND_AREA} is the unmarked ground), got {self.area}"
            )
        try:
            xy = np.asarray(self.footprint, dtype=np.float64)
        except (TypeError, ValueError):
            raise NavMeshError(f"footprint must be (x, y) corners [m], got {self.footprint!r}") from None
        if xy.ndim != 2 or xy.shape[1] != 2 or len(xy) < 3 or not np.isfinite(xy).all():
            raise NavMeshError(
                f"footprint must be at least 3 finite (x, y) corners [m], got {self.footprint!r}"
            )
        outline = Polygon(xy)
        if not outline.is_valid or outline.area <= 0.0:
            raise NavMeshError(
                "footprint must be a simple polygon with a non-zero area (no self-crossing edges)"
            )
        for name in ("bottom", "top"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
                raise NavMeshError(f"{name} must be a height [m], got {value!r}")
        if self.bottom > self.top:
            raise NavMeshError(f"bottom ({self.bottom} m) must not be above top ({self.top} m)")
        object.__setattr__(self, "area", int(self.area))
        object.__setattr__(self, "footprint", tuple((float(x), float(y)) for x, y in xy.tolist()))
        object.__setattr__(self, "bottom", float(self.bottom))
        object.__setattr__(self, "top", float(self.top))

    @property
    def polygon(self) -> Polygon:
        """The footprint as a shapely polygon (counter-clockwise)."""
        return shapely.geometry.polygon.orient(Polygon(self.footprint), 1.0)


def mark_areas(
    mesh: NavMesh,
    volumes: Sequence[AreaVolume],
    names: Mapping[str, int] | None = None,
    *,
    max_verts: int = 6,
) -> NavMesh:
    """`mesh` with its polygons cut along the volumes' footprints and each piece given its area id.

    Args:
        mesh: the baked navmesh (its own area ids are kept where no volume reaches).
        volumes: in marking order; where two overlap, the later one wins.
        names: area name -> id, stored as `meta["areas"]` (query filters read names from it).
        max_verts: most corners of a new polygon [>= 3].
    Raises:
        NavMeshError: a volume that is not an `AreaVolume`, a bad name table or `max_verts`.
    """
    vols = list(volumes)
    for v in vols:
        if not isinstance(v, AreaVolume):
            raise NavMeshError(f"volumes must be AreaVolume, got {type(v).__name__}")
    table = _names(names)
    if isinstance(max_verts, bool) or not isinstance(max_verts, int) or max_verts < 3:
        raise NavMeshError(f"max_verts must be a whole number >= 3, got {max_verts!r}")
    meta = dict(mesh.meta)
    if table:
        meta["areas"] = {**meta.get("areas", {}), **table}
    index = BaseIndex(mesh)
    outlines = [v.polygon for v in vols]
    reach: dict[int, list[int]] = {}
    for k, (v, outline) in enumerate(zip(vols, outlines, strict=True)):
        near = index.tree.query(outline, predicate="intersects")
        for p in np.sort(near).tolist():
            if index.z_high[p] >= v.bottom and index.z_low[p] <= v.top:
                reach.setdefault(int(p), []).append(k)
    whole: dict[int, int] = {}  # polygons one volume covers entirely: a new id, no cut
    cut: dict[int, list[tuple[int, Polygon]]] = {}
    for p, ks in sorted(reach.items()):
        poly = index.polygons[p]
        labelled = _labelled_faces(poly, [(vols[k].area, outlines[k]) for k in ks], int(mesh.area_ids[p]))
        if len(labelled) == 1:
            whole[p] = labelled[0][0]
        else:
            cut[p] = labelled
    ids = mesh.area_ids.copy()
    for p, a in whole.items():
        ids[p] = a
    if not cut:
        return dataclasses.replace(mesh, meta=meta, area_ids=ids)
    pieces, labels = _cut(index, cut, max_verts)
    out, origin, rank = assemble(index, pieces)
    new_ids = ids[origin]
    for k, (p, r) in enumerate(zip(origin.tolist(), rank.tolist(), strict=True)):
        if p in labels:
            new_ids[k] = labels[p][r]
    # the regions of one polygon were decomposed apart: a corner of one may lie inside an edge of the
    # other, which that edge must take for the two to share a portal (as across base polygons)
    return dataclasses.replace(join_t_junctions(out, len(mesh.vertices)), meta=meta, area_ids=new_ids)


def _names(names: Mapping[str, int] | None) -> dict[str, int]:
    if names is None:
        return {}
    if not isinstance(names, Mapping):
        raise NavMeshError(f"names must map area names to ids, got {type(names).__name__}")
    out: dict[str, int] = {}
    for name, a in names.items():
        if not isinstance(name, str) or not name:
            raise NavMeshError(f"area names must be non-empty strings, got {name!r}")
        if isinstance(a, bool) or not isinstance(a, int) or not 1 <= a <= MAX_AREA:
            raise NavMeshError(f"area {name!r} needs an id 1..{MAX_AREA}, got {a!r}")
        out[name] = a
    return out


def _labelled_faces(
    poly: Polygon, marks: list[tuple[int, Polygon]], ground: int
) -> list[tuple[int, Polygon]]:
    """The polygon split by the outlines into regions of one area each (later marks win), as
    (area, region) pairs; regions of one area are merged."""
    lines = shapely.union_all([poly.exterior] + [o.exterior for _, o in marks])  # noded once, for all
    faces = [f for f in shapely.get_parts(shapely.polygonize(shapely.get_parts(lines))) if f.area > 0]
    by_area: dict[int, list[Polygon]] = {}
    for face in faces:
        inside = face.point_on_surface()
        if not poly.contains(inside):
            continue
        area = ground
        for a, outline in marks:
            if outline.contains(inside):
                area = a
        by_area.setdefault(area, []).append(face)
    return [(a, shapely.union_all(fs) if len(fs) > 1 else fs[0]) for a, fs in sorted(by_area.items())]


def _cut(
    index: BaseIndex, cut: dict[int, list[tuple[int, Polygon]]], max_verts: int
) -> tuple[dict[int, Pieces], dict[int, list[int]]]:
    """Convex pieces of each cut polygon (one `decompose_many` for all regions), their points shared
    between the regions of a polygon (T-junctions between them are joined after assembly), and the area
    of each piece in piece order."""
    regions: list[Polygon] = []
    owner: list[int] = []
    meta: list[tuple[int, int]] = []
    for p, labelled in sorted(cut.items()):
        for a, region in labelled:
            for part in shapely.get_parts(region):
                regions.append(part)
                owner.append(len(meta))
            meta.append((p, a))
    parts = np.empty(len(regions), dtype=object)
    parts[:] = regions
    done = decompose_many(parts, np.array(owner, dtype=np.int64), len(meta), max_verts)
    pieces: dict[int, Pieces] = {}
    labels: dict[int, list[int]] = {}
    gathered: dict[int, tuple[dict[tuple[float, float], int], list[list[int]], list[int]]] = {}
    for (p, a), (xy, polys) in zip(meta, done, strict=True):
        point_ids, all_polys, areas = gathered.setdefault(p, ({}, [], []))
        ids = [point_ids.setdefault((x, y), len(point_ids)) for x, y in np.asarray(xy).tolist()]
        for q in polys:
            all_polys.append([ids[i] for i in q])
            areas.append(a)
    for p, (point_ids, all_polys, areas) in gathered.items():
        xy = np.array(list(point_ids), dtype=np.float64).reshape(-1, 2)
        pieces[p] = _locate(index, p, xy, all_polys)
        labels[p] = areas
    return pieces, labels
