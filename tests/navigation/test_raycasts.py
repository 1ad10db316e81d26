"""`NavMeshQuery.raycast_many` is k calls of `raycast` in one compiled call: the same status, fraction, stop
point and wall normal for every ray, on a MovingAI map and on the baked warehouse and compound (two levels),
for random rays (off the mesh, at any height, of zero length, from mesh vertices)."""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navigation import mesh_kernels
from navigation.errors import NavMeshError
from navigation.grid_bake import bake_grid
from navigation.movingai import parse_map
from navigation.query import NavMeshQuery, QueryStatus
from navigation.raycasts import INVALID, PARTIAL, SUCCESS, RaycastBatch
from npc_ai.levels.navmesh import scene_navmesh
from scenes import World, load_scene
from tests.conftest import MOVINGAI

_QUERIES: dict[str, NavMeshQuery] = {}


def _query(name: str) -> NavMeshQuery:
    if name not in _QUERIES:
        if name == "den312d":
            _QUERIES[name] = NavMeshQuery(bake_grid(parse_map((MOVINGAI / "den312d.map").read_text())))
        else:
            with World(load_scene(name)) as world:
                _QUERIES[name] = NavMeshQuery(scene_navmesh(world)[0])
    return _QUERIES[name]


def random_rays(query: NavMeshQuery, rng: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray]:
    """k rays: starts on the mesh, off it, at mesh vertices, with z NaN or off the surface; lengths 0-25 m."""
    mesh = query.mesh
    lo, hi = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    on, _ = query.random_points(rng, k)
    anywhere = rng.uniform(lo - 2.0, hi + 2.0, (k, 3))
    corner = mesh.vertices[rng.integers(0, len(mesh.vertices), k)]
    pick = rng.integers(0, 3, k)
    starts = np.where((pick == 0)[:, None], on, np.where((pick == 1)[:, None], anywhere, corner))
    z = rng.integers(0, 4, k)
    starts[z == 1, 2] = np.nan  # any height
    starts[z == 2, 2] += rng.uniform(-3.0, 3.0, int((z == 2).sum()))
    angle = rng.uniform(-math.pi, math.pi, k)
    length = np.where(rng.random(k) < 0.05, 0.0, rng.uniform(0.0, 25.0, k))
    ends = starts + length[:, None] * np.column_stack([np.cos(angle), np.sin(angle), np.zeros(k)])
    ends[:, 2] = rng.uniform(lo[2] - 1.0, hi[2] + 1.0, k)  # the end's height is never read
    return starts, ends


def assert_same_as_single_rays(query: NavMeshQuery, starts: np.ndarray, ends: np.ndarray) -> RaycastBatch:
    batch = query.raycast_many(starts, ends)
    assert len(batch) == len(starts)
    statuses = batch.statuses()
    for i, (s, e) in enumerate(zip(starts, ends, strict=True)):
        one = query.raycast(s, e)
        assert statuses[i] is one.status
        assert bool(batch.walkable[i]) == one.walkable and bool(batch.valid[i]) == one.valid
        assert batch.fraction[i] == one.fraction  # exactly: the same compiled walk
        np.testing.assert_array_equal(batch.point[i], one.point)
        np.testing.assert_array_equal(batch.normal[i], one.normal)
        row = batch.hit(i)
        assert (row.status, row.fraction, row.reason) == (one.status, one.fraction, one.reason)
        assert batch.polygon[i] == (one.polygons[-1] if one.polygons else -1)
    return batch


@pytest.mark.parametrize("name", ["den312d", "warehouse", "compound"])
def test_many_random_rays_match_one_raycast_each(name: str) -> None:
    query = _query(name)
    batch = assert_same_as_single_rays(query, *random_rays(query, np.random.default_rng(7), 3000))
    counts = np.bincount(batch.status, minlength=3)
    assert (counts > 100).all(), counts  # every outcome is exercised


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(0, 40), name=st.sampled_from(["den312d", "warehouse"]))
def test_random_batches_match_one_raycast_each(seed: int, k: int, name: str) -> None:
    query = _query(name)
    assert_same_as_single_rays(query, *random_rays(query, np.random.default_rng(seed), k))


def test_two_d_points_read_any_height() -> None:
    query = _query("compound")
    starts, ends = random_rays(query, np.random.default_rng(3), 200)
    batch = query.raycast_many(starts[:, :2], ends[:, :2])
    for i in range(len(starts)):
        one = query.raycast(starts[i, :2], ends[i, :2])
        assert batch.statuses()[i] is one.status and batch.fraction[i] == one.fraction


def test_codes_and_an_empty_batch() -> None:
    query = _query("den312d")
    empty = query.raycast_many(np.zeros((0, 3)), np.zeros((0, 3)))
    assert len(empty) == 0 and empty.point.shape == (0, 3) and empty.statuses() == []
    assert [
        RaycastBatch(np.array([c], dtype=np.int8), *[np.zeros(1)] * 7).statuses()[0]
        for c in (SUCCESS, PARTIAL, INVALID)
    ] == [QueryStatus.SUCCESS, QueryStatus.PARTIAL, QueryStatus.INVALID]


@pytest.mark.parametrize(
    "starts, ends, message",
    [
        ("abc", np.zeros((1, 3)), "starts must be a \\(k, 2\\) or \\(k, 3\\) array"),
        (np.zeros(3), np.zeros(3), "starts must be a \\(k, 2\\) or \\(k, 3\\) array"),
        (np.zeros((2, 4)), np.zeros((2, 4)), "starts must be"),
        (np.array([[np.nan, 0.0, 0.0]]), np.zeros((1, 3)), "starts must be .* finite"),
        (np.array([[0.0, 0.0, np.inf]]), np.zeros((1, 3)), "starts must be .* finite"),
        (np.array([[2e9, 0.0, 0.0]]), np.zeros((1, 3)), "starts must be .* 1e9"),
        (np.zeros((2, 3)), np.zeros((3, 3)), "ends must have 2 rows"),
        (np.zeros((1, 3)), np.array([[0.0, np.inf, 0.0]]), "ends must be"),
        (np.array([[True, False]]), np.zeros((1, 2)), "starts must be"),
        (np.array([["a", "b"]]), np.zeros((1, 2)), "starts must be"),
    ],
)
def test_bad_rays_raise(starts: object, ends: object, message: str) -> None:
    with pytest.raises(NavMeshError, match=message):
        _query("den312d").raycast_many(starts, ends)


def test_warm_up_compiles_what_the_query_calls() -> None:
    """After `mesh_kernels.warm_up`, a query's lookups and raycasts (one and many) add no signature."""

    def signatures() -> dict[str, int]:
        return {
            name: len(d.signatures)
            for name, d in vars(mesh_kernels).items()
            if isinstance(d, numba.core.registry.CPUDispatcher)
            and d.py_func.__module__ == mesh_kernels.__name__
        }

    mesh_kernels.warm_up()
    before = signatures()
    # private helpers compile into their callers: loaded from the disk cache, they keep no signature
    assert all(n for name, n in before.items() if not name.startswith("_")), before
    query = _query("warehouse")
    starts, ends = random_rays(query, np.random.default_rng(1), 20)
    query.polygons_at(starts[0])
    query.raycast(starts[0], ends[0])
    query.raycast_many(starts, ends)
    query.raycast_many(starts[:, :2], ends[:, :2])
    assert signatures() == before
