"""Local avoidance in the batched locomotion: NPCs on a head-on course pass each other (their agents never
closer than their radii allow, their bodies farther apart than without avoidance, where only the capsules
kept them apart), and a standing NPC is walked around."""

from __future__ import annotations

import math

import numpy as np
import pytest

from navigation.agent import AgentSettings
from navigation.avoidance import AvoidanceResult, AvoidanceSettings, Walls
from navigation.query import NavMeshQuery
from npc_ai.body.batch import LocomotionBatch
from npc_ai.body.crowd import REPLAN_AFTER
from npc_ai.body.crowd_kernels import (
    AHEAD,
    CRAWL,
    HEAD_ON_TURN,
    MAKE_WAY_AFTER,
    OTHER_SIDE,
    OWN_SIDE,
    WALL_GAP,
    make_way,
    scatter_rows,
    stand_by_walls,
)
from npc_ai.levels.navmesh import scene_navmesh
from scenes import World, load_scene

DT = 1.0 / 60.0
AGENT = AgentSettings(radius=0.4, speed=3.5)
LANE_Y = -8.0  # a straight, open lane of the arena from x = -8 to 8


@pytest.fixture(scope="module")
def arena_query() -> NavMeshQuery:
    with World(load_scene("arena")) as w:
        return NavMeshQuery(scene_navmesh(w)[0])


def _head_on(query: NavMeshQuery, avoidance: AvoidanceSettings | None, *, stand: bool = False):  # type: ignore[no-untyped-def]
    """Two NPCs swap ends of the lane at walking speed (or one walks through the other, standing in the
    middle); returns (least distance between the agents (while both follow paths) and between the bodies
    over the run [m], how far each ended from its goal [m])."""
    with World(load_scene("arena")) as w:
        starts = np.array([[-6.0, LANE_Y, 0.0], [6.0, LANE_Y + 0.05, 0.0]])
        if stand:
            starts[1] = [0.0, LANE_Y, 0.0]
        batch = LocomotionBatch(w, query, starts, np.array([0.0, np.pi]), agent=AGENT, avoidance=avoidance)
        goals = [np.array([6.0, LANE_Y, 0.0]), np.array([-6.0, LANE_Y, 0.0])]
        batch.views[0].set_destination(goals[0], speed=1.4)
        if not stand:
            batch.views[1].set_destination(goals[1], speed=1.4)
        agents, bodies = np.inf, np.inf
        for _ in range(int(14.0 / DT)):
            batch.before_physics(DT)
            a = batch.agents.next_position  # where avoidance put them (the drift limit may pull them later)
            agents = min(agents, float(np.hypot(*(a[0, :2] - a[1, :2]))))
            w.step()
            batch.after_physics()
            p = batch.positions
            bodies = min(bodies, float(np.hypot(*(p[0, :2] - p[1, :2]))))
        p = batch.positions
        ends = [float(np.hypot(*(p[0, :2] - goals[0][:2]))), float(np.hypot(*(p[1, :2] - goals[1][:2])))]
    return agents, bodies, ends


@pytest.mark.slow  # three 14 s runs (about 6 s)
def test_npcs_on_a_head_on_course_pass_each_other(arena_query) -> None:
    agents, bodies, ends = _head_on(arena_query, AvoidanceSettings())
    _, bumped, _ = _head_on(arena_query, None)
    assert agents >= 2 * AGENT.radius - 0.02  # the agents keep their radii apart
    assert bumped < 2 * AGENT.radius + 0.02  # without avoidance the capsules (the agent radius) meet and push
    assert bodies > bumped  # the bodies follow their agents around each other (with root motion's lag)
    assert max(ends) < 0.5  # both got through and arrived


def test_a_standing_npc_is_walked_around(arena_query) -> None:
    agents, _, ends = _head_on(arena_query, AvoidanceSettings(), stand=True)
    assert agents >= 2 * AGENT.radius - 0.02
    assert ends[0] < 0.5


def test_an_npc_parked_at_its_goal_makes_way_and_goes_back(arena_query) -> None:
    """NPC 1 walks to the middle of the lane and stands there on its path's end (parked); NPC 0 then walks
    the lane through it. The parked one yields (it is pushed aside rather than walked around as a wall),
    and returns to its goal once NPC 0 is past."""
    with World(load_scene("arena")) as w:
        starts = np.array([[-6.0, LANE_Y, 0.0], [-1.0, LANE_Y + 1.0, 0.0]])
        batch = LocomotionBatch(
            w, arena_query, starts, np.zeros(2), agent=AGENT, avoidance=AvoidanceSettings()
        )
        assert batch.crowd is not None
        goal = np.array([0.0, LANE_Y, 0.0])
        batch.views[1].set_destination(goal, speed=1.4)
        parked, pushed = False, 0.0
        for k in range(int(16.0 / DT)):
            if k == int(3.0 / DT):
                batch.views[0].set_destination(np.array([6.0, LANE_Y, 0.0]), speed=1.4)
            batch.before_physics(DT)
            parked = parked or bool(batch.crowd.parked[1])
            w.step()
            batch.after_physics()
            if k > int(3.0 / DT):
                pushed = max(pushed, float(np.hypot(*(batch.positions[1, :2] - goal[:2]))))
        p = batch.positions
    assert parked
    assert pushed > 0.3  # it made way (as a wall to the others, it was only bumped: 0.08 m)
    assert np.hypot(*(p[0, :2] - (6.0, LANE_Y))) < 0.5  # the other got through
    assert np.hypot(*(p[1, :2] - goal[:2])) < 0.3  # and it is back


def _steered(query: NavMeshQuery, tau: float, side_deg) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    """One NPC walks the lane (+x); the crowd's answer (a stand-in for the avoidance, `Crowd.solver`) is its
    preferred speed at `side_deg(tick)` [deg] from +x. Returns the headings [rad] of the velocity the body
    is told to face (`LocomotionBatch.steer`) and the body's yaw [rad] after every tick (1.5 s)."""
    ticks = iter(range(10**6))

    def solve(positions, velocities, preferred, radii, top, priority, dt, walls, settings):  # type: ignore[no-untyped-def]
        a = np.radians(side_deg(next(ticks)))
        v = np.hypot(preferred[:, 0], preferred[:, 1])[:, None] * np.array([[np.cos(a), np.sin(a)]])
        n = len(positions)
        return AvoidanceResult(v, np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, bool))

    with World(load_scene("arena")) as w:
        start = np.array([[-6.0, LANE_Y, 0.0]])
        settings = AvoidanceSettings(facing_tau_s=tau)
        batch = LocomotionBatch(w, query, start, np.zeros(1), agent=AGENT, avoidance=settings)
        assert batch.crowd is not None
        batch.crowd.solver = solve
        batch.views[0].set_destination(np.array([6.0, LANE_Y, 0.0]), speed=1.4)
        faced, yaws = [], []
        for _ in range(int(1.5 / DT)):
            batch.before_physics(DT)
            faced.append(float(np.arctan2(batch.steer[0, 1], batch.steer[0, 0])))
            w.step()
            batch.after_physics()
            yaws.append(float(batch.yaw[0]))
    return np.array(faced), np.array(yaws)


def test_a_steered_body_follows_a_lasting_sidestep_not_tick_to_tick_flips(arena_query) -> None:
    """`AvoidanceSettings.facing_tau_s`: the velocity a steered body faces along is low-pass filtered. A
    crowd that sends the agent 20 deg to the right, then 20 deg to the left, every other tick (a dense
    spot) leaves it along the path and the body far steadier than unfiltered; one that keeps sending the
    agent 40 deg to the right is faced within about twice the time constant, and the body turns there."""
    tau = 0.3
    flips = lambda k: 20.0 if k % 2 else -20.0  # noqa: E731
    faced, yaws = _steered(arena_query, tau, flips)
    raw, raw_yaws = _steered(arena_query, 0.0, flips)
    assert np.degrees(np.abs(faced).max()) < 3.0  # along the path (+x) throughout
    assert np.degrees(np.abs(raw[1:]).min()) > 19.0  # unfiltered: 20 deg off, one side then the other
    assert np.degrees(np.abs(yaws).max()) < 5.0
    assert np.abs(np.diff(yaws)).mean() < 0.5 * np.abs(np.diff(raw_yaws)).mean()
    faced, yaws = _steered(arena_query, tau, lambda k: -40.0)
    t = np.arange(1, len(faced) + 1) * DT
    assert np.degrees(faced[t <= tau / 3]).min() > -20.0  # not at once
    assert np.degrees(faced[t >= 2 * tau]).max() < -33.0  # 1 - exp(-2) of the way: -35 deg
    assert np.degrees(yaws[t >= 2 * tau + 0.2]).max() < -30.0  # the body turned with it


def _rows(n: int):  # type: ignore[no-untyped-def]
    """make_way's arrays for n rows, all path rows that mean to move, radius 0.4 m, top speed 1.2 m/s, each
    bound for its own point (10, 2k) [m], their bodies still."""
    z = np.zeros((n, 2))
    return {
        "destination": np.stack([np.full(n, 10.0), 2.0 * np.arange(n), np.zeros(n)], axis=1),
        "positions": np.zeros((n, 3)), "vel": z.copy(),
        "pref": z.copy(), "radii": np.full(n, 0.4), "top": np.full(n, 1.2), "moving": np.ones(n, bool),
        "on_path": np.ones(n, bool), "parked": np.zeros(n, bool), "held": np.zeros(n, bool),
        "blocked_s": np.zeros(n), "aside": np.zeros(n, bool),
        "body_vel": np.zeros((n, 3)), "stuck_aside_s": np.zeros(n),
        "aside_way": np.zeros(n, np.int64),
        "row_gate": np.full(n, -1, np.int64), "row_dir": np.zeros(n, np.int64),
        "gate_centre": np.array([[1.0, 0.6, 0.0], [5.0, 5.0, 0.0]]),
    }  # fmt: skip


def _make_way(a, seconds: float = MAKE_WAY_AFTER) -> int:  # type: ignore[no-untyped-def]
    """Run `make_way` for `seconds` of 1/60 s ticks with the same arrays (prefs restored each tick, as
    the crowd gathers them anew); returns the last tick's count."""
    pref = a["pref"].copy()
    count = 0
    for _ in range(round(seconds / DT) + 1):
        a["pref"][:] = pref
        count = int(make_way(len(a["radii"]), DT, *a.values()))
    return count


def test_make_way_sends_parked_rows_square_off_a_mover_blocked_for_a_second() -> None:
    a = _rows(5)
    a["pref"][0] = (1.0, 0.0)  # row 0 wants +x and is answered 0: blocked
    a["positions"][:, :2] = [(0, 0), (0.9, 0.5), (0.9, -0.5), (1.0, 0.0), (-0.9, 0.3)]
    a["parked"][1:] = True  # left ahead, right ahead, dead ahead, behind
    assert _make_way(a, MAKE_WAY_AFTER - 2 * DT) == 0  # not yet blocked long enough
    assert _make_way(a, 3 * DT) == 3
    np.testing.assert_array_equal(a["aside"], [False, True, True, True, False])
    # square to its way at their top speed, each on its own side; dead ahead: to its left
    np.testing.assert_allclose(a["pref"][1:4], [(0, 1.2), (0, -1.2), (0, 1.2)])
    np.testing.assert_array_equal(a["pref"][4], (0, 0))  # behind the mover: stays
    a["vel"][0] = (0.8, 0.0)  # it moves again: the count starts over
    a["body_vel"][0] = (0.8, 0.0, 0.0)
    assert _make_way(a, 0.0) == 0 and a["blocked_s"][0] == 0.0


def test_make_way_sends_rows_a_gate_holds_aside_too_but_not_movers() -> None:
    a = _rows(3)
    a["pref"][0] = (1.0, 0.0)  # blocked mover
    a["positions"][:, :2] = [(0, 0), (0.9, 0.5), (0.9, -0.5)]
    a["held"][1] = True  # waiting for a doorway's turn, ahead on the left
    a["pref"][2] = (0.5, 0.0)  # ahead on the right, but a mover itself (slower): not asked
    a["vel"][2] = (0.5, 0.0)
    a["body_vel"][2] = (0.5, 0.0, 0.0)
    assert _make_way(a, MAKE_WAY_AFTER + DT) == 1
    np.testing.assert_array_equal(a["aside"], [False, True, False])
    np.testing.assert_allclose(a["pref"][1], (0, 1.2))
    np.testing.assert_array_equal(a["pref"][2], (0.5, 0.0))


@pytest.mark.parametrize(
    "change",
    [
        lambda a: (  # answered most of its speed, and walking it: not blocked
            a["vel"].__setitem__(0, (0.8, 0.0)),
            a["body_vel"].__setitem__(0, (0.8, 0.0, 0.0)),
        ),
        lambda a: a["held"].__setitem__(0, True),  # a gate holds it: it waits on purpose
        lambda a: a["parked"].__setitem__(0, True),  # itself parked
        lambda a: a["on_path"].__setitem__(0, False),  # walking freely (Wander), no path
        lambda a: a["positions"].__setitem__(1, (1.8, 0.0, 0.0)),  # 1.8 m ahead: beyond radii + gap
        lambda a: (  # both bound for one point: row 1 stands in the crowd at its goal, not on its way
            a["destination"].__setitem__(0, (1.5, 0.0, 0.0)),
            a["destination"].__setitem__(1, (1.0, 0.1, 0.0)),
        ),
    ],
)
def test_make_way_leaves_parked_rows_alone_for_movers_not_blocked_by_them(change) -> None:
    a = _rows(2)
    a["pref"][0] = (1.0, 0.0)
    a["positions"][1] = (1.0, 0.1, 0.0)
    a["parked"][1] = True
    change(a)
    before = a["pref"].copy()
    assert _make_way(a, 2.0) == 0
    assert not a["aside"].any()
    np.testing.assert_array_equal(a["pref"][1], before[1])


@pytest.mark.parametrize("body_speed, blocked", [(0.0, True), (0.2, True), (0.8, False)])
def test_make_way_counts_a_mover_whose_body_stands_as_blocked(body_speed: float, blocked: bool) -> None:
    """Answered most of its speed (straight into a wall beside a parked row, in the corridor's end), a
    mover whose body does not move is blocked all the same, and the parked row ahead steps aside."""
    a = _rows(2)
    a["pref"][0] = (1.0, 0.0)
    a["vel"][0] = (0.9, 0.0)
    a["body_vel"][0] = (body_speed, 0.0, 0.0)
    a["positions"][1] = (0.9, 0.3, 0.0)
    a["parked"][1] = True
    assert _make_way(a, MAKE_WAY_AFTER + DT) == int(blocked)
    assert a["aside"][1] == blocked


@pytest.mark.parametrize("row1_bound_for, steps_aside", [((1.0, 0.9), True), ((2.2, 0.0), False)])
def test_make_way_moves_rows_parked_at_their_own_goals_off_the_way_to_the_goals_beyond(
    row1_bound_for: tuple[float, float], steps_aside: bool
) -> None:
    """Row 0 is bound for (1.8, 0), just beyond row 1, parked 1 m ahead of it. Parked for its own slot
    (1.2 m from row 0's goal, as in a formation), row 1 steps aside; bound for a point within
    `PARK_RADIUS` of row 0's (a crowd converging on one point), it stays. (Before, any parked row that
    near the mover's goal stayed, and the corridor's late agents stood behind their group's first rank.)"""
    a = _rows(2)
    a["pref"][0] = (1.0, 0.0)
    a["destination"][0] = (1.8, 0.0, 0.0)
    a["destination"][1, :2] = row1_bound_for
    a["positions"][1] = (1.0, 0.1, 0.0)
    a["parked"][1] = True
    assert _make_way(a, MAKE_WAY_AFTER + DT) == int(steps_aside)
    if steps_aside:
        np.testing.assert_allclose(a["pref"][1], (0.0, 1.2))  # on its side of row 0's way, square to it


def test_make_way_a_row_whose_body_cannot_step_aside_tries_the_other_side() -> None:
    """A parked row ahead on a blocked mover's right steps right; when its body has not moved for
    `MAKE_WAY_AFTER` (a wall on that side: the doorway's parked NPCs pressed into the inner wall) it steps
    left instead, and keeps to that side while it moves."""
    a = _rows(2)
    a["pref"][0] = (1.0, 0.0)
    a["positions"][1] = (0.9, -0.3, 0.0)
    a["parked"][1] = True
    assert _make_way(a, MAKE_WAY_AFTER + DT) == 1
    np.testing.assert_allclose(a["pref"][1], (0.0, -1.2))
    _make_way(a, MAKE_WAY_AFTER)
    np.testing.assert_allclose(a["pref"][1], (0.0, 1.2))
    assert a["aside_way"][1] == OTHER_SIDE
    a["body_vel"][1] = (0.0, 1.0, 0.0)
    _make_way(a, 2 * MAKE_WAY_AFTER)
    np.testing.assert_allclose(a["pref"][1], (0.0, 1.2))
    a["vel"][0] = (1.0, 0.0)  # the mover walks on
    a["body_vel"][0] = (1.0, 0.0, 0.0)
    assert _make_way(a, DT) == 0 and a["aside_way"][1] == OWN_SIDE and a["stuck_aside_s"][1] == 0.0


def test_make_way_a_row_shut_in_on_both_sides_walks_ahead_of_the_mover() -> None:
    """Neither side works for a second each (the crate it stands by, the mover pressed into the wall
    beside it: the warehouse's north band, 0.77 m apart where passing takes 0.8 m): the row walks the
    mover's way at its own top speed, then, still stuck, starts over on its own side."""
    a = _rows(2)
    a["pref"][0] = (0.6, 0.8)  # the mover's way: (0.6, 0.8)
    a["positions"][1] = (0.6, 0.3, 0.0)  # ahead on its right
    a["parked"][1] = True
    a["top"][1] = 1.0
    _make_way(a, MAKE_WAY_AFTER + DT)
    np.testing.assert_allclose(a["pref"][1], (0.8, -0.6))  # its own side: right of the way
    _make_way(a, MAKE_WAY_AFTER)
    np.testing.assert_allclose(a["pref"][1], (-0.8, 0.6))  # the other side
    _make_way(a, MAKE_WAY_AFTER)
    assert a["aside_way"][1] == AHEAD and a["aside"][1]
    np.testing.assert_allclose(a["pref"][1], (0.6, 0.8))  # the mover's way, at its own top speed
    _make_way(a, MAKE_WAY_AFTER)
    assert a["aside_way"][1] == OWN_SIDE
    np.testing.assert_allclose(a["pref"][1], (0.8, -0.6))


def _scatter(aside: bool, way: int) -> np.ndarray:
    """scatter_rows for one path row at the origin that prefers (1, 0) m/s and is answered (0, 1) m/s;
    returns where its agent is moved to [m]."""
    one = lambda *shape: np.zeros((1, *shape))  # noqa: E731
    pref, out = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    flags = lambda v: np.array([v])  # noqa: E731
    rows, targets = np.zeros(1, np.int64), np.zeros((1, 3))
    m = scatter_rows(
        DT, one(3), one(3), one(3), flags(False), one(), one(), 0.5, pref, out, flags(True), flags(True),
        flags(False), flags(aside), one(2), flags(False), one(2), flags(False), one(3), one(2), rows,
        targets, np.array([way]),
    )  # fmt: skip
    assert m == 1
    return targets[0, :2]


@pytest.mark.parametrize(
    ("aside", "way", "velocity"),
    [
        (True, AHEAD, (1.0, 0.0)),  # walking ahead of a mover: its preferred velocity
        (True, OTHER_SIDE, (0.0, 1.0)),  # stepping aside: the answer
        (False, AHEAD, (0.0, 1.0)),  # a stale way on a row no longer asked: the answer
    ],
)
def test_a_row_walking_ahead_of_a_mover_moves_by_its_preferred_velocity(aside, way, velocity) -> None:  # type: ignore[no-untyped-def]
    """Overlapping the mover it walks ahead of, the answer pushes the two apart (into the wall beside it);
    a row stepping `AHEAD` moves by its preferred velocity instead, every other row by its answer."""
    np.testing.assert_allclose(_scatter(aside, way), np.array(velocity) * DT)


@pytest.mark.parametrize(
    ("answer", "heading"),
    [
        ((0.0, 0.3), math.pi / 2),  # walking where the avoidance sends it: faces that way
        ((0.0, 0.6 * CRAWL), 0.25),  # crawling: keeps the heading its behaviour turns it to
        ((0.0, 0.0), 0.25),  # stopped: the same
    ],
)
def test_a_free_row_faces_its_answer_unless_it_crawls(answer, heading) -> None:  # type: ignore[no-untyped-def]
    """A free walker (a wanderer) asking for 0.4 m/s along its turning heading 0.25 rad is answered
    `answer`: its free speed becomes the answer's, and its heading the answer's direction unless that is
    slower than `CRAWL`. A wanderer crawling at an obstacle's edge (its speed capped near 0) had its turn
    away reset to the crawl's direction tick after tick and stood there for good (`npc-ai bench soak`
    warehouse with avoidance: one stood 12 s)."""
    one = lambda *shape: np.zeros((1, *shape))  # noqa: E731
    flags = lambda v: np.array([v])  # noqa: E731
    free_speed, free_heading = np.array([0.4]), np.array([0.25])
    pref = np.array([[0.4 * math.cos(0.25), 0.4 * math.sin(0.25)]])
    m = scatter_rows(
        DT, one(3), one(3), one(3), flags(True), free_speed, free_heading, 0.5, pref, np.array([answer]),
        flags(True), flags(False), flags(False), flags(False), one(2), flags(False), one(2), flags(False),
        one(3), one(2), np.zeros(1, np.int64), np.zeros((1, 3)), np.array([OWN_SIDE]),
    )  # fmt: skip
    assert m == 0  # not a path row: nothing to move
    assert free_speed[0] == pytest.approx(math.hypot(*answer))
    assert free_heading[0] == pytest.approx(heading)


def test_a_mover_blocked_for_a_while_plans_again_from_where_it_stands(arena_query) -> None:  # type: ignore[no-untyped-def]
    """The avoidance (a stand-in) answers every row 0: the NPC on its way stands blocked, and its agent
    plans again from where it stands after `REPLAN_AFTER` seconds, and again after as long again."""

    def stand(positions, velocities, preferred, radii, top, priority, dt, walls, settings):  # type: ignore[no-untyped-def]
        n = len(positions)
        none = np.zeros(n, np.int64)
        return AvoidanceResult(np.zeros((n, 2)), none, none, np.zeros(n, bool))

    with World(load_scene("arena")) as w:
        start = np.array([[-6.0, LANE_Y, 0.0]])
        settings = AvoidanceSettings()
        batch = LocomotionBatch(w, arena_query, start, np.zeros(1), agent=AGENT, avoidance=settings)
        assert batch.crowd is not None
        batch.crowd.solver = stand
        batch.views[0].set_destination(np.array([6.0, LANE_Y, 0.0]), speed=1.4)
        planned = int(batch.agents.repaths[0])
        times = []
        for k in range(int(7.0 / DT)):
            batch.before_physics(DT)
            if batch.agents.repaths[0] > planned:
                planned = int(batch.agents.repaths[0])
                times.append((k + 1) * DT)
            w.step()
            batch.after_physics()
    assert len(times) == 2
    np.testing.assert_allclose(times, [REPLAN_AFTER, 2 * REPLAN_AFTER], atol=3 * DT)


@pytest.mark.parametrize(
    "b_at, b_pref, turned",
    [
        ((0.9, 0.2), (-1.0, 0.0), (True, True)),  # head-on: both turn
        ((0.7, 0.5), (-0.6, -0.8), (True, False)),  # swapping places across: row 0 turning is enough
        ((0.9, 0.2), (1.0, 0.0), (False, False)),  # the same way: a queue, not a standoff
        ((0.9, 0.2), (0.0, 1.0), (False, False)),  # crossing
        ((1.3, 0.0), (-1.0, 0.0), (False, False)),  # beyond both radii and the gap
    ],
)
def test_make_way_blocked_movers_head_on_turn_right(b_at, b_pref, turned) -> None:  # type: ignore[no-untyped-def]
    """Two movers blocked for a second, each in the other's way and meaning to go opposite ways: row 0
    walks `HEAD_ON_TURN` to the right of its way at its top speed, and row 1 too if, with row 0's new
    way, they are still head-on; other blocked pairs are left alone."""
    a = _rows(2)
    ways = np.array([(1.0, 0.0), b_pref])
    a["pref"][:] = ways
    a["positions"][1, :2] = b_at
    assert _make_way(a, MAKE_WAY_AFTER + DT) == sum(turned)
    np.testing.assert_array_equal(a["aside"], turned)
    c, s = np.cos(HEAD_ON_TURN), np.sin(HEAD_ON_TURN)
    for i in range(2):
        if turned[i]:
            u = ways[i] / np.hypot(*ways[i]) * 1.2
            np.testing.assert_allclose(a["pref"][i], (c * u[0] + s * u[1], -s * u[0] + c * u[1]), atol=1e-12)
        else:
            np.testing.assert_array_equal(a["pref"][i], ways[i])


@pytest.mark.parametrize(
    ("gates", "dirs", "centre", "outcome"),
    [
        ((0, 0), (1, 1), (1.0, 0.6), "row 0 waits"),  # 1.17 and 0.54 m from the gate's centre
        ((0, 0), (1, 1), (0.2, 0.3), "row 1 waits"),  # 0.36 and 0.63 m
        ((0, 0), (1, -1), (1.0, 0.6), "row 0 turns"),  # opposite ways through the gate: head-on
        ((0, 1), (1, 1), (1.0, 0.6), "row 0 turns"),  # different gates: head-on
    ],
)
def test_make_way_movers_converging_on_one_gate_the_same_way_let_the_nearer_go(  # type: ignore[no-untyped-def]
    gates, dirs, centre, outcome
) -> None:
    """Two blocked movers at a doorway's mouth, the one's way pointing into the other (each makes for the
    far jamb) and theirs apart by more than 90 degrees: queued on the same gate the same way, they are not
    head-on (turning both right walked them into each other and the jamb for good: `npc-ai bench crowd`
    doorway, long turns), and the one farther from the gate's centre waits (both pressing on stood for
    good; the one in the mouth's middle waiting held five there for 25 s); on different gates, or going
    different ways, they are head-on as before."""
    a = _rows(2)
    ways = np.array([(1.0, 0.0), (-0.4, -0.9)])
    a["pref"][:] = ways
    a["positions"][1, :2] = (0.8, 0.1)
    a["gate_centre"][0, :2] = centre
    a["row_gate"][:] = gates
    a["row_dir"][:] = dirs
    assert _make_way(a, MAKE_WAY_AFTER + DT) == 1
    if outcome == "row 0 turns":
        assert a["aside"].tolist() == [True, False]  # row 0 turning is enough (no longer head-on)
        assert a["pref"][0, 1] < 0.0 and a["pref"][0, 0] > 0.0
    else:
        waits = 0 if outcome == "row 0 waits" else 1
        assert a["aside"].tolist() == [waits == 0, waits == 1]
        np.testing.assert_array_equal(a["pref"][waits], (0.0, 0.0))
        np.testing.assert_array_equal(a["pref"][1 - waits], ways[1 - waits])


def _stand(walls, positions, ends, parked=None, aside=None, top: float = 1.2):  # type: ignore[no-untyped-def]
    """stand_by_walls for rows at `positions` parked for path ends `ends` (radius 0.4 m); returns
    (count, pref, aside)."""
    n = len(positions)
    pos = np.zeros((n, 3))
    pos[:, :2] = positions
    corners = np.zeros((n, 2, 3))
    corners[:, 1, :2] = ends
    pref = np.full((n, 2), 0.3)
    parked = np.ones(n, bool) if parked is None else np.asarray(parked)
    aside = np.zeros(n, bool) if aside is None else np.asarray(aside)
    params = np.zeros(11)
    params[3] = 1.0
    wall_params = np.array([walls.origin[0], walls.origin[1], walls.cell_size, 0.0, 0.0, 1.0, 0.0, 0.0])
    count = stand_by_walls(
        n, pos, pref, np.full(n, 0.4), np.full(n, top), parked, aside, np.full(n, 2), corners, params,
        walls.a, walls.b, walls.z, wall_params, walls.shape, walls.cell_start, walls.cell_items,
    )  # fmt: skip
    return count, pref, aside


def _corridor(width: float):  # type: ignore[no-untyped-def]
    """A corridor along x whose centre-line room (the navmesh's boundary) is `width` [m] across."""
    h = width / 2
    return Walls.from_segments([[-20.0, -h], [20.0, h]], [[20.0, -h], [-20.0, h]], cell_size=1.0)


def test_rows_parked_in_a_narrow_corridor_walk_to_its_walls() -> None:
    """In the corridor's 2.2 m (a 3 m corridor for 0.4 m agents), rows parked for slots 0.55 m off the
    middle walk to their slots moved a radius toward the nearer wall (0.95 m off the middle), at most at
    their top speed; one exactly in the middle goes to one of the walls; a mover may then pass between."""
    walls = _corridor(2.2)
    ends = [(0.0, 0.55), (1.0, -0.55), (3.0, 0.0)]
    count, pref, aside = _stand(walls, ends, ends)
    assert count == 3 and aside.all()
    np.testing.assert_allclose(pref[0], (0.0, 0.8))  # 0.4 m in 0.5 s: 0.8 m/s
    np.testing.assert_allclose(pref[1], (0.0, -0.8))
    assert abs(pref[2, 1]) == pytest.approx(0.8) and pref[2, 0] == pytest.approx(0.0)
    count, pref, _ = _stand(walls, [(0.0, 0.9)], [(0.0, 0.55)])
    np.testing.assert_allclose(pref[0], (0.0, 0.1))  # nearly there: slows in
    count, pref, _ = _stand(walls, [(0.0, 0.55)], [(0.0, 0.55)], top=0.5)
    np.testing.assert_allclose(pref[0], (0.0, 0.5))  # no faster than its top speed
    count, pref, _ = _stand(walls, [(0.0, 0.95)], [(0.0, 0.95)])  # a slot by the wall: to WALL_GAP from it
    assert count == 1
    np.testing.assert_allclose(pref[0], (0.0, (1.1 - WALL_GAP - 0.95) / 0.5))


@pytest.mark.parametrize(
    "width, at, end, parked, aside",
    [
        (3.0, (0.0, 0.5), (0.0, 0.5), True, False),  # room for three bodies abreast: not narrow
        (1.5, (0.0, 0.2), (0.0, 0.2), True, False),  # less than two: nobody passes it anyway
        (2.2, (0.0, 0.55), (0.0, 0.55), False, False),  # a mover
        (2.2, (0.0, 0.55), (0.0, 0.55), True, True),  # stepping out of a blocked mover's way already
        (2.2, (0.0, -0.2), (0.0, 0.55), True, False),  # parked, but 0.75 m from its end: there first
    ],
)
def test_stand_by_walls_leaves_alone(width: float, at, end, parked: bool, aside: bool) -> None:  # type: ignore[no-untyped-def]
    count, pref, _ = _stand(_corridor(width), [at], [end], [parked], [aside])
    assert count == 0
    np.testing.assert_array_equal(pref, [(0.3, 0.3)])
