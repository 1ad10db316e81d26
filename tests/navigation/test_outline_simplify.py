"""Simplifying many regions' outlines at once: inside each outline, pins kept, as one region alone."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from navigation.decompose import mask_to_geometry
from navigation.outline_simplify import simplify_outlines

masks = arrays(np.bool_, st.tuples(st.integers(2, 12), st.integers(2, 12)))


def _pins(mask: np.ndarray, seed: int) -> set[tuple[int, int]]:
    """Some corners of the mask's cells, at random."""
    j, i = np.nonzero(mask)
    rng = np.random.default_rng(seed)
    pick = rng.random(len(i)) < 0.3
    return {(int(x), int(y)) for x, y in zip(i[pick], j[pick], strict=True)}


@settings(max_examples=60, deadline=None)
@given(mask=masks, seed=st.integers(0, 9), tol=st.sampled_from([0.0, 0.7, 1.3, 3.0]))
def test_simplified_parts_lie_inside_the_outline_and_keep_the_pins(
    mask: np.ndarray, seed: int, tol: float
) -> None:
    geom = mask_to_geometry(mask)
    pins = _pins(mask, seed)
    parts, owner = simplify_outlines([geom], [pins], tol)
    assert (owner == 0).all()
    assert all(p.is_valid and p.area > 0 for p in parts) or geom.is_empty
    simplified = shapely.union_all(parts)
    assert shapely.difference(simplified, geom).area <= 1e-9  # never outwards
    corners = {(round(x), round(y)) for p in parts for r in (p.exterior, *p.interiors) for x, y in r.coords}
    on_outline = {c for c in pins if shapely.Point(c).distance(geom.boundary) == 0.0}
    # a pinned corner on the outline stays on the simplified outline (a corner, or inside a straight run
    # between pinned corners, where the T-junction pass puts it back)
    edges = shapely.union_all([p.boundary for p in parts])
    assert all(shapely.Point(c).distance(edges) <= 1e-9 for c in on_outline - corners)
    if tol == 0.0:  # nothing to cut: the area is the outline's
        assert simplified.area == pytest.approx(geom.area)


@settings(max_examples=40, deadline=None)
@given(mask_list=st.lists(masks, min_size=2, max_size=4), tol=st.sampled_from([0.7, 1.3]))
def test_many_outlines_simplify_as_each_alone(mask_list: list[np.ndarray], tol: float) -> None:
    geoms = [mask_to_geometry(m, (20 * k, 0)) for k, m in enumerate(mask_list)]
    pins = [{(x + 20 * k, y) for x, y in _pins(m, k)} for k, m in enumerate(mask_list)]
    parts, owner = simplify_outlines(geoms, pins, tol)
    for k, (g, p) in enumerate(zip(geoms, pins, strict=True)):
        alone, _ = simplify_outlines([g], [p], tol)
        mine = parts[owner == k]
        assert len(mine) == len(alone)
        assert all(shapely.equals_exact(a, b, tolerance=0.0) for a, b in zip(mine, alone, strict=True))


def test_a_square_with_no_pins_becomes_its_four_corners() -> None:
    parts, _ = simplify_outlines([mask_to_geometry(np.ones((3, 3), dtype=bool))], [set()], 1.3)
    assert len(parts) == 1
    assert sorted(parts[0].exterior.coords[:-1]) == [(0.0, 0.0), (0.0, 3.0), (3.0, 0.0), (3.0, 3.0)]
