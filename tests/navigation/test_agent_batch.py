"""AgentBatch against independent NavAgents: the same paths, positions, speeds and re-planning, tick by tick.

Each scenario steps N NavAgents (update_position and update_rotation off) and one AgentBatch of the same N
agents through the same seeded events (destinations, re-targets that only move the path's end, unreachable
goals, resets, warps, pulls of `next_position`, free agents following their bodies) and compares them after
every event and tick to 1e-9.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navigation.agent import AgentSettings, NavAgent
from navigation.agent_batch import UNKNOWN, AgentBatch
from navigation.errors import NavMeshError, NavSettingsError
from navigation.grid_bake import bake_geometry
from navigation.query import NavMeshQuery, QueryStatus

DT = 1.0 / 60.0
TOL = 1e-9


@pytest.fixture(scope="module")
def room() -> NavMeshQuery:
    """A 20 x 10 m room with a wall from the south edge (eroded by 0.4 m), plus a separate 4 x 4 m island:
    destinations on the island are unreachable from the room (PARTIAL paths) and the other way round."""
    from shapely.geometry import Polygon, box

    free = (
        Polygon([(0, 0), (20, 0), (20, 10), (0, 10)]).difference(box(8, 0, 9, 7)).buffer(-0.4, join_style=2)
    )
    return NavMeshQuery(bake_geometry(free.union(box(23, 1, 27, 5))))


@pytest.fixture(scope="module")
def compound() -> NavMeshQuery:
    """The built-in two-level scene: a ramp up to a platform, a bridge over a walkway."""
    from npc_ai.levels import load_level, scene_navmesh
    from scenes import World

    with World(load_level("compound")) as world:
        return NavMeshQuery(scene_navmesh(world).mesh)


@dataclass
class Pair:
    """N NavAgents and the AgentBatch of the same agents."""

    query: NavMeshQuery
    agents: list[NavAgent]
    batch: AgentBatch
    kept: int = 0  # re-targets that kept the path (NavAgent._move_end)
    events: dict[str, int] = field(default_factory=dict)

    def compare(self, when: str) -> None:
        a, b = self.agents, self.batch
        for name, mine, theirs in [
            ("next_position", b.next_position, [x.next_position for x in a]),
            ("velocity", b.velocity, [x.velocity for x in a]),
            ("remaining_distance", b.remaining_distance(), [x.remaining_distance for x in a]),
            ("speed", b.speed, [x.speed for x in a]),
            ("steering_target", b.steering_target, [x.steering_target for x in a]),
        ]:
            np.testing.assert_allclose(mine, np.array(theirs), rtol=0, atol=TOL, err_msg=f"{name} {when}")
        assert b.arrived.tolist() == [x.arrived for x in a], when
        assert b.has_path.tolist() == [x.has_path for x in a], when
        assert b.repaths.tolist() == [x.repaths for x in a], when
        with_path = [i for i, x in enumerate(a) if x.has_path]
        assert [int(b.corner[i]) for i in with_path] == [a[i]._corner for i in with_path], when
        assert [int(b.poly[i]) for i in with_path] == [a[i]._poly for i in with_path], when
        for i in with_path[:3]:
            np.testing.assert_allclose(b.corners(i), a[i].corners, rtol=0, atol=TOL)
            assert b.path(i) is a[i].path or np.array_equal(b.path(i).points, a[i].path.points)

    def count(self, event: str) -> None:
        self.events[event] = self.events.get(event, 0) + 1


def make_pair(query: NavMeshQuery, rng: np.random.Generator, n: int, islands: int | None = None) -> Pair:
    starts, _ = query.random_points(rng, n, islands=islands)
    chosen = [
        AgentSettings(
            speed=float(rng.uniform(1.0, 6.0)),
            acceleration=float(rng.uniform(1.0, 12.0)),
            stopping_distance=float(rng.choice([0.0, 0.1, 0.3])),
            auto_braking=bool(rng.random() < 0.8),
            repath_tolerance=float(rng.uniform(0.45, 1.0)),
            corridor_tolerance=float(rng.uniform(0.3, 1.2)),
        )
        for _ in range(n)
    ]
    agents = [NavAgent(query, p, s) for p, s in zip(starts, chosen, strict=True)]
    for a in agents:
        a.update_position = a.update_rotation = False
    return Pair(query, agents, AgentBatch(query, starts, chosen))


def random_event(pair: Pair, rng: np.random.Generator, islands: int | None) -> None:
    """One seeded event applied to agent i of both sides."""
    q, a, b = pair.query, pair.agents, pair.batch
    i = int(rng.integers(len(a)))
    kind = rng.choice(
        ["destination", "retarget", "reset", "warp", "pull", "stop"], p=[0.35, 0.3, 0.1, 0.1, 0.1, 0.05]
    )
    pair.count(str(kind))
    if kind == "destination" or (kind == "retarget" and a[i].destination is None):
        goal, _ = q.random_point(rng)  # anywhere: another island gives a PARTIAL path
        assert b.set_destination(i, goal) is a[i].set_destination(goal)
    elif kind == "retarget":  # a little way from the current destination: usually keeps the path
        goal = a[i].destination + np.array([*rng.uniform(-0.4, 0.4, 2), 0.0])
        before = a[i].repaths
        assert b.set_destination(i, goal) is a[i].set_destination(goal)
        pair.kept += a[i].repaths == before
    elif kind == "reset":
        a[i].reset_path()
        b.reset_path(np.arange(len(a)) == i if rng.random() < 0.5 else [i])
    elif kind == "warp":
        to = q.random_point(rng, islands=islands)[0] if rng.random() < 0.8 else np.array([500.0, 500.0, 0.0])
        assert b.warp(i, to) is a[i].warp(to)
    elif kind == "pull":  # the body drifted: pull the agent toward it (through walls too)
        to = a[i].next_position + np.array([*rng.uniform(-1.5, 1.5, 2), 0.0])
        a[i].next_position = to
        b.set_next_position([i], to[None, :])
    else:
        a[i].is_stopped = not a[i].is_stopped
        b.is_stopped[i] = a[i].is_stopped


def run(pair: Pair, rng: np.random.Generator, ticks: int, islands: int | None = None) -> None:
    n = len(pair.agents)
    for t in range(ticks):
        if t % 3 == 0:
            random_event(pair, rng, islands)
            pair.compare(f"after an event before tick {t}")
        # free agents ride along with their bodies: small steps, now and then a long one into a wall
        free = [i for i, x in enumerate(pair.agents) if not x.has_path]
        if free and t % 2 == 0:
            steps = (
                rng.normal(0.0, 0.05, (len(free), 2))
                * np.where(rng.random(len(free)) < 0.05, 40.0, 1.0)[:, None]
            )
            bodies = np.array([pair.agents[i].next_position for i in free])
            bodies[:, :2] += steps
            for i, body in zip(free, bodies, strict=True):
                pair.agents[i].next_position = body
            pair.batch.follow(free, bodies)
            pair.count("follow")
        if t % 10 == 7:  # now and then only some of the agents tick
            rows = rng.random(n) < 0.5
            for i in rows.nonzero()[0]:
                pair.agents[i].update(DT)
            pair.batch.update(DT, rows)
        else:
            for x in pair.agents:
                x.update(DT)
            pair.batch.update(DT)
        pair.compare(f"after tick {t}")


def test_batch_matches_nav_agents_in_a_room_with_an_island(room: NavMeshQuery) -> None:
    rng = np.random.default_rng(7)
    pair = make_pair(room, rng, 40, islands=room.mesh.main_island)
    for i in range(40):
        goal, _ = room.random_point(rng)
        assert pair.batch.set_destination(i, goal) is pair.agents[i].set_destination(goal)
    pair.compare("after the first destinations")
    assert any(x.path_status is QueryStatus.PARTIAL for x in pair.agents)
    run(pair, rng, 400, islands=room.mesh.main_island)
    assert pair.kept > 0, "no re-target kept its path"
    assert pair.events.get("follow", 0) > 0 and pair.events.get("pull", 0) > 0
    assert pair.batch.arrived.any()
    assert sum(x.repaths for x in pair.agents) > 40


def test_batch_matches_nav_agents_on_the_two_level_compound(compound: NavMeshQuery) -> None:
    rng = np.random.default_rng(11)
    island = compound.mesh.main_island
    pair = make_pair(compound, rng, 36, islands=island)
    # two agents climbing the ramp, one of them re-targeted from the ramp onto the platform (issue 10)
    for i, start in ((0, (-10.0, -10.0, 0.0)), (1, (0.0, 16.0, 0.0))):
        assert pair.batch.warp(i, start) and pair.agents[i].warp(start)
    for i, goal in ((0, (-10.0, 3.7, 2.91)), (1, (10.0, 8.0, 3.0))):
        assert pair.batch.set_destination(i, goal) is pair.agents[i].set_destination(goal)
    for i in range(2, 36):
        goal, _ = compound.random_point(rng, islands=island)
        pair.batch.set_destination(i, goal)
        pair.agents[i].set_destination(goal)
    plans = pair.agents[0].repaths
    pair.batch.set_destination(0, (-10.0, 4.1, 3.0))
    pair.agents[0].set_destination((-10.0, 4.1, 3.0))
    assert pair.agents[0].repaths == plans  # the path end moved, over the ramp's top edge
    pair.compare("after the first destinations")
    run(pair, rng, 300, islands=island)
    heights = pair.batch.next_position[:, 2]
    assert (heights > 1.0).any() and (heights < 0.5).any()
    assert pair.kept > 0


def test_free_agents_follow_their_bodies_like_the_next_position_setter(room: NavMeshQuery) -> None:
    rng = np.random.default_rng(3)
    pair = make_pair(room, rng, 30, islands=room.mesh.main_island)
    b = pair.batch
    for t in range(120):
        bodies = b.next_position.copy()
        bodies[:, :2] += rng.normal(0.0, 0.2, (30, 2)) * (8.0 if t % 17 == 0 else 1.0)
        b.follow(None, bodies)
        for x, body in zip(pair.agents, bodies, strict=True):
            x.next_position = body
        pair.compare(f"after follow {t}")
    assert (b.poly_id >= 0).any() and (b.poly_id != UNKNOWN).any()
    # bodies given as (x, y), any height (a short step in the open: NavAgent's setter cannot slide along a
    # wall without a z)
    pair.agents[0].warp((12.0, 5.0))
    b.warp(0, (12.0, 5.0))
    for step in ((0.05, 0.0), (0.0, 0.3), (-1.0, -1.0)):
        body = pair.agents[0].next_position[:2] + step
        pair.agents[0].next_position = body
        b.follow([0], body)
        pair.compare(f"after a 2-D follow by {step}")
    # an agent with a path is left alone by `follow`
    goal = pair.agents[0].next_position + [1.0, 0.0, 0.0]
    b.set_destination(0, goal)
    before = b.next_position[0].copy()
    b.follow([0], [[1.0, 1.0]])
    np.testing.assert_array_equal(b.next_position[0], before)


def test_state_accessors(room: NavMeshQuery) -> None:
    s = [AgentSettings(speed=2.0), AgentSettings(speed=3.0, stopping_distance=0.3)]
    b = AgentBatch(room, [(2.0, 2.0), (3.0, 3.0)], s, yaws=[0.5, -1.0])
    assert len(b) == 2 and b.settings(1) is s[1]
    np.testing.assert_array_equal(b.yaw, [0.5, -1.0])
    np.testing.assert_array_equal(b.top_speed, [2.0, 3.0])
    np.testing.assert_array_equal(b.stopping_distance, [0.1, 0.3])
    assert b.corners(0).shape == (0, 3) and b.path(0) is None
    np.testing.assert_array_equal(b.steering_target, b.next_position)
    assert not b.arrived.any() and b.remaining_distance().tolist() == [0.0, 0.0]
    assert b.set_destination(0, (15.0, 2.0, 0.0)) is QueryStatus.SUCCESS
    assert b.has_destination.tolist() == [True, False]
    np.testing.assert_allclose(b.destination[0], [15.0, 2.0, 0.0])
    assert b.remaining_distance([0])[0] == pytest.approx(b.path(0).length, rel=1e-9)
    b.set_top_speed(1, 5.0)
    assert b.settings(1).speed == 5.0 and b.top_speed[1] == 5.0
    with pytest.raises(NavSettingsError):
        b.set_top_speed(1, -1.0)
    b.reset_path([0])
    assert not b.has_path.any() and math.isnan(b.destination[0, 0])
    assert not b.warp(0, (500.0, 500.0, 0.0))


def test_start_off_the_mesh_is_refused(room: NavMeshQuery) -> None:
    with pytest.raises(NavMeshError, match="start position"):
        AgentBatch(room, [(2.0, 2.0, 0.0), (50.0, 50.0, 0.0)])


# -- malformed input --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def batch(room: NavMeshQuery) -> AgentBatch:
    return AgentBatch(room, [(2.0, 2.0, 0.0), (3.0, 3.0, 0.0), (4.0, 2.0, 0.0)])


BAD_ROWS = st.one_of(
    st.integers(max_value=-1),
    st.integers(min_value=3),
    st.floats(allow_nan=True),
    st.booleans(),
    st.text(max_size=3),
    st.lists(st.integers(min_value=3), min_size=1, max_size=3),
    st.lists(st.integers(-5, -1), min_size=1, max_size=3),
    st.lists(st.floats(0, 2), min_size=1, max_size=3),
    st.just([0, 0]),
    st.just([[0, 1]]),
    st.just([True, False]),  # a mask of the wrong length
    st.just({0: 1}),
    st.just(object()),
)


@settings(max_examples=60, deadline=None)
@given(BAD_ROWS)
def test_bad_rows_are_refused(batch: AgentBatch, rows: object) -> None:
    with pytest.raises(NavMeshError, match="row"):
        batch.update(DT, rows)
    with pytest.raises(NavMeshError, match="row"):
        batch.reset_path(rows)


@settings(max_examples=40, deadline=None)
@given(st.one_of(st.integers(max_value=-1), st.integers(min_value=3), st.floats(), st.booleans(), st.none()))
def test_bad_row_index_is_refused(batch: AgentBatch, i: object) -> None:
    with pytest.raises(NavMeshError, match="row"):
        batch.set_destination(i, (5.0, 5.0, 0.0))  # type: ignore[arg-type]
    with pytest.raises(NavMeshError, match="row"):
        batch.warp(i, (5.0, 5.0, 0.0))  # type: ignore[arg-type]


NOT_FINITE = st.sampled_from([math.nan, math.inf, -math.inf, 2e9])
BAD_TARGETS = st.one_of(
    st.tuples(NOT_FINITE, st.floats(0, 5)).map(lambda p: [list(p)] * 3),
    st.tuples(st.floats(0, 5), st.floats(0, 5), NOT_FINITE).map(lambda p: [list(p)] * 3),
    st.lists(st.floats(0, 5), min_size=1, max_size=5)
    .filter(lambda v: len(v) not in (2, 3))
    .map(lambda v: [v] * 3),
    st.integers(1, 5).filter(lambda k: k != 3).map(lambda k: np.ones((k, 3))),
    st.just(np.ones((3, 3), dtype=bool)),
    st.just([["a", "b", "c"]] * 3),
    st.just("abc"),
    st.just(None),
    st.just(np.ones((3, 3, 1))),
)


@settings(max_examples=60, deadline=None)
@given(BAD_TARGETS)
def test_bad_targets_are_refused(batch: AgentBatch, targets: object) -> None:
    with pytest.raises(NavMeshError, match="targets"):
        batch.set_next_position([0, 1, 2], targets)
    with pytest.raises(NavMeshError, match="positions"):
        batch.follow([0, 1, 2], targets)


@settings(max_examples=40, deadline=None)
@given(st.one_of(NOT_FINITE.map(lambda v: (v, 1.0, 0.0)), st.just("x"), st.just((1.0,)), st.just(None)))
def test_bad_destinations_and_warps_are_refused(batch: AgentBatch, target: object) -> None:
    with pytest.raises(NavMeshError, match="destination"):
        batch.set_destination(0, target)
    with pytest.raises(NavMeshError, match="warp position"):
        batch.warp(0, target)


@settings(max_examples=30, deadline=None)
@given(st.one_of(st.floats(max_value=0.0), st.floats(min_value=3601.0), st.just(math.nan), st.just("0.1")))
def test_bad_dt_is_refused(batch: AgentBatch, dt: object) -> None:
    with pytest.raises(NavMeshError, match="dt"):
        batch.update(dt)  # type: ignore[arg-type]


def test_bad_constructor_arguments_are_refused(room: NavMeshQuery) -> None:
    good = [(2.0, 2.0, 0.0), (3.0, 3.0, 0.0)]
    with pytest.raises(NavMeshError, match="query"):
        AgentBatch("room", good)  # type: ignore[arg-type]
    for positions in ([1.0, 2.0, 0.0], [[1.0, 2.0, 3.0, 4.0]], [[math.nan, 2.0]], "ab", [[True, False]]):
        with pytest.raises(NavMeshError, match="positions"):
            AgentBatch(room, positions)
    for chosen in ([AgentSettings()], [AgentSettings(), "fast"], 3.5):
        with pytest.raises(NavMeshError, match="settings"):
            AgentBatch(room, good, chosen)  # type: ignore[arg-type]
    for yaws in ([0.0], [0.0, math.nan], "ab", [[0.0, 1.0]]):
        with pytest.raises(NavMeshError, match="yaws"):
            AgentBatch(room, good, yaws=yaws)


def test_use_query_replans_the_corridors_a_carve_cut_and_keeps_the_others() -> None:
    from shapely.geometry import LineString, box

    from navigation.dynamic import DynamicNavMesh
    from navigation.grid_bake import bake_polygons
    from navigation.settings import CarveSettings

    base = bake_polygons([(0, 0), (24, 0), (24, 16), (0, 16)], [box(3, 4, 21, 5), box(3, 10, 21, 11)])
    q0 = NavMeshQuery(base)
    starts = [(1.0, 7.5), (1.0, 14.0), (12.0, 7.5)]  # middle aisle, top strip, where the crate will land
    batch = AgentBatch(q0, starts)
    solo = [NavAgent(q0, p) for p in starts]
    goals = [(23.0, 7.5), (23.0, 14.0), (23.0, 7.0)]
    for i, g in enumerate(goals):
        batch.set_destination(i, g)
        solo[i].set_destination(g)
    kept_points = batch.path(1).points.copy()
    dyn = DynamicNavMesh(base, CarveSettings(agent_radius=0.4))
    dyn.add_box((0.5, 3.0, 0.5), (12.0, 7.5, 0.5))  # across the middle aisle, on agent 2
    update = dyn.update()
    q1 = NavMeshQuery(update.mesh)
    with pytest.raises(NavMeshError, match="remap must be"):
        batch.use_query(q1, update.remap[:-1])
    assert batch.query is q0  # refused: nothing changed
    rows = batch.use_query(q1, update.remap)
    assert rows.tolist() == [0, 2] and batch.repaths.tolist() == [2, 1, 2]
    assert [a.use_query(q1, update.remap) for a in solo] == [True, False, True]
    hole = dyn.holes()[0].polygon
    for i in range(3):
        path = batch.path(i)
        assert np.allclose(path.points, solo[i].path.points) and path.corridor == solo[i].path.corridor
        assert all(0 <= c < update.mesh.polygon_count for c in path.corridor)
        assert path.ok and not LineString(path.points[:, :2]).crosses(hole)
    assert np.array_equal(batch.path(1).points, kept_points)
    assert batch.path(1).corridor == update.renumber(q0.find_path(starts[1], goals[1]).corridor)
    assert q1.polygon_at(batch.next_position[2]) >= 0  # snapped out of the hole
    assert batch.path(0).length > q0.find_path(starts[0], goals[0]).length + 1.0  # around a shelf


def test_a_row_pushed_past_its_corners_steers_for_the_next_one(room: NavMeshQuery) -> None:
    """`set_next_position` (the crowd's push) past the corners that round the wall's end: the row steers for
    the first corner still ahead, as a NavAgent does (the two agree after every move)."""
    batch = AgentBatch(room, np.array([[2.0, 2.0, 0.0], [2.0, 3.0, 0.0]]))
    agents = [NavAgent(room, p, AgentSettings()) for p in ((2.0, 2.0, 0.0), (2.0, 3.0, 0.0))]
    for i, a in enumerate(agents):
        a.update_position = False
        a.set_destination((15.0, 2.0, 0.0))
        batch.set_destination(i, (15.0, 2.0, 0.0))
    for targets in ([[7.0, 7.6, 0.0], [6.0, 6.0, 0.0]], [[8.5, 7.7, 0.0], [6.5, 6.5, 0.0]]):
        batch.set_next_position([0, 1], targets)
        for i, a in enumerate(agents):
            a.next_position = targets[i]
            np.testing.assert_allclose(batch.steering_target[i], a.steering_target, atol=TOL)
            assert int(batch.corner[i]) == a._corner
    assert batch.steering_target[0, 0] >= 9.0 - 1e-9  # row 0 is over the wall's end: on to the far side
    assert batch.corner[1] == 1  # row 1 is short of its first corner


@pytest.mark.parametrize(
    ("push", "corner"),
    [
        ((7.5, 7.7), 2),  # 0.32 m from the wall's corner, short of the line past it, the next corner in sight
        ((7.38, 7.19), 1),  # 0.3 m short of it on the way in: the next corner is behind the wall's end
        ((7.0, 7.7), 1),  # in sight of the next corner but 0.67 m from this one: farther than the radius
    ],
)
def test_a_crowd_push_within_the_radius_of_the_corner_steers_for_the_next_in_sight(
    room: NavMeshQuery, push: tuple[float, float], corner: int
) -> None:
    """A crowd holding an agent a few centimetres short of its corner must not leave it steering for that
    point for good (into the agent behind it): a crowd's move (`move_unchecked(crowd=True)`) that leaves
    it within its radius of the corner, with a straight walk to the next, steers it for the next. Any
    other move keeps NavAgent's rule (past the corner's line only), and the two agree."""
    batches = [AgentBatch(room, np.array([[2.0, 2.0, 0.0]])) for _ in range(2)]
    agent = NavAgent(room, (2.0, 2.0, 0.0), AgentSettings())
    agent.update_position = False
    agent.set_destination((15.0, 2.0, 0.0))
    for b in batches:
        b.set_destination(0, (15.0, 2.0, 0.0))
    np.testing.assert_allclose(batches[0].path(0).points[1, :2], (7.6, 7.4), atol=1e-6)  # the wall's end
    target = np.array([[push[0], push[1], 0.0]])
    batches[0].move_unchecked(np.array([0]), target, crowd=True)
    batches[1].set_next_position([0], target)
    agent.next_position = target[0]
    assert int(batches[0].corner[0]) == corner
    assert int(batches[1].corner[0]) == agent._corner == 1
    np.testing.assert_allclose(batches[1].steering_target[0], agent.steering_target, atol=TOL)


def test_replan_plans_again_from_where_the_agents_stand(room: NavMeshQuery) -> None:
    """Row 0 set out round the wall's end and was carried along its first segment (a crowd's push): its
    path still leads from where it started. `replan` plans from where it stands, as
    `find_path` does from there; a row without a destination is left alone (the same rows as indices or as
    a mask)."""
    batch = AgentBatch(room, np.array([[2.0, 2.0, 0.0], [3.0, 3.0, 0.0]]))
    goal = np.array([15.0, 2.0, 0.0])
    batch.set_destination(0, goal)
    batch.set_next_position([0], [[4.0, 3.9, 0.0]])  # along its first segment
    old = batch.path(0)
    assert old is not None
    np.testing.assert_allclose(old.points[0, :2], (2.0, 2.0))  # still from its start
    repaths = batch.repaths.copy()
    for rows in ([0, 1], np.array([True, True])):
        batch.replan(rows)
        path = batch.path(0)
        expected = room.find_path(batch.next_position[0].copy(), goal)
        assert path is not None and path.status is expected.status is QueryStatus.SUCCESS
        np.testing.assert_allclose(path.points, expected.points, atol=1e-9)
        np.testing.assert_allclose(path.points[0, :2], (4.0, 3.9), atol=1e-9)
        np.testing.assert_allclose(batch.steering_target[0], expected.points[1], atol=1e-9)
    np.testing.assert_array_equal(batch.repaths - repaths, [2, 0])  # row 1 has no destination
    assert not batch.has_path[1]
    with pytest.raises(NavMeshError, match="row"):
        batch.replan([5])
