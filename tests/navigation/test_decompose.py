"""Cell outlines and convex decomposition, many regions at once against one at a time and shapely."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from navigation.decompose import cell_outlines, decompose, decompose_many, mask_to_geometry

masks = arrays(np.bool_, st.tuples(st.integers(1, 9), st.integers(1, 9)))


@settings(max_examples=60, deadline=None)
@given(mask=masks, i0=st.integers(-5, 5), j0=st.integers(-5, 5))
def test_mask_outline_is_the_union_of_its_cells(mask: np.ndarray, i0: int, j0: int) -> None:
    geom = mask_to_geometry(mask, (i0, j0))
    j, i = np.nonzero(mask)
    cells = shapely.union_all(shapely.box(i + i0, j + j0, i + i0 + 1, j + j0 + 1))
    assert geom.area == pytest.approx(float(mask.sum()))
    assert shapely.symmetric_difference(geom, cells).area == pytest.approx(0.0, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(mask_list=st.lists(masks, min_size=1, max_size=5))
def test_outlines_of_many_owners_are_each_owners_alone(mask_list: list[np.ndarray]) -> None:
    parts = [np.nonzero(m) for m in mask_list]
    i = np.concatenate([p[1] for p in parts])
    j = np.concatenate([p[0] for p in parts])
    owner = np.repeat(np.arange(len(parts)), [len(p[0]) for p in parts])
    shuffle = np.random.default_rng(0).permutation(len(i))  # owners and cells in any order, repeats too
    i, j, owner = (
        np.concatenate([i[shuffle], i]),
        np.concatenate([j[shuffle], j]),
        np.concatenate([owner[shuffle], owner]),
    )
    together = cell_outlines(i, j, owner, len(parts))
    for m, geom in zip(mask_list, together, strict=True):
        alone = mask_to_geometry(m)
        assert shapely.equals_exact(geom, alone, tolerance=0.0) or (geom.is_empty and alone.is_empty)


def test_outlines_of_an_owner_with_no_cells_are_empty() -> None:
    out = cell_outlines(np.array([0, 1]), np.array([0, 0]), np.array([1, 1]), 3)
    assert out[0].is_empty and out[2].is_empty and out[1].area == 2.0


@settings(max_examples=40, deadline=None)
@given(mask_list=st.lists(masks, min_size=1, max_size=4), max_verts=st.integers(3, 8))
def test_decompose_many_is_decompose_of_each(mask_list: list[np.ndarray], max_verts: int) -> None:
    geoms = [mask_to_geometry(m, (3 * k, -k)) for k, m in enumerate(mask_list)]
    polys = [list(g.geoms) for g in geoms]
    flat = np.empty(sum(len(p) for p in polys), dtype=object)
    flat[:] = [q for p in polys for q in p]
    owner = np.repeat(np.arange(len(polys)), [len(p) for p in polys])
    together = decompose_many(flat, owner, len(polys), max_verts)
    for g, (verts, rpolys) in zip(geoms, together, strict=True):
        v1, p1 = decompose(g, max_verts, simplify=False)
        np.testing.assert_array_equal(verts, v1)
        assert rpolys == p1
        # the convex pieces cover the cells exactly
        pieces = [shapely.Polygon(verts[p]) for p in rpolys]
        assert sum(p.area for p in pieces) == pytest.approx(g.area)
        assert all(len(p) <= max_verts for p in rpolys)
