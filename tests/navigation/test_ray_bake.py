"""Bake from a RaySource: analytic fake world with a floor, a bridge over it, a ramp up to the bridge."""

from __future__ import annotations

import numpy as np
import pytest
from fake_world import FakeWorld, Solid, box

from navigation.errors import NavMeshError
from navigation.heightfield import MAX_RAYS_PER_BATCH, sample_heightfield
from navigation.navmesh import FLAG_ISLAND
from navigation.query import NavMeshQuery, QueryStatus
from navigation.ray_bake import bake_from_rays
from navigation.settings import BakeSettings

FLOOR = box(0, 30, 0, 10, -0.5, 0.0)
BRIDGE = box(4, 16, 4, 6, 3.0, 3.2)  # 3 m of headroom under it
RAMP = Solid(16, 26, 4, 6, 0.0, 3.2, 0.0)  # solid wedge from the bridge down to the floor, ~18 deg


@pytest.fixture(scope="module")
def bridge_mesh():
    world = FakeWorld([FLOOR, BRIDGE, RAMP])
    mesh = bake_from_rays(world, BakeSettings(agent_radius=0.3, cell_size=0.25, max_climb=0.4))
    return world, mesh, NavMeshQuery(mesh, height_tolerance=0.5)


def test_rays_are_batched(bridge_mesh) -> None:
    world, _, _ = bridge_mesh
    assert max(world.calls) <= MAX_RAYS_PER_BATCH
    big = FakeWorld([box(0, 40, 0, 40, -1, 0)])
    hf = sample_heightfield(big, BakeSettings(cell_size=0.25))
    assert hf.shape == (160, 160) and max(big.calls) == MAX_RAYS_PER_BATCH


def test_bridge_and_floor_below_are_both_walkable_and_different_polygons(bridge_mesh) -> None:
    _, mesh, q = bridge_mesh
    top, below = q.polygon_at((10, 5, 3.2)), q.polygon_at((10, 5, 0.0))
    assert top >= 0 and below >= 0 and top != below
    assert mesh.height_at(top, 10, 5) == pytest.approx(3.2, abs=1e-6)
    assert mesh.height_at(below, 10, 5) == pytest.approx(0.0, abs=1e-6)
    assert not mesh.flags[top] & FLAG_ISLAND and not mesh.flags[below] & FLAG_ISLAND


def test_levels_connect_only_via_the_ramp(bridge_mesh) -> None:
    _, _, q = bridge_mesh
    res = q.find_path((10, 5, 3.2), (10, 5, 0.0))
    assert res.status is QueryStatus.SUCCESS
    assert res.points[:, 0].max() > 24.0  # walked down the ramp and back under the bridge
    assert res.length > 2 * 14.0
    mid = res.points[(res.points[:, 0] > 18) & (res.points[:, 0] < 24)]
    ramp_z = 3.2 * (26 - mid[:, 0]) / 10
    np.testing.assert_allclose(mid[:, 2], ramp_z, atol=0.15)  # heights follow the slope
    # a straight walk off the bridge's side is blocked
    hit = q.raycast((10, 5, 3.2), (10, 8, 3.2))
    assert hit.valid and not hit.walkable


def test_erosion_keeps_the_radius_from_walls(bridge_mesh) -> None:
    _, mesh, q = bridge_mesh
    top = q.polygon_at((10, 5, 3.2))
    ys = mesh.polygon_xy(top)[:, 1]
    assert (
        ys.min() >= 4.0 + 0.3 - 0.25 - 1e-9 and ys.max() <= 6.0 - 0.3 + 0.25 + 1e-9
    )  # radius, within a cell
    for p in range(mesh.polygon_count):
        xy = mesh.polygon_xy(p)
        assert (xy[:, 0] >= 0.3 - 0.25 - 1e-9).all() and (xy[:, 0] <= 30 - 0.3 + 0.25 + 1e-9).all()


def test_slope_filter() -> None:
    steep = Solid(10, 12, 0, 10, 0.0, 0.0, 4.0)  # ~63 deg
    world = FakeWorld([FLOOR, steep])
    mesh = bake_from_rays(world, BakeSettings(agent_radius=0.0, cell_size=0.25))
    q = NavMeshQuery(mesh, height_tolerance=0.3)
    assert q.polygon_at((11, 5, 2.0)) == -1
    assert q.polygon_at((5, 5, 0.0)) >= 0
    res = q.find_path((5, 5, 0.0), (20, 5, 0.0))
    assert res.status is QueryStatus.PARTIAL  # the steep wedge splits the floor
    gentle = bake_from_rays(world, BakeSettings(agent_radius=0.0, cell_size=0.25, max_slope_deg=70.0))
    assert NavMeshQuery(gentle, height_tolerance=0.3).polygon_at((11, 5, 2.0)) >= 0


def test_clearance_filter() -> None:
    low = box(4, 16, 4, 6, 1.2, 1.4)  # only 1.2 m of headroom below
    world = FakeWorld([FLOOR, low])
    mesh = bake_from_rays(world, BakeSettings(agent_radius=0.0, cell_size=0.25, agent_height=1.8))
    q = NavMeshQuery(mesh, height_tolerance=0.3)
    assert q.polygon_at((10, 5, 0.0)) == -1
    assert q.polygon_at((10, 5, 1.4)) >= 0  # the platform itself (an island: no way up)
    assert mesh.flags[q.polygon_at((10, 5, 1.4))] & FLAG_ISLAND
    short = bake_from_rays(world, BakeSettings(agent_radius=0.0, cell_size=0.25, agent_height=1.0))
    assert NavMeshQuery(short, height_tolerance=0.3).polygon_at((10, 5, 0.0)) >= 0
    dropped = bake_from_rays(
        world, BakeSettings(agent_radius=0.0, cell_size=0.25, agent_height=1.8, keep_islands=False)
    )
    assert NavMeshQuery(dropped, height_tolerance=0.3).polygon_at((10, 5, 1.4)) == -1


def test_steps_within_max_climb_connect() -> None:
    step = box(10, 30, 0, 10, 0.0, 0.3)
    world = FakeWorld([FLOOR, step])
    for climb, status in ((0.4, QueryStatus.SUCCESS), (0.2, QueryStatus.PARTIAL)):
        mesh = bake_from_rays(world, BakeSettings(agent_radius=0.0, cell_size=0.25, max_climb=climb))
        res = NavMeshQuery(mesh, height_tolerance=0.2).find_path((5, 5, 0.0), (20, 5, 0.3))
        assert res.status is status


def test_nothing_walkable() -> None:
    wall = Solid(0, 2, 0, 2, 0.0, 0.0, 5.0)
    with pytest.raises(NavMeshError, match="no walkable surface"):
        bake_from_rays(FakeWorld([wall]), BakeSettings(cell_size=0.25))


def test_thin_wall_between_cell_centres_blocks() -> None:
    """A wall thinner than a cell that no vertical ray hits (a sheet in a level mesh) still cuts the floor:
    the links through it are tested with horizontal rays."""
    wall = box(10.05, 10.07, 0, 10, 0.0, 3.0)  # between the cell centres at x = 9.875 and 10.125
    world = FakeWorld([FLOOR, wall])
    mesh = bake_from_rays(world, BakeSettings(agent_radius=0.3, cell_size=0.25))
    q = NavMeshQuery(mesh, height_tolerance=0.3)
    assert q.polygon_at((5, 5, 0.0)) >= 0 and q.polygon_at((15, 5, 0.0)) >= 0
    assert q.find_path((5, 5, 0.0), (15, 5, 0.0)).status is QueryStatus.PARTIAL
    for p in range(mesh.polygon_count):  # eroded by the radius on both sides
        x = mesh.polygon_xy(p)[:, 0]
        assert x.max() <= 10.05 - 0.3 + 0.25 + 1e-9 or x.min() >= 10.07 + 0.3 - 0.25 - 1e-9


@pytest.mark.parametrize(
    ("floor", "radius", "clearance"),
    [
        (box(0, 0.6, 0, 0.6, -0.5, 0.0), 0.5, "0.25 m"),  # a 0.6 m floor: middle cells 0.25 m from an edge
        (FLOOR, 50.0, "4.95 m"),  # a 30 x 10 m floor under a 50 m agent
    ],
)
def test_a_mesh_eroded_to_nothing_is_a_typed_error_that_says_why(
    floor: Solid, radius: float, clearance: str
) -> None:
    """Issue 10: erosion that leaves no span crashed with `ValueError: zip() argument 2 is longer`."""
    settings = BakeSettings(agent_radius=radius, cell_size=0.1, min_region_area=0)
    with pytest.raises(NavMeshError, match=f"agent_radius {radius:g} m erodes away every walkable") as err:
        bake_from_rays(FakeWorld([floor]), settings)
    message = str(err.value)
    assert f"no point of it is more than {clearance} from an edge or a wall" in message
    assert "lower agent_radius" in message  # what to change


def test_a_floor_smaller_than_min_region_area_says_how_small() -> None:
    tiny = box(0, 0.5, 0, 0.5, -0.5, 0.0)  # 2 x 2 cells of 0.25 m
    with pytest.raises(
        NavMeshError, match=r"the largest has 4 cells \(0.25 m\^2 at cell_size 0.25 m\)"
    ) as err:
        bake_from_rays(FakeWorld([tiny]), BakeSettings(agent_radius=0.0, cell_size=0.25))
    assert "lower min_region_area" in str(err.value)


def test_a_level_floor_is_one_exact_plane_and_a_slope_keeps_its_slope() -> None:
    from navigation.ray_bake import LEVEL, _fit_cells

    rng = np.random.default_rng(0)
    xy = rng.uniform(-5.0, 5.0, (40, 2))
    noisy = np.column_stack([xy, 3.0 + rng.uniform(-0.8, 0.8, 40) * 1e-15])  # the rays' round-off
    assert _fit_cells(noisy).tolist() == [0.0, 0.0, 3.0]
    assert LEVEL < 1e-6
    sloped = np.column_stack([xy, 0.25 * xy[:, 0] - 0.1 * xy[:, 1] + 1.0])
    np.testing.assert_allclose(_fit_cells(sloped), [0.25, -0.1, 1.0], atol=1e-12)


def _merge_vertices_dict(
    verts: np.ndarray,
    reg: np.ndarray,
    z: np.ndarray,
    samples: np.ndarray,
    nodes: np.ndarray,
    label: np.ndarray,
) -> tuple[list[int], np.ndarray, list[float]]:
    """The per-corner dictionary loop the bake used before `_merge_vertices`."""
    group = {tuple(n): g for n, g in zip(nodes.tolist(), label.tolist(), strict=True)}
    keys: dict[tuple[object, ...], int] = {}
    vxy: list[tuple[float, float]] = []
    vz: list[list[float]] = []
    ids = []
    for i, ((fx, fy), r) in enumerate(zip(verts.tolist(), reg.tolist(), strict=True)):
        cx, cy = round(fx), round(fy)
        integral = abs(fx - cx) < 1e-9 and abs(fy - cy) < 1e-9
        key = ("p", group[(cx, cy, r)]) if integral and (cx, cy, r) in group else ("r", r, fx, fy)
        if key not in keys:
            keys[key] = len(vxy)
            vxy.append((fx, fy))
            vz.append([])
        if samples[i]:
            vz[keys[key]].append(float(z[i]))
        ids.append(keys[key])
    return ids, np.asarray(vxy), [float(np.mean(h)) if h else 0.0 for h in vz]


@pytest.mark.parametrize("seed", range(6))
def test_merge_vertices_matches_the_dictionary_loop(seed: int) -> None:
    from navigation.ray_bake import _merge_vertices

    rng = np.random.default_rng(seed)
    # each region's corners are distinct (as decompose gives them); some lie off the cell grid and are
    # never portal corners
    corners = np.column_stack([rng.integers(0, 6, 400), rng.integers(0, 16, (400, 2))]).astype(float)
    corners[rng.random(400) < 0.2, 1:] += 0.5
    corners = np.unique(corners, axis=0)
    reg, verts = corners[:, 0].astype(np.int64), corners[:, 1:] / 2.0
    n = len(reg)
    z = rng.normal(size=n)
    samples = rng.integers(0, 5, n)
    # portal corner nodes (x, y, region), in lexicographic order, labelled in a few groups
    nodes = np.unique(np.column_stack([rng.integers(0, 8, (80, 2)), rng.integers(0, 6, 80)]), axis=0)
    label = rng.integers(0, 20, len(nodes))
    vid, pin, xy, vz = _merge_vertices(verts, reg, z, samples, nodes, label)
    ids, xy_ref, vz_ref = _merge_vertices_dict(verts, reg, z, samples, nodes, label)
    assert vid.tolist() == ids
    np.testing.assert_array_equal(xy, xy_ref)
    assert vz.tolist() == vz_ref  # bit for bit
    node_set = {tuple(r) for r in nodes.tolist()}
    on_grid = (verts == np.rint(verts)).all(axis=1)
    expect = [
        bool(g) and (int(x), int(y), int(r)) in node_set
        for (x, y), r, g in zip(verts, reg, on_grid, strict=True)
    ]
    assert (pin >= 0).tolist() == expect
