"""Bake the built-in scenes with the real PyBullet world and check the mesh against the geometry.

Properties for every scene: convex CCW non-degenerate polygons, no two polygons of one level overlapping,
portals that are exactly shared edges, polygon corners clear of static geometry by about the agent radius,
every walkable spawn of the scene file on the mesh and in one island. Plus scene-specific checks: the
floor under the warehouse shelves is not walkable; in the compound the bridge and the walkway beneath it
are connected only via the ramp.
"""

from __future__ import annotations

import math
from collections import Counter

import networkx as nx
import numpy as np
import pytest
import shapely
from shapely.geometry import Polygon, box

from navigation.navmesh import NavMesh
from navigation.query import NavMeshQuery, QueryStatus
from navigation.ray_bake import bake_from_rays
from navigation.settings import BakeSettings
from npc_ai.levels.navmesh import bake_settings
from scenes import World, load_scene

SCENES = [
    "arena",
    "warehouse",
    "compound",
    pytest.param("monastery", marks=pytest.mark.slow),
]
RAMP_X, RAMP_Y = (-11.5, -8.5), (-6.0, 4.0)  # the compound's ramp footprint


class Baked:
    def __init__(self, name: str) -> None:
        self.world = World(load_scene(name))
        self.scene = self.world.scene
        self.settings: BakeSettings = bake_settings(self.scene.navmesh)
        self.mesh: NavMesh = bake_from_rays(self.world, self.settings)
        self.query = NavMeshQuery(self.mesh)

    def height_range(self, p: int) -> tuple[float, float]:
        xy = self.mesh.polygon_xy(p)
        z = [self.mesh.height_at(p, x, y) for x, y in xy]
        return min(z), max(z)


_CACHE: dict[str, Baked] = {}


@pytest.fixture(scope="module", params=SCENES)
def baked(request) -> Baked:
    name = request.param
    if name not in _CACHE:
        _CACHE[name] = Baked(name)
    return _CACHE[name]


def _get(name: str) -> Baked:
    if name not in _CACHE:
        _CACHE[name] = Baked(name)
    return _CACHE[name]


def teardown_module() -> None:
    for b in _CACHE.values():
        b.world.close()
    _CACHE.clear()


def test_polygons_are_convex_ccw_and_not_degenerate(baked: Baked) -> None:
    mesh = baked.mesh
    assert mesh.polygon_count > 0
    for p in range(mesh.polygon_count):
        ids = mesh.polygon(p)
        assert len(set(ids.tolist())) == len(ids), f"polygon {p} repeats a vertex"
        xy = mesh.polygon_xy(p)
        e = np.roll(xy, -1, axis=0) - xy
        assert (np.hypot(e[:, 0], e[:, 1]) > 1e-6).all(), f"polygon {p} has a zero-length edge"
        turn = e[:, 0] * np.roll(e[:, 1], -1) - e[:, 1] * np.roll(e[:, 0], -1)
        assert (turn >= -1e-9).all(), f"polygon {p} is not convex CCW"
        assert mesh.areas[p] > 1e-4, f"polygon {p} is degenerate (area {mesh.areas[p]})"


def test_no_overlap_within_a_level(baked: Baked) -> None:
    """Polygons whose height ranges come within agent_height of each other must not overlap, unless they
    are at least agent_height apart everywhere over the overlap (an attic floor under a steep roof)."""
    mesh, h = baked.mesh, baked.settings.agent_height
    polys = [Polygon(mesh.polygon_xy(p)) for p in range(mesh.polygon_count)]
    ranges = [baked.height_range(p) for p in range(mesh.polygon_count)]
    tree = shapely.STRtree(polys)
    left, right = tree.query(polys, predicate="intersects")
    for a, b in zip(left.tolist(), right.tolist(), strict=True):
        if a >= b:
            continue
        (lo_a, hi_a), (lo_b, hi_b) = ranges[a], ranges[b]
        if lo_b - hi_a >= h or lo_a - hi_b >= h:
            continue  # different levels (a bridge over a walkway)
        both = polys[a].intersection(polys[b])
        if both.area < 1e-6:
            continue
        pts = np.vstack([shapely.get_coordinates(both), shapely.get_coordinates(both.centroid)])
        gap = min(abs(mesh.height_at(a, x, y) - mesh.height_at(b, x, y)) for x, y in pts)
        assert gap >= h, f"polygons {a} and {b} of one level overlap by {both.area} m^2 (gap {gap:.2f} m)"


def test_portals_are_exactly_shared_edges(baked: Baked) -> None:
    mesh = baked.mesh
    uses: Counter[tuple[int, int]] = Counter()
    for p in range(mesh.polygon_count):
        ids = mesh.polygon(p).tolist()
        for i in range(len(ids)):
            u, v = ids[i], ids[(i + 1) % len(ids)]
            uses[(min(u, v), max(u, v))] += 1
    assert max(uses.values()) <= 2, "an edge is used by more than two polygons"
    portals = mesh.portals
    assert len(portals) > 0
    for a, ea, b, eb in portals.tolist():
        ia, ib = mesh.polygon(a), mesh.polygon(b)
        u, v = ia[ea], ia[(ea + 1) % len(ia)]
        assert (ib[eb], ib[(eb + 1) % len(ib)]) == (v, u), f"portal {a}-{b} is not a shared edge"
        assert uses[(min(u, v), max(u, v))] == 2
        # the two sides meet at the portal in height too (no portal between levels; the tolerance covers
        # the least-squares height planes of polygons on the monastery's uneven roofs)
        for vid in (u, v):
            x, y = mesh.vertices[vid, :2]
            assert abs(mesh.height_at(a, x, y) - mesh.height_at(b, x, y)) < baked.settings.agent_height / 2


def test_polygon_corners_keep_clear_of_static_geometry(baked: Baked) -> None:
    """A box probe of horizontal reach agent_radius - cell_size, from h/4 to 3h/4 above each polygon
    corner, must not touch static geometry. The monastery's mesh has a few features rays cannot fully
    see (lattice screens in doorways hit only at some heights, steep uneven roofs where a corner of a
    fitted height plane dips into the tiles): there, 1% of the sampled corners may touch."""
    mesh, s = baked.mesh, baked.settings
    reach = max(s.agent_radius - s.cell_size, 0.02)
    half = np.array([reach / math.sqrt(2), reach / math.sqrt(2), s.agent_height / 4])
    centres = []
    for p in range(mesh.polygon_count):
        for x, y in mesh.polygon_xy(p):
            centres.append((x, y, mesh.height_at(p, x, y) + s.agent_height / 2))
    centres = np.unique(np.round(np.asarray(centres), 6), axis=0)
    if len(centres) > 4000:  # the monastery: a fixed sample
        centres = centres[np.random.default_rng(0).choice(len(centres), 4000, replace=False)]
    hit = baked.world.boxes_overlap(centres, half)
    allowed = int(0.01 * len(centres)) if baked.scene.name == "monastery" else 0
    assert hit.sum() <= allowed, f"{int(hit.sum())} polygon corners touch geometry, e.g. {centres[hit][:3]}"


def _spawns(baked: Baked) -> list[tuple[float, float, float]]:
    pts = []
    for npc in baked.scene.npcs:
        pts += [npc.position, *npc.patrol]
    if baked.scene.player is not None:
        pts += [baked.scene.player.position, *baked.scene.player.route]
    return [tuple(map(float, p)) for p in pts]


def test_every_spawn_is_on_the_mesh_in_one_island(baked: Baked) -> None:
    pts = _spawns(baked)
    assert pts, "the scene has no spawns to check"
    polys = [baked.query.polygon_at(p, height_tolerance=0.5) for p in pts]
    missing = [p for p, q in zip(pts, polys, strict=True) if q < 0]
    assert not missing, f"spawns off the mesh: {missing}"
    islands = {int(baked.mesh.islands[q]) for q in polys}
    assert len(islands) == 1, f"spawns in islands {islands}"


def test_warehouse_floor_under_shelves_is_not_walkable() -> None:
    b = _get("warehouse")
    shelves = [bx for bx in b.scene.boxes if bx.name == "shelf"]
    assert len(shelves) == 10
    mesh = b.mesh
    for bx in shelves:
        (cx, cy, cz), (hx, hy, hz) = bx.center, bx.half_extents
        assert bx.yaw_deg == 0.0
        foot = box(cx - hx, cy - hy, cx + hx, cy + hy)
        for p in range(mesh.polygon_count):
            lo, _ = b.height_range(p)
            if lo > cz + hz - 0.2:
                continue  # the shelf's top (an island)
            area = Polygon(mesh.polygon_xy(p)).intersection(foot).area
            assert area < 1e-6, f"polygon {p} (z {lo:.2f}) covers {area:.3f} m^2 of a shelf at {bx.center}"


def _ramp_polygons(b: Baked) -> set[int]:
    out = set()
    c = b.mesh.centroids()
    for p in range(b.mesh.polygon_count):
        x, y = c[p, :2]
        if RAMP_X[0] <= x <= RAMP_X[1] and RAMP_Y[0] <= y <= RAMP_Y[1] and b.height_range(p)[1] > 0.05:
            out.add(p)
    return out


def test_compound_levels_meet_only_at_the_ramp() -> None:
    b = _get("compound")
    q, mesh = b.query, b.mesh
    bridge, walkway = q.polygon_at((0, 8, 3)), q.polygon_at((0, 8, 0))
    assert bridge >= 0 and walkway >= 0 and bridge != walkway
    assert mesh.height_at(bridge, 0, 8) == pytest.approx(3.0, abs=0.05)
    assert mesh.height_at(walkway, 0, 8) == pytest.approx(0.0, abs=0.05)
    # the ramp from bottom to top is one connected piece of the mesh
    for p in [(-10, -5.5, 0.15), (-10, 0, 1.8), (-10, 1.5, 2.25), (-10, 3, 2.7), (-10, 6, 3)]:
        k = q.polygon_at(p)
        assert k >= 0 and mesh.islands[k] == mesh.islands[walkway], p
    res = q.find_path((0, 8, 0), (0, 8, 3))
    assert res.status is QueryStatus.SUCCESS
    pts = res.points
    on_ramp = (
        (pts[:, 0] >= RAMP_X[0])
        & (pts[:, 0] <= RAMP_X[1])
        & (pts[:, 1] >= RAMP_Y[0])
        & (pts[:, 1] <= RAMP_Y[1])
        & (pts[:, 2] > 0.5)
    )
    assert on_ramp.any(), "the path between the levels does not climb the ramp"
    ramp = _ramp_polygons(b)
    assert ramp
    g: nx.Graph = mesh.graph()
    assert nx.has_path(g, walkway, bridge)
    g.remove_nodes_from(ramp)
    assert not nx.has_path(g, walkway, bridge), "the levels are connected somewhere other than the ramp"


@pytest.mark.parametrize("name", ["arena", "warehouse", "compound"])  # the scenes with a level floor at z = 0
def test_every_polygon_of_a_level_floor_has_the_same_exact_plane(name: str) -> None:
    """The rays' hits on a level floor differ by round-off (1.6e-15 m on warehouse); the bake levels them,
    so the floor's polygons share one plane and paths on it need no per-polygon heights."""
    planes = _get(name).mesh.planes
    ground = np.abs(planes[:, 2]) < 0.01
    assert ground.sum() > 10
    assert len({tuple(p) for p in planes[ground].tolist()}) == 1
    assert planes[ground][0].tolist() == [0.0, 0.0, 0.0]
