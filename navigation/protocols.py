"""The small protocol a physics world implements so the navmesh can be baked from it.

`navigation` never imports a physics engine or the scene loader: anything that can answer batched ray
tests and report its bounds can be baked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class RayHitsLike(Protocol):
    """What a ray source answers: four arrays with one row per ray (see `RayHits` for their meaning).

    Any object with these attributes will do (the PyBullet world returns its own `scenes.RayHits`).
    """

    @property
    def body(self) -> np.ndarray: ...
    @property
    def fraction(self) -> np.ndarray: ...
    @property
    def point(self) -> np.ndarray: ...
    @property
    def normal(self) -> np.ndarray: ...


@dataclass(frozen=True)
class RayHits:
    """Results of a batch of n rays, one row per ray (navigation's own implementation of `RayHitsLike`).

    Attributes:
        body: (n,) int body id hit, -1 for a miss.
        fraction: (n,) float hit fraction along the ray in [0, 1]; 1.0 for a miss.
        point: (n, 3) float world hit position [m]; the ray end for a miss.
        normal: (n, 3) float world surface normal at the hit (unit); zeros for a miss.
    """

    body: np.ndarray
    fraction: np.ndarray
    point: np.ndarray
    normal: np.ndarray

    @property
    def hit(self) -> np.ndarray:
        """(n,) bool: which rays hit something."""
        return self.body >= 0

    def __len__(self) -> int:
        return int(self.body.shape[0])


@runtime_checkable
class RaySource(Protocol):
    """Anything that answers batched ray tests against its static level geometry."""

    def ray_test(self, starts: np.ndarray, ends: np.ndarray, *, mask: int | None = None) -> RayHitsLike:
        """Cast n rays from starts (n, 3) to ends (n, 3) [m]; `mask` selects collision groups (None: all)."""
        ...

    def static_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(lo, hi) corners [m] of the axis-aligned box that holds all static level geometry."""
        ...


@runtime_checkable
class SolidProbe(Protocol):
    """Optional: a source that can tell whether boxes overlap solid static geometry.

    Rays cannot see from inside a convex solid, so a floor found below another surface is confirmed
    with a probe when the source offers one (the PyBullet world does).
    """

    def boxes_overlap(self, centers: np.ndarray, half_extents: np.ndarray) -> np.ndarray:
        """(n,) bool: does an axis-aligned box of `half_extents` [m] at each of `centers` (n, 3) overlap
        static geometry?"""
        ...
