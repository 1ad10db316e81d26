"""The glue between scenes and navigation: a world is a ray source, and a scene's navmesh is cached."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from navigation import RayHitsLike, RaySource, SolidProbe
from npc_ai.levels import SceneNavmesh, scene_navmesh
from npc_ai.levels.navmesh import StaticLevel
from scenes import RayHits, World, load_scene


def test_the_world_satisfies_navigations_protocols_without_importing_it() -> None:
    with World(load_scene("arena")) as world:
        level = StaticLevel(world)
        assert isinstance(level, RaySource) and isinstance(level, SolidProbe)
        capsule = world.add_capsule((5.0, 5.0, 0.0))  # not static: the bake must not see it
        starts, ends = np.array([[5.0, 5.0, 5.0]]), np.array([[5.0, 5.0, -1.0]])
        hits = level.ray_test(starts, ends)
        assert isinstance(hits, RayHits) and isinstance(hits, RayHitsLike)
        assert world.ray_test(starts, ends).body[0] == capsule
        assert hits.body[0] in world.static_bodies and abs(hits.point[0, 2]) < 1e-9


def test_scene_navmesh_says_where_the_mesh_came_from(tmp_path: Path) -> None:
    with World(load_scene("arena")) as world:
        first = scene_navmesh(world, cache_dir=tmp_path)
        second = scene_navmesh(world, cache_dir=tmp_path)
        uncached = scene_navmesh(world, use_cache=False)
    assert isinstance(first, SceneNavmesh)
    assert (first.from_cache, second.from_cache, uncached.from_cache) == (False, True, False)
    assert second.mesh.polygon_count == first.mesh.polygon_count > 0
    np.testing.assert_array_equal(second.mesh.vertices, first.mesh.vertices)
