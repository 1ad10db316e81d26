"""The compiled surface raycast against shapely: a segment walks clear exactly when it stays inside the union
of the mesh's polygons, and a wall stops it where it leaves that union (real level: MovingAI den312d)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, Polygon

from navigation.grid_bake import bake_grid
from navigation.movingai import parse_map
from navigation.query import NavMeshQuery, QueryStatus
from tests.conftest import MOVINGAI


@pytest.fixture(scope="module")
def den() -> tuple[NavMeshQuery, shapely.Geometry]:
    grid = parse_map((MOVINGAI / "den312d.map").read_text())
    query = NavMeshQuery(bake_grid(grid))
    mesh = query.mesh
    free = shapely.union_all([Polygon(xy) for xy in mesh.loops.xy])
    return query, free


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), length=st.floats(0.5, 40.0), angle=st.floats(-math.pi, math.pi))
def test_raycast_leaves_the_mesh_where_its_union_ends(den, seed, length, angle) -> None:
    query, free = den
    start = query.random_points(np.random.default_rng(seed), 1)[0][0]
    end = start + length * np.array([math.cos(angle), math.sin(angle), 0.0])
    hit = query.raycast(start, end)
    a, b = start[:2], end[:2]
    if hit.status is QueryStatus.SUCCESS:
        assert free.buffer(1e-6).covers(LineString([a, b]))
        return
    assert hit.status is QueryStatus.PARTIAL and 0.0 <= hit.fraction < 1.0
    stop = a + hit.fraction * (b - a)
    np.testing.assert_allclose(hit.point[:2], stop, atol=1e-9)
    assert free.boundary.distance(Point(stop)) < 1e-6  # on the edge of the walkable union
    if hit.fraction > 1e-6:  # the walk up to the wall stays inside
        assert free.buffer(1e-6).covers(LineString([a, a + (hit.fraction - 1e-7) * (b - a)]))
    beyond = stop + 1e-5 * (b - a) / length  # 10 um past the wall: off the walkable union
    assert not free.contains(Point(beyond))
    normal = hit.normal[:2]
    assert abs(float(np.hypot(*normal)) - 1.0) < 1e-9
    assert float(normal @ (b - a)) < 0  # the wall faces the walker


@pytest.fixture(scope="module")
def den_polygons(den) -> tuple[list[shapely.Geometry], list[shapely.Geometry]]:
    """Each polygon of den's mesh shrunk and grown by 1 um (clearly inside / clearly outside)."""
    polys = [Polygon(xy) for xy in den[0].mesh.loops.xy]
    return [p.buffer(-1e-6) for p in polys], [p.buffer(1e-6) for p in polys]


@settings(max_examples=200, deadline=None)
@given(x=st.floats(0.0, 70.0), y=st.floats(0.0, 70.0))
def test_polygons_at_are_the_polygons_that_cover_the_point(den, den_polygons, x, y) -> None:
    """Through the bucket grid, the polygons holding a point are exactly those shapely says cover it (every
    polygon with the point clearly inside, none with it clearly outside), in id order on a flat level."""
    query, _ = den
    found = query.polygons_at((x, y))
    assert found == sorted(found)
    point = Point(x, y)
    for q, (shrunk, grown) in enumerate(zip(*den_polygons, strict=True)):
        if shrunk.contains(point):
            assert q in found
        elif not grown.covers(point):
            assert q not in found
