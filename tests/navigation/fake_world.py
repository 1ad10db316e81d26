"""A tiny analytic RaySource for bake tests: axis-aligned boxes and x-sloped ramps, vertical rays only.

Like PyBullet, a downward ray that starts inside a solid does not see it; an upward ray that starts inside
one hits it at fraction 0.
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
        assert n <= 16_383, "batches must be chunked"
        assert np.allclose(starts[:, :2], ends[:, :2]), "fake world answers vertical rays only"
        self.calls.append(n)
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
