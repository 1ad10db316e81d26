"""Kinematic bodies: `separate` (checked against brute force) and a batched locomotion that moves mass-0
capsules on the navmesh: on it, at its height, off the walls, apart, deterministic."""

from __future__ import annotations

import hashlib
import itertools

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from npc_ai.body.kinematic import block, pair_list, separate
from npc_ai.sim import PlayerSettings, Simulation, SimulationError, SimulationSettings
from scenes import groups, load_scene

NONE = (np.zeros((0, 2)), np.zeros(0))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 120), side=st.floats(0.5, 30.0))
@example(seed=0, n=120, side=0.5)  # every pair: 7,140, far past the room for 960
def test_pair_list_is_every_close_pair_once(seed: int, n: int, side: float) -> None:
    """Against brute force, from sparse crowds to packs far denser than 8 pairs a point (the second pass)."""
    xy = np.random.default_rng(seed).uniform(0.0, side, (n, 2))
    pi, pj = pair_list(xy, 0.8)
    want = {(i, j) for i, j in itertools.combinations(range(n), 2) if np.hypot(*(xy[i] - xy[j])) < 0.8}
    got = list(zip(pi.tolist(), pj.tolist(), strict=True))
    assert len(got) == len(set(got)) and set(got) == want


def min_gap(xy: np.ndarray, radius: float) -> float:
    """Smallest distance between two circles minus 2 radii [m] (brute force)."""
    if len(xy) < 2:
        return np.inf
    return (
        min(float(np.hypot(*(xy[i] - xy[j]))) for i, j in itertools.combinations(range(len(xy)), 2))
        - 2 * radius
    )


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 25))
def test_sparse_circles_end_apart_and_pinned_ones_stay(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0.0, 12.0, (n, 2))
    pinned = rng.random(n) < 0.2
    pinned_before = xy[pinned].copy()
    if n:  # pinned circles already overlapping each other cannot be parted: give them room
        keep = np.ones(n, dtype=bool)
        for i, j in itertools.combinations(np.flatnonzero(pinned), 2):
            keep[j] &= np.hypot(*(xy[i] - xy[j])) >= 0.8
        pinned &= keep
        pinned_before = xy[pinned].copy()
    left = separate(xy, 0.35, *NONE, 500, pinned)
    np.testing.assert_array_equal(xy[pinned], pinned_before)
    assert np.isfinite(xy).all()
    if left == 0:  # converged: the brute-force check agrees
        assert min_gap(xy, 0.35) >= -1e-3


def test_one_sweep_parts_isolated_pairs_exactly() -> None:
    xy = np.array([[0.0, 0.0], [0.5, 0.0], [10.0, 10.0], [10.0, 10.2], [20.0, 0.0], [20.0, 0.0]])
    left = separate(xy, 0.35, *NONE, 1, np.zeros(6, dtype=bool))
    assert left == 3  # three overlapping pairs found, each on the spatial hash
    for i in (0, 2, 4):
        assert np.hypot(*(xy[i] - xy[i + 1])) == pytest.approx(0.7)
    np.testing.assert_allclose(xy[0] + xy[1], [0.5, 0.0])  # each moved half the overlap
    assert separate(xy, 0.35, *NONE, 1, np.zeros(6, dtype=bool)) == 0


def test_fixed_circles_push_out_and_pinned_partners_push_all() -> None:
    xy = np.array([[0.0, 0.0], [0.3, 0.0]])
    separate(xy, 0.35, *NONE, 1, np.array([False, True]))
    np.testing.assert_array_equal(xy[1], [0.3, 0.0])
    assert xy[0, 0] == pytest.approx(-0.4)  # out of the pinned one by all of the overlap (0.7 apart)
    xy = np.array([[0.0, 0.0], [5.0, 0.0]])
    separate(xy, 0.35, np.array([[-0.5, 0.0], [5.0, 0.0]]), np.array([0.4, 0.4]), 1, np.array([False, True]))
    assert xy[0, 0] == pytest.approx(0.25)  # out of the fixed circle (0.75 from its centre)
    np.testing.assert_array_equal(xy[1], [5.0, 0.0])  # pinned: even a fixed circle does not move it


def test_block_stops_moves_into_touching_circles_only() -> None:
    xy = np.array([[0.0, 0.0], [0.705, 0.0], [5.0, 0.0], [9.0, 0.0]])
    target = xy + [[0.1, 0.1], [0.1, 0.0], [0.1, 0.0], [-0.1, 0.0]]
    stopped = block(xy, target, 0.35, np.array([[8.0, 0.0]]), np.array([0.645]))
    # into its neighbour (+x): that part is gone, half of it turned to the neighbour's right (-y)
    np.testing.assert_allclose(target[0], [0.0, 0.1 - 0.5 * 0.1], atol=1e-12)
    np.testing.assert_allclose(target[1], [0.805, 0.0])  # away from it: free
    np.testing.assert_allclose(target[2], [5.1, 0.0])  # touches nothing
    np.testing.assert_allclose(target[3], [9.0, 0.0])  # into the fixed circle it touches: stopped
    assert stopped == 2


def run(bodies: str, seconds: float, npcs: int = 12) -> tuple[Simulation, dict[str, float]]:
    sim = Simulation(
        load_scene("warehouse"),
        seed=3,
        settings=SimulationSettings(npcs=npcs, player=PlayerSettings(mode="wander"), bodies=bodies),
    )
    lo, q, world = sim.locomotion, sim.query, sim.world
    worst = {"off_mesh_m": 0.0, "wall_gap_m": np.inf, "overlap_m": 0.0}
    for _ in range(round(seconds / sim.dt)):
        sim.step()
        feet = lo.positions
        for p in feet:
            hit = q.nearest_point(p, 1.0)
            worst["off_mesh_m"] = max(worst["off_mesh_m"], float(np.linalg.norm(hit.point - p)))
        for b in lo.bodies.tolist():
            for static in world.static_bodies:
                for c in world.client.getClosestPoints(b, static, 0.5) or ():
                    if abs(c[7][2]) < 0.7:  # a wall (a floor's normal is vertical)
                        worst["wall_gap_m"] = min(worst["wall_gap_m"], float(c[8]))
        worst["overlap_m"] = max(worst["overlap_m"], -min_gap(feet[:, :2], lo.radius))
    return sim, worst


@pytest.fixture(scope="module")
def kinematic_run() -> tuple[Simulation, dict[str, float]]:
    sim, worst = run("kinematic", 20.0)
    yield sim, worst
    sim.close()


def test_bodies_stay_on_the_navmesh_at_its_height_and_off_walls(kinematic_run) -> None:
    sim, worst = kinematic_run
    assert worst["off_mesh_m"] < 1e-6  # feet exactly on the mesh surface, ramps included
    # the mesh is eroded by the agent radius (0.4 m) and up to a cell and a half more, the capsule is the
    # agent radius: at least half a cell (10 cm) of air to any wall
    assert worst["wall_gap_m"] > 0.04
    # squeezed between the player (which they cannot move) and a wall, two bodies may overlap a little
    # (measured 13 cm at worst here; the dynamic capsules: 7 cm, and 1 cm into walls, 17 cm off the mesh)
    assert worst["overlap_m"] < 0.2
    assert sim.world.depenetrated == 0 or sim.world._capsules.keys() == {sim.player.body}
    assert sim.events.recorded > 0


def test_kinematic_capsules_are_massless_and_do_not_touch_each_other(kinematic_run) -> None:
    sim, _ = kinematic_run
    c, world = sim.world.client, sim.world
    for b in sim.locomotion.bodies.tolist():
        assert c.getDynamicsInfo(b, -1)[0] == 0.0
    c.performCollisionDetection()
    npc = {int(b) for b in sim.locomotion.bodies}
    for contact in c.getContactPoints() or ():
        a, b = contact[1], contact[2]
        kinds = {world.groups[a], world.groups[b]}
        assert not (kinds == {groups.NPC} and a in npc and b in npc)  # 45 pairs a tick at 100 NPCs if so


def test_same_seed_same_events() -> None:
    digests = []
    for _ in range(2):
        with Simulation(
            load_scene("warehouse"),
            seed=5,
            settings=SimulationSettings(npcs=8, player=PlayerSettings(mode="wander"), bodies="kinematic"),
        ) as sim:
            sim.run(6.0)
            digests.append(hashlib.sha256(repr(sim.locomotion.positions.tolist()).encode()).hexdigest())
            digests.append(hashlib.sha256(sim.events.to_jsonl().encode()).hexdigest())
    assert digests[0] == digests[2] and digests[1] == digests[3]


@pytest.mark.parametrize("bad", ["Kinematic", "", None, 1])
def test_bad_bodies_setting(bad: object) -> None:
    with pytest.raises(SimulationError, match="bodies must be 'dynamic' or 'kinematic'"):
        SimulationSettings(bodies=bad)  # type: ignore[arg-type]
