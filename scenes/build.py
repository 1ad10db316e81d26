"""Turn a `Scene` into static PyBullet bodies in a given client.

Box-shaped geometry (floor, boxes, ramps, stairs, platforms) is merged into compound bodies of up to 16
boxes that lie near each other, so a level of thousands of boxes costs hundreds of bodies. Meshes, URDF and
SDF assets keep a body each. Every body is created in the client passed in (never the global pybullet
module) and put in the STATIC collision group. If anything fails, the bodies made so far are removed before
`SceneError` is raised, so a failed build leaves nothing behind.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from scenes import groups
from scenes._bullet import Client
from scenes._bullet import pybullet as pb
from scenes.errors import SceneError
from scenes.model import Asset, Box, Color, Platform, Ramp, Scene, Stairs

LEG_HALF_WIDTH = 0.15  # half side of a platform's support column [m]


FLAT = 1e-9
"""A box whose quaternion's x and y parts are within this of 0 is turned only about Z (`static_boxes`)."""


@dataclass(frozen=True)
class StaticBox:
    """A box of level geometry in world terms (used by plots and analytic checks)."""

    center: tuple[float, float, float]
    half_extents: tuple[float, float, float]
    quaternion: tuple[float, float, float, float]  # xyzw
    name: str = ""


def _tilted(box: StaticBox) -> bool:
    """Is the box turned about a horizontal axis (not only about Z)?"""
    return abs(box.quaternion[0]) > FLAT or abs(box.quaternion[1]) > FLAT


def _quat(roll: float = 0.0, pitch: float = 0.0, yaw: float = 0.0) -> tuple[float, float, float, float]:
    x, y, z, w = pb.getQuaternionFromEuler((roll, pitch, yaw))
    return (float(x), float(y), float(z), float(w))


def scene_boxes(scene: Scene) -> list[StaticBox]:
    """All box-shaped level geometry of a scene (floor, boxes, ramps, stairs, platforms) in world terms."""
    out: list[StaticBox] = []
    if scene.floor is not None:
        f = scene.floor
        out.append(
            StaticBox(
                (f.center[0], f.center[1], f.z - f.thickness / 2),
                (f.size[0] / 2, f.size[1] / 2, f.thickness / 2),
                _quat(),
                "floor",
            )
        )
    out += [_box(b) for b in scene.boxes]
    out += [_ramp(r) for r in scene.ramps]
    for s in scene.stairs:
        out += _stairs(s)
    for p in scene.platforms:
        out += _platform(p)
    return out


def _box(b: Box) -> StaticBox:
    return StaticBox(b.center, b.half_extents, _quat(yaw=math.radians(b.yaw_deg)), b.name or "box")


def _ramp(r: Ramp) -> StaticBox:
    start, end = np.asarray(r.start), np.asarray(r.end)
    run = float(np.hypot(*(end - start)[:2]))
    rise = float(end[2] - start[2])
    pitch = math.atan2(rise, run)
    yaw = math.atan2(end[1] - start[1], end[0] - start[0])
    length = math.hypot(run, rise)
    q = _quat(pitch=-pitch, yaw=yaw)
    up = np.asarray(pb.getMatrixFromQuaternion(q)).reshape(3, 3)[:, 2]
    centre = (start + end) / 2 - up * (r.thickness / 2)
    cx, cy, cz = (float(v) for v in centre)
    return StaticBox((cx, cy, cz), (length / 2, r.width / 2, r.thickness / 2), q, r.name or "ramp")


def _stairs(s: Stairs) -> list[StaticBox]:
    yaw = math.radians(s.direction_deg)
    fwd = np.array([math.cos(yaw), math.sin(yaw)])
    out = []
    for i in range(s.steps):
        top = s.start[2] + (i + 1) * s.rise
        xy = np.asarray(s.start[:2]) + fwd * (i + 0.5) * s.run
        half_h = (top - s.start[2]) / 2
        out.append(
            StaticBox(
                (float(xy[0]), float(xy[1]), s.start[2] + half_h),
                (s.run / 2, s.width / 2, half_h),
                _quat(yaw=yaw),
                s.name or f"step{i}",
            )
        )
    return out


def _platform(p: Platform) -> list[StaticBox]:
    yaw = math.radians(p.yaw_deg)
    q = _quat(yaw=yaw)
    out = [
        StaticBox(
            (p.center[0], p.center[1], p.height - p.thickness / 2),
            (p.size[0] / 2, p.size[1] / 2, p.thickness / 2),
            q,
            p.name or "platform",
        )
    ]
    leg_top = p.height - p.thickness
    if p.legs and leg_top > 0:
        c, s = math.cos(yaw), math.sin(yaw)
        for sx in (-1, 1):
            for sy in (-1, 1):
                lx = sx * (p.size[0] / 2 - LEG_HALF_WIDTH)
                ly = sy * (p.size[1] / 2 - LEG_HALF_WIDTH)
                x, y = p.center[0] + c * lx - s * ly, p.center[1] + s * lx + c * ly
                out.append(
                    StaticBox((x, y, leg_top / 2), (LEG_HALF_WIDTH, LEG_HALF_WIDTH, leg_top / 2), q, "leg")
                )
    return out


MAX_CHILDREN = 16  # PyBullet's MAX_COMPOUND_CHILD_SHAPES: more are silently dropped
ALONE_SIZE = 100.0  # [m] a box longer than this (a floor) gets a body of its own


def _morton(x: int, y: int) -> int:
    """Interleave the bits of two non-negative cell indices (Z-order: near cells get near codes)."""
    code = 0
    for bit in range(32):
        code |= ((x >> bit) & 1) << (2 * bit) | ((y >> bit) & 1) << (2 * bit + 1)
    return code


def merge_groups(boxes: list[StaticBox], colors: list[Color], *, by_color: bool) -> list[list[int]]:
    """Indices of `boxes` grouped into compound bodies of at most MAX_CHILDREN boxes each.

    Boxes are ordered along a Z-order curve of their centres (1 m cells) and cut into runs of
    MAX_CHILDREN, so each body holds neighbours and its bounding box stays small; boxes longer than
    ALONE_SIZE get a body of their own. With `by_color`, a group holds one colour (one visual colour per
    body). Boxes turned only about Z and the others (ramps) never share a body, so casts meet the bodies
    of the first in closed form (`static_boxes`). The grouping depends only on the boxes, so it is the same
    in every run.
    """
    if not boxes:
        return []
    centres = np.array([b.center[:2] for b in boxes], dtype=np.float64)
    offset = centres - centres.min(axis=0)
    cell = max(1.0, float(offset.max()) / 65535.0)  # [m] 1 m, coarser only for levels over 65 km
    cells = np.floor(offset / cell).astype(np.int64)
    runs: dict[tuple[Color | None, bool], list[tuple[int, int]]] = {}
    alone: list[list[int]] = []
    for i, b in enumerate(boxes):
        if 2 * max(b.half_extents[0], b.half_extents[1]) > ALONE_SIZE:
            alone.append([i])
        else:
            key = (colors[i] if by_color else None, _tilted(b))
            runs.setdefault(key, []).append((_morton(*cells[i]), i))
    out = alone
    for key in sorted(runs, key=repr):
        order = [i for _code, i in sorted(runs[key])]
        out += [order[k : k + MAX_CHILDREN] for k in range(0, len(order), MAX_CHILDREN)]
    return out


class _Builder:
    def __init__(self, client: Client, scene: Scene, visuals: bool) -> None:
        self.c = client
        self.scene = scene
        self.visuals = visuals
        self.bodies: list[int] = []
        self.trimeshes: list[int] = []  # bodies of `[[mesh]]` assets: concave triangle meshes
        self.boxes: dict[int, tuple[StaticBox, ...]] = {}  # compound body -> its boxes

    def _static(self, body: int) -> int:
        self.bodies.append(body)
        for link in range(-1, self.c.getNumJoints(body)):
            # static bodies never touch each other: no broadphase pairs between pieces of the level
            self.c.setCollisionFilterGroupMask(body, link, groups.STATIC, groups.mask_of(groups.STATIC))
        return body

    def compound(self, boxes: list[StaticBox], color: Color) -> int:
        """One static body holding up to MAX_CHILDREN boxes (a compound collision shape).

        Bullet updates every collision object's bounding box on every step, static or not, so one body per
        box made big levels cost ~10 us per box per tick; a compound costs one bounding box and keeps a tree
        of its children for rays and contacts.
        """
        if not 1 <= len(boxes) <= MAX_CHILDREN:
            raise SceneError(self.scene.source, "", f"internal: a compound needs 1..{MAX_CHILDREN} boxes")
        half = [list(b.half_extents) for b in boxes]
        where = [list(b.center) for b in boxes]
        turns = [list(b.quaternion) for b in boxes]
        n = len(boxes)
        shape = self.c.createCollisionShapeArray(
            [pb.GEOM_BOX] * n,
            halfExtents=half,
            collisionFramePositions=where,
            collisionFrameOrientations=turns,
        )
        visual = -1
        if self.visuals:
            visual = self.c.createVisualShapeArray(
                [pb.GEOM_BOX] * n, halfExtents=half, visualFramePositions=where, visualFrameOrientations=turns
            )
        body = self.c.createMultiBody(0.0, shape, visual, (0.0, 0.0, 0.0))
        if self.visuals:
            self.c.changeVisualShape(body, -1, rgbaColor=color)
        self.boxes[body] = tuple(boxes)
        return self._static(body)

    def asset(self, a: Asset, key: str) -> None:
        q = _quat(*(math.radians(v) for v in a.orientation_deg))
        try:
            if a.kind == "mesh":
                scale = [a.scale] * 3
                shape = self.c.createCollisionShape(
                    pb.GEOM_MESH, fileName=str(a.path), meshScale=scale, flags=pb.GEOM_FORCE_CONCAVE_TRIMESH
                )
                if shape < 0:
                    raise SceneError(self.scene.source, key, f"PyBullet could not read the mesh {a.path}")
                visual = -1
                if self.visuals:
                    visual = self.c.createVisualShape(pb.GEOM_MESH, fileName=str(a.path), meshScale=scale)
                self.trimeshes.append(self._static(self.c.createMultiBody(0.0, shape, visual, a.position, q)))
            elif a.kind == "urdf":
                body = self.c.loadURDF(str(a.path), a.position, q, useFixedBase=True, globalScaling=a.scale)
                self._static(body)
            else:
                for body in self.c.loadSDF(str(a.path), globalScaling=a.scale):
                    pos, orn = self.c.getBasePositionAndOrientation(body)
                    new_pos, new_orn = self.c.multiplyTransforms(a.position, q, pos, orn)
                    self.c.resetBasePositionAndOrientation(body, new_pos, new_orn)
                    for link in range(-1, self.c.getNumJoints(body)):
                        self.c.changeDynamics(body, link, mass=0.0)
                    self._static(body)
        except pb.error as exc:
            raise SceneError(self.scene.source, key, f"PyBullet could not load {a.path}: {exc}") from None


@dataclass(frozen=True)
class StaticBoxes:
    """The level boxes met in closed form, as arrays.

    Attributes:
        bodies: the static bodies all of whose boxes are here (casts skip them in conservative advancement).
        center: (k, 3) box centres [m]. half: (k, 3) half extents [m]. yaw: (k,) turns about Z [rad].
        body: (k,) int64 the body each box belongs to.
    """

    bodies: frozenset[int]
    center: np.ndarray
    half: np.ndarray
    yaw: np.ndarray
    body: np.ndarray


def static_boxes(level: Mapping[int, Sequence[StaticBox]]) -> StaticBoxes:
    """The table of the boxes of `level` (body id -> its boxes, in world terms) for the bodies whose every
    box is turned only about Z; the other bodies are left out (advanced conservatively)."""
    rows: list[tuple[float, ...]] = []
    bodies = []
    for body, boxes in level.items():
        if not boxes or any(map(_tilted, boxes)):
            continue
        bodies.append(body)
        for b in boxes:
            _, _, z, w = b.quaternion
            rows.append((*b.center, *b.half_extents, 2.0 * math.atan2(z, w), float(body)))
    table = np.array(rows, dtype=np.float64).reshape(len(rows), 8)
    return StaticBoxes(
        frozenset(bodies),
        np.ascontiguousarray(table[:, 0:3]),
        np.ascontiguousarray(table[:, 3:6]),
        np.ascontiguousarray(table[:, 6]),
        table[:, 7].astype(np.int64),
    )


@dataclass(frozen=True)
class BuiltLevel:
    """The static bodies of a scene in a client.

    Attributes:
        bodies: every static body id. trimeshes: those that are concave triangle meshes (`[[mesh]]`
            assets), which rays see from both sides and contact queries only at their surface.
        boxes: body -> its boxes in world terms, for the bodies made of the scene's boxes (compounds).
    """

    bodies: tuple[int, ...]
    trimeshes: tuple[int, ...]
    boxes: Mapping[int, tuple[StaticBox, ...]]


def build_static(client: Client, scene: Scene, *, visuals: bool = False) -> BuiltLevel:
    """Create all static bodies of `scene` in `client` (nothing is left on failure)."""
    b = _Builder(client, scene, visuals)
    try:
        boxes, colors = scene_boxes(scene), _colors(scene)
        for members in merge_groups(boxes, colors, by_color=visuals):
            b.compound([boxes[i] for i in members], colors[members[0]])
        for i, a in enumerate(scene.assets):
            b.asset(a, f"{a.kind}[{sum(x.kind == a.kind for x in scene.assets[:i])}]")
    except BaseException:
        for body in reversed(b.bodies):
            client.removeBody(body)
        raise
    return BuiltLevel(tuple(b.bodies), tuple(b.trimeshes), MappingProxyType(b.boxes))


def _colors(scene: Scene) -> list[Color]:
    out: list[Color] = []
    if scene.floor is not None:
        out.append(scene.floor.color)
    out += [b.color for b in scene.boxes]
    out += [r.color for r in scene.ramps]
    for s in scene.stairs:
        out += [s.color] * s.steps
    for p in scene.platforms:
        out += [p.color] * len(_platform(p))
    return out
