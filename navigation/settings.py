"""Bake settings: the agent's size and the voxel resolution a navmesh is built at (Recast's parameters),
and how dynamic obstacles are carved into it."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from navigation.errors import NavSettingsError


def _finite(
    name: str, value: float, *, low: float, strict: bool, unit: str, high: float | None = None
) -> None:
    ok = (
        isinstance(value, (int, float)) and math.isfinite(value) and (value > low if strict else value >= low)
    )
    if ok and high is not None:
        ok = value < high
    if not ok:
        rel = ">" if strict else ">="
        rng = f"{rel} {low}" + (f" and < {high}" if high is not None else "")
        raise NavSettingsError(f"{name} must be a finite number {rng} [{unit}], got {value!r}")


@dataclass(frozen=True)
class BakeSettings:
    """How a navmesh is baked from a world (ray-sampled heightfield) or a 2-D map.

    Attributes:
        agent_radius: Clearance kept from walls; the walkable area is eroded by it [m, >= 0].
        agent_height: Minimum free height above a floor for it to be walkable [m, > 0].
        max_climb: Largest height step between neighbouring cells the agent can step [m, >= 0].
        max_slope_deg: Steepest walkable surface, from horizontal [deg, 0 <= x < 90].
        cell_size: Horizontal sampling step of the heightfield (one vertical ray per cell) [m, > 0].
        cell_height: Vertical resolution: surfaces closer than this are merged, rays restart this far
            below a hit [m, > 0].
        max_simplify_error: Largest distance a simplified contour may stray from the cell contour
            [cells, >= 0]; 0 keeps the exact cell outline.
        max_verts_per_poly: Most vertices a convex polygon may have [>= 3].
        min_region_area: Connected walkable regions smaller than this are dropped [cells, >= 0].
        keep_islands: Keep connected regions other than the largest (flagged as islands) when True;
            drop everything not reachable by stepping from the largest region when False.
        max_layers: Most floors sampled under one cell (rays restarted below each hit) [>= 1].
    """

    agent_radius: float = 0.5
    agent_height: float = 2.0
    max_climb: float = 0.5
    max_slope_deg: float = 45.0
    cell_size: float = 0.25
    cell_height: float = 0.1
    max_simplify_error: float = 1.3
    max_verts_per_poly: int = 6
    min_region_area: int = 8
    keep_islands: bool = True
    max_layers: int = 8

    def __post_init__(self) -> None:
        _finite("agent_radius", self.agent_radius, low=0.0, strict=False, unit="m")
        _finite("agent_height", self.agent_height, low=0.0, strict=True, unit="m")
        _finite("max_climb", self.max_climb, low=0.0, strict=False, unit="m")
        _finite("max_slope_deg", self.max_slope_deg, low=0.0, strict=False, unit="deg", high=90.0)
        _finite("cell_size", self.cell_size, low=0.0, strict=True, unit="m")
        _finite("cell_height", self.cell_height, low=0.0, strict=True, unit="m")
        _finite("max_simplify_error", self.max_simplify_error, low=0.0, strict=False, unit="cells")
        for name, low in (("max_verts_per_poly", 3), ("min_region_area", 0), ("max_layers", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise NavSettingsError(f"{name} must be an integer >= {low}, got {value!r}")
        if not isinstance(self.keep_islands, bool):
            raise NavSettingsError(f"keep_islands must be True or False, got {self.keep_islands!r}")

    def as_dict(self) -> dict[str, float | int | bool]:
        """The settings as a plain dict (for hashing and saving)."""
        return asdict(self)


@dataclass(frozen=True)
class CarveSettings:
    """How dynamic obstacles are carved into a navmesh (`navigation.dynamic.DynamicNavMesh`).

    The carving policy is Unity's NavMeshObstacle's: an obstacle counts as moving when it has moved more
    than `move_threshold` (or turned more than `turn_threshold_deg`) from where it was last still; with
    `carve_only_stationary` its hole is removed while it moves and cut again once it has stayed within the
    thresholds for `time_to_stationary`; without it the hole follows it at once, re-cut at each such move.

    Attributes:
        agent_radius: Clearance kept around every obstacle: its footprint is grown by this [m, >= 0]
            (use the bake's agent radius). The agent's circle is taken as the regular polygon of
            4 `arc_segments` sides around it, so the clearance is at least this everywhere and at most
            1 / cos(pi / (4 arc_segments)) times it (2 % more with 4).
        agent_height: An obstacle carves the polygons whose height range overlaps [its bottom minus this,
            its top]: floors under it, not a bridge above it or a walkway far below [m, > 0].
        arc_segments: Sides per quarter circle of the polygons standing for the agent's circle and a
            cylinder's outline [>= 1].
        move_threshold: Distance an obstacle must move from where it was last still to count as
            moving [m, >= 0].
        turn_threshold_deg: Turn (any axis) an obstacle must make to count as moving [deg, 0..180].
        time_to_stationary: Time an obstacle must stay within the thresholds to count as still again
            [s, >= 0].
        carve_only_stationary: Carve an obstacle only while it is still (its hole is removed while it
            moves); False re-carves it at every move beyond the thresholds.
        max_verts_per_poly: Most vertices of a convex polygon cut around an obstacle [>= 3].
    """

    agent_radius: float = 0.5
    agent_height: float = 2.0
    arc_segments: int = 4
    move_threshold: float = 0.1
    turn_threshold_deg: float = 5.0
    time_to_stationary: float = 0.5
    carve_only_stationary: bool = True
    max_verts_per_poly: int = 6

    def __post_init__(self) -> None:
        _finite("agent_radius", self.agent_radius, low=0.0, strict=False, unit="m")
        _finite("agent_height", self.agent_height, low=0.0, strict=True, unit="m")
        _finite("move_threshold", self.move_threshold, low=0.0, strict=False, unit="m")
        _finite("turn_threshold_deg", self.turn_threshold_deg, low=0.0, strict=False, unit="deg")
        if self.turn_threshold_deg > 180.0:
            raise NavSettingsError(
                f"turn_threshold_deg must be <= 180 [deg], got {self.turn_threshold_deg!r}"
            )
        _finite("time_to_stationary", self.time_to_stationary, low=0.0, strict=False, unit="s")
        for name, low in (("arc_segments", 1), ("max_verts_per_poly", 3)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise NavSettingsError(f"{name} must be an integer >= {low}, got {value!r}")
        if not isinstance(self.carve_only_stationary, bool):
            raise NavSettingsError(
                f"carve_only_stationary must be True or False, got {self.carve_only_stationary!r}"
            )
