"""The PyBullet GUI overlay: the level framed on start, each NPC's path, view cone and state drawn as debug
lines and text, and camera keys (`f` follows the next NPC, `p` the player, `l` goes back to the level view).

A `Simulation` opened with ``gui=True`` makes one and calls `GuiOverlay.update` after every tick; without
the GUI nothing here is imported or called.

PyBullet facts this module is shaped by (pybullet 3.2.7 under Xvfb, llvmpipe):

* adding a debug item while rendering is on waits for a rendered frame (30-100 ms each); with
  ``COV_ENABLE_RENDERING`` off it takes ~30 us, and replacing one (``replaceItemUniqueId``) 5-80 us. So items
  are added in batches with rendering off, then only replaced, and only when what they show changed;
* ``getKeyboardEvents`` clears ``KEY_WAS_TRIGGERED`` for every reader, and the keyboard player reads too: a
  press is also recognised as a key that is down now and was not at the last poll;
* the GUI's own shortcuts (``w`` wireframe, ``s`` shadows, ``a`` bounding boxes...) would fire while the
  keyboard player walks with WASD, so they are turned off.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from npc_ai.errors import NpcAiError
from scenes import WorldError, groups
from scenes._bullet import pybullet as pb

if TYPE_CHECKING:
    from npc_ai.behaviour import Npc
    from npc_ai.sim.simulation import Simulation

Colour = tuple[float, float, float]

STATE_COLOURS: dict[str, Colour] = {
    "wander": (0.15, 0.75, 0.2),
    "patrol": (0.0, 0.65, 0.65),
    "aim": (1.0, 0.55, 0.0),
    "shoot": (0.95, 0.05, 0.05),
    "chase": (0.9, 0.1, 0.75),
    "search": (0.95, 0.85, 0.0),
    "investigate": (0.55, 0.3, 1.0),
    "cover": (0.45, 1.0, 0.55),
}
OTHER_COLOUR: Colour = (0.6, 0.6, 0.6)  # a state this table does not know
PLAYER_COLOUR: Colour = (0.15, 0.35, 1.0)

KEY_FOLLOW_NPC = ord("f")
KEY_FOLLOW_PLAYER = ord("p")
KEY_LEVEL = ord("l")

_PATH_LIFT = 0.06  # [m] paths are drawn this far above the floor
_CONE_LIFT = 0.12  # [m] view cones too (above the paths where they cross)
_TEXT_LIFT = 0.8  # [m] state text above the head (over most shelves and crates)
_PATH_SHADE = 0.6  # paths are drawn in the state colour darkened by this factor
_FIT = 0.9  # the level view keeps every corner of the level inside this share of the window (NDC)
_PATIENCE = 30  # ticks a follow camera waits for the window to apply its zoom (a mouse may get there first)
_HUGE_LEVEL = 400.0  # [m] static bounds wider than this (an endless plane) frame the characters instead


class GuiError(NpcAiError, ValueError):
    """A GUI overlay setting is out of range, or the camera was asked to follow someone who is not there."""


@dataclass(frozen=True)
class GuiSettings:
    """How the GUI overlay draws.

    Attributes:
        every: redraw the paths, cones and texts every this many ticks [>= 1] (keys are read every tick).
        arc_segments: straight lines in each view cone's arc [>= 1].
        cone_width: view cone line width [px, > 0]. path_width: path line width [px, > 0].
        text_size: state text size [PyBullet text units, > 0].
        level_pitch_deg: camera pitch of the level view [deg, -89..-10].
        follow_distance: camera distance when a follow key is pressed in the level view [m, > 0] (the
            camera then looks the way the character faces; zoom and turn it with the mouse after).
        follow_pitch_deg: camera pitch when a follow key is pressed in the level view [deg, -89..-5].
        shadows: render shadows (off by default: with software OpenGL they make every PyBullet call of the
            simulation wait 10-30 ms for the window, instead of well under 1 ms).
    """

    every: int = 6
    arc_segments: int = 12
    cone_width: float = 2.0
    path_width: float = 4.0
    text_size: float = 1.5
    level_pitch_deg: float = -60.0
    follow_distance: float = 10.0
    follow_pitch_deg: float = -70.0
    shadows: bool = False

    def __post_init__(self) -> None:
        for name in ("every", "arc_segments"):
            v = getattr(self, name)
            if not (isinstance(v, int) and v >= 1):
                raise GuiError(f"{name} must be an integer >= 1, got {v!r}")
        for name in ("cone_width", "path_width", "text_size", "follow_distance"):
            v = getattr(self, name)
            if not (isinstance(v, int | float) and math.isfinite(v) and v > 0):
                raise GuiError(f"{name} must be a positive number, got {v!r}")
        if not -89.0 <= self.level_pitch_deg <= -10.0:
            raise GuiError(f"level_pitch_deg must be in -89..-10, got {self.level_pitch_deg!r}")
        if not -89.0 <= self.follow_pitch_deg <= -5.0:
            raise GuiError(f"follow_pitch_deg must be in -89..-5, got {self.follow_pitch_deg!r}")


def state_colour(state: str) -> Colour:
    """The colour of an NPC state (its text, cone, path and body)."""
    return STATE_COLOURS.get(state, OTHER_COLOUR)


def arc_directions(yaw: np.ndarray, half_angle: np.ndarray, segments: int) -> np.ndarray:
    """Unit horizontal directions across view cones, from ``yaw - half_angle`` to ``yaw + half_angle``.

    Args:
        yaw: (n,) facings [rad]. half_angle: (n,) half cone angles [rad]. segments: lines in each arc.
    Returns:
        (n, segments + 1, 3) unit vectors.
    """
    t = np.linspace(-1.0, 1.0, segments + 1)
    angles = yaw[:, None] + half_angle[:, None] * t[None, :]
    return np.stack([np.cos(angles), np.sin(angles), np.zeros_like(angles)], axis=-1)


def cone_segments(apex: np.ndarray, arc: np.ndarray) -> np.ndarray:
    """The lines of a view cone: its two edges from `apex` ((3,) [m]), then its arc through `arc`'s points
    ((k + 1, 3) [m], first edge to last). Returns (k + 2, 2, 3) line start and end points [m]."""
    edges = np.stack([np.broadcast_to(apex, (2, 3)), arc[[0, -1]]], axis=1)
    return np.concatenate([edges, np.stack([arc[:-1], arc[1:]], axis=1)])


def path_segments(start: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The lines of a path from `start` ((3,) [m]) through its remaining `corners` ((k, 3) [m]): (k, 2, 3)."""
    points = np.vstack([start[None], corners])
    return np.stack([points[:-1], points[1:]], axis=1)


Line = tuple[np.ndarray, np.ndarray, Colour, float]  # start, end [m], colour, width [px]


class _Lines:
    """One NPC's debug lines (its view cone, then its path), kept as items replaced in place.

    A slot is sent again only when its line moved (by 1 cm or more) or changed colour; unused slots hide as
    a zero-length line at `park` (inside the NPC's body).
    """

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.drawn: list[tuple[float, ...] | None] = []

    def missing(self, n: int) -> int:
        return max(0, n - len(self.ids))

    def draw(self, client: Any, lines: list[Line], park: np.ndarray) -> None:
        hidden: Line = (park, park, (0.0, 0.0, 0.0), 1.0)
        for slot, item in enumerate(self.ids):
            start, end, colour, width = lines[slot] if slot < len(lines) else hidden
            key = (*np.round(start, 2), *np.round(end, 2), *colour, width)
            if key == self.drawn[slot]:
                continue
            client.addUserDebugLine(
                start.tolist(), end.tolist(), colour, lineWidth=width, replaceItemUniqueId=item
            )
            self.drawn[slot] = key


class GuiOverlay:
    """Debug drawing and camera keys for a simulation whose world has the PyBullet GUI.

    Args:
        sim: the simulation (opened with ``gui=True``).
        settings: redraw rate, sizes and camera angles.
    """

    def __init__(self, sim: Simulation, settings: GuiSettings | None = None) -> None:
        self.sim = sim
        self.settings = settings if settings is not None else GuiSettings()
        self.client = sim.world.client
        self.following: str | None = None  # an NPC's name, "player", or None for the level view
        self.redraws = 0
        self._down: set[int] = set()
        self._asked: tuple[float, float, float] | None = None  # (distance, yaw, pitch) not yet applied
        self._patience = 0
        self._lines = [_Lines() for _ in sim.npcs]
        self._texts: list[int] = []
        self._body_colour: dict[int, Colour] = {}
        c = self.client
        for flag in (
            pb.COV_ENABLE_GUI,
            pb.COV_ENABLE_RGB_BUFFER_PREVIEW,
            pb.COV_ENABLE_DEPTH_BUFFER_PREVIEW,
            pb.COV_ENABLE_SEGMENTATION_MARK_PREVIEW,
            pb.COV_ENABLE_KEYBOARD_SHORTCUTS,
        ):
            c.configureDebugVisualizer(flag, 0)
        c.configureDebugVisualizer(pb.COV_ENABLE_SHADOWS, int(self.settings.shadows))
        self.level_view = self._frame()
        self.frame_level()
        if sim.player is not None:
            self._paint(sim.player.body, PLAYER_COLOUR)
        self.redraw()

    # -- camera ------------------------------------------------------------------------------------------
    def _frame(self) -> tuple[float, float, float, list[float]]:
        """(distance, yaw, pitch, target) of a camera that shows the whole level."""
        lo, hi = self._bounds()
        size = hi - lo
        yaw = 0.0 if size[0] >= size[1] else 90.0  # the level's long side across the (wide) window
        pitch = self.settings.level_pitch_deg
        target = [float((lo[0] + hi[0]) / 2), float((lo[1] + hi[1]) / 2), float(lo[2])]
        proj = np.asarray(self.client.getDebugVisualizerCamera()[3], dtype=np.float64).reshape(4, 4).T
        corners = np.array(
            [[x, y, z, 1.0] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
        )

        def fits(distance: float) -> bool:
            view = pb.computeViewMatrixFromYawPitchRoll(target, distance, yaw, pitch, 0.0, 2)
            clip = corners @ (proj @ np.asarray(view, dtype=np.float64).reshape(4, 4).T).T
            if (clip[:, 3] <= 1e-6).any():
                return False
            return bool((np.abs(clip[:, :2] / clip[:, 3:]) <= _FIT).all())

        near, far = 0.5, 2.0
        while not fits(far) and far < 1e4:
            near, far = far, 2 * far
        for _ in range(30):
            mid = (near + far) / 2
            near, far = (near, mid) if fits(mid) else (mid, far)
        return far, yaw, pitch, target

    def _bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The static level's box, or the characters' (with a margin) when the level has no useful box."""
        try:
            lo, hi = self.sim.world.static_bounds()
            if np.isfinite(lo).all() and np.isfinite(hi).all() and float(np.max(hi - lo)) <= _HUGE_LEVEL:
                return lo, hi
        except WorldError:
            pass
        feet = [n.position for n in self.sim.npcs]
        if self.sim.player is not None:
            feet.append(self.sim.player.position)
        pts = np.array(feet) if feet else np.zeros((1, 3))
        return pts.min(axis=0) - [5.0, 5.0, 0.0], pts.max(axis=0) + [5.0, 5.0, 2.0]

    def frame_level(self) -> None:
        """Show the whole level (the `l` key)."""
        distance, yaw, pitch, target = self.level_view
        self.following = None
        self.client.resetDebugVisualizerCamera(distance, yaw, pitch, target)

    def follow(self, who: str) -> None:
        """Follow an NPC (by name) or "player" with the camera (the `f` and `p` keys).

        Raises:
            GuiError: no such NPC, or "player" without a player.
        """
        if self._followed(who) is None:
            raise GuiError(f"cannot follow {who!r}: no NPC of that name and it is not the player")
        if self.following is None:  # from the level view: look the way the character faces, from above
            facing = self._facing(who)
            yaw = math.degrees(facing) - 90.0  # the camera's yaw 0 looks along +Y
            self._asked = (self.settings.follow_distance, yaw, self.settings.follow_pitch_deg)
            self._patience = _PATIENCE
        self.following = who
        self._track()

    def _followed(self, who: str) -> np.ndarray | None:
        """Feet of the NPC named `who`, or of the player for "player"; None if there is none."""
        sim = self.sim
        if who == "player":
            return None if sim.player is None else sim.player.position
        for npc in sim.npcs:
            if npc.name == who:
                return npc.position
        return None

    def _facing(self, who: str) -> float:
        sim = self.sim
        if who == "player":
            return 0.0 if sim.player is None else sim.player.locomotor.yaw
        return next((n.yaw for n in sim.npcs if n.name == who), 0.0)

    def _track(self) -> None:
        """Keep the followed character at the centre, with the user's current zoom and angles."""
        if self.following is None:
            return
        feet = self._followed(self.following)
        if feet is None:
            return
        cam = self.client.getDebugVisualizerCamera()
        distance, yaw, pitch = cam[10], cam[8], cam[9]
        if self._asked is not None:
            # the window applies a reset at its next frame and reports the old camera until then
            self._patience -= 1
            if np.allclose((distance, yaw, pitch), self._asked, atol=1e-3) or self._patience <= 0:
                self._asked = None
            else:
                distance, yaw, pitch = self._asked
        self.client.resetDebugVisualizerCamera(distance, yaw, pitch, (feet + [0.0, 0.0, 1.0]).tolist())

    # -- keys --------------------------------------------------------------------------------------------
    def _keys(self) -> set[int]:
        """Keys pressed since the last poll."""
        events = self.client.getKeyboardEvents()
        down = {k for k, v in events.items() if v & pb.KEY_IS_DOWN}
        pressed = {k for k, v in events.items() if v & pb.KEY_WAS_TRIGGERED} | (down - self._down)
        self._down = down
        return pressed

    def on_keys(self, pressed: set[int]) -> None:
        """Act on pressed keys: `f` follows the next NPC, `p` the player, `l` shows the level."""
        npcs = self.sim.npcs
        if KEY_LEVEL in pressed:
            self.frame_level()
        elif KEY_FOLLOW_PLAYER in pressed and self.sim.player is not None:
            self.follow("player")
        elif KEY_FOLLOW_NPC in pressed and npcs:
            names = [n.name for n in npcs]
            nxt = (names.index(self.following) + 1) % len(names) if self.following in names else 0
            self.follow(names[nxt])

    # -- drawing -----------------------------------------------------------------------------------------
    def update(self) -> None:
        """Called after every tick: read the keys, move a following camera, redraw every `every` ticks."""
        pressed = self._keys()
        if pressed:
            self.on_keys(pressed)
        self._track()
        if self.sim.world.tick % self.settings.every == 0:
            self.redraw()

    def redraw(self) -> None:
        """Send every NPC's path, view cone and state text (only the lines whose content changed)."""
        npcs = self.sim.npcs
        lines = self._cone_lines()
        for npc, ls in zip(npcs, lines, strict=True):
            ls += self._path_lines(npc)
        missing = sum(pool.missing(len(ls)) for pool, ls in zip(self._lines, lines, strict=True))
        missing_texts = len(npcs) + (self.sim.player is not None) - len(self._texts)
        if missing or missing_texts:
            self._grow(lines, missing_texts)
        for i, (npc, pool, ls) in enumerate(zip(npcs, self._lines, lines, strict=True)):
            pool.draw(self.client, ls, npc.position)
            colour = state_colour(npc.state)
            height = npc.locomotor.character.height
            self._text(i, f"{npc.name}: {npc.state}", colour, npc.position, height)
            self._paint(npc.body, colour)
        player = self.sim.player
        if player is not None:
            self._text(len(npcs), "player", PLAYER_COLOUR, player.position, player.locomotor.character.height)
        self.redraws += 1

    def _cone_lines(self) -> list[list[Line]]:
        """Each NPC's view cone at its current sight radius, cut where the level blocks the view from its
        eyes (one ray batch for all NPCs), drawn just above its feet."""
        npcs, s = self.sim.npcs, self.settings
        if not npcs:
            return []
        eyes = np.array([n.eye for n in npcs])
        yaw = np.array([n.yaw for n in npcs])
        half = np.radians([n.settings.half_angle_deg for n in npcs])
        radius = np.array([n.settings.lose_sight_radius if n.sees else n.settings.sight_radius for n in npcs])
        dirs = arc_directions(yaw, half, s.arc_segments)  # (n, k + 1, 3)
        ends = eyes[:, None, :] + dirs * radius[:, None, None]
        hits = self.sim.world.ray_test(
            np.repeat(eyes, s.arc_segments + 1, axis=0), ends.reshape(-1, 3), mask=groups.STATIC
        )
        reach = hits.fraction.reshape(len(npcs), -1) * radius[:, None]
        out = []
        for i, npc in enumerate(npcs):
            apex = npc.position + [0.0, 0.0, _CONE_LIFT]
            colour = state_colour(npc.state)
            arc = apex + dirs[i] * reach[i, :, None]
            out.append([(a, b, colour, s.cone_width) for a, b in cone_segments(apex, arc)])
        return out

    def _path_lines(self, npc: Npc) -> list[Line]:
        """The NPC's nav agent's remaining path, from its feet, in a darker shade of its state colour."""
        corners = npc.locomotor.agent.corners
        if not len(corners):
            return []
        shade: Colour = tuple(_PATH_SHADE * x for x in state_colour(npc.state))  # type: ignore[assignment]
        lift = np.array([0.0, 0.0, _PATH_LIFT])
        segments = path_segments(npc.position + lift, corners + lift)
        return [(a, b, shade, self.settings.path_width) for a, b in segments]

    def _grow(self, lines: list[list[Line]], missing_texts: int) -> None:
        """Add the items that are missing, with rendering off (each add would otherwise wait a frame)."""
        c, s = self.client, self.settings
        nowhere = [0.0, 0.0, -100.0]
        c.configureDebugVisualizer(pb.COV_ENABLE_RENDERING, 0)
        try:
            for pool, ls in zip(self._lines, lines, strict=True):
                for _ in range(pool.missing(len(ls)) + 4):  # a little spare: paths grow and shrink
                    pool.ids.append(c.addUserDebugLine(nowhere, nowhere, [0, 0, 0], s.cone_width))
                    pool.drawn.append(None)
            for _ in range(missing_texts):
                self._texts.append(c.addUserDebugText(" ", nowhere, [1, 1, 1], s.text_size))
        finally:
            c.configureDebugVisualizer(pb.COV_ENABLE_RENDERING, 1)

    def _text(self, slot: int, text: str, colour: Colour, feet: np.ndarray, height: float) -> None:
        where = feet + [0.0, 0.0, height + _TEXT_LIFT]
        self.client.addUserDebugText(
            text,
            where.tolist(),
            colour,
            textSize=self.settings.text_size,
            replaceItemUniqueId=self._texts[slot],
        )

    def _paint(self, body: int, colour: Colour) -> None:
        if self._body_colour.get(body) != colour:
            self.client.changeVisualShape(body, -1, rgbaColor=[*colour, 1.0])
            self._body_colour[body] = colour

    @property
    def item_count(self) -> int:
        """How many debug items the overlay holds (lines and texts)."""
        return sum(len(p.ids) for p in self._lines) + len(self._texts)

    @property
    def item_ids(self) -> list[int]:
        return [i for p in self._lines for i in p.ids] + list(self._texts)
