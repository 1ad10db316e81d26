"""Batched ray tests: numpy arrays in, numpy arrays out, chunked to PyBullet's batch limit."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain
from operator import itemgetter

import numpy as np

from scenes._bullet import Client, collector_paused
from scenes._bullet import pybullet as pb
from scenes.errors import WorldError

MAX_RAYS_PER_BATCH = 16_383  # PyBullet's MAX_RAY_INTERSECTION_BATCH_SIZE - 1; 16,384 silently fails
_BODY, _FRACTION, _POINT, _NORMAL = itemgetter(0), itemgetter(2), itemgetter(3), itemgetter(4)


@dataclass(frozen=True)
class RayHits:
    """Results of a batch of n rays, one row per ray.

    It has the attributes of `navigation.RayHitsLike`, so a world can be baked into a navmesh without
    `scenes` importing `navigation`.

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


def _check_rays(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(starts, dtype=np.float64)
    e = np.asarray(ends, dtype=np.float64)
    if s.ndim != 2 or s.shape[1] != 3 or s.shape != e.shape:
        raise WorldError(f"ray starts and ends must both be (n, 3) arrays, got {s.shape} and {e.shape}")
    if not (np.isfinite(s).all() and np.isfinite(e).all()):
        raise WorldError("ray starts and ends must be finite (found NaN or inf)")
    return np.ascontiguousarray(s), np.ascontiguousarray(e)


def _batch(client: Client, starts: np.ndarray, ends: np.ndarray, mask: int, threads: int) -> RayHits:
    n, cid = len(starts), client._client
    body = np.full(n, -1, dtype=np.int64)
    fraction = np.ones(n)
    point = ends.copy()
    normal = np.zeros((n, 3))
    with collector_paused():  # PyBullet's answers (~3 tuples per ray) are read and dropped here
        for lo in range(0, n, MAX_RAYS_PER_BATCH):
            hi = min(n, lo + MAX_RAYS_PER_BATCH)
            # the raw call with the client's id: the client wrapper builds a partial per call
            results = pb.rayTestBatch(
                starts[lo:hi], ends[lo:hi], numThreads=threads, collisionFilterMask=mask, physicsClientId=cid
            )
            if len(results) != hi - lo:
                raise WorldError(f"PyBullet answered {len(results)} of {hi - lo} rays")
            # PyBullet answers one tuple per ray: (body, link, fraction, (x, y, z), (nx, ny, nz));
            # np.fromiter over itemgetter maps reads each column without building a Python row per ray
            m = hi - lo
            ids = np.fromiter(map(_BODY, results), dtype=np.int64, count=m)
            frac = np.fromiter(map(_FRACTION, results), dtype=np.float64, count=m)
            pts = np.fromiter(chain.from_iterable(map(_POINT, results)), dtype=np.float64, count=3 * m)
            nrm = np.fromiter(chain.from_iterable(map(_NORMAL, results)), dtype=np.float64, count=3 * m)
            hit = ids >= 0
            body[lo:hi] = ids
            fraction[lo:hi] = np.where(hit, frac, 1.0)
            point[lo:hi] = np.where(hit[:, None], pts.reshape(m, 3), ends[lo:hi])
            normal[lo:hi] = np.where(hit[:, None], nrm.reshape(m, 3), 0.0)
            del results  # freed while the collector is paused
    return RayHits(body=body, fraction=fraction, point=point, normal=normal)


@contextlib.contextmanager
def hidden_from_rays(
    client: Client, bodies: dict[int, tuple[int, int]], *, calls: Counter[str] | None = None
) -> Iterator[None]:
    """Take `bodies` (id -> (group, mask) to restore) out of every collision group while the block runs.

    Rays test a body's group against their mask before anything else, so a body in no group is invisible
    to them; the change takes effect at once, without a physics step, and is undone on exit. `calls`, when
    given, counts the PyBullet calls made (by kind, added once per pass).
    """
    links = 0
    for body in bodies:
        n = client.getNumJoints(body) + 1
        links += n
        for link in range(-1, n - 1):
            client.setCollisionFilterGroupMask(body, link, 0, 0)
    try:
        yield
    finally:
        for body, (group, mask) in bodies.items():
            for link in range(-1, client.getNumJoints(body)):
                client.setCollisionFilterGroupMask(body, link, group, mask)
        if calls is not None:
            calls["getNumJoints"] += 2 * len(bodies)
            calls["setCollisionFilterGroupMask"] += 2 * links


def ray_test(
    client: Client,
    starts: np.ndarray,
    ends: np.ndarray,
    *,
    mask: int = -1,
    threads: int = 1,
    calls: Counter[str] | None = None,
) -> RayHits:
    """Cast rays from `starts` to `ends` ((n, 3) arrays, metres) in one batched call per 16,383 rays.

    Args:
        mask: collision groups the rays may hit (see `scenes.groups`); -1 for all.
        threads: PyBullet ray threads (0 = all cores); results do not depend on it.
        calls: when given, `calls["rayTestBatch"]` grows by the batches made (ceil(n / 16,383)).
    Returns:
        RayHits with one row per ray; fractions are of the full start->end segment.
    """
    s, e = _check_rays(starts, ends)
    hits = _batch(client, s, e, mask, threads)
    if calls is not None:
        calls["rayTestBatch"] += -(-len(s) // MAX_RAYS_PER_BATCH)
    return hits
