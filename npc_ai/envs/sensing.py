"""What an agent observes, as documented spaces in metres, seconds and radians, and the one ray batch per
env step that feeds every agent's egocentric scan and the learning player's line-of-sight checks.

Egocentric frame: x forward (the agent's facing), y to its left; angles counter-clockwise from forward.

Observation (a `spaces.Dict`, float32 unless said):
    "scan"      (rays,)        distance to the first thing hit along each horizontal ray [m, 0..ray_range];
                               ray k points 2*pi*k/rays counter-clockwise from forward, at ray_height.
    "scan_hit"  (rays,) int    what ray k hit: 0 nothing within range, 1 level, 2 guard, 3 player.
    "self"      (6,)           SELF_FIELDS: forward and leftward speed [m/s], yaw rate [rad/s, + = left],
                               time left in the episode [s], hits (taken by the player; dealt by a guard),
                               alarm (player: guards that see it now; guard: 1 when it sees the player).
    "targets"   (slots, 9)     TARGET_FIELDS, one row per perceived target (the player's rows: guard i in
                               slot i; a guard's one row: the player): the last known position, egocentric
                               [m], its distance [m], its age [s], visible now (0/1), known at all (0/1), its
                               facing then, egocentric, as cos and sin, and alert (the guard was aiming,
                               shooting, chasing or searching then: 0/1). Unknown rows are all zero.
    "goal"      (6,)           GOAL_FIELDS (player only): the current goal, egocentric [m], the navmesh path
                               length to it [m], the path's next corner, egocentric [m], goals left.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gymnasium import spaces

from npc_ai.envs.kernels import ray_ends, scan_readings
from scenes import World, groups
from scenes.raycast import MAX_RAYS_PER_BATCH

SELF_FIELDS = ("v_forward", "v_left", "yaw_rate", "time_left", "hits", "alarm")
TARGET_FIELDS = (
    "x_forward",
    "y_left",
    "distance",
    "age",
    "visible",
    "known",
    "facing_cos",
    "facing_sin",
    "alert",
)
GOAL_FIELDS = ("x_forward", "y_left", "path_distance", "corner_x_forward", "corner_y_left", "goals_left")
FAR = 1000.0  # [m] bound of egocentric positions and distances (positions are clipped to it)
OLD = 1.0e6  # [s] bound of ages and times
RAY_CLEARANCE = 0.02  # [m] rays start this far outside the caster's capsule
HIT_NONE, HIT_LEVEL, HIT_GUARD, HIT_PLAYER = 0, 1, 2, 3
ALERT_STATES = frozenset({"aim", "shoot", "chase", "search"})


def observation_space(rays: int, ray_range: float, slots: int, goal: bool) -> spaces.Dict:
    """The observation space of one agent (see the module doc)."""
    f32 = np.float32
    self_low = np.array([-20.0, -20.0, -100.0, 0.0, 0.0, 0.0], dtype=f32)
    self_high = np.array([20.0, 20.0, 100.0, OLD, 1000.0, 1000.0], dtype=f32)
    t_low = np.array([-FAR, -FAR, 0.0, 0.0, 0.0, 0.0, -1.0, -1.0, 0.0], dtype=f32)
    t_high = np.array([FAR, FAR, FAR, OLD, 1.0, 1.0, 1.0, 1.0, 1.0], dtype=f32)
    d: dict[str, spaces.Space[Any]] = {
        "scan": spaces.Box(0.0, float(ray_range), shape=(rays,), dtype=f32),
        "scan_hit": spaces.MultiDiscrete(np.full(rays, 4, dtype=np.int64)),
        "self": spaces.Box(self_low, self_high, dtype=f32),
        "targets": spaces.Box(np.tile(t_low, (slots, 1)), np.tile(t_high, (slots, 1)), dtype=f32),
    }
    if goal:
        g_low = np.array([-FAR, -FAR, 0.0, -FAR, -FAR, 0.0], dtype=f32)
        g_high = np.array([FAR, FAR, FAR, FAR, FAR, 1000.0], dtype=f32)
        d["goal"] = spaces.Box(g_low, g_high, dtype=f32)
    return spaces.Dict(d)


def egocentric(points: np.ndarray, origin: np.ndarray, yaw: float) -> np.ndarray:
    """(k, 2) [x forward, y left] of world points (k, 3) seen from `origin` (3,) facing `yaw` [rad]."""
    d = np.asarray(points, dtype=np.float64).reshape(-1, 3)[:, :2] - np.asarray(origin)[:2]
    c, s = math.cos(yaw), math.sin(yaw)
    return np.column_stack([c * d[:, 0] + s * d[:, 1], -s * d[:, 0] + c * d[:, 1]])


def scan_rays(
    centres: np.ndarray, yaws: np.ndarray, rays: int, ray_range: float, clearance: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Start and end points ((a * rays, 3) each) of every agent's scan, agent after agent: the numpy form of
    what `Senses.cast` computes in `npc_ai.envs.kernels.ray_ends` (the tests hold them equal).

    Args:
        centres: (a, 3) ray origins [m] (on the body's axis). yaws: (a,) facings [rad].
        clearance: (a,) how far from the axis each agent's rays start [m] (outside its capsule).
    """
    c = np.asarray(centres, dtype=np.float64).reshape(-1, 3)
    angles = np.asarray(yaws, dtype=np.float64)[:, None] + 2.0 * math.pi * np.arange(rays) / rays
    direction = np.stack([np.cos(angles), np.sin(angles), np.zeros_like(angles)], axis=-1)  # (a, r, 3)
    starts = c[:, None, :] + direction * np.asarray(clearance, dtype=np.float64)[:, None, None]
    ends = c[:, None, :] + direction * ray_range
    return starts.reshape(-1, 3), ends.reshape(-1, 3)


class Senses:
    """One ray batch per env step: every agent's scan plus any line-of-sight rays, in one `rayTestBatch`.

    The batch goes straight to the world's PyBullet client (chunked at PyBullet's limit, as
    `scenes.World.ray_test` does): the env needs only each ray's first body and hit fraction, not the hit
    points and normals `World.ray_test` converts for every ray. The ray ends and the readings are compiled
    loops (`npc_ai.envs.kernels`).

    Args:
        world: the episode's world. rays, ray_range, ray_height: the scan's shape [count, m, m].
    """

    def __init__(self, world: World, rays: int, ray_range: float, ray_height: float) -> None:
        self.world = world
        self.rays = rays
        self.ray_range = ray_range
        self.ray_height = ray_height
        top = max(world.groups, default=0)
        # body id -> HIT_*: every body the level's unless a character; ids past the known ones are level
        # too; the last entry (index -1, a miss) is HIT_NONE
        self._kind = np.full(top + 3, HIT_LEVEL, dtype=np.int64)
        self._kind[-1] = HIT_NONE
        for body, group in world.groups.items():
            self._kind[body] = {groups.NPC: HIT_GUARD, groups.PLAYER: HIT_PLAYER}.get(group, HIT_LEVEL)
        self._offsets = 2.0 * math.pi * np.arange(rays) / rays  # ray k's angle from the facing [rad]
        self._cast = world.client.rayTestBatch
        self._threads = world.settings.ray_threads
        self.batches = 0

    def cast(
        self,
        feet: np.ndarray,
        yaws: np.ndarray,
        radii: np.ndarray,
        los_from: np.ndarray | list[list[float]] | None = None,
        los_to: np.ndarray | list[list[float]] | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Scan for a agents and test k lines of sight, in one batch.

        Args:
            feet: (a, 3) feet positions [m]. yaws: (a,) facings [rad]. radii: (a,) capsule radii [m].
            los_from, los_to: (k, 3) ends of line-of-sight rays [m]; the ray must start outside every body.
        Returns:
            distances (a, rays) float32 [m], hit kinds (a, rays) int64, and for each line of sight the body
            it hit first (k,) (-1: nothing).
        """
        feet = np.ascontiguousarray(feet, dtype=np.float64).reshape(-1, 3)
        a, rays = len(feet), self.rays
        clearance = np.asarray(radii, dtype=np.float64) + RAY_CLEARANCE
        angles = np.asarray(yaws, dtype=np.float64)[:, None] + self._offsets
        starts, ends = np.empty((a * rays, 3)), np.empty((a * rays, 3))
        ray_ends(
            feet, np.cos(angles), np.sin(angles), clearance, self.ray_range, self.ray_height, starts, ends
        )
        check = starts.sum() + ends.sum()
        starts_list, ends_list = starts.tolist(), ends.tolist()
        if los_from is not None and los_to is not None and len(los_from):
            line_from = los_from.tolist() if isinstance(los_from, np.ndarray) else los_from
            line_to = los_to.tolist() if isinstance(los_to, np.ndarray) else los_to
            check += sum(map(sum, line_from)) + sum(map(sum, line_to))
            starts_list += line_from
            ends_list += line_to
        if not math.isfinite(check):  # a NaN or inf somewhere: World.ray_test raises, saying what is wrong
            self.world.ray_test(np.array(starts_list).reshape(-1, 3), np.array(ends_list).reshape(-1, 3))
        results: list[Any] = []
        for lo in range(0, len(starts_list), MAX_RAYS_PER_BATCH):
            hi = lo + MAX_RAYS_PER_BATCH
            results += self._cast(
                starts_list[lo:hi], ends_list[lo:hi], numThreads=self._threads, collisionFilterMask=-1
            )
        self.batches += 1
        n = a * rays
        body = np.array([r[0] for r in results], dtype=np.int64)
        distance, kind = np.empty((a, rays), dtype=np.float32), np.empty((a, rays), dtype=np.int64)
        fraction = np.array([r[2] for r in results[:n]], dtype=np.float64)
        scan_readings(body[:n], fraction, clearance, self.ray_range, self._kind, distance, kind)
        return distance, kind, body[n:]


def target_rows(
    origin: np.ndarray,
    yaw: float,
    known: np.ndarray,
    positions: np.ndarray,
    ages: np.ndarray,
    visible: np.ndarray,
    facings: np.ndarray,
    alert: np.ndarray,
) -> np.ndarray:
    """(slots, 9) float32 target rows (TARGET_FIELDS) seen from `origin` facing `yaw`; rows with
    known = False are all zero. The numpy form, for one observer, of `npc_ai.envs.observe.target_rows` (which
    the envs use: plain floats for the few known rows; the tests hold them equal bit for bit).

    Args:
        known, visible, alert: (slots,) bool. positions: (slots, 3) last known positions [m].
        ages: (slots,) [s]. facings: (slots,) the targets' facings then [rad, world].
    """
    rows = np.zeros((len(known), len(TARGET_FIELDS)), dtype=np.float64)
    if len(known) and known.any():
        ego = np.clip(egocentric(positions, origin, yaw), -FAR, FAR)
        rel = facings - yaw
        rows[:, 0:2] = ego
        rows[:, 2] = np.minimum(np.hypot(ego[:, 0], ego[:, 1]), FAR)
        rows[:, 3] = np.clip(ages, 0.0, OLD)
        rows[:, 4] = visible
        rows[:, 5] = 1.0
        rows[:, 6] = np.cos(rel)
        rows[:, 7] = np.sin(rel)
        rows[:, 8] = alert
        rows[~known] = 0.0
    return rows.astype(np.float32)
