"""A headless run of a scene in which the characters only stand: the smallest complete simulation.

Spawns an upright capsule for every NPC and the player, steps the fixed-step world, and summarises what
happened. The behaviour controller replaces the standing characters once it exists.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from scenes import World, WorldSettings, groups
from scenes.model import Scene

CAPSULE_RADIUS = 0.35  # [m]
CAPSULE_HEIGHT = 1.8  # [m]


@dataclass(frozen=True)
class RunSummary:
    """What a run did.

    Attributes:
        scene: scene name. seed: RNG seed. ticks: fixed ticks stepped. sim_seconds: simulated time [s].
        wall_seconds: wall-clock time of the stepping [s]. build_seconds: time to build the world [s].
        static_bodies: level bodies. characters: names of the spawned characters.
        start / end: (n, 3) feet positions of the characters at the start and the end [m].
        digest: sha256 of the final physics state (same seed -> same digest).
    """

    scene: str
    seed: int
    ticks: int
    sim_seconds: float
    wall_seconds: float
    build_seconds: float
    static_bodies: int
    characters: tuple[str, ...]
    start: np.ndarray
    end: np.ndarray
    digest: str

    @property
    def realtime_factor(self) -> float:
        """Simulated seconds per wall-clock second."""
        return self.sim_seconds / self.wall_seconds if self.wall_seconds > 0 else float("inf")

    def lines(self) -> list[str]:
        """A human-readable summary."""
        out = [
            f"scene {self.scene}: {self.static_bodies} static bodies, "
            f"built in {self.build_seconds * 1e3:.0f} ms",
            f"stepped {self.ticks} ticks = {self.sim_seconds:.2f} s simulated in {self.wall_seconds:.2f} s "
            f"wall ({self.realtime_factor:.0f}x real time), seed {self.seed}",
        ]
        for name, a, b in zip(self.characters, self.start, self.end, strict=True):
            moved = float(np.linalg.norm(b[:2] - a[:2]))
            where = f"({b[0]:7.2f}, {b[1]:7.2f}, {b[2]:5.2f})"
            out.append(f"  {name:<16} stood at {where} m, drifted {moved * 100:.1f} cm")
        out.append(f"state digest {self.digest[:16]}")
        return out


def spawn_characters(world: World, scene: Scene) -> dict[str, int]:
    """Add a capsule per NPC spawn and one for the player; return name -> body id (in spawn order)."""
    bodies: dict[str, int] = {}
    for i, npc in enumerate(scene.npcs):
        name = npc.name or f"npc{i}"
        bodies[name] = world.add_capsule(
            npc.position,
            radius=CAPSULE_RADIUS,
            height=CAPSULE_HEIGHT,
            yaw=np.radians(npc.yaw_deg),
            group=groups.NPC,
        )
    if scene.player is not None:
        bodies["player"] = world.add_capsule(
            scene.player.position,
            radius=CAPSULE_RADIUS,
            height=CAPSULE_HEIGHT,
            yaw=np.radians(scene.player.yaw_deg),
            group=groups.PLAYER,
        )
    return bodies


def run_standing(scene: Scene, *, seconds: float, seed: int = 0, gui: bool = False) -> RunSummary:
    """Build `scene`, spawn its characters, and step it for `seconds` of simulated time."""
    t0 = time.perf_counter()
    with World(scene, seed=seed, settings=WorldSettings(), gui=gui) as world:
        bodies = spawn_characters(world, scene)
        world.step()  # settle one tick so the start pose is a physics pose
        build = time.perf_counter() - t0
        rows = [world.poses.index(b) for b in bodies.values()]
        feet = np.array([0.0, 0.0, CAPSULE_HEIGHT / 2])
        start = world.poses.positions[rows] - feet
        ticks = max(0, round(seconds / world.dt))
        t1 = time.perf_counter()
        world.step(ticks)
        wall = time.perf_counter() - t1
        end = world.poses.positions[rows] - feet
        return RunSummary(
            scene=scene.name,
            seed=seed,
            ticks=ticks,
            sim_seconds=ticks * world.dt,
            wall_seconds=wall,
            build_seconds=build,
            static_bodies=len(world.static_bodies),
            characters=tuple(bodies),
            start=start,
            end=end,
            digest=world.state_digest(),
        )
