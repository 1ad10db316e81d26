"""The exact navmesh of a flat level: the floor minus the footprints of its boxes, eroded by the agent radius.

A scene whose `[navmesh]` table says `method = "footprints"` is baked from its geometry instead of from
rays (`navigation.ray_bake`): the walkable region is the floor's rectangle minus the footprint (a rotated
rectangle) of every box that stands in an agent's way, shrunk by the agent radius with round joins
(`navigation.grid_bake.bake_polygons`, shapely). Its edge lies the agent radius from every wall, up to a
chord's sag at corners (2 % of the radius: 8 mm at 0.4 m, inside the exact offset), where the ray bake
keeps the radius plus up to a cell and a half (0.5-0.7 m from the warehouse's walls at 0.2 m cells): a
2 m doorway is 1.2 m of mesh, not 0.8 m, and a body touching a wall stands on the mesh's edge.

The built-in warehouse is baked this way. Measured there against its ray mesh (the note of this change):
`bench soak` with avoidance keeps every NPC within 1 cm of the mesh (rays: 0.33 m), and `bench crowd`'s
doorway gets all 40 through on the issue's layout (rays: 39). It took a behaviour fix to hold the soak's
stuck share under 1 %: with no margin between the mesh edge and the walls, pursuers sent to their own
shooters (allies' shots taken as the player's position) jammed against walls for good.

Only what the 2-D form holds exactly is accepted: one flat floor, boxes, nothing else. A box is an
obstacle when it reaches from below `floor.z + agent_height` to above `floor.z + max_climb`; one wholly
overhead is left out; one whose top lies in the climbable band above the floor (a step an agent could
walk onto) cannot be drawn in 2-D, and is refused like ramps, stairs, platforms and assets.
"""

from __future__ import annotations

import dataclasses

from shapely import affinity
from shapely.geometry import Polygon, box

from navigation.grid_bake import bake_polygons
from navigation.navmesh import NavMesh
from navigation.settings import BakeSettings
from npc_ai.errors import LevelError
from scenes import Scene

__all__ = ["footprint_navmesh", "footprints"]


def footprints(scene: Scene, settings: BakeSettings) -> tuple[Polygon, list[Polygon], float]:
    """The floor's rectangle and the footprints of the boxes in an agent's way [m] (module docstring), and
    the floor's height [m].

    Raises:
        LevelError: the scene has no floor, or holds what the 2-D form cannot (ramps, stairs,
            platforms, assets, a box whose top is a step onto it).
    """
    name = scene.name or "the scene"
    if scene.floor is None:
        raise LevelError(f'{name}: [navmesh] method = "footprints" needs a [floor]; use method = "rays"')
    others = [
        (kind, len(items))
        for kind, items in (
            ("ramp", scene.ramps),
            ("stairs", scene.stairs),
            ("platform", scene.platforms),
            ("asset", scene.assets),
        )
        if items
    ]
    if others:
        kinds = ", ".join(f"{n} {kind}" for kind, n in others)
        raise LevelError(
            f'{name}: [navmesh] method = "footprints" bakes a flat floor with boxes only, and the scene has '
            f'{kinds}: use method = "rays"'
        )
    f = scene.floor
    floor = box(
        f.center[0] - 0.5 * f.size[0],
        f.center[1] - 0.5 * f.size[1],
        f.center[0] + 0.5 * f.size[0],
        f.center[1] + 0.5 * f.size[1],
    )
    climb, head = f.z + settings.max_climb, f.z + settings.agent_height
    obstacles = []
    for k, b in enumerate(scene.boxes):
        (cx, cy, cz), (hx, hy, hz) = b.center, b.half_extents
        bottom, top = cz - hz, cz + hz
        if bottom >= head or top <= f.z:  # overhead, or sunk in the floor
            continue
        if top <= climb:
            label = f"box {k}" + (f" ({b.name!r})" if b.name else "")
            raise LevelError(
                f"{name}: {label} tops out at {top:g} m, a step within max_climb ({settings.max_climb:g} m) "
                f'of the floor: [navmesh] method = "footprints" cannot draw it; use method = "rays"'
            )
        rect = affinity.rotate(box(-hx, -hy, hx, hy), b.yaw_deg, origin=(0.0, 0.0))
        obstacles.append(affinity.translate(rect, cx, cy))
    return floor, obstacles, float(f.z)


def footprint_navmesh(scene: Scene, settings: BakeSettings) -> NavMesh:
    """The exact navmesh of `scene` for `settings`' agent radius, height and climb (module docstring).

    Raises:
        LevelError: see `footprints`. navigation.NavMeshError: the radius leaves no walkable area.
    """
    floor, obstacles, z = footprints(scene, settings)
    mesh = bake_polygons(floor, obstacles, agent_radius=settings.agent_radius, height=z)
    meta = dict(mesh.meta) | {"source": "footprints", "settings": settings.as_dict()}
    return dataclasses.replace(mesh, meta=meta)
