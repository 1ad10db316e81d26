"""Navigation meshes for simulated enemies: bake from a ray source or a 2-D map, query exact shortest paths.

`navigation` imports neither `npc_ai`, `scenes` nor a physics engine: it bakes from the RaySource protocol.
The names below load on first use (PEP 562), so `import navigation.movingai` (or the command line) does
not pay for every compiled kernel.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "FLAG_ISLAND": "navigation.navmesh",
    "AgentBatch": "navigation.agent_batch",
    "AreaVolume": "navigation.areas",
    "AgentSettings": "navigation.agent",
    "AgentSize": "navigation.sizes",
    "AvoidanceResult": "navigation.avoidance",
    "AvoidanceSettings": "navigation.avoidance",
    "BakeSettings": "navigation.settings",
    "CacheWarning": "navigation.errors",
    "CarveSettings": "navigation.settings",
    "CarveUpdate": "navigation.dynamic",
    "CrowdError": "navigation.errors",
    "DynamicNavMesh": "navigation.dynamic",
    "GridMap": "navigation.movingai",
    "LinkedPath": "navigation.links",
    "LinkedQuery": "navigation.links",
    "LinkSearch": "navigation.links",
    "Heightfield": "navigation.heightfield",
    "MapFormatError": "navigation.errors",
    "NavAgent": "navigation.agent",
    "NavMesh": "navigation.navmesh",
    "NavMeshError": "navigation.errors",
    "NavMeshQuery": "navigation.query",
    "NavSettingsError": "navigation.errors",
    "NavigationError": "navigation.errors",
    "NearestPoint": "navigation.query",
    "OffMeshLink": "navigation.links",
    "PathResult": "navigation.query",
    "QueryFilter": "navigation.filters",
    "QueryReason": "navigation.query",
    "QueryStatus": "navigation.query",
    "RayHits": "navigation.protocols",
    "RayHitsLike": "navigation.protocols",
    "RaySource": "navigation.protocols",
    "RaycastHit": "navigation.query",
    "Scenario": "navigation.movingai",
    "ScenarioReport": "navigation.benchmark",
    "ScenarioRow": "navigation.benchmark",
    "SolidProbe": "navigation.protocols",
    "WallDistance": "navigation.query",
    "Walls": "navigation.avoidance",
    "avoid": "navigation.avoidance",
    "bake_from_rays": "navigation.ray_bake",
    "bake_geometry": "navigation.grid_bake",
    "bake_grid": "navigation.grid_bake",
    "bake_heightfield": "navigation.ray_bake",
    "bake_polygons": "navigation.grid_bake",
    "bake_sizes": "navigation.sizes",
    "build_navmesh": "navigation.navmesh",
    "carve_navmesh": "navigation.carve",
    "cached_bake": "navigation.cache",
    "content_hash": "navigation.cache",
    "corridor_portals": "navigation.funnel",
    "drop_collinear": "navigation.funnel",
    "find_links": "navigation.links",
    "grid_free_geometry": "navigation.grid_bake",
    "mark_areas": "navigation.areas",
    "parse_map": "navigation.movingai",
    "parse_scenarios": "navigation.movingai",
    "plot_navmesh": "navigation.plot",
    "polyline_length": "navigation.funnel",
    "portal_midpoint_path": "navigation.funnel",
    "read_map": "navigation.movingai",
    "read_scenarios": "navigation.movingai",
    "sample_heightfield": "navigation.heightfield",
    "solve_scenarios": "navigation.benchmark",
    "string_pull": "navigation.funnel",
}

__all__ = [
    "FLAG_ISLAND",
    "AgentBatch",
    "AgentSettings",
    "AgentSize",
    "AreaVolume",
    "AvoidanceResult",
    "AvoidanceSettings",
    "BakeSettings",
    "CacheWarning",
    "CarveSettings",
    "CarveUpdate",
    "CrowdError",
    "DynamicNavMesh",
    "GridMap",
    "Heightfield",
    "LinkSearch",
    "LinkedPath",
    "LinkedQuery",
    "MapFormatError",
    "NavAgent",
    "NavMesh",
    "NavMeshError",
    "NavMeshQuery",
    "NavSettingsError",
    "NavigationError",
    "NearestPoint",
    "OffMeshLink",
    "PathResult",
    "QueryFilter",
    "QueryReason",
    "QueryStatus",
    "RayHits",
    "RayHitsLike",
    "RaySource",
    "RaycastHit",
    "Scenario",
    "ScenarioReport",
    "ScenarioRow",
    "SolidProbe",
    "WallDistance",
    "Walls",
    "avoid",
    "bake_from_rays",
    "bake_geometry",
    "bake_grid",
    "bake_heightfield",
    "bake_polygons",
    "bake_sizes",
    "build_navmesh",
    "cached_bake",
    "carve_navmesh",
    "content_hash",
    "corridor_portals",
    "drop_collinear",
    "find_links",
    "grid_free_geometry",
    "mark_areas",
    "parse_map",
    "parse_scenarios",
    "plot_navmesh",
    "polyline_length",
    "portal_midpoint_path",
    "read_map",
    "read_scenarios",
    "sample_heightfield",
    "solve_scenarios",
    "string_pull",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'navigation' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if TYPE_CHECKING:  # static type checkers see the real names
    from navigation.agent import AgentSettings, NavAgent
    from navigation.agent_batch import AgentBatch
    from navigation.areas import AreaVolume, mark_areas
    from navigation.avoidance import AvoidanceResult, AvoidanceSettings, Walls, avoid
    from navigation.benchmark import ScenarioReport, ScenarioRow, solve_scenarios
    from navigation.cache import cached_bake, content_hash
    from navigation.carve import carve_navmesh
    from navigation.dynamic import CarveUpdate, DynamicNavMesh
    from navigation.errors import (
        CacheWarning,
        CrowdError,
        MapFormatError,
        NavigationError,
        NavMeshError,
        NavSettingsError,
    )
    from navigation.filters import QueryFilter
    from navigation.funnel import (
        corridor_portals,
        drop_collinear,
        polyline_length,
        portal_midpoint_path,
        string_pull,
    )
    from navigation.grid_bake import bake_geometry, bake_grid, bake_polygons, grid_free_geometry
    from navigation.heightfield import Heightfield, sample_heightfield
    from navigation.links import LinkedPath, LinkedQuery, LinkSearch, OffMeshLink, find_links
    from navigation.movingai import GridMap, Scenario, parse_map, parse_scenarios, read_map, read_scenarios
    from navigation.navmesh import FLAG_ISLAND, NavMesh, build_navmesh
    from navigation.plot import plot_navmesh
    from navigation.protocols import RayHits, RayHitsLike, RaySource, SolidProbe
    from navigation.query import (
        NavMeshQuery,
        NearestPoint,
        PathResult,
        QueryReason,
        QueryStatus,
        RaycastHit,
        WallDistance,
    )
    from navigation.ray_bake import bake_from_rays, bake_heightfield
    from navigation.settings import BakeSettings, CarveSettings
    from navigation.sizes import AgentSize, bake_sizes
