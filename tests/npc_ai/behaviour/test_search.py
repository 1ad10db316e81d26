"""Searches that cover ground: two guards alerted to one position in warehouse walk a shared route of
points chosen to see the most of the area, each point visited once, and see most of the navmesh within
15 m of the position before they give up. The coverage is measured here independently of the plan: a
0.5 m grid of navmesh points within 15 m (on the position's island), a point counting as seen once it
was inside a searcher's view cone (sight radius, half angle) with a clear line from its eye, sampled every
perception period while it searches."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from npc_ai.behaviour import BehaviourSettings, BehaviourSettingsError
from npc_ai.behaviour.search import nearest_first
from npc_ai.behaviour.table import STATE_CODES
from npc_ai.sim import Simulation, SimulationSettings
from scenes import groups, load_scene

SEARCH, CHASE = STATE_CODES["search"], STATE_CODES["chase"]
RADIUS = 15.0


def area_grid(sim: Simulation, centre: np.ndarray) -> np.ndarray:
    q = sim.query
    island = q.mesh.islands[q.polygon_at(centre)]
    g = np.arange(-RADIUS, RADIUS + 1e-9, 0.5)
    xs, ys = np.meshgrid(g + centre[0], g + centre[1])
    out = []
    for x, y in zip(xs.ravel().tolist(), ys.ravel().tolist(), strict=True):
        if math.hypot(x - centre[0], y - centre[1]) <= RADIUS:
            p = q.polygon_at(np.array([x, y, centre[2]]))
            if p >= 0 and q.mesh.islands[p] == island:
                out.append([x, y, q.mesh.height_at(p, x, y)])
    return np.array(out)


def search_run(points: int, budget_s: float, lkp=(5.0, 8.0), seed: int = 0):
    """(share of the area seen, the searched points by NPC, the search events) of two guards searching."""
    sim = Simulation(load_scene("warehouse"), seed=seed, settings=SimulationSettings(npcs=2, player=None))
    with sim:
        b = sim.behaviour
        for i in range(2):
            b.set_settings(
                i, dataclasses.replace(b.settings[i], search_points=float(points), search_duration_s=budget_s)
            )
        centre = sim.query.nearest_point(np.array([*lkp, 0.0])).point
        targets = area_grid(sim, centre)
        seen = np.zeros(len(targets), dtype=bool)
        for i in range(2):
            b.alert(i, centre, "test")
        for k in range(int((budget_s + 30.0) / sim.dt)):
            sim.step()
            if k % 6 == 0:
                for i in np.flatnonzero(b.state == SEARCH).tolist():
                    s, p, yaw = b.settings[i], b.positions()[i], sim.locomotion.yaw[i]
                    d = targets[:, :2] - p[:2]
                    off = np.abs((np.arctan2(d[:, 1], d[:, 0]) - yaw + np.pi) % (2 * np.pi) - np.pi)
                    look = np.flatnonzero(
                        (np.hypot(d[:, 0], d[:, 1]) <= s.sight_radius)
                        & (off <= math.radians(s.half_angle_deg))
                        & ~seen
                    )
                    if look.size:
                        eye = np.repeat((p + [0.0, 0.0, s.eye_height])[None], look.size, axis=0)
                        hits = sim.world.ray_test(eye, targets[look] + [0.0, 0.0, 1.0], mask=groups.STATIC)
                        seen[look[~hits.hit]] = True
            if k > 60 and not np.isin(b.state, (SEARCH, CHASE)).any():
                break
        evs = [e for e in sim.events if e.event in ("search", "searched", "gave-up")]
        by_npc: dict[str, list] = {}
        for e in evs:
            if e.event == "searched":
                by_npc.setdefault(e.data["npc"], []).append(e.data["point"])
        return float(seen.mean()), by_npc, evs


def test_two_searchers_cover_most_of_the_area_and_never_visit_a_point_twice() -> None:
    coverage, searched, evs = search_run(points=8, budget_s=60.0)
    assert coverage >= 0.8
    assert len(searched) == 2 and all(searched.values())  # both walked points of their own
    pts = [p for route in searched.values() for p in route]
    for a in range(len(pts)):
        for c in range(a + 1, len(pts)):
            assert math.hypot(pts[a][0] - pts[c][0], pts[a][1] - pts[c][1]) > 0.5
    starts = [e for e in evs if e.event == "search"]
    assert [e.data["shared"] for e in starts] == [1, 2]  # the second joined the first's plan
    assert [e.event for e in evs].count("gave-up") == 2
    # the seed's look-around where the player was last seen covers far less
    seed_coverage, seed_searched, _ = search_run(points=0, budget_s=4.0)
    assert seed_coverage < 0.6 and not seed_searched


def test_a_search_is_deterministic_under_the_seed() -> None:
    a = search_run(points=6, budget_s=20.0, seed=3)
    b = search_run(points=6, budget_s=20.0, seed=3)
    assert a[1] == b[1] and a[0] == b[0]


def test_nearest_first_walks_to_the_nearest_point_each_time() -> None:
    pts = np.array([[5.0, 0.0, 0.0], [1.0, 0.0, 0.0], [3.0, 0.0, 0.0], [-2.0, 0.0, 0.0]])
    assert nearest_first(np.zeros(3), pts, [0, 1, 2, 3]) == [1, 2, 0, 3]
    assert nearest_first(np.zeros(3), pts, []) == []


@pytest.mark.parametrize("value", [2.5, -1.0, 17.0])
def test_search_points_must_be_a_whole_number_up_to_16(value) -> None:
    with pytest.raises(BehaviourSettingsError, match="search_points"):
        BehaviourSettings(search_points=value)
