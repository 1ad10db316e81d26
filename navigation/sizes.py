"""Several agent sizes on one level: one navmesh per size, baked in one call.

A size is an agent radius (the erosion from walls) and height (the free space a floor needs above it).
Recast and Unity make you bake and keep a mesh per agent type by hand; `bake_sizes` bakes them all at
once and shares the costly part: the vertical ray sampling of the level (`sample_heightfield`) runs once
per distinct height, and every radius of that height is eroded, traced and decomposed from the same
heightfield. Each mesh says which size it is for in `meta["agent_size"]`. An agent then queries the mesh
of its size: a wide agent's mesh has no polygon in a passage narrower than its diameter, so no path of it
enters one.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

from navigation.errors import NavSettingsError
from navigation.heightfield import sample_heightfield
from navigation.navmesh import NavMesh
from navigation.protocols import RaySource
from navigation.ray_bake import BakeProgress, _CountingSource, bake_heightfield
from navigation.settings import BakeSettings


@dataclass(frozen=True)
class AgentSize:
    """An agent type's size.

    Attributes:
        name: what agents and scene files call it ("default", "large", ...; non-empty).
        radius: the clearance kept from walls [m, >= 0] (`BakeSettings.agent_radius`).
        height: the free space needed above a floor [m, > 0] (`BakeSettings.agent_height`).
    """

    name: str
    radius: float
    height: float

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise NavSettingsError(f"an agent size needs a non-empty name, got {self.name!r}")
        for field, low, strict in (("radius", 0.0, False), ("height", 0.0, True)):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise NavSettingsError(
                    f"agent size {self.name!r}: {field} must be a finite number [m], got {value!r}"
                )
            if value < low or (strict and value == low):
                bound = "> 0" if strict else ">= 0"
                raise NavSettingsError(f"agent size {self.name!r}: {field} must be {bound} m, got {value!r}")
            object.__setattr__(self, field, float(value))

    def settings(self, base: BakeSettings) -> BakeSettings:
        """`base` with this size's agent radius and height."""
        return dataclasses.replace(base, agent_radius=self.radius, agent_height=self.height)


def bake_sizes(
    source: RaySource,
    sizes: Sequence[AgentSize],
    settings: BakeSettings | None = None,
    *,
    progress: BakeProgress | None = None,
) -> dict[str, NavMesh]:
    """One navmesh per size (name -> mesh, in the order given), the ray sampling shared by every size of
    one height.

    Args:
        source: the level (`navigation.RaySource`).
        sizes: the agent sizes, names unique.
        settings: every other bake setting (cell size, climb, slope...); its own agent radius and height
            are replaced by each size's.
        progress: `progress(stage, done, total)` of the sampling and of each size's build.
    Raises:
        NavSettingsError: no sizes, a size that is not an `AgentSize`, or a name given twice.
        NavMeshError: what `bake_from_rays` raises for a size (e.g. its radius erodes every floor away).
    """
    base = settings if settings is not None else BakeSettings()
    listed = list(sizes)
    if not listed:
        raise NavSettingsError("bake_sizes needs at least one AgentSize")
    names: set[str] = set()
    for size in listed:
        if not isinstance(size, AgentSize):
            raise NavSettingsError(f"sizes must be AgentSize, got {type(size).__name__}")
        if size.name in names:
            raise NavSettingsError(f"agent size {size.name!r} is given twice; names must be unique")
        names.add(size.name)
    if progress is not None:
        source = _CountingSource(source, progress)
    out: dict[str, NavMesh] = {}
    by_height: dict[float, list[AgentSize]] = {}
    for size in listed:
        by_height.setdefault(size.height, []).append(size)
    for height, group in by_height.items():
        hf = sample_heightfield(source, dataclasses.replace(base, agent_height=height))
        for size in group:
            mesh = bake_heightfield(hf, size.settings(base), progress=progress)
            meta = {
                **mesh.meta,
                "agent_size": {"name": size.name, "radius": size.radius, "height": size.height},
            }
            out[size.name] = dataclasses.replace(mesh, meta=meta)
    return {size.name: out[size.name] for size in listed}
