"""The ledges of a navmesh (`npc_ai.levels.ledges`): boundary pieces with a drop and no wall beyond them,
found against the real level, and guarded so that a shove does not push a dynamic NPC off them."""

from __future__ import annotations

import numpy as np
import pytest

from navigation.links import OffMeshLink
from navigation.query import NavMeshQuery
from npc_ai.body.batch import LocomotionBatch
from npc_ai.errors import LevelError
from npc_ai.levels.ledges import boundary_pieces, find_ledges, guard_ledges
from npc_ai.levels.navmesh import bake_settings, scene_navmesh
from scenes import World, load_scene

DT = 1.0 / 60.0


def _find(name: str):
    scene = load_scene(name)
    with World(scene) as w:
        mesh = scene_navmesh(w)[0]
        bake = bake_settings(scene.navmesh)
        reach = bake.agent_radius + 2 * bake.cell_size + 0.2
        return mesh, bake, find_ledges(w, mesh, climb=bake.max_climb, reach=reach)


def test_walls_are_not_ledges() -> None:
    mesh, _, ledges = _find("warehouse")  # walls and shelves all round, one floor
    assert len(boundary_pieces(mesh, 1.0)[0]) > 100
    assert ledges.count == 0


def test_the_compound_platform_rims_are_ledges_and_the_foot_of_the_ramp_is_not() -> None:
    mesh, bake, ledges = _find("compound")
    mid = (ledges.starts + ledges.ends) / 2
    # the west platform's north rim (y = 12 m, 3 m up): every piece of the mesh's edge along it
    rim = (np.abs(mid[:, 1] - 11.3) < 0.3) & (mid[:, 0] > -14.0) & (mid[:, 0] < -6.0) & (mid[:, 2] > 2.9)
    assert rim.sum() >= 7
    np.testing.assert_allclose(ledges.outward[rim], np.tile([0.0, 1.0], (rim.sum(), 1)), atol=1e-9)
    # beside the ramp's foot a body steps down less than max_climb: no ledge there
    assert not ((mid[:, 2] < bake.max_climb) & (np.abs(mid[:, 0] + 10.0) < 2.5)).any()
    query = NavMeshQuery(mesh)
    for p, n in zip(mid, ledges.outward, strict=True):  # outward points off the mesh
        assert query.polygon_at(p + [*(0.1 * n), 0.0]) < 0


def test_pieces_tile_the_boundary() -> None:
    mesh, _, _ = _find("compound")
    a, b, n = boundary_pieces(mesh, 1.0)
    length = np.hypot(*(b - a)[:, :2].T)
    assert length.max() <= 1.0 + 1e-9
    np.testing.assert_allclose(np.hypot(n[:, 0], n[:, 1]), 1.0)
    whole = boundary_pieces(mesh, 1e9)
    assert length.sum() == pytest.approx(np.hypot(*(whole[1] - whole[0])[:, :2].T).sum())


def _shoved_off_the_rim(guard: bool, links: tuple[OffMeshLink, ...] = ()) -> np.ndarray:
    """A standing NPC near the west platform's north rim, shoved north at 2 m/s for 2 s: its feet [m]."""
    scene = load_scene("compound")
    with World(scene) as w:
        mesh = scene_navmesh(w)[0]
        query = NavMeshQuery(mesh)
        start = query.nearest_point((-10.0, 11.0, 3.0)).point
        batch = LocomotionBatch(w, query, start[None], np.zeros(1))
        if guard:
            guard_ledges(w, mesh, bake_settings(scene.navmesh), batch.radius, links)
        body = int(batch.bodies[0])
        for _ in range(120):
            batch.before_physics(DT)
            vz = float(w.poses.velocities[w.poses.index(body), 2])
            w.set_velocity(body, (0.0, 2.0, vz), yaw_rate=0.0)
            w.step()
            batch.after_physics()
        return batch.positions[0]


def test_a_guarded_rim_holds_a_shoved_npc_on_the_platform() -> None:
    feet = _shoved_off_the_rim(guard=True)
    assert feet[2] == pytest.approx(3.0, abs=0.05)
    assert feet[1] < 11.4  # its centre at the mesh's edge (11.3 m), the platform ends at 12 m


def test_unguarded_or_at_a_link_it_falls() -> None:
    assert _shoved_off_the_rim(guard=False)[2] < 0.5
    drop = OffMeshLink(start=(-10.0, 11.3, 3.0), end=(-10.0, 13.0, 0.0), kind="drop")
    assert _shoved_off_the_rim(guard=True, links=(drop,))[2] < 0.5  # a gap in the guard at the link


@pytest.mark.parametrize(
    ("what", "kwargs"),
    [
        ("mesh", {"mesh": "warehouse"}),
        ("climb", {"climb": -0.1}),
        ("reach", {"reach": 0.0}),
        ("piece", {"piece": float("nan")}),
    ],
)
def test_bad_arguments_are_refused(what, kwargs) -> None:
    scene = load_scene("warehouse")
    with World(scene) as w:
        args = {"mesh": scene_navmesh(w)[0], "climb": 0.4, "reach": 1.0, "piece": 1.0} | kwargs
        mesh = args.pop("mesh")
        with pytest.raises(LevelError, match=what):
            find_ledges(w, mesh, **args)


def test_a_rebuilt_level_with_the_same_mesh_reuses_its_ledges() -> None:
    """An environment's reset builds the same level around the same mesh: no ray is cast again."""
    scene = load_scene("compound")
    bake = bake_settings(scene.navmesh)
    with World(scene) as w:
        mesh = scene_navmesh(w)[0]  # a new mesh object: nothing remembered for it yet
        rays = w.pybullet_calls["rayTestBatch"]
        first = guard_ledges(w, mesh, bake, 0.4)
        assert w.pybullet_calls["rayTestBatch"] == rays + 2  # the wall rays and the floor rays
    with World(scene) as w:
        rays = w.pybullet_calls["rayTestBatch"]
        again = guard_ledges(w, mesh, bake, 0.4)
        assert w.pybullet_calls["rayTestBatch"] == rays
        assert len(w.ledge_guards) > 0  # guarded all the same
    np.testing.assert_array_equal(again.starts, first.starts)
    with World(scene.with_npcs(keep_existing=False)) as w:  # same level content: reused too
        rays = w.pybullet_calls["rayTestBatch"]
        guard_ledges(w, mesh, bake, 0.4)
        assert w.pybullet_calls["rayTestBatch"] == rays
