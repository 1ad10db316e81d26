"""navigation.avoidance: ORCA for a crowd with walls, priorities, contacts and the keep-right rule."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navigation import CrowdError, build_navmesh
from navigation.avoidance import AvoidanceSettings, Walls, avoid
from navigation.avoidance_kernels import wall_room
from navigation.avoidance_rules import along_walls, keep_right, narrow_turn

DT = 0.05


def crowd(n: int, seed: int, spread: float = 6.0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    pos = rng.uniform(-spread, spread, (n, 2))
    vel = rng.uniform(-1.5, 1.5, (n, 2))
    pref = rng.uniform(-2.0, 2.0, (n, 2))
    radii = rng.uniform(0.2, 0.5, n)
    vmax = rng.uniform(0.5, 2.0, n)
    return pos, vel, pref, radii, vmax


def separated(pos: np.ndarray, radii: np.ndarray) -> float:
    d = np.linalg.norm(pos[:, None] - pos[None], axis=2) - radii[:, None] - radii[None]
    np.fill_diagonal(d, np.inf)
    return float(d.min())


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("neighbour_distance", 0.0, "neighbour_distance must be a finite number > 0"),
        ("neighbour_distance", float("nan"), "neighbour_distance"),
        ("max_neighbours", 0, "max_neighbours must be an integer from 1 to 32"),
        ("max_neighbours", 33, "max_neighbours"),
        ("max_neighbours", 2.0, "max_neighbours"),
        ("time_horizon", -1.0, "time_horizon must be"),
        ("time_horizon_walls", 0.0, "time_horizon_walls must be"),
        ("height_range", 0.0, "height_range"),
        ("side_preference", 1.0, "side_preference"),
        ("smoothing", -0.1, "smoothing"),
        ("pass_right_deg", 181.0, "pass_right_deg"),
        ("pass_right_deg", True, "pass_right_deg"),
        ("narrow_pass_right_deg", -1.0, "narrow_pass_right_deg"),
        ("lane_deg", 91.0, "lane_deg must be a finite number >= 0.0 and <= 90.0"),
        ("lane_deg", float("nan"), "lane_deg"),
        ("facing_tau_s", -0.1, r"facing_tau_s must be a finite number >= 0.0 and <= 5.0 \[s\]"),
        ("facing_tau_s", 5.5, "facing_tau_s"),
        ("facing_tau_s", float("nan"), "facing_tau_s"),
        ("facing_tau_s", True, "facing_tau_s"),
    ],
)
def test_settings_refuse_out_of_range_values(field, value, message) -> None:
    with pytest.raises(CrowdError, match=message):
        AvoidanceSettings(**{field: value})


def test_settings_are_frozen() -> None:
    s = AvoidanceSettings()
    with pytest.raises(AttributeError):
        s.time_horizon = 3.0  # type: ignore[misc]


GOOD = dict(
    positions=np.zeros((2, 2)) + [[0.0, 0.0], [3.0, 0.0]],
    velocities=np.zeros((2, 2)),
    preferred=np.ones((2, 2)),
    radii=np.full(2, 0.4),
    max_speeds=np.full(2, 1.4),
)


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("positions", np.zeros((2, 4)), r"positions must have shape \(N, 2\|3\)"),
        ("positions", "here", "positions must be an array of real numbers"),
        ("positions", [[0.0, np.nan], [1.0, 1.0]], "positions must be finite"),
        ("velocities", np.zeros((3, 2)), r"velocities must have shape \(N, 2\)"),
        ("preferred", np.full((2, 2), np.inf), "preferred must be finite"),
        ("radii", [0.4, -0.1], r"radii must be >= 0"),
        ("radii", np.zeros((2, 1)), r"radii must have shape \(N,\)"),
        ("max_speeds", [1.0, -1.0], r"max_speeds must be >= 0"),
        ("priorities", [1.0, 0.0], "priorities must be > 0"),
        ("dt", 0.0, "dt must be"),
        ("walls", "walls", "walls must be a Walls"),
        ("settings", {"time_horizon": 1.0}, "settings must be an AvoidanceSettings"),
    ],
)
def test_bad_input_raises_and_changes_nothing(name, value, message) -> None:
    args = {k: v.copy() for k, v in GOOD.items()}
    kwargs = {"dt": DT, name: value} if name in ("priorities", "dt", "walls", "settings") else {"dt": DT}
    if name in args:
        args[name] = value
    before = {k: np.array(v, copy=True) if not isinstance(v, str) else v for k, v in args.items()}
    with pytest.raises(CrowdError, match=message):
        avoid(*args.values(), **kwargs)
    for k, v in args.items():
        if isinstance(v, np.ndarray):
            np.testing.assert_array_equal(v, before[k])


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60), st.integers(0, 2**31 - 1))
def test_no_agent_exceeds_its_max_speed(n, seed) -> None:
    pos, vel, pref, radii, vmax = crowd(n, seed)
    out = avoid(pos, vel, pref, radii, vmax, dt=DT).velocities
    assert out.shape == (n, 2)
    assert (np.linalg.norm(out, axis=1) <= vmax * (1 + 1e-9) + 1e-12).all()


@settings(max_examples=40, deadline=None)
@given(
    st.floats(-3, 3), st.floats(-3, 3), st.floats(-3, 3), st.floats(-3, 3), st.floats(0.0, 0.9), st.booleans()
)
def test_an_agent_alone_keeps_its_preferred_velocity(px, py, vx, vy, smoothing, moving) -> None:
    pref = np.array([[px, py]])
    vel = pref.copy() if moving else np.array([[vx, vy]])
    s = AvoidanceSettings(smoothing=smoothing if moving else 0.0)
    speed = float(np.linalg.norm(pref))
    out = avoid([[1.0, 2.0]], vel, pref, [0.4], [4.5], dt=DT, settings=s)
    np.testing.assert_allclose(out.velocities, pref, atol=1e-12)
    assert speed <= 4.5
    assert out.neighbours[0] == 0 and not out.fallback[0]


def run_crowd(pos, goals, radii, vmax, steps, *, walls=None, priorities=None, s=None):
    vel = np.zeros_like(pos)
    path = [pos.copy()]
    for _ in range(steps):
        to_goal = goals - pos
        dist = np.linalg.norm(to_goal, axis=1, keepdims=True)
        pref = to_goal * np.minimum(1.0, vmax[:, None] / np.maximum(dist, 1e-9))
        vel = avoid(
            pos, vel, pref, radii, vmax, dt=DT, walls=walls, priorities=priorities, settings=s
        ).velocities
        pos = pos + vel * DT
        path.append(pos.copy())
    return np.stack(path)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_two_agents_that_start_apart_never_overlap(seed) -> None:
    rng = np.random.default_rng(seed)
    radii = rng.uniform(0.2, 0.6, 2)
    pos = rng.uniform(-4, 4, (2, 2))
    if np.linalg.norm(pos[0] - pos[1]) <= radii.sum():
        pos[1] = pos[0] + [radii.sum() + 0.01, 0.0]
    goals = pos[::-1] + rng.normal(0, 0.3, (2, 2))  # swap places, roughly head-on
    path = run_crowd(pos, goals, radii, rng.uniform(0.5, 2.0, 2), 160)
    gap = np.linalg.norm(path[:, 0] - path[:, 1], axis=1) - radii.sum()
    assert gap.min() >= -1e-9


def test_a_dense_crowd_never_overlaps() -> None:
    rng = np.random.default_rng(4)
    side = np.arange(6) * 1.0
    pos = np.stack(np.meshgrid(side, side), axis=-1).reshape(-1, 2)
    goals = pos[rng.permutation(len(pos))]
    radii = np.full(len(pos), 0.4)
    path = run_crowd(pos, goals, radii, np.full(len(pos), 1.4), 200)
    assert min(separated(p, radii) for p in path) >= -1e-9


CORRIDOR = Walls.from_segments([[-50.0, -1.5], [-50.0, 1.5]], [[50.0, -1.5], [50.0, 1.5]], cell_size=1.0)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_walls_are_never_crossed_in_a_corridor(seed) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 8))
    radii = np.full(n, 0.3)
    pos = np.stack([rng.uniform(-8, 8, n), rng.uniform(-1.1, 1.1, n)], axis=1)
    keep = [0]
    for i in range(1, n):
        if all(np.linalg.norm(pos[i] - pos[k]) > 0.65 for k in keep):
            keep.append(i)
    pos, radii = pos[keep], radii[keep]
    goals = pos + rng.uniform(-6, 6, pos.shape) * [1.0, 3.0]  # many aim through the walls
    path = run_crowd(pos, goals, radii, np.full(len(pos), 1.5), 120, walls=CORRIDOR)
    assert np.abs(path[..., 1]).max() <= 1.5 - 0.3 + 1e-9


def test_navmesh_walls_keep_centres_on_a_square() -> None:
    mesh = build_navmesh(np.array([[0, 0, 0], [4, 0, 0], [4, 4, 0], [0, 4, 0]], float), [[0, 1, 2, 3]])
    walls = Walls.from_navmesh(mesh)
    assert walls.count == 4 and walls.one_sided and not walls.keep_radius and walls.has_heights
    assert not walls.a.flags.writeable and not walls.cell_items.flags.writeable
    pos = np.array([[1.0, 1.0, 0.0], [3.0, 3.0, 0.0]])
    vel = np.zeros((2, 2))
    for _ in range(100):
        pref = np.array([[-2.0, -1.0], [2.0, 0.5]])
        vel = avoid(pos, vel, pref, [0.3, 0.3], [2.0, 2.0], dt=DT, walls=walls).velocities
        pos[:, :2] += vel * DT
        assert (pos[:, :2] >= -1e-9).all() and (pos[:, :2] <= 4 + 1e-9).all()


def test_walls_and_agents_at_other_heights_are_ignored() -> None:
    high = Walls.from_segments([[-5.0, 0.5, 3.0]], [[5.0, 0.5, 3.0]])
    pos = np.array([[0.0, 0.0, 0.0], [0.5, 0.0, 3.0]])
    pref = np.array([[0.0, 1.0], [0.0, -1.0]])
    out = avoid(pos, pref, pref, [0.4, 0.4], [1.4, 1.4], dt=DT, walls=high)
    np.testing.assert_array_equal(out.velocities, pref)
    assert out.neighbours.tolist() == [0, 0] and out.wall_lines.tolist() == [0, 1]  # 1 is up there too
    flat = avoid(pos[:, :2], pref, pref, [0.4, 0.4], [1.4, 1.4], dt=DT, walls=high)
    assert flat.neighbours.tolist() == [1, 1] and flat.wall_lines.tolist() == [1, 1]


def test_the_high_priority_agent_deviates_less() -> None:
    pos = np.array([[-5.0, 0.0], [5.0, 0.02]])
    goals = np.array([[5.0, 0.0], [-5.0, 0.02]])
    radii, vmax = np.full(2, 0.4), np.full(2, 1.4)
    path = run_crowd(pos, goals, radii, vmax, 200, priorities=np.array([10.0, 1.0]))
    deviation = np.abs(path[..., 1] - pos[None, :, 1]).max(axis=0)
    assert deviation[0] < 0.5 * deviation[1]
    same = run_crowd(pos, goals, radii, vmax, 200)
    even = np.abs(same[..., 1] - pos[None, :, 1]).max(axis=0)
    assert abs(even[0] - even[1]) < 0.2 * even.max()


def test_head_on_agents_both_keep_right() -> None:
    pos = np.array([[0.0, 0.0], [4.0, 0.0]])
    pref = np.array([[1.4, 0.0], [-1.4, 0.0]])
    out = avoid(pos, pref, pref, [0.4, 0.4], [1.4, 1.4], dt=DT).velocities
    assert out[0, 1] < 0 < out[1, 1]  # the first heads +x: its right is -y


def test_same_input_same_output_bit_for_bit() -> None:
    pos, vel, pref, radii, vmax = crowd(300, 7, spread=10.0)
    a = avoid(pos, vel, pref, radii, vmax, dt=DT, walls=CORRIDOR)
    b = avoid(pos, vel, pref, radii, vmax, dt=DT, walls=CORRIDOR)
    np.testing.assert_array_equal(a.velocities, b.velocities)
    np.testing.assert_array_equal(a.fallback, b.fallback)


def test_bounded_neighbours_and_far_apart_agents() -> None:
    pos = np.array([[0.0, 0.0], [1e8, 0.0], *[[x, 1.0] for x in np.linspace(-2, 2, 20)]])
    n = len(pos)
    out = avoid(pos, np.zeros((n, 2)), np.ones((n, 2)), np.full(n, 0.1), np.ones(n), dt=DT)
    assert out.neighbours.max() <= AvoidanceSettings().max_neighbours
    assert out.neighbours[1] == 0


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 120),
    spread=st.floats(0.5, 60.0),
    distance=st.floats(0.5, 12.0),
    most=st.integers(1, 32),
    seed=st.integers(0, 2**16),
)
def test_the_neighbour_search_finds_what_a_brute_force_count_finds(n, spread, distance, most, seed) -> None:
    """The grid's ring-by-ring search against all pairs: each agent has min(max_neighbours, agents
    closer than the neighbour distance) neighbours, whatever the crowd's spread and the grid's cells."""
    rng = np.random.default_rng(seed)
    pos = rng.uniform(-spread, spread, (n, 2))
    pos[rng.random(n) < 0.2] *= 0.01  # some clumps
    s = AvoidanceSettings(neighbour_distance=distance, max_neighbours=most)
    out = avoid(pos, np.zeros((n, 2)), np.zeros((n, 2)), np.full(n, 0.2), np.ones(n), dt=DT, settings=s)
    d = np.hypot(*(pos[:, None] - pos[None]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    np.testing.assert_array_equal(out.neighbours, np.minimum((d < distance).sum(axis=1), most))


@pytest.mark.parametrize(
    "a, b, message",
    [
        (np.zeros((2, 2)), np.zeros((3, 2)), "same shape"),
        (np.zeros((2, 4)), np.zeros((2, 4)), "same shape"),
        ([[0.0, np.nan]], [[1.0, 1.0]], "finite"),
    ],
)
def test_bad_wall_segments(a, b, message) -> None:
    with pytest.raises(CrowdError, match=message):
        Walls.from_segments(a, b)
    with pytest.raises(CrowdError, match="margin"):
        Walls.from_segments(np.zeros((1, 2)), np.ones((1, 2)), margin=-1.0)
    with pytest.raises(CrowdError, match="NavMesh"):
        Walls.from_navmesh("mesh")  # type: ignore[arg-type]


def _corridor_walls(constrain: bool) -> Walls:
    """Two walls along x at y = +-1.5 m."""
    return Walls.from_segments([[-20, -1.5], [-20, 1.5]], [[20, -1.5], [20, 1.5]], constrain=constrain)


def test_walls_that_do_not_constrain_only_mark_a_narrow_place() -> None:
    """An agent walking into a wall that does not constrain keeps its preferred velocity, yet the wall
    counts (its wall lines), so the narrow-place rules apply to it."""
    pos, pref = np.array([[0.0, 1.2]]), np.array([[0.0, 1.0]])
    args = (pos, np.zeros((1, 2)), pref, np.array([0.3]), np.array([1.5]))
    hard = avoid(*args, dt=DT, walls=_corridor_walls(True))
    soft = avoid(*args, dt=DT, walls=_corridor_walls(False))
    assert hard.velocities[0, 1] < 0.5 and hard.wall_lines[0] >= 1
    assert np.array_equal(soft.velocities, pref) and soft.wall_lines[0] == hard.wall_lines[0]
    assert _corridor_walls(False).constrain is False and _corridor_walls(True).constrain is True


@pytest.mark.parametrize("lane_deg", [0.0, 45.0])
def test_head_on_agents_in_a_corridor_take_their_right_early(lane_deg: float) -> None:
    """Two agents 4.9 m apart head-on in a corridor: too far for the keep-right rule (they would meet in
    2.05 s > the 2 s horizon) but within the lane rule's reach (5 m): with lanes both turn right (the one
    going +x to -y, the other to +y) by the same angle, at most `lane_deg`; without, both go straight."""
    pos = np.array([[-2.45, 0.0], [2.45, 0.0]])
    pref = np.array([[1.0, 0.0], [-1.0, 0.0]])
    out = avoid(
        pos, pref.copy(), pref, np.full(2, 0.4), np.full(2, 1.5), dt=DT, walls=_corridor_walls(False),
        settings=AvoidanceSettings(lane_deg=lane_deg),
    ).velocities  # fmt: skip
    if lane_deg == 0.0:
        assert np.allclose(out, pref, atol=1e-12)
        return
    turn = np.degrees(np.arctan2(out[0, 1], out[0, 0]))
    assert -lane_deg - 1e-9 <= turn < -10.0
    assert np.allclose(out[1], -out[0], atol=1e-12)  # the mirror image: +y for the one going -x
    # in the open (no wall near) the lane rule is off
    open_ = avoid(pos, pref.copy(), pref, np.full(2, 0.4), np.full(2, 1.5), dt=DT).velocities
    assert np.allclose(open_, pref, atol=1e-12)


def test_a_standing_neighbour_is_walked_around_not_backed_away_from() -> None:
    """Near a wall (narrow turn 135 deg) a blocked agent backs off from someone coming toward it, but only
    sidesteps (the open 30 deg) a neighbour that stands."""
    pos = np.array([[0.0, 0.0], [1.2, 0.0]])
    vel = np.array([[1.0, 0.0], [0.0, 0.0]])
    radii, prio, nb = np.full(2, 0.4), np.ones(2), np.array([1], dtype=np.int64)
    turn, open_ = np.radians(135.0), np.radians(30.0)

    def target(pref_j: tuple[float, float]) -> float:
        pref = np.array([[1.0, 0.0], pref_j])
        tx, ty = keep_right(0, 1.0, 0.0, pref, vel, pos, radii, prio, nb, 1, 2.0, turn, open_, 5.0, 0.0)
        return float(np.degrees(np.arctan2(ty, tx)))

    assert -30.0 - 1e-9 <= target((0.0, 0.0)) < -5.0  # standing: a sidestep
    assert target((-1.0, 0.0)) < -90.0  # coming toward it: backs off as it turns right


@pytest.mark.parametrize("prio_j, backs_off", [(0.25, False), (0.99, False), (1.0, True), (4.0, True)])
def test_an_agent_backs_off_only_from_neighbours_that_do_not_yield_to_it(
    prio_j: float, backs_off: bool
) -> None:
    """Near a wall, blocked by someone coming toward it: from a neighbour of at least its own priority it
    backs off as it turns right (the narrow turn); one of a lower priority (parked at its goal, held by a
    gate) is the one to move, and only turns it by the open 30 deg."""
    pos = np.array([[0.0, 0.0], [1.2, 0.0]])
    vel = np.zeros((2, 2))
    pref = np.array([[1.0, 0.0], [-1.0, 0.0]])
    radii, nb = np.full(2, 0.4), np.array([1], dtype=np.int64)
    prio = np.array([1.0, prio_j])
    turn, open_ = np.radians(135.0), np.radians(30.0)
    tx, ty = keep_right(0, 1.0, 0.0, pref, vel, pos, radii, prio, nb, 1, 2.0, turn, open_, 5.0, 0.0)
    deg = float(np.degrees(np.arctan2(ty, tx)))
    if backs_off:
        assert deg < -90.0
    else:
        assert -30.0 - 1e-9 <= deg < -5.0


@pytest.mark.parametrize(
    "speed, expected_deg", [(0.0, 135.0), (0.25, 82.5), (0.5, 30.0), (1.0, 30.0), (1.4, 30.0)]
)
def test_the_narrow_turn_is_for_agents_that_have_stopped(speed: float, expected_deg: float) -> None:
    """An agent that wants 1 m/s may back off (135 deg) when it stands, keeps the open 30 deg from half its
    preferred speed on, linear between; an agent that wants nothing, and a narrow limit below the open one,
    keep the open turn."""
    turn, open_ = np.radians(135.0), np.radians(30.0)
    assert np.degrees(narrow_turn(speed, 1.0, open_, turn)) == pytest.approx(expected_deg, abs=1e-9)
    assert narrow_turn(speed, 0.0, open_, turn) == open_
    assert narrow_turn(0.0, 1.0, open_, np.radians(10.0)) == open_


@pytest.mark.parametrize("constrain", [True, False])
def test_a_stopped_agent_backs_off_in_a_corridor_and_a_walking_one_does_not(constrain: bool) -> None:
    """Blocked head-on in a corridor by someone who means to come through, an agent that stands backs off
    as it turns right; the same agent walking at its preferred speed only turns, by no more than the lane
    rule's or the open keep-right turn."""
    pos = np.array([[0.0, 0.0], [1.0, 0.0]])
    pref = np.array([[1.0, 0.0], [-1.0, 0.0]])

    def answer(speed: float) -> np.ndarray:
        vel = np.array([[speed, 0.0], [0.0, 0.0]])
        walls = _corridor_walls(constrain)
        return avoid(pos, vel, pref, np.full(2, 0.4), np.full(2, 1.5), dt=DT, walls=walls).velocities[0]

    stood, walking = answer(0.0), answer(1.0)
    assert stood[0] < -0.3 and stood[1] < 0.0  # backs off to the right
    assert walking[0] > 0.5 and walking[1] < 0.0  # keeps going, to the right
    most = max(AvoidanceSettings().lane_deg, AvoidanceSettings().pass_right_deg)
    assert np.degrees(np.arctan2(-walking[1], walking[0])) <= most + 1e-6


@pytest.mark.parametrize(
    "turn_deg, expected",
    [(60.0, (1.0, 0.0)), (90.0, (1.0, 0.0)), (135.0, (-1.0, 0.0)), (-60.0, None)],
)
def test_a_keep_right_turn_into_a_touched_wall_runs_along_it(turn_deg: float, expected) -> None:
    """An agent going +x against a wall on its right (y = 0, the agent on it): a right turn of up to 90 deg
    runs along the wall forward, beyond 90 (backing off) backward, at the same speed; a left turn (away
    from the wall) and an agent not touching the wall keep the turned target."""
    planes = np.array([[0.0, 0.0, 0.0, 1.0]])  # nearest point (0, 0), normal +y toward the agent
    a = np.radians(-turn_deg)
    k = (1.4 * np.cos(a), 1.4 * np.sin(a))
    out = along_walls(0.0, 0.0, 1.4, 0.0, *k, planes, 1, 0.05)
    if expected is None:
        assert out == pytest.approx(k, abs=1e-12)
    else:
        assert out == pytest.approx((1.4 * expected[0], 1.4 * expected[1]), abs=1e-9)
    assert along_walls(0.0, 0.5, 1.4, 0.0, *k, planes, 1, 0.05) == pytest.approx(k, abs=1e-12)


def _room(walls: Walls, p, reach: float = 5.0, use_z: bool = False):  # type: ignore[no-untyped-def]
    grid = np.array([walls.origin[0], walls.origin[1], walls.cell_size])
    x, y, z = (list(p) + [0.0])[:3]
    return wall_room(
        x, y, z, reach, 1.0, use_z, walls.a, walls.b, walls.z, grid, walls.shape, walls.cell_start,
        walls.cell_items,
    )  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(st.floats(-40.0, 40.0), st.floats(-1.4, 1.4), st.floats(0.5, 3.0))
def test_wall_room_across_a_corridor(x: float, y: float, half: float) -> None:
    """Between two parallel walls 2 * half apart: the nearer one, its normal toward the point, and the
    other one across; beyond reach, none."""
    y = y * half / 1.5
    walls = Walls.from_segments([[-50.0, -half], [-50.0, half]], [[50.0, -half], [50.0, half]], cell_size=1.0)
    near, nx, ny, far = _room(walls, (x, y), reach=2.0 * half + 1.0)
    below, above = y + half, half - y
    assert near == pytest.approx(min(below, above), abs=1e-9)
    assert far == pytest.approx(max(below, above), abs=1e-9)
    assert (nx, ny) == pytest.approx((0.0, 1.0 if below <= above else -1.0))
    if max(below, above) - min(below, above) > 1e-3:  # the far wall beyond reach: the near one alone
        near, _, _, far = _room(walls, (x, y), reach=0.5 * (below + above))
        assert near == pytest.approx(min(below, above), abs=1e-9) and far == np.inf
    near, _, _, far = _room(walls, (x, y), reach=min(below, above) - 1e-6)
    assert near == np.inf and far == np.inf


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_wall_room_finds_the_nearest_segment_a_brute_force_search_finds(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.uniform(-5.0, 5.0, (12, 2))
    b = a + rng.uniform(-3.0, 3.0, (12, 2))
    walls = Walls.from_segments(a, b, cell_size=1.3)
    p = rng.uniform(-5.0, 5.0, 2)
    t = np.clip(np.einsum("ij,ij->i", p - a, b - a) / np.einsum("ij,ij->i", b - a, b - a), 0.0, 1.0)
    closest = a + t[:, None] * (b - a)
    d = np.hypot(*(p - closest).T)
    near, nx, ny, far = _room(walls, p, reach=4.0)
    if d.min() >= 4.0:
        assert near == np.inf
        return
    assert near == pytest.approx(d.min())
    k = int(np.argmin(d))
    np.testing.assert_allclose((nx, ny), (p - closest[k]) / d[k])
    across = [d[j] for j in range(12) if d[j] < 4.0 and ((p - closest[j]) / d[j]) @ (nx, ny) < -np.sqrt(0.5)]
    assert far == pytest.approx(min(across)) if across else far == np.inf


def test_wall_room_ignores_walls_on_other_floors() -> None:
    walls = Walls.from_segments([[-5.0, 1.0, 3.0], [-5.0, -1.0, 0.0]], [[5.0, 1.0, 3.0], [5.0, -1.0, 0.0]])
    assert _room(walls, (0.0, 0.5, 0.0))[0] == pytest.approx(0.5)  # flat: the wall above counts
    near, nx, ny, far = _room(walls, (0.0, 0.5, 0.0), use_z=True)  # 3 m up: another floor
    assert (near, nx, ny, far) == pytest.approx((1.5, 0.0, 1.0, np.inf))
