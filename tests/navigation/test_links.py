"""Off-mesh links: paths through them are the shortest among all paths that use links, checked against an
independent visibility graph extended with the links; one-way links are one-way; bad links are refused."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
import shapely
from nav_helpers import VisibilityGraph, free_points
from shapely.geometry import Polygon, box

from navigation.errors import NavMeshError
from navigation.grid_bake import bake_polygons
from navigation.links import LinkedQuery, OffMeshLink
from navigation.navmesh import NavMesh
from navigation.query import NavMeshQuery, QueryStatus

ROOM = [(0.0, 0.0), (24.0, 0.0), (24.0, 16.0), (0.0, 16.0)]
GAP = box(11.0, -1.0, 13.0, 17.0)  # a chasm across the room: two islands
SHELVES = [box(3, 4, 10, 5), box(15, 10, 21, 11), box(4, 9, 5, 15)]
FREE = Polygon(ROOM).difference(GAP).difference(shapely.union_all(SHELVES))
LINKS = (
    OffMeshLink((10.9, 3.0, 0.0), (13.1, 3.0, 0.0), bidirectional=True, kind="jump", name="south jump"),
    OffMeshLink((10.9, 13.0, 0.0), (13.1, 13.0, 0.0), kind="drop", name="north drop"),  # east only
    OffMeshLink((13.1, 8.0, 0.0), (10.9, 8.0, 0.0), cost=9.0, kind="climb", name="ladder"),  # west only
)


@pytest.fixture(scope="module")
def mesh() -> NavMesh:
    return bake_polygons(ROOM, [GAP, *SHELVES])


@pytest.fixture(scope="module")
def linked(mesh: NavMesh) -> LinkedQuery:
    return LinkedQuery(NavMeshQuery(mesh), LINKS, snap_distance=0.2)


def _reference(graph: VisibilityGraph, a: tuple[float, float], b: tuple[float, float]) -> float:
    """Shortest cost from a to b over the visibility graph extended with the links (networkx)."""
    g = nx.DiGraph()
    ends = {"a": a, "b": b}
    for k, link in enumerate(LINKS):
        ends[f"s{k}"], ends[f"e{k}"] = link.start[:2], link.end[:2]
        g.add_edge(f"s{k}", f"e{k}", weight=link.traversal_cost)
        if link.bidirectional:
            g.add_edge(f"e{k}", f"s{k}", weight=link.traversal_cost)
    for u, p in ends.items():
        for v, q in ends.items():
            if u != v and u != "b" and v != "a":
                d = graph.length(p, q)
                if math.isfinite(d):
                    g.add_edge(u, v, weight=min(d, g.edges[u, v]["weight"]) if g.has_edge(u, v) else d)
    try:
        return float(nx.shortest_path_length(g, "a", "b", weight="weight"))
    except nx.NetworkXNoPath:
        return math.inf


def test_link_paths_are_the_shortest_of_a_visibility_graph_with_the_links(linked: LinkedQuery) -> None:
    graph = VisibilityGraph(FREE)
    rng = np.random.default_rng(5)
    starts, goals = free_points(rng, 40, FREE), free_points(rng, 40, FREE)
    crossed = 0
    for a, b in zip(starts, goals, strict=True):
        path = linked.find_path(a, b)
        expected = _reference(graph, a[:2], b[:2])
        assert path.ok == math.isfinite(expected)
        if path.ok:
            assert path.cost == pytest.approx(expected, abs=1e-4)
            crossed += bool(path.links)
            walked = sum(leg.length for leg in path.legs)
            used = sum(LINKS[k].traversal_cost for k in path.links)
            assert path.cost == pytest.approx(walked + used, abs=1e-9)
            assert len(path.legs) == len(path.links) + 1
    assert crossed >= 10  # the sample crosses the chasm often


def test_one_way_links_are_one_way(linked: LinkedQuery) -> None:
    east = linked.find_path((8.0, 14.0, 0.0), (16.0, 14.0, 0.0))
    assert east.ok and [LINKS[k].name for k in east.links] == ["north drop"]
    west = linked.find_path((16.0, 14.0, 0.0), (8.0, 14.0, 0.0))
    assert west.ok and "north drop" not in [LINKS[k].name for k in west.links]
    assert west.cost > east.cost  # back west by the ladder (cost 9) or the south jump


def test_a_path_crossing_links_walks_to_their_ends(linked: LinkedQuery) -> None:
    path = linked.find_path((2.0, 2.0, 0.0), (22.0, 2.0, 0.0))
    assert path.ok and [LINKS[k].name for k in path.links] == ["south jump"] and path.reverse == (False,)
    assert np.allclose(path.legs[0].points[-1], linked.ends[path.links[0]][0])
    assert np.allclose(path.legs[1].points[0], linked.ends[path.links[0]][1])
    back = linked.find_path((22.0, 2.0, 0.0), (2.0, 2.0, 0.0))
    assert [LINKS[k].name for k in back.links] == ["south jump"] and back.reverse == (True,)


def test_without_links_the_far_side_is_unreachable(mesh: NavMesh) -> None:
    alone = LinkedQuery(NavMeshQuery(mesh), [])
    path = alone.find_path((2.0, 2.0, 0.0), (22.0, 2.0, 0.0))
    assert path.status is QueryStatus.PARTIAL and not path.links


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"start": (0, 0), "end": (1, 1, 0)}, "needs a height"),
        ({"start": (0, 0, 0), "end": (0, 0, 0)}, "must differ"),
        ({"start": (0, 0, 0), "end": (1, 0, 0), "kind": "teleport"}, "jump, drop, climb, door"),
        ({"start": (0, 0, 0), "end": (1, 0, 0), "cost": -1.0}, "link cost"),
        ({"start": (0, 0, 0), "end": (1, 0, 0), "width": math.nan}, "link width"),
        ({"start": (0, 0, 0), "end": (1, 0, 0), "bidirectional": "yes"}, "True or False"),
        ({"start": (0, math.nan, 0), "end": (1, 0, 0)}, "link start"),
    ],
)
def test_bad_links_are_refused(kwargs: dict, words: str) -> None:
    with pytest.raises(NavMeshError, match=words):
        OffMeshLink(**kwargs)


def test_a_link_end_off_the_mesh_is_refused(mesh: NavMesh) -> None:
    with pytest.raises(NavMeshError, match=r"links\[0\] end .* is not within 0.2 m"):
        LinkedQuery(NavMeshQuery(mesh), [OffMeshLink((10.9, 3.0, 0.0), (12.0, 3.0, 0.0))], snap_distance=0.2)
    with pytest.raises(NavMeshError, match="OffMeshLink"):
        LinkedQuery(NavMeshQuery(mesh), [((10.9, 3.0, 0.0), (13.1, 3.0, 0.0))])  # type: ignore[list-item]


def _platforms_mesh() -> NavMesh:
    """A floor with two platforms 1.2 m high, 1.6 m apart (2.4 m between their meshes' edges)."""
    from fake_world import FakeWorld
    from fake_world import box as solid

    from navigation.ray_bake import bake_from_rays
    from navigation.settings import BakeSettings

    world = FakeWorld(
        [solid(-15, 15, -7, 7, -1, 0), solid(-11, -1, -4, 4, 0, 1.2), solid(0.6, 10.6, -4, 4, 0, 1.2)]
    )
    return bake_from_rays(world, BakeSettings(agent_radius=0.3, cell_size=0.1, max_climb=0.3))


@pytest.fixture(scope="module")
def platforms() -> NavMeshQuery:
    return NavMeshQuery(_platforms_mesh())


def test_found_links_jump_the_gap_both_ways_and_drop_off_the_edges(platforms: NavMeshQuery) -> None:
    from navigation.links import LinkSearch, find_links

    links = find_links(platforms, LinkSearch(max_gap=3.0))
    jumps = [k for k in links if k.kind == "jump"]
    drops = [k for k in links if k.kind == "drop"]
    assert len(jumps) >= 2 and len(drops) >= 8
    for link in jumps:
        assert link.bidirectional and abs(link.start[2] - 1.2) < 0.05 and abs(link.end[2] - 1.2) < 0.05
        assert {round(link.start[0] + link.end[0], 1)} <= {-0.4}  # one end on each platform, facing
        assert 1.6 <= math.dist(link.start[:2], link.end[:2]) <= 3.0
    for link in drops:
        assert not link.bidirectional and 1.1 < link.start[2] - link.end[2] <= 2.0
    for link in links:  # every link saves walking: here walking between the levels is impossible
        assert not platforms.find_path(link.start, link.end).ok
    for i, one in enumerate(links):  # of links joining the same places (both ends within 2 m), one is kept
        for other in links[i + 1 :]:
            assert math.dist(one.start, other.start) >= 2.0 or math.dist(one.end, other.end) >= 2.0


def test_found_links_make_the_platforms_reachable_one_way(platforms: NavMeshQuery) -> None:
    from navigation.links import LinkSearch, find_links

    links = find_links(platforms, LinkSearch(max_gap=3.0))
    linked = LinkedQuery(platforms, links)
    across = linked.find_path((-8.0, 0.0, 1.2), (8.0, 0.0, 1.2))
    assert across.ok and [links[k].kind for k in across.links] == ["jump"]
    down = linked.find_path((-8.0, 0.0, 1.2), (0.0, 6.0, 0.0))
    assert down.ok and [links[k].kind for k in down.links] == ["drop"]
    up = linked.find_path((0.0, 6.0, 0.0), (-8.0, 0.0, 1.2))
    assert up.status is QueryStatus.PARTIAL  # nothing climbs back up


def test_search_limits_switch_links_off(platforms: NavMeshQuery) -> None:
    from navigation.links import LinkSearch, find_links

    assert not [k for k in find_links(platforms, LinkSearch(max_gap=2.0)) if k.kind == "jump"]  # 2.4 m gap
    assert not [k for k in find_links(platforms, LinkSearch(max_gap=3.0, max_drop=0.0)) if k.kind == "drop"]
    assert not [k for k in find_links(platforms, LinkSearch(max_gap=3.0, max_drop=1.0)) if k.kind == "drop"]
    with pytest.raises(NavMeshError, match="max_gap"):
        LinkSearch(max_gap=0.0)
    with pytest.raises(NavMeshError, match="spacing"):
        LinkSearch(spacing=math.inf)


def test_with_the_level_a_wall_gets_no_jump_over_it() -> None:
    from fake_world import FakeWorld
    from fake_world import box as solid

    from navigation.links import LinkSearch, find_links
    from navigation.ray_bake import bake_from_rays
    from navigation.settings import BakeSettings

    # one platform with a wall 0.4 m thick and 2 m high standing on it: its two sides face each other
    # across 1.2 m of mesh-less ground, as a chasm's would
    world = FakeWorld(
        [solid(-15, 15, -7, 7, -1, 0), solid(-6, 6, -4, 4, 0, 1.2), solid(-0.2, 0.2, -4, 2, 1.2, 3.2)]
    )
    query = NavMeshQuery(bake_from_rays(world, BakeSettings(agent_radius=0.3, cell_size=0.1, max_climb=0.3)))
    limits = LinkSearch(max_gap=3.0, max_drop=0.0, min_gain=1.0)
    blind = find_links(query, limits)
    assert any(k.kind == "jump" and k.start[0] * k.end[0] < 0 for k in blind)  # the mesh alone: over the wall
    assert not find_links(query, limits, world)  # the rays meet the wall: no jump
