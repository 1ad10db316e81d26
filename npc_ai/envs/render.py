"""The top-down frame of render_mode "rgb_array": the level, its navmesh, the guards with their view cones
and states, the player and its goals, drawn with numpy alone (no display, no plotting library).

The static layer (floor extent, navmesh polygons) is drawn once per episode; each frame copies it and draws
the moving parts. North (+Y) is up. A view cone stops where the guard's line of sight does: each frame
casts a fan of `FAN` rays per guard at its eye height, all guards in one ray batch, against the level and
its props (what hides the player from a guard), and draws each cone no further than its rays reach.
"""

from __future__ import annotations

import math
import os
import sys

import numpy as np

from npc_ai.envs.errors import EnvError, RenderModeError
from npc_ai.envs.match import Match
from scenes import groups

BACKGROUND = (30, 30, 34)
FLOOR = (70, 70, 76)
NAVMESH = (170, 172, 160)
CONE = np.array([240, 220, 90])
GUARD = {"calm": (60, 110, 220), "alert": (235, 60, 50), "learner": (180, 70, 220)}
PLAYER = (40, 200, 90)
GOAL = (255, 200, 0)
FAN = 48  # rays per view cone (its outline follows the walls to within one ray's angle)
SIGHT_BLOCKERS = groups.STATIC | groups.PROP  # what a view cone's rays stop at


def display_available() -> bool:
    """Can the PyBullet GUI open a window here (a display on Linux; always on macOS and Windows)?"""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def check_render_mode(mode: str | None, modes: list[str]) -> None:
    """Raise RenderModeError for an unknown mode or for "human" without a display."""
    if mode is None:
        return
    if mode not in ("rgb_array", "human"):
        raise RenderModeError(f"render_mode must be None, 'rgb_array' or 'human', got {mode!r}")
    if mode == "human" and not display_available():
        raise RenderModeError(
            "render_mode='human' opens the PyBullet GUI and needs a display (DISPLAY is not set); "
            "use render_mode='rgb_array' for top-down frames without one"
        )


class TopDown:
    """Frames of one episode's world.

    Args:
        match: the episode. max_pixels: the longer side of the frame [px].
    """

    def __init__(self, match: Match, max_pixels: int = 384) -> None:
        sim = match.sim
        if sim is None:
            raise EnvError("the env's world is not ready: call reset() first")
        self.match = match
        lo, hi = sim.world.static_bounds()
        span = max(hi[0] - lo[0], hi[1] - lo[1], 1.0)
        self.scale = max_pixels / span  # [px/m]
        self.lo = lo[:2]
        self.width = max(8, round((hi[0] - lo[0]) * self.scale))
        self.height = max(8, round((hi[1] - lo[1]) * self.scale))
        xs = self.lo[0] + (np.arange(self.width) + 0.5) / self.scale
        ys = self.lo[1] + (self.height - np.arange(self.height) - 0.5) / self.scale  # row 0 is north
        self.x, self.y = np.meshgrid(xs, ys)
        base = np.empty((self.height, self.width, 3), dtype=np.uint8)
        base[:] = FLOOR
        mesh = sim.query.mesh
        for p in range(mesh.polygon_count):
            self._fill_convex(base, mesh.polygon_xy(p), NAVMESH)
        self.base = base

    def _fill_convex(self, img: np.ndarray, poly: np.ndarray, colour: tuple[int, int, int]) -> None:
        """Fill a counter-clockwise convex polygon (k, 2) [m]."""
        x0, y0 = poly.min(axis=0)
        x1, y1 = poly.max(axis=0)
        cols = np.flatnonzero((self.x[0] >= x0) & (self.x[0] <= x1))
        rows = np.flatnonzero((self.y[:, 0] >= y0) & (self.y[:, 0] <= y1))
        if not cols.size or not rows.size:
            return
        x = self.x[np.ix_(rows, cols)]
        y = self.y[np.ix_(rows, cols)]
        inside = np.ones(x.shape, dtype=bool)
        for a, b in zip(poly, np.roll(poly, -1, axis=0), strict=True):
            inside &= (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]) >= 0
        img[np.ix_(rows, cols)] = np.where(inside[..., None], colour, img[np.ix_(rows, cols)])

    def _window(self, cx: float, cy: float, r: float) -> tuple[slice, slice]:
        c0 = max(0, int((cx - r - self.lo[0]) * self.scale))
        c1 = min(self.width, int((cx + r - self.lo[0]) * self.scale) + 2)
        top = self.lo[1] + self.height / self.scale
        r0 = max(0, int((top - cy - r) * self.scale))
        r1 = min(self.height, int((top - cy + r) * self.scale) + 2)
        return slice(r0, r1), slice(c0, c1)

    def _disc(self, img: np.ndarray, centre: np.ndarray, r: float, colour: tuple[int, int, int]) -> None:
        rs, cs = self._window(centre[0], centre[1], r)
        d2 = (self.x[rs, cs] - centre[0]) ** 2 + (self.y[rs, cs] - centre[1]) ** 2
        img[rs, cs][d2 <= r * r] = colour

    def cone_reach(self) -> np.ndarray:
        """(guards, FAN) how far each guard's view reaches along each ray of its cone [m]: its sight radius
        (the lose-sight radius while it sees the player) or less where the level blocks the ray. Ray k
        points at yaw - half angle + k * (2 half angle / (FAN - 1)). One ray batch for every guard."""
        sim = self.match.sim
        if sim is None:
            raise EnvError("the env's world is not ready: call reset() first")
        if not sim.npcs:
            return np.zeros((0, FAN))
        eyes, ends, radii = [], [], []
        for npc in sim.npcs:
            s = npc.settings
            r = s.lose_sight_radius if npc.sees else s.sight_radius
            half = math.radians(s.half_angle_deg)
            angles = npc.yaw + np.linspace(-half, half, FAN)
            eye = npc.position + [0.0, 0.0, s.eye_height]
            eyes.append(np.broadcast_to(eye, (FAN, 3)))
            ends.append(eye + r * np.column_stack([np.cos(angles), np.sin(angles), np.zeros(FAN)]))
            radii.append(r)
        hits = sim.world.ray_test(np.concatenate(eyes), np.concatenate(ends), mask=SIGHT_BLOCKERS)
        return hits.fraction.reshape(len(sim.npcs), FAN) * np.array(radii)[:, None]

    def _cone(
        self, img: np.ndarray, eye: np.ndarray, yaw: float, radius: float, half: float, reach: np.ndarray
    ) -> None:
        """Tint the cone of `radius` [m] and half angle `half` [rad] about `yaw`, cut to `reach` (FAN,) [m]:
        a pixel between rays k and k + 1 is drawn when it is nearer than both of them reach."""
        rs, cs = self._window(eye[0], eye[1], radius)
        dx, dy = self.x[rs, cs] - eye[0], self.y[rs, cs] - eye[1]
        rel = np.angle(np.exp(1j * (np.arctan2(dy, dx) - yaw)))  # signed, from the facing [rad]
        d2 = dx * dx + dy * dy
        mask = (d2 <= radius * radius) & (np.abs(rel) <= half)
        if half > 0.0:
            k = np.clip(((rel + half) / (2.0 * half / (FAN - 1))).astype(np.int64), 0, FAN - 2)
            allowed = np.minimum(reach[k], reach[k + 1])
        else:
            allowed = np.full(rel.shape, reach.min())
        mask &= d2 <= allowed * allowed
        patch = img[rs, cs]
        patch[mask] = (0.8 * patch[mask] + 0.2 * CONE).astype(np.uint8)

    def frame(self) -> np.ndarray:
        """(height, width, 3) uint8 RGB."""
        sim, m = self.match.sim, self.match
        if not (sim is not None and sim.player is not None):
            raise EnvError("the env's world is not ready: call reset() first")
        img = self.base.copy()
        for npc, reach in zip(sim.npcs, self.cone_reach(), strict=True):
            s = npc.settings
            r = s.lose_sight_radius if npc.sees else s.sight_radius
            self._cone(img, npc.position, npc.yaw, r, math.radians(s.half_angle_deg), reach)
        for i, goal in enumerate(m.goals[m.goal_index :]):
            self._disc(img, goal, 0.6 if i == 0 else 0.4, GOAL)
        for npc in sim.npcs:
            kind = "learner" if npc.index in m.commands else ("alert" if npc.sees else "calm")
            self._disc(img, npc.position, 0.45, GUARD[kind])
            self._disc(
                img,
                npc.position + 0.35 * np.array([math.cos(npc.yaw), math.sin(npc.yaw), 0]),
                0.15,
                (250, 250, 250),
            )
        p = sim.player
        self._disc(img, p.position, 0.45, PLAYER)
        self._disc(
            img, p.position + 0.35 * np.array([math.cos(p.yaw), math.sin(p.yaw), 0]), 0.15, (250, 250, 250)
        )
        return img
