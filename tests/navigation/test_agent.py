"""The nav agent: following paths, stopping, partial paths, warping, next_position, re-planning."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navigation.agent import AgentSettings, NavAgent
from navigation.errors import NavMeshError, NavSettingsError
from navigation.grid_bake import bake_polygons
from navigation.navmesh import build_navmesh
from navigation.query import NavMeshQuery, QueryStatus

DT = 1.0 / 60.0
WALL = [(8.0, 0.0), (9.0, 0.0), (9.0, 7.0), (8.0, 7.0)]


@pytest.fixture(scope="module")
def query() -> NavMeshQuery:
    """A 20 x 10 m room with a wall from the south edge, plus a separate 4 x 4 m island."""
    room = bake_polygons([(0, 0), (20, 0), (20, 10), (0, 10)], [WALL], agent_radius=0.4)
    return NavMeshQuery(room)


@pytest.fixture(scope="module")
def islands() -> NavMeshQuery:
    from shapely.geometry import Polygon

    two = Polygon([(0, 0), (10, 0), (10, 10), (0, 10)]).union(Polygon([(20, 0), (24, 0), (24, 4), (20, 4)]))
    from navigation.grid_bake import bake_geometry

    return NavMeshQuery(bake_geometry(two))


def run(agent: NavAgent, ticks: int = 3000) -> int:
    for k in range(ticks):
        if agent.arrived and agent.speed < 1e-3:
            return k
        agent.update(DT)
    return ticks


def test_agent_goes_around_the_wall_and_stops_within_stopping_distance(query: NavMeshQuery) -> None:
    agent = NavAgent(query, (2, 2, 0), AgentSettings(speed=3.0, stopping_distance=0.2))
    assert agent.set_destination((15, 2, 0)) is QueryStatus.SUCCESS
    ticks = run(agent)
    end = agent.next_position
    assert np.hypot(*(end[:2] - [15, 2])) <= 0.2 + 1e-6
    assert agent.path.length == pytest.approx(agent.path.length)  # path kept
    # it took about path length / speed, plus accelerating and braking
    assert ticks * DT == pytest.approx(agent.path.length / 3.0, rel=0.25)
    assert agent.position.tolist() == end.tolist()  # update_position on


def test_agent_never_crosses_the_wall(query: NavMeshQuery) -> None:
    agent = NavAgent(query, (2, 2, 0), AgentSettings(speed=6.0, acceleration=30.0))
    agent.set_destination((15, 2, 0))
    for _ in range(600):
        before = agent.next_position
        after = agent.update(DT)
        if (before[0] - 8.5) * (after[0] - 8.5) < 0:  # crossing x = 8.5 only above the wall's end
            assert min(before[1], after[1]) >= 7.0 + 0.4 - 1e-6


def test_steering_target_is_the_next_corner_and_remaining_distance_shrinks(query: NavMeshQuery) -> None:
    agent = NavAgent(query, (2, 2, 0))
    agent.set_destination((15, 2, 0))
    np.testing.assert_allclose(agent.steering_target, agent.path.points[1])
    assert agent.remaining_distance == pytest.approx(agent.path.length, rel=1e-9)
    last = agent.remaining_distance
    for _ in range(60):
        agent.update(DT)
        assert agent.remaining_distance <= last + 1e-9
        last = agent.remaining_distance
    assert agent.desired_velocity @ (agent.steering_target - agent.next_position) > 0


def test_unreachable_destination_gives_partial_path_and_stops_at_its_end(islands: NavMeshQuery) -> None:
    agent = NavAgent(islands, (2, 2, 0), AgentSettings(stopping_distance=0.05, snap_distance=1.0))
    assert agent.set_destination((22, 2, 0)) is QueryStatus.PARTIAL
    run(agent)
    np.testing.assert_allclose(agent.next_position[:2], [10.0, 2.0], atol=0.06)  # nearest reachable point


def test_warp_moves_agent_and_character_and_replans(query: NavMeshQuery) -> None:
    agent = NavAgent(query, (2, 2, 0))
    agent.set_destination((15, 2, 0))
    for _ in range(30):
        agent.update(DT)
    assert agent.warp((12, 9, 0))
    np.testing.assert_allclose(agent.next_position, [12, 9, 0])
    np.testing.assert_allclose(agent.position, [12, 9, 0])
    assert agent.speed == 0.0
    np.testing.assert_allclose(agent.path.points[0], [12, 9, 0])
    assert not agent.warp((50, 50, 0))  # far off the mesh: refused, nothing changes
    np.testing.assert_allclose(agent.next_position, [12, 9, 0])


def test_next_position_is_writable_and_stops_at_walls(query: NavMeshQuery) -> None:
    agent = NavAgent(query, (2, 2, 0))
    agent.update_position = False
    agent.next_position = (3, 3, 0)
    np.testing.assert_allclose(agent.next_position, [3, 3, 0])
    np.testing.assert_allclose(agent.position, [2, 2, 0])  # the character is the caller's
    agent.next_position = (12, 3, 0)  # through the wall: stops before it
    assert agent.next_position[0] <= 8.0 - 0.4 + 1e-3


def test_leaving_the_corridor_replans(query: NavMeshQuery) -> None:
    agent = NavAgent(query, (2, 2, 0), AgentSettings(corridor_tolerance=0.5))
    agent.set_destination((5, 2, 0))
    plans = agent.repaths
    agent.next_position = (2, 6, 0)
    assert agent.repaths == plans + 1
    np.testing.assert_allclose(agent.path.points[0], [2, 6, 0])


def test_pushed_past_its_corner_it_steers_for_the_next_one(query: NavMeshQuery) -> None:
    """The path rounds the wall's eroded end (x 7.6..9.4, y up to 7.4) in a few corners. A push (the crowd)
    that carries the agent past them, in sight of the next, makes that next one its steering target: it
    does not walk back to a corner behind it. A push short of a corner keeps it."""
    agent = NavAgent(query, (2, 2, 0))
    agent.update_position = False
    agent.set_destination((15, 2, 0))
    first = agent.corners[0].copy()
    assert first[0] < 7.8 and first[1] < 7.4
    agent.next_position = (7.0, 7.6, 0)  # short of the first corner (before it along the next leg)
    np.testing.assert_allclose(agent.corners[0], first)
    plans = agent.repaths
    agent.next_position = (8.5, 7.7, 0)  # over the wall's end, past the corners up to (8, 7.4)
    assert agent.repaths == plans  # still on its path: no re-plan
    np.testing.assert_allclose(agent.corners[0], [9.0, 7.4, 0.0], atol=1e-9)
    agent.update(DT)
    assert agent.velocity[0] > 0.0  # on toward the far side, not back


def test_destination_moving_a_little_keeps_the_path(query: NavMeshQuery) -> None:
    agent = NavAgent(query, (2, 2, 0), AgentSettings(repath_tolerance=0.5))
    agent.set_destination((5, 2, 0))
    plans = agent.repaths
    agent.set_destination((5.3, 2.1, 0))
    assert agent.repaths == plans
    np.testing.assert_allclose(agent.destination, [5.3, 2.1, 0])
    agent.set_destination((15, 2, 0))
    assert agent.repaths == plans + 1


def test_rotation_follows_velocity_at_the_angular_speed_limit(query: NavMeshQuery) -> None:
    agent = NavAgent(query, (2, 2, 0), AgentSettings(angular_speed_deg=90.0), yaw=math.pi)
    agent.set_destination((6, 2, 0))
    agent.update(DT)
    assert abs(agent.yaw) == pytest.approx(math.pi - math.radians(90.0) * DT, abs=1e-9)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"radius": 0.0},
        {"speed": -1.0},
        {"acceleration": math.nan},
        {"stopping_distance": -0.1},
        {"speed": True},
    ],
)
def test_bad_settings_are_refused(kwargs: dict) -> None:
    with pytest.raises(NavSettingsError):
        AgentSettings(**kwargs)


def test_bad_arguments_raise_typed_errors(query: NavMeshQuery) -> None:
    with pytest.raises(NavMeshError, match="not within"):
        NavAgent(query, (50, 50, 0))
    agent = NavAgent(query, (2, 2, 0))
    with pytest.raises(NavMeshError):
        agent.set_destination((np.nan, 1, 0))
    with pytest.raises(NavMeshError):
        agent.update(0.0)


@settings(max_examples=20, deadline=None)
@given(st.floats(0.5, 19.5), st.floats(0.5, 9.5), st.floats(0.5, 19.5), st.floats(0.5, 9.5))
def test_agent_stays_on_the_mesh_and_arrives(query: NavMeshQuery, x0, y0, x1, y1) -> None:
    start = query.nearest_point((x0, y0, 0)).point
    goal = query.nearest_point((x1, y1, 0)).point
    agent = NavAgent(query, start, AgentSettings(speed=5.0, acceleration=20.0))
    agent.set_destination(goal)
    for _ in range(1200):
        agent.update(DT)
        assert query.nearest_point(agent.next_position).distance <= 1e-6
        if agent.arrived and agent.speed < 1e-3:
            break
    assert np.hypot(*(agent.next_position[:2] - goal[:2])) <= agent.stopping_distance + 0.05


def test_agent_climbs_a_step_at_the_portal_without_stalling() -> None:
    """Two floors 0.3 m apart side by side: the path has a vertical step at the portal; the agent walks
    through it in one go (the corner above the step is taken in the same tick) at the height of the
    floor it is on."""
    v = [(0, 0, 0), (4, 0, 0), (4, 4, 0), (0, 4, 0), (8, 0, 0.3), (8, 4, 0.3)]
    mesh = build_navmesh(
        np.array(v, dtype=float), [[0, 1, 2, 3], [1, 4, 5, 2]], planes=np.array([(0, 0, 0), (0, 0, 0.3)])
    )
    agent = NavAgent(NavMeshQuery(mesh), (1.0, 2.0, 0.0), AgentSettings(stopping_distance=0.0))
    agent.set_destination((7.0, 2.0, 0.3))
    assert len(agent.path.points) == 4
    for _ in range(600):
        if not agent.arrived:
            assert np.linalg.norm(agent.desired_velocity) > 0.0
        p = agent.update(DT)
        assert p[2] in ((0.0,) if p[0] < 4.0 else (0.3,) if p[0] > 4.0 else (0.0, 0.3))
        if agent.arrived and agent.speed < 1e-3:
            break
    np.testing.assert_allclose(agent.next_position, [7.0, 2.0, 0.3], atol=1e-9)


@pytest.mark.parametrize("scene", ["warehouse", "compound"])
def test_straight_path_is_what_the_search_finds_when_the_segment_is_walkable(scene) -> None:
    """Cross-check of `straight_path` (a surface raycast) against `find_path` (the Polyanya search) on
    seeded pairs, near and far, over both levels of compound: when it answers, the search finds the same
    points and length; when it declines, the search's path is not the straight segment (or ends elsewhere)."""
    from navigation.agent import straight_path
    from npc_ai.levels import load_level, scene_navmesh
    from scenes import World

    with World(load_level(scene)) as world:
        query = NavMeshQuery(scene_navmesh(world).mesh)
    rng = np.random.default_rng(11)
    answered = declined = 0
    for _ in range(300):
        a = query.random_point(rng)[0]
        b = a + np.append(rng.uniform(-6, 6, 2), 0.0) if rng.random() < 0.7 else query.random_point(rng)[0]
        near = query.nearest_point(b, 2.0)
        if not near.found:
            continue
        b = near.point
        quick, full = straight_path(query, a, b), query.find_path(a, b)
        straight = float(np.hypot(*(b - a)[:2]))
        if quick is None:
            declined += 1
            walked = float(np.hypot(*np.diff(full.points[:, :2], axis=0).T).sum()) if full.ok else np.inf
            assert not full.ok or walked > straight + 1e-9 or abs(full.points[-1, 2] - b[2]) > 1e-6
            continue
        answered += 1
        assert full.ok
        np.testing.assert_allclose(quick.points, full.points, atol=1e-9)
        assert quick.length == pytest.approx(full.length, abs=1e-9)
        assert quick.corridor[0] == full.corridor[0]
    assert answered > 50 and declined > 20


def test_use_query_refuses_a_remap_of_another_mesh(query: NavMeshQuery) -> None:
    agent = NavAgent(query, (1.0, 1.0))
    agent.set_destination((15.0, 1.0))
    n = query.mesh.polygon_count
    for bad in (np.arange(n - 1), np.full(n, n + 5), np.zeros(n, dtype=float), "remap"):
        with pytest.raises(NavMeshError, match="remap must be"):
            agent.use_query(query, bad)
    with pytest.raises(NavMeshError, match="query must be a NavMeshQuery"):
        agent.use_query(query.mesh, np.arange(n))  # type: ignore[arg-type]
    before = agent.path.points.copy()
    assert agent.use_query(NavMeshQuery(query.mesh), np.arange(n)) is False  # the same mesh: kept
    assert np.array_equal(agent.path.points, before) and agent.repaths == 1
