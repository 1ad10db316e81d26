"""The heightfield's wall test: links in a row share one long horizontal ray (a run), and cut exactly the
links that one ray per link would cut."""

from __future__ import annotations

import numpy as np
import pytest
from fake_world import FakeWorld, Solid, box

from navigation.heightfield import _DIRS, _cut_walls, _links, _runs
from navigation.settings import BakeSettings

FLOOR = box(0, 30, 0, 10, -0.5, 0.0)
WALLS = [
    box(10.05, 10.07, 0, 10, 0.0, 3.0),  # a sheet across the floor, between two cell centres
    box(5.2, 5.21, 2, 3, 0.0, 3.0),  # a short sheet
    box(20.3, 20.32, 0, 10, 1.2, 3.0),  # hangs from 1.2 m: only the head-height ray meets it
    box(12.5, 12.52, 4, 6, 0.0, 3.0),  # a sheet through a row of cell centres' neighbours
    box(25.0, 25.25, 7, 7.25, 0.0, 0.3),  # a low block: under the knee-height ray
]


def _one_ray_per_link(
    world: FakeWorld, origin: np.ndarray, Z: np.ndarray, links: np.ndarray, s: BakeSettings
):
    """The reference: every +x / +y link tested by its own two rays (knee and head height)."""
    out = links.copy()
    cs = s.cell_size
    low = s.max_climb + min(0.05, s.agent_height / 4)
    high = max(low, s.agent_height - min(0.05, s.agent_height / 4))
    for d, back in ((0, 1), (2, 3)):
        dx, dy = _DIRS[d]
        iy, ix, k = np.nonzero(links[..., d] >= 0)
        k2 = links[iy, ix, k, d]
        z = np.maximum(Z[iy, ix, k], Z[iy + dy, ix + dx, k2])
        a = np.column_stack([origin[0] + (ix + 0.5) * cs, origin[1] + (iy + 0.5) * cs])
        blocked = np.zeros(len(iy), dtype=bool)
        for h in (low, high):
            for lo in range(0, len(iy), 16_000):
                sl = slice(lo, lo + 16_000)
                starts = np.column_stack([a[sl], z[sl] + h])
                ends = np.column_stack([a[sl] + (dx * cs, dy * cs), z[sl] + h])
                blocked[sl] |= world.ray_test(starts, ends).hit
        out[iy[blocked], ix[blocked], k[blocked], d] = -1
        out[iy[blocked] + dy, ix[blocked] + dx, k2[blocked], back] = -1
    return out


@pytest.mark.parametrize("walls", [WALLS, WALLS[:1], []])
def test_runs_cut_the_same_links_as_one_ray_per_link(walls: list[Solid]) -> None:
    s = BakeSettings(cell_size=0.25)
    world = FakeWorld([FLOOR, *walls])
    origin = np.zeros(2)
    Z = np.zeros((40, 120, 1))
    links = _links(Z, s.max_climb)
    want = _one_ray_per_link(world, origin, Z, links, s)
    rays_per_link = sum(world.calls)
    world.calls.clear()
    got = links.copy()
    _cut_walls(world, origin, Z, got, s)
    np.testing.assert_array_equal(got, want)
    assert (got < links).sum() == (want < links).sum() > (0 if walls else -1)
    assert sum(world.calls) < rays_per_link / 10  # a run costs one ray plus one per wall in it


def test_runs_follow_rows_and_break_where_the_height_changes() -> None:
    Z = np.zeros((2, 6, 1))
    Z[1, 3:, 0] = 0.2  # row 1 steps up between x = 2 and x = 3
    links = _links(Z, 0.5)
    iy, ix, k = np.nonzero(links[..., 0] >= 0)
    k2 = links[iy, ix, k, 0]
    z = np.maximum(Z[iy, ix, k], Z[iy, ix + 1, k2])
    order, first, length = _runs(Z.shape, iy, ix, k, k2, z, 1, 0)
    runs = [[(int(iy[i]), int(ix[i])) for i in order[f : f + n]] for f, n in zip(first, length, strict=True)]
    assert sorted(runs) == [
        [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)],
        [(1, 0), (1, 1)],  # z = 0, then the step link (z = 0.2) starts a run with the top
        [(1, 2), (1, 3), (1, 4)],
    ]
