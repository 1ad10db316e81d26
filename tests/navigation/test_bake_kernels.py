"""The bake's compiled loops against numpy references: floor links, and region splitting."""

from __future__ import annotations

import numpy as np
import pytest

from navigation.bake_kernels import link_floors
from navigation.heightfield import _DIRS, Heightfield
from navigation.ray_bake import _components, _span_graph, _split_conflicts


def _links_numpy(Z: np.ndarray, max_climb: float) -> np.ndarray:
    """The closest floor of each neighbour cell within max_climb, with whole-array numpy."""
    ny, nx, L = Z.shape
    out = np.full((ny, nx, L, 4), -1, dtype=np.int64)
    pad = np.full((ny + 2, nx + 2, L), np.nan)
    pad[1:-1, 1:-1] = Z
    for d, (dx, dy) in enumerate(_DIRS):
        Zn = pad[1 + dy : 1 + dy + ny, 1 + dx : 1 + dx + nx]
        dz = np.abs(Z[..., :, None] - Zn[..., None, :])
        dz = np.where(np.isnan(dz), np.inf, dz)
        best = np.argmin(dz, axis=-1)
        ok = np.take_along_axis(dz, best[..., None], axis=-1)[..., 0] <= max_climb + 1e-9
        out[..., d] = np.where(ok, best, -1)
    return out


def _random_floors(seed: int, shape: tuple[int, int, int] = (23, 31, 3)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    Z = np.sort(np.round(rng.uniform(0, 3, shape), 1), axis=-1)  # ties and exact max_climb gaps
    Z[rng.random(shape) < 0.3] = np.nan
    return np.sort(Z, axis=-1)


@pytest.mark.parametrize("seed", range(5))
def test_link_floors_matches_numpy(seed: int) -> None:
    Z = _random_floors(seed)
    out = np.empty((*Z.shape, 4), dtype=np.int64)
    link_floors(Z, 0.5, out)
    np.testing.assert_array_equal(out, _links_numpy(Z, 0.5))


@pytest.mark.parametrize("seed", range(5))
def test_split_regions_leave_no_unlinked_neighbours_in_a_region(seed: int) -> None:
    """After the split, of two side-by-side spans of one region, the one added later links to the other
    (the flood checks every span it adds against the cells already in its region)."""
    Z = _random_floors(seed)
    links = _links_numpy(Z, 0.5)
    rng = np.random.default_rng(seed)
    links[rng.random(links.shape) < 0.05] = -1  # one-way cuts, as walls and cliffs leave them
    hf = Heightfield(np.zeros(2), 1.0, Z.shape[:2], Z, np.zeros((*Z.shape, 3)), links)
    sid, a, b = _span_graph(hf)
    iy, ix, k = np.nonzero(sid >= 0)
    n = int(sid.max()) + 1
    same = k[a] == k[b]  # regions as the bake makes them: the pieces of one layer
    region = np.asarray(_components(n, a[same], b[same]), dtype=np.int64)
    region = region * 0 if seed % 2 else region  # odd seeds: one region for all, many conflicts to split
    out = _split_conflicts(hf, sid, iy, ix, k, region)
    assert (out >= 0).all()
    where = {(int(iy[s]), int(ix[s]), int(out[s])): s for s in range(n)}
    assert len(where) == n  # no region holds two spans of one cell
    for s in range(n):
        for d, (dx, dy) in enumerate(_DIRS):
            other = where.get((int(iy[s]) + dy, int(ix[s]) + dx, int(out[s])))
            if other is not None:
                there = links[iy[s], ix[s], k[s], d]
                back = links[iy[other], ix[other], k[other], d ^ 1]  # _DIRS pairs +x/-x, +y/-y
                assert (there >= 0 and sid[iy[s] + dy, ix[s] + dx, there] == other) or (
                    back >= 0 and sid[iy[s], ix[s], back] == s
                )
