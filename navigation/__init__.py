"""Navigation meshes for simulated enemies: bake from a ray source or a 2-D map, query exact shortest paths.

`navigation` imports neither `npc_ai`, `scenes` nor a physics engine: it bakes from the RaySource protocol.
"""

from navigation.agent import AgentSettings, NavAgent
from navigation.agent_batch import AgentBatch
from navigation.avoidance import AvoidanceResult, AvoidanceSettings, Walls, avoid
from navigation.benchmark import ScenarioReport, ScenarioRow, solve_scenarios
from navigation.cache import cached_bake, content_hash
from navigation.errors import (
    CacheWarning,
    CrowdError,
    MapFormatError,
    NavigationError,
    NavMeshError,
    NavSettingsError,
)
from navigation.funnel import (
    corridor_portals,
    drop_collinear,
    polyline_length,
    portal_midpoint_path,
    string_pull,
)
from navigation.grid_bake import bake_geometry, bake_grid, bake_polygons, grid_free_geometry
from navigation.heightfield import Heightfield, sample_heightfield
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
from navigation.settings import BakeSettings

__all__ = [
    "FLAG_ISLAND",
    "AgentBatch",
    "AgentSettings",
    "AvoidanceResult",
    "AvoidanceSettings",
    "BakeSettings",
    "CacheWarning",
    "CrowdError",
    "GridMap",
    "Heightfield",
    "MapFormatError",
    "NavAgent",
    "NavMesh",
    "NavMeshError",
    "NavMeshQuery",
    "NavSettingsError",
    "NavigationError",
    "NearestPoint",
    "PathResult",
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
    "build_navmesh",
    "cached_bake",
    "content_hash",
    "corridor_portals",
    "drop_collinear",
    "grid_free_geometry",
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
