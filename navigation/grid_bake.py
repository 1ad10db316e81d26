"""Bake a navmesh from 2-D sources: a MovingAI grid (exact cell geometry) or obstacle polygons in a boundary.

Grid convention: cell (x, y) is the square [x, x+1] x [y, y+1] times `scale` (x = column, y = row).
Two blocked cells touching only at a corner form a wall: the free cells on the other diagonal share only
a point, so no portal joins them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import shapely
from shapely import affinity
from shapely.geometry import MultiPolygon, Polygon

from navigation.decompose import as_multipolygon, decompose, mask_to_geometry
from navigation.errors import NavMeshError, NavSettingsError
from navigation.movingai import GridMap
from navigation.navmesh import NavMesh, build_navmesh


def _check(agent_radius: float, scale: float, max_verts_per_poly: int) -> None:
    if not (math.isfinite(agent_radius) and agent_radius >= 0):
        raise NavSettingsError(f"agent_radius must be a finite number >= 0 [m], got {agent_radius!r}")
    if not (math.isfinite(scale) and scale > 0):
        raise NavSettingsError(f"scale must be a finite number > 0 [m per cell], got {scale!r}")
    if (
        isinstance(max_verts_per_poly, bool)
        or not isinstance(max_verts_per_poly, int)
        or max_verts_per_poly < 3
    ):
        raise NavSettingsError(f"max_verts_per_poly must be an integer >= 3, got {max_verts_per_poly!r}")


def grid_free_geometry(grid: GridMap, scale: float = 1.0) -> MultiPolygon:
    """The union of the free cells of a grid, in metres (scale metres per cell)."""
    geom = mask_to_geometry(~np.asarray(grid.blocked, dtype=bool))
    if scale != 1.0:
        geom = affinity.scale(geom, scale, scale, origin=(0, 0))
    return as_multipolygon(geom)


def erode(free: shapely.Geometry, agent_radius: float, quad_segs: int = 4) -> MultiPolygon:
    """Free space shrunk by the agent radius (round joins; chords lie inside the exact offset)."""
    if agent_radius == 0:
        return as_multipolygon(free)
    return as_multipolygon(shapely.buffer(free, -agent_radius, quad_segs=quad_segs))


def bake_geometry(
    free: shapely.Geometry,
    max_verts_per_poly: int = 6,
    meta: dict[str, Any] | None = None,
    *,
    height: float = 0.0,
) -> NavMesh:
    """A flat navmesh at z = `height` [m] covering a polygonal free-space geometry exactly."""
    if not math.isfinite(height):
        raise NavSettingsError(f"height must be a finite number [m], got {height!r}")
    mp = as_multipolygon(free)
    if mp.is_empty or mp.area <= 0:
        raise NavMeshError("no walkable area left to bake (everything blocked, or eroded away by the radius)")
    verts, polys = decompose(mp, max_verts_per_poly)
    planes = np.tile([0.0, 0.0, float(height)], (len(polys), 1))
    xyz = np.column_stack([verts, np.full(len(verts), float(height))])
    return build_navmesh(xyz, polys, planes=planes, meta=meta)


def bake_grid(
    grid: GridMap, *, scale: float = 1.0, agent_radius: float = 0.0, max_verts_per_poly: int = 6
) -> NavMesh:
    """Bake a MovingAI grid: x = column, y = row, `scale` metres per cell, eroded by agent_radius [m]."""
    _check(agent_radius, scale, max_verts_per_poly)
    free = erode(grid_free_geometry(grid, scale), agent_radius)
    meta = {"source": "grid", "name": grid.name, "scale": scale, "agent_radius": agent_radius}
    return bake_geometry(free, max_verts_per_poly, meta)


def bake_polygons(
    boundary: Polygon | Sequence[Sequence[float]],
    obstacles: Sequence[Polygon | Sequence[Sequence[float]]] = (),
    *,
    agent_radius: float = 0.0,
    max_verts_per_poly: int = 6,
    height: float = 0.0,
) -> NavMesh:
    """Bake the inside of a boundary polygon minus obstacle polygons (all 2-D, metres), eroded by
    `agent_radius` [m] (round joins: the mesh edge lies the radius from every obstacle and the boundary,
    up to a chord's sag of 2 % of it at corners), flat at z = `height` [m]."""
    _check(agent_radius, 1.0, max_verts_per_poly)

    def as_poly(p: Polygon | Sequence[Sequence[float]], what: str) -> Polygon:
        poly = p if isinstance(p, Polygon) else Polygon(p)
        if poly.is_empty or not poly.is_valid:
            raise NavMeshError(f"{what} is not a valid polygon: {shapely.is_valid_reason(poly)}")
        return poly

    outer = as_poly(boundary, "boundary")
    holes = [as_poly(o, f"obstacle {i}") for i, o in enumerate(obstacles)]
    free = outer.difference(shapely.union_all(holes)) if holes else outer
    meta = {"source": "polygons", "agent_radius": agent_radius}
    return bake_geometry(erode(free, agent_radius), max_verts_per_poly, meta, height=height)
