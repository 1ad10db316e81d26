"""Ray batches that may hit only the level, cast in a private copy of it, so crowds do not slow them.

Bullet's broadphase tests a ray's group (always 1, `groups.RAYS`) against a body's mask before the narrow
phase, but the ray batch's own mask only after it. So a batch masked to STATIC still runs a ray-capsule
test for every NPC capsule whose box it passes: ~1 us each, and a 10 m ray through 1,000 NPCs on one
floor costs ~50 us where it costs ~0.6 us through the empty level (measured in `notes/pybullet.md`'s way,
both on one core). Hiding the capsules from rays for the batch (clearing bit 1 of their masks) makes
PyBullet re-insert each body in the broadphase, which drops its contact manifolds and changes the physics.

`StaticRays` instead builds the same static bodies, in the same order, in a second DIRECT client that is
never stepped, and casts there; hit body ids are mapped back to the world's. The answers are the ones
the world itself gives (tested ray for ray): the copy holds exactly the bodies such a batch may hit.
It is built on first use, and only a world with at least `MIN_CAPSULES` capsules uses it.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from scenes import groups
from scenes._bullet import Client, new_client
from scenes.build import build_static
from scenes.errors import WorldError
from scenes.model import Scene
from scenes.raycast import RayHits, ray_test

MIN_CAPSULES = 200  # a world with fewer capsules casts in itself (the copy would save < ~1 us a ray)


class StaticRays:
    """A lazily built copy of a world's static bodies, for ray batches whose mask is STATIC alone.

    Args:
        scene: the scene the world built its level from. world_bodies: the world's static body ids, in
            the order `build_static` made them. visuals: the `visuals` flag the world built with (it
            decides how boxes merge into bodies, so the copy's bodies match the world's one for one).
        min_capsules: the fewest capsules [>= 0] for which `serves` says yes.
    """

    def __init__(
        self, scene: Scene, world_bodies: tuple[int, ...], *, visuals: bool, min_capsules: int = MIN_CAPSULES
    ) -> None:
        if not (isinstance(min_capsules, int) and min_capsules >= 0):
            raise WorldError(f"min_capsules must be an integer >= 0, got {min_capsules!r}")
        self.scene = scene
        self.world_bodies = world_bodies
        self.visuals = visuals
        self.min_capsules = min_capsules
        self._client: Client | None = None
        self._to_world = np.zeros(0, dtype=np.int64)  # copy body id -> world body id

    @property
    def built(self) -> bool:
        """Has the copy been built (and not closed)?"""
        return self._client is not None

    def serves(self, mask: int, capsules: int) -> bool:
        """Should a batch with this `mask` [-1 = all], in a world with `capsules` capsules, be cast here?"""
        return capsules >= self.min_capsules and mask != -1 and mask & ~groups.RAYS == groups.STATIC

    def ray_test(
        self, starts: np.ndarray, ends: np.ndarray, *, threads: int = 1, calls: Counter[str] | None = None
    ) -> RayHits:
        """`scenes.raycast.ray_test` against the level alone, with the world's body ids in the answer."""
        client = self._client if self._client is not None else self._build()
        hits = ray_test(client, starts, ends, mask=groups.STATIC, threads=threads, calls=calls)
        body = np.where(hits.hit, self._to_world[np.maximum(hits.body, 0)], -1)
        return RayHits(body=body, fraction=hits.fraction, point=hits.point, normal=hits.normal)

    def _build(self) -> Client:
        client = new_client(False)
        try:
            bodies = build_static(client, self.scene, visuals=self.visuals).bodies
            if len(bodies) != len(self.world_bodies):
                raise WorldError(
                    f"the level's copy has {len(bodies)} bodies, the world {len(self.world_bodies)}: "
                    "the world's static bodies changed after it was built"
                )
        except BaseException:
            client.disconnect()
            raise
        to_world = np.full(max(bodies, default=-1) + 1, -1, dtype=np.int64)
        to_world[list(bodies)] = self.world_bodies
        self._client, self._to_world = client, to_world
        return client

    def close(self) -> None:
        """Disconnect the copy's client (a later batch builds it again)."""
        if self._client is not None:
            self._client.disconnect()
            self._client = None
