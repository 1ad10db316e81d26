"""Paths and agents on a two-level scene: heights come from the polygon the path is in (issue 10).

The built-in `compound` scene has a ramp up to a 3 m platform and a bridge over a ground walkway, so the
same (x, y) can lie on the ground, on the ramp or on the bridge. Every height of a path must come from the
corridor polygon the path is in at that point, never from "a polygon under this (x, y)".
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pytest

from navigation.agent import AgentSettings, NavAgent
from navigation.navmesh import NavMesh
from navigation.query import NavMeshQuery, PathResult
from navigation.settings import BakeSettings
from npc_ai.levels import bake_settings, load_level, scene_navmesh
from scenes import World

STEP = 0.05  # [m] horizontal sampling step along each path segment
ON_SURFACE = 1e-6  # [m] a path corner lies on its corridor polygon's plane
NEAR_SURFACE = 5e-3  # [m] a sample between corners: the polyline drops corners within 1e-3 m of a chord
SLOPE_SLACK = 2e-3  # [m] per step, on top of what the steepest walkable slope allows
DT = 1.0 / 60.0


@dataclass(frozen=True)
class Compound:
    mesh: NavMesh
    query: NavMeshQuery
    settings: BakeSettings


@pytest.fixture(scope="module")
def compound() -> Compound:
    with World(load_level("compound")) as world:
        mesh = scene_navmesh(world, use_cache=False).mesh
        settings = bake_settings(world.scene.navmesh)
    return Compound(mesh, NavMeshQuery(mesh), settings)


def _corridor_surface(
    query: NavMeshQuery, corridor: tuple[int, ...], start: int, p: np.ndarray, tol: float
) -> int:
    """Index of the first corridor polygon at or after `start` that holds (x, y) with its plane within `tol`
    of z, or -1."""
    under = set(query.polygons_at(p[:2], math.inf))
    for k in range(start, len(corridor)):
        c = corridor[k]
        if c in under and abs(query.mesh.height_at(c, float(p[0]), float(p[1])) - float(p[2])) < tol:
            return k
    return -1


def _samples(p0: np.ndarray, p1: np.ndarray) -> Iterator[np.ndarray]:
    """Points of the 3-D segment p0 -> p1 every STEP metres horizontally, both ends included."""
    d = float(np.hypot(*(p1[:2] - p0[:2])))
    n = max(1, math.ceil(d / STEP))
    for t in np.linspace(0.0, 1.0, n + 1):
        yield p0 + t * (p1 - p0)


def path_defects(c: Compound, res: PathResult) -> list[str]:
    """What is wrong with a path's heights: corners off their corridor polygon, samples off the surface,
    and steps steeper than the steepest walkable slope (a vertical step is allowed up to max_climb)."""
    tan = math.tan(math.radians(c.settings.max_slope_deg))
    out: list[str] = []
    pts, corridor = res.points, res.corridor
    k = 0
    for i, p in enumerate(pts):
        found = _corridor_surface(c.query, corridor, k, p, ON_SURFACE)
        if found < 0:
            out.append(f"corner {i} {p.round(3).tolist()} is on no corridor polygon's surface")
        else:
            k = found
    k = 0
    for i, (p0, p1) in enumerate(itertools.pairwise(pts)):
        d = float(np.hypot(*(p1[:2] - p0[:2])))
        dz = abs(float(p1[2] - p0[2]))
        if d < 1e-9:
            if dz > c.settings.max_climb + 1e-9:
                out.append(f"segment {i}: a vertical step of {dz:.3f} m, more than max_climb")
            continue
        prev = None
        for s in _samples(p0, p1):
            if prev is not None:
                ds, sz = float(np.hypot(*(s[:2] - prev[:2]))), abs(float(s[2] - prev[2]))
                if sz > ds * tan + SLOPE_SLACK:
                    out.append(
                        f"segment {i}: height jumps {sz:.3f} m over {ds:.3f} m at {s.round(3).tolist()}"
                    )
                    break
            found = _corridor_surface(c.query, corridor, k, s, NEAR_SURFACE)
            if found < 0:
                out.append(f"segment {i}: sample {s.round(3).tolist()} is off the corridor's surface")
                break
            k, prev = found, s
    return out


def test_random_paths_on_compound_follow_the_surface_they_are_on(compound: Compound) -> None:
    rng = np.random.default_rng(10)
    n = 300
    starts, _ = compound.query.random_points(rng, n, islands=compound.mesh.main_island)
    goals, _ = compound.query.random_points(rng, n, islands=compound.mesh.main_island)
    complete = 0
    bad: list[str] = []
    for s, g in zip(starts, goals, strict=True):
        res = compound.query.find_path(s, g)
        if not res.ok:
            continue
        complete += 1
        defects = path_defects(compound, res)
        if defects:
            bad.append(f"{s.round(3).tolist()} -> {g.round(3).tolist()}: {defects[0]}")
    assert complete >= 0.9 * n
    assert not bad, f"{len(bad)} of {complete} complete paths: " + "; ".join(bad[:3])


def test_paths_past_the_search_budget_follow_the_surface_too(compound: Compound) -> None:
    """Past the node budget the path comes from A* and string pulling: its heights come from the corridor
    the same way."""
    rng = np.random.default_rng(11)
    starts, _ = compound.query.random_points(rng, 60, islands=compound.mesh.main_island)
    goals, _ = compound.query.random_points(rng, 60, islands=compound.mesh.main_island)
    bad = []
    for s, g in zip(starts, goals, strict=True):
        res = compound.query.find_path(s, g, max_nodes=1)
        assert res.ok
        defects = path_defects(compound, res)
        if defects:
            bad.append(f"{s.round(3).tolist()} -> {g.round(3).tolist()}: {defects[0]}")
    assert not bad, f"{len(bad)} of 60 paths: " + "; ".join(bad[:3])


def test_a_path_up_the_ramp_to_the_platform_edge_keeps_the_platform_height(compound: Compound) -> None:
    """A corner at the top of the ramp, over ground the path crossed before, is on the ramp (was z = 0)."""
    res = compound.query.find_path((-15.0, 10.0, 0.0), (-13.9, 8.6, 3.0))
    assert res.ok
    assert path_defects(compound, res) == []
    assert res.points[:, 2].max() == pytest.approx(3.0)


def _bridge_xy(p: np.ndarray) -> bool:
    return abs(float(p[0])) < 5.0 and abs(float(p[1]) - 8.0) < 1.5


def test_agent_under_and_over_the_bridge_keeps_a_continuous_height(compound: Compound) -> None:
    """North of the bridge on the ground, south under it along the walkway, up the ramp and back across
    the bridge to the east platform: the agent's height never jumps."""
    settings = AgentSettings(speed=3.5, acceleration=8.0)
    agent = NavAgent(compound.query, (0.0, 16.0, 0.0), settings)
    agent.set_destination((10.0, 8.0, 3.0))
    path = agent.path
    assert path is not None and path.ok
    steps = np.hypot(*np.diff(path.points[:, :2], axis=0).T)
    largest_step = max(
        [abs(float(dz)) for dz, d in zip(np.diff(path.points[:, 2]), steps, strict=True) if d < 1e-9] + [0.0]
    )
    tan = math.tan(math.radians(compound.settings.max_slope_deg))
    trail = [agent.next_position]
    paths = [path]
    for _ in range(3000):
        trail.append(agent.update(DT))
        paths.append(agent.path)
        if agent.arrived and agent.speed < 1e-3:
            break
    assert agent.arrived
    z = np.array(trail)
    under = [p for p in z if _bridge_xy(p) and p[2] < 0.5]
    over = [p for p in z if _bridge_xy(p) and p[2] > 2.5]
    assert under and over  # it went under the bridge and over it
    jumps = [
        (i, float(b[2] - a[2]))
        for i, (a, b) in enumerate(itertools.pairwise(z))
        if abs(float(b[2] - a[2])) > float(np.hypot(*(b[:2] - a[:2]))) * tan + largest_step + SLOPE_SLACK
    ]
    assert not jumps, f"{len(jumps)} height jumps per tick, e.g. {jumps[:3]}"
    k, current = 0, None
    for p, now in zip(z, paths, strict=True):
        assert now is not None
        k = 0 if now is not current else k
        current = now
        found = _corridor_surface(compound.query, now.corridor, k, p, NEAR_SURFACE)
        assert found >= 0, f"agent at {p.round(3).tolist()} is off its corridor's surface"
        k = found


def test_a_goal_moved_from_the_ramp_onto_the_platform_keeps_the_path_on_the_surface(
    compound: Compound,
) -> None:
    """A destination that moves a little keeps the path; its new last leg climbs over the ramp's top edge,
    so it needs the platform's polygon and a corner where the slope ends."""
    agent = NavAgent(compound.query, (-10.0, -10.0, 0.0))
    agent.set_destination((-10.0, 3.7, 2.91))
    plans = agent.repaths
    agent.set_destination((-10.0, 4.1, 3.0))
    assert agent.repaths == plans  # the path was kept, only its end moved
    path = agent.path
    assert path is not None and path.ok
    np.testing.assert_allclose(path.points[-1], [-10.0, 4.1, 3.0], atol=1e-5)
    assert path_defects(compound, path) == []
    for _ in range(1000):
        agent.update(DT)
        if agent.arrived and agent.speed < 1e-3:
            break
    np.testing.assert_allclose(agent.next_position, [-10.0, 4.1 - 0.1, 3.0], atol=2e-3)
