"""Area marking: the pieces cover the same floor, stay joined, carry the right ids, and paths without a
filter keep their exact lengths; bad volumes are refused with NavMeshError."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from nav_helpers import free_points
from shapely.geometry import Polygon, box

from navigation.areas import AreaVolume, mark_areas
from navigation.carve import carve_navmesh
from navigation.errors import NavMeshError
from navigation.grid_bake import bake_polygons
from navigation.navmesh import GROUND_AREA, NavMesh
from navigation.obstacles import Box, footprint, pose
from navigation.query import NavMeshQuery
from navigation.settings import CarveSettings

ROOM = [(0.0, 0.0), (24.0, 0.0), (24.0, 16.0), (0.0, 16.0)]
SHELVES = [box(3, 4, 10, 5), box(13, 4, 21, 5), box(3, 10, 10, 11), box(13, 10, 21, 11)]
FREE = Polygon(ROOM).difference(shapely.union_all(SHELVES))


@pytest.fixture(scope="module")
def base() -> NavMesh:
    return bake_polygons(ROOM, SHELVES)


def _covered(mesh: NavMesh, ids: list[int] | None = None) -> shapely.Geometry:
    polys = range(mesh.polygon_count) if ids is None else ids
    return shapely.union_all([Polygon(mesh.polygon_xy(p)) for p in polys])


def _pairs(rng: np.random.Generator, n: int) -> list[tuple[tuple[float, float, float], ...]]:
    pts = free_points(rng, 2 * n, FREE)
    return list(zip(pts[::2], pts[1::2], strict=True))


def test_marked_pieces_cover_the_same_floor_with_the_right_ids(base: NavMesh) -> None:
    water = AreaVolume(1, ((11.0, -1.0), (13.0, -1.0), (13.0, 17.0), (11.0, 17.0)))
    danger = AreaVolume(2, ((5.0, 6.0), (9.0, 6.0), (7.0, 9.0)))  # a triangle, inside one polygon
    marked = mark_areas(base, [water, danger], {"water": 1, "danger": 2})
    assert marked.meta["areas"] == {"water": 1, "danger": 2}
    assert marked.total_area == pytest.approx(base.total_area, rel=1e-12)
    assert _covered(marked).symmetric_difference(_covered(base)).area < 1e-9
    assert len(np.unique(marked.islands)) == len(np.unique(base.islands))  # still joined across the cuts
    for area, vol in ((1, water), (2, danger)):
        ids = np.flatnonzero(marked.area_ids == area).tolist()
        expected = _covered(base).intersection(vol.polygon)
        assert _covered(marked, ids).symmetric_difference(expected).area < 1e-9
    ground = np.flatnonzero(marked.area_ids == GROUND_AREA).tolist()
    rest = _covered(base).difference(water.polygon).difference(danger.polygon)
    assert _covered(marked, ground).symmetric_difference(rest).area < 1e-9


def test_without_a_filter_paths_keep_their_exact_lengths(base: NavMesh) -> None:
    vols = [
        AreaVolume(1, ((11.0, -1.0), (13.0, -1.0), (13.0, 17.0), (11.0, 17.0))),
        AreaVolume(2, ((1.0, 1.0), (20.0, 2.0), (20.0, 3.0), (1.0, 3.5))),
    ]
    q0, q1 = NavMeshQuery(base), NavMeshQuery(mark_areas(base, vols))
    for a, b in _pairs(np.random.default_rng(3), 150):
        p0, p1 = q0.find_path(a, b), q1.find_path(a, b)
        assert p1.status is p0.status
        assert p1.length == pytest.approx(p0.length, abs=1e-9)


def test_later_volumes_win_where_they_overlap(base: NavMesh) -> None:
    a = AreaVolume(1, ((0.0, 0.0), (8.0, 0.0), (8.0, 3.0), (0.0, 3.0)))
    b = AreaVolume(2, ((4.0, 0.0), (12.0, 0.0), (12.0, 3.0), (4.0, 3.0)))
    marked = mark_areas(base, [a, b])
    two = _covered(marked, np.flatnonzero(marked.area_ids == 2).tolist())
    one = _covered(marked, np.flatnonzero(marked.area_ids == 1).tolist())
    assert two.area == pytest.approx(8.0 * 3.0)
    assert one.area == pytest.approx(4.0 * 3.0)


def test_a_height_range_marks_only_the_floors_within_it(base: NavMesh) -> None:
    low = AreaVolume(1, ((0.0, 0.0), (8.0, 0.0), (8.0, 3.0), (0.0, 3.0)), bottom=1.0, top=2.0)
    assert (mark_areas(base, [low]).area_ids == GROUND_AREA).all()  # the floor is at z = 0


@settings(max_examples=25, deadline=None)
@given(
    x=st.floats(0.5, 20.0),
    y=st.floats(0.5, 12.0),
    w=st.floats(0.3, 6.0),
    h=st.floats(0.3, 6.0),
    turn=st.floats(0.0, math.pi),
)
def test_any_rotated_rectangle_keeps_floor_and_lengths(
    x: float, y: float, w: float, h: float, turn: float
) -> None:
    base = bake_polygons(ROOM, SHELVES)
    c, s = math.cos(turn), math.sin(turn)
    corners = [(x + c * u - s * v, y + s * u + c * v) for u, v in ((0, 0), (w, 0), (w, h), (0, h))]
    marked = mark_areas(base, [AreaVolume(3, tuple(corners))])
    assert marked.total_area == pytest.approx(base.total_area, rel=1e-9)
    assert len(np.unique(marked.islands)) == len(np.unique(base.islands))
    q0, q1 = NavMeshQuery(base), NavMeshQuery(marked)
    for a, b in _pairs(np.random.default_rng(int(x * 1000)), 10):
        assert q1.find_path(a, b).length == pytest.approx(q0.find_path(a, b).length, abs=1e-9)


def test_carving_keeps_the_area_ids(base: NavMesh) -> None:
    marked = mark_areas(base, [AreaVolume(1, ((11.0, -1.0), (13.0, -1.0), (13.0, 17.0), (11.0, 17.0)))])
    crate = footprint(Box((0.5, 0.5, 0.5)), pose((12.0, 7.5, 0.5)), CarveSettings(agent_radius=0.4))
    carved = carve_navmesh(marked, [crate], CarveSettings(agent_radius=0.4))
    wet = _covered(carved, np.flatnonzero(carved.area_ids == 1).tolist())
    expected = _covered(base).intersection(box(11, -1, 13, 17)).difference(crate.polygon)
    assert wet.symmetric_difference(expected).area < 1e-9


def test_area_ids_survive_save_and_load(base: NavMesh, tmp_path) -> None:
    marked = mark_areas(base, [AreaVolume(5, ((1.0, 1.0), (6.0, 1.0), (6.0, 3.0)))], {"mud": 5})
    back = NavMesh.load(marked.save(tmp_path / "m.npz"))
    assert (back.area_ids == marked.area_ids).all()
    assert back.meta["areas"] == {"mud": 5}


def test_a_version_1_file_loads_with_every_polygon_ground(base: NavMesh, tmp_path) -> None:
    path = tmp_path / "old.npz"
    with path.open("wb") as f:
        np.savez_compressed(
            f, version=np.array(1), vertices=base.vertices, poly_offsets=base.poly_offsets,
            poly_verts=base.poly_verts, poly_neighbors=base.poly_neighbors, planes=base.planes,
            areas=base.areas, islands=base.islands, flags=base.flags, meta=np.array("{}"),
        )  # fmt: skip
    assert (NavMesh.load(path).area_ids == GROUND_AREA).all()


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"area": 0, "footprint": ((0, 0), (1, 0), (0, 1))}, "1..63"),
        ({"area": 64, "footprint": ((0, 0), (1, 0), (0, 1))}, "1..63"),
        ({"area": True, "footprint": ((0, 0), (1, 0), (0, 1))}, "whole number"),
        ({"area": 1, "footprint": ((0, 0), (1, 0))}, "at least 3"),
        ({"area": 1, "footprint": ((0, 0), (1, 0), (2, 0))}, "non-zero area"),
        ({"area": 1, "footprint": ((0, 0), (1, 1), (1, 0), (0, 1))}, "simple polygon"),
        ({"area": 1, "footprint": ((0, 0), (1, math.nan), (0, 1))}, "finite"),
        ({"area": 1, "footprint": "square"}, "corners"),
        ({"area": 1, "footprint": ((0, 0), (1, 0), (0, 1)), "bottom": 2.0, "top": 1.0}, "bottom"),
        ({"area": 1, "footprint": ((0, 0), (1, 0), (0, 1)), "top": math.nan}, "height"),
    ],
)
def test_bad_volumes_are_refused(kwargs: dict, words: str) -> None:
    with pytest.raises(NavMeshError, match=words):
        AreaVolume(**kwargs)


def test_bad_mark_arguments_are_refused(base: NavMesh) -> None:
    vol = AreaVolume(1, ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0)))
    with pytest.raises(NavMeshError, match="AreaVolume"):
        mark_areas(base, [((0, 0), (1, 0), (0, 1))])  # type: ignore[list-item]
    with pytest.raises(NavMeshError, match=r"id 1\.\.63"):
        mark_areas(base, [vol], {"water": 0})
    with pytest.raises(NavMeshError, match="max_verts"):
        mark_areas(base, [vol], max_verts=2)


def test_a_footprint_edge_along_a_wall_edge_keeps_the_portals_beside_it(base: NavMesh) -> None:
    # the footprint's top edge runs along a shelf's (y = 4) and ends in the free corridor beside it: the
    # polygon above is not cut, so its edge must still take the new corner, or the portal there is lost
    marked = mark_areas(base, [AreaVolume(3, ((5.0, 1.0), (11.0, 1.0), (11.0, 4.0), (5.0, 4.0)))])
    q0, q1 = NavMeshQuery(base), NavMeshQuery(marked)
    a, b = (8.84, 5.72, 0.0), (8.81, 3.87, 0.0)  # round the shelf's end at x = 10, through that corridor
    assert q1.find_path(a, b).length == pytest.approx(q0.find_path(a, b).length, abs=1e-9)
    for a, b in _pairs(np.random.default_rng(5000), 30):
        assert q1.find_path(a, b).length == pytest.approx(q0.find_path(a, b).length, abs=1e-9)
