"""The bake's compiled loops against numpy references: floor links, and region splitting."""

from __future__ import annotations

import numpy as np
import pytest

from navigation.bake_kernels import (
    insert_on_edges,
    link_floors,
    simplify_between_pins,
    simplify_rings,
    spread_obstacles,
)
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


def _dp_keep(pts: np.ndarray, tol_in: float, tol_out: float) -> np.ndarray:
    """One-sided Douglas-Peucker on an open chain, with numpy (the reference)."""
    keep = np.zeros(len(pts), dtype=bool)
    keep[[0, -1]] = True
    stack = [(0, len(pts) - 1)]
    while stack:
        i, j = stack.pop()
        if j <= i + 1:
            continue
        ab = pts[j] - pts[i]
        L = float(np.hypot(*ab))
        rel = pts[i + 1 : j] - pts[i]
        if L > 0:
            side = (ab[0] * rel[:, 1] - ab[1] * rel[:, 0]) / L
            excess = np.maximum(-side - tol_in, side - tol_out)
        else:
            excess = np.hypot(rel[:, 0], rel[:, 1]) - min(tol_in, tol_out)
        m = int(np.argmax(excess))
        if excess[m] > 1e-12:
            keep[i + 1 + m] = True
            stack += [(i, i + 1 + m), (i + 1 + m, j)]
    return keep


def _keep_numpy(pts: np.ndarray, is_pin: np.ndarray, tol: float) -> np.ndarray:
    pins = np.flatnonzero(is_pin).tolist()
    if len(pins) < 2:
        far = int(np.argmax(np.hypot(*(pts - pts[0]).T)))
        pins = sorted(set(pins) | {0, far})
    keep = np.zeros(len(pts), dtype=bool)
    for a, b in zip(pins, [*pins[1:], pins[0] + len(pts)], strict=True):
        idx = np.arange(a, b + 1) % len(pts)
        keep[idx[_dp_keep(pts[idx], tol, 0.0)]] = True
    return keep


@pytest.mark.parametrize("seed", range(8))
def test_simplify_between_pins_matches_numpy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = int(rng.integers(3, 60))
    angle = np.sort(rng.uniform(0, 2 * np.pi, m))
    radius = rng.uniform(5, 20, m)
    pts = np.rint(np.column_stack([radius * np.cos(angle), radius * np.sin(angle)]))
    is_pin = rng.random(m) < (0.0, 0.05, 0.3)[seed % 3]
    for tol in (0.0, 1.3, 4.0):
        np.testing.assert_array_equal(
            simplify_between_pins(pts, is_pin, tol, 0.0), _keep_numpy(pts, is_pin, tol)
        )


def _ring_numpy(pts: np.ndarray, is_pin: np.ndarray, tol: float) -> np.ndarray:
    """Corners one ring keeps: the pinned simplification, then the pinned corners inside straight runs of
    pinned corners (between their neighbours, not where the ring turns back) dropped (when 3 or more
    corners remain), with numpy rolls."""
    keep = np.flatnonzero(simplify_between_pins(pts, is_pin, tol, 0.0))
    out, pin = pts[keep], is_pin[keep]
    if len(out) > 3:
        prev, nxt = np.roll(out, 1, axis=0), np.roll(out, -1, axis=0)
        cross = (out[:, 0] - prev[:, 0]) * (nxt[:, 1] - prev[:, 1]) - (out[:, 1] - prev[:, 1]) * (
            nxt[:, 0] - prev[:, 0]
        )
        ahead = (out[:, 0] - prev[:, 0]) * (nxt[:, 0] - out[:, 0]) + (out[:, 1] - prev[:, 1]) * (
            nxt[:, 1] - out[:, 1]
        )
        inner = pin & np.roll(pin, 1) & np.roll(pin, -1) & (np.abs(cross) <= 1e-9) & (ahead > 0)
        if (~inner).sum() >= 3:
            keep = keep[~inner]
    mask = np.zeros(len(pts), dtype=bool)
    mask[keep] = True
    return mask


@pytest.mark.parametrize("seed", range(6))
def test_simplify_rings_is_each_ring_alone(seed: int) -> None:
    rng = np.random.default_rng(seed)
    rings, pins = [], []
    for _ in range(5):  # rectangles with pinned corners along their sides, and random star rings
        if rng.random() < 0.5:
            w, h = rng.integers(2, 9, 2)
            side = [(x, 0) for x in range(w)] + [(w, y) for y in range(h)]
            side += [(x, h) for x in range(w, 0, -1)] + [(0, y) for y in range(h, 0, -1)]
            pts = np.array(side, dtype=float)
        else:
            m = int(rng.integers(3, 40))
            angle = np.sort(rng.uniform(0, 2 * np.pi, m))
            pts = np.rint(
                np.column_stack([9 * np.cos(angle), 9 * np.sin(angle)]) * rng.uniform(0.5, 1, m)[:, None]
            )
        rings.append(pts)
        pins.append(rng.random(len(pts)) < 0.6)
    pts = np.ascontiguousarray(np.concatenate(rings))
    is_pin = np.concatenate(pins)
    offsets = np.concatenate([[0], np.cumsum([len(r) for r in rings])]).astype(np.int64)
    todo = np.array([0, 2, 3, 4], dtype=np.int64)  # ring 1 is not asked for: it keeps nothing
    for tol in (0.0, 1.3):
        keep = simplify_rings(pts, is_pin, offsets, todo, tol)
        assert not keep[offsets[1] : offsets[2]].any()
        for r in todo.tolist():
            lo, hi = offsets[r], offsets[r + 1]
            np.testing.assert_array_equal(keep[lo:hi], _ring_numpy(pts[lo:hi], is_pin[lo:hi], tol))


def test_insert_on_edges_puts_every_candidate_on_its_edges_in_order() -> None:
    xy = np.array([[0, 0], [4, 0], [4, 4], [0, 4], [1, 0], [3, 0], [4, 2], [2, 2], [2, 0]], dtype=float)
    polys = [[0, 1, 2, 3], [0, 1, 2]]
    offsets = np.array([0, 4, 7], dtype=np.int64)
    verts = np.array([v for p in polys for v in p], dtype=np.int64)
    # region 0 shares 5, 4, 6 and 7 (7 is inside, not on an edge); region 1 shares 8
    cand_offsets = np.array([0, 4, 5], dtype=np.int64)
    cand = np.array([4, 5, 6, 7, 8], dtype=np.int64)
    new_off, new = insert_on_edges(offsets, verts, np.array([0, 1]), xy, cand_offsets, cand)
    assert new[new_off[0] : new_off[1]].tolist() == [0, 4, 5, 1, 6, 2, 3]
    assert new[new_off[1] : new_off[2]].tolist() == [0, 8, 1, 2]


@pytest.mark.parametrize("seed", range(4))
def test_spread_obstacles_matches_numpy(seed: int) -> None:
    """The brushfire kernel against whole-array numpy sweeps (each column reads the obstacles as they were
    before it)."""
    rng = np.random.default_rng(seed)
    n, m = 400, 8
    cx, cy = rng.uniform(0, 20, n), rng.uniform(0, 20, n)
    around = np.where(rng.random((n, m)) < 0.8, rng.integers(0, n, (n, m)), -1).astype(np.int64)
    obs = np.where(rng.random((n, 1)) < 0.2, rng.uniform(0, 20, (n, 2)), np.inf)
    best = np.where(np.isfinite(obs[:, 0]), np.hypot(obs[:, 0] - cx, obs[:, 1] - cy), np.inf)
    want_obs, want_best = obs.copy(), best.copy()
    for _ in range(5):
        changed = False
        for j in range(m):
            other = around[:, j]
            cand = want_obs[np.maximum(other, 0)]
            dist = np.hypot(cand[:, 0] - cx, cand[:, 1] - cy)
            better = (other >= 0) & (dist < want_best - 1e-12)
            if better.any():
                want_obs[better], want_best[better] = cand[better], dist[better]
                changed = True
        if not changed:
            break
    spread_obstacles(around, cx, cy, obs, best, 5)
    np.testing.assert_array_equal(obs, want_obs)
    np.testing.assert_array_equal(best, want_best)
