"""A tiny analytic RaySource for bake tests: axis-aligned boxes and x-sloped ramps; vertical rays, and
horizontal rays (the bake's wall test between neighbouring cells).

Like PyBullet, a downward ray that starts inside a solid does not see it; an upward ray that starts inside
one hits it at fraction 0. Like `scenes.World`, it answers solid probes (`boxes_overlap`) exactly, which
is how the bake tells the floor under a thick solid (where rays are blind) from free floor.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from navigation.protocols import RayHits


@dataclass(frozen=True)
class Solid:
    """Footprint [x0, x1] x [y0, y1], bottom z, top z at x0 and at x1 (a box when equal) [m]."""

    x0: float
    x1: float
    y0: float
    y1: float
    bottom: float
    top0: float
    top1: float

    def top(self, x: np.ndarray) -> np.ndarray:
        t = (x - self.x0) / (self.x1 - self.x0)
        return self.top0 + t * (self.top1 - self.top0)

    def normal(self) -> np.ndarray:
        slope = (self.top1 - self.top0) / (self.x1 - self.x0)
        n = np.array([-slope, 0.0, 1.0])
        return n / np.linalg.norm(n)


def box(x0: float, x1: float, y0: float, y1: float, z0: float, z1: float) -> Solid:
    return Solid(x0, x1, y0, y1, z0, z1, z1)


@dataclass
class FakeWorld:
    solids: list[Solid]
    calls: list[int] = field(default_factory=list)
    probes: list[int] = field(default_factory=list)

    def boxes_overlap(self, centers: np.ndarray, half_extents: np.ndarray) -> np.ndarray:
        """(n,) bool: does the axis-aligned box at each centre penetrate a solid (touching is free)?"""
        c = np.asarray(centers, float)
        h = np.asarray(half_extents, float)
        self.probes.append(len(c))
        lo, hi = c - h, c + h
        out = np.zeros(len(c), dtype=bool)
        for s in self.solids:
            x0, x1 = np.maximum(lo[:, 0], s.x0), np.minimum(hi[:, 0], s.x1)
            y_ok = np.maximum(lo[:, 1], s.y0) < np.minimum(hi[:, 1], s.y1)
            x_ok = x0 < x1
            # the top is linear in x: its highest point over the shared x range is at one end
            top = np.maximum(s.top(np.where(x_ok, x0, s.x0)), s.top(np.where(x_ok, x1, s.x0)))
            out |= x_ok & y_ok & (lo[:, 2] < top) & (hi[:, 2] > s.bottom)
        return out

    def static_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        lo = np.array(
            [
                min(s.x0 for s in self.solids),
                min(s.y0 for s in self.solids),
                min(s.bottom for s in self.solids),
            ]
        )
        hi = np.array(
            [
                max(s.x1 for s in self.solids),
                max(s.y1 for s in self.solids),
                max(max(s.top0, s.top1) for s in self.solids),
            ]
        )
        return lo, hi

    def ray_test(self, starts: np.ndarray, ends: np.ndarray, *, mask: int | None = None) -> RayHits:
        starts, ends = np.asarray(starts, float), np.asarray(ends, float)
        n = len(starts)
        if n == 0:
            z = np.zeros(0)
            return RayHits(z.astype(int), z, np.zeros((0, 3)), np.zeros((0, 3)))
        assert n <= 16_383, "batches must be chunked"
        self.calls.append(n)
        vertical = np.all(np.abs(starts[:, :2] - ends[:, :2]) <= 1e-12, axis=1)
        if not vertical.all():
            assert np.allclose(starts[~vertical, 2], ends[~vertical, 2]), "rays are vertical or horizontal"
            assert vertical.sum() == 0, "a batch is all vertical or all horizontal"
            return self._horizontal(starts, ends)
        x, y, zs, ze = starts[:, 0], starts[:, 1], starts[:, 2], ends[:, 2]
        down = ze < zs
        best = np.where(down, -np.inf, np.inf)
        body = np.full(n, -1)
        normal = np.zeros((n, 3))
        for i, s in enumerate(self.solids):
            over = (x >= s.x0) & (x <= s.x1) & (y >= s.y0) & (y <= s.y1)
            top = s.top(x)
            inside = over & (zs > s.bottom) & (zs < top)
            face = np.where(down, top, s.bottom)
            face = np.where(inside & ~down, zs, face)
            hit = over & (
                (down & ~inside & (face <= zs) & (face >= ze)) | (~down & (face >= zs) & (face <= ze))
            )
            better = hit & np.where(down, face > best, face < best)
            best = np.where(better, face, best)
            body[better] = i
            normal[better & down] = s.normal()
            normal[better & ~down] = (0.0, 0.0, -1.0)
        hit = body >= 0
        zhit = np.where(hit, best, ze)
        span = np.where(np.abs(ze - zs) > 0, np.abs(ze - zs), 1.0)
        frac = np.where(hit, np.abs(zhit - zs) / span, 1.0)
        return RayHits(body, frac, np.column_stack([x, y, zhit]), normal)

    def _horizontal(self, starts: np.ndarray, ends: np.ndarray) -> RayHits:
        """Horizontal rays: the first entry into a solid (a ray that starts inside one does not see it)."""
        n = len(starts)
        d = ends - starts
        best = np.full(n, np.inf)
        body = np.full(n, -1)
        normal = np.zeros((n, 3))
        z = starts[:, 2]
        for i, s in enumerate(self.solids):
            t0, t1 = np.zeros(n), np.ones(n)
            for axis, lo, hi in ((0, s.x0, s.x1), (1, s.y0, s.y1)):
                with np.errstate(divide="ignore", invalid="ignore"):
                    a = (lo - starts[:, axis]) / d[:, axis]
                    b = (hi - starts[:, axis]) / d[:, axis]
                flat = np.abs(d[:, axis]) <= 1e-12
                inside = (starts[:, axis] > lo) & (starts[:, axis] < hi)
                never = np.where(inside, -np.inf, np.inf)  # a parallel ray is inside the slab or never
                t0 = np.maximum(t0, np.where(flat, never, np.minimum(a, b)))
                t1 = np.minimum(t1, np.where(flat, -never, np.maximum(a, b)))
            # the solid's top is linear in x: the ray is inside it between t0 and t1 where z < top
            t0, t1 = np.clip(t0, -1.0, 2.0), np.clip(t1, -1.0, 2.0)  # finite: only t0 < t1 matters
            xa, xb = starts[:, 0] + t0 * d[:, 0], starts[:, 0] + t1 * d[:, 0]
            ta, tb = s.top(xa), s.top(xb)
            slope = np.where(tb != ta, tb - ta, 1.0)
            enter = np.where(z < ta, t0, t0 + (t1 - t0) * np.clip((z - ta) / slope, 0, 1))
            ok = (t0 < t1) & (z > s.bottom) & ((z < ta) | (z < tb)) & (enter > 1e-9) & (enter < best)
            best = np.where(ok, enter, best)
            body[ok] = i
            normal[ok] = 0.0
        hit = body >= 0
        frac = np.where(hit, best, 1.0)
        return RayHits(body, frac, starts + frac[:, None] * d, normal)
