"""Turn a `Scene` into static PyBullet bodies in a given client.

Every body is created in the client passed in (never the global pybullet module) and put in the STATIC
collision group. If anything fails, the bodies made so far are removed before `SceneError` is raised, so a
failed build leaves nothing behind.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from scenes import groups
from scenes._bullet import Client
from scenes._bullet import pybullet as pb
from scenes.errors import SceneError
from scenes.model import Asset, Box, Color, Platform, Ramp, Scene, Stairs

LEG_HALF_WIDTH = 0.15  # half side of a platform's support column [m]


@dataclass(frozen=True)
class StaticBox:
    """A box of level geometry in world terms (used by plots and analytic checks)."""

    center: tuple[float, float, float]
    half_extents: tuple[float, float, float]
    quaternion: tuple[float, float, float, float]  # xyzw
    name: str = ""


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


class _Builder:
    def __init__(self, client: Client, scene: Scene, visuals: bool) -> None:
        self.c = client
        self.scene = scene
        self.visuals = visuals
        self.bodies: list[int] = []
        self._shapes: dict[tuple[float, float, float], int] = {}

    def _static(self, body: int) -> int:
        self.bodies.append(body)
        for link in range(-1, self.c.getNumJoints(body)):
            self.c.setCollisionFilterGroupMask(body, link, groups.STATIC, groups.ALL)
        return body

    def box(self, b: StaticBox, color: Color) -> int:
        hx, hy, hz = b.half_extents
        key = (round(hx, 9), round(hy, 9), round(hz, 9))
        shape = self._shapes.get(key)
        if shape is None:
            shape = self.c.createCollisionShape(pb.GEOM_BOX, halfExtents=b.half_extents)
            self._shapes[key] = shape
        visual = -1
        if self.visuals:
            visual = self.c.createVisualShape(pb.GEOM_BOX, halfExtents=b.half_extents, rgbaColor=color)
        body = self.c.createMultiBody(0.0, shape, visual, b.center, b.quaternion)
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
                self._static(self.c.createMultiBody(0.0, shape, visual, a.position, q))
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


def build_static(client: Client, scene: Scene, *, visuals: bool = False) -> tuple[int, ...]:
    """Create all static bodies of `scene` in `client`; return their ids (nothing is left on failure)."""
    b = _Builder(client, scene, visuals)
    try:
        colors = _colors(scene)
        for sb, color in zip(scene_boxes(scene), colors, strict=True):
            b.box(sb, color)
        for i, a in enumerate(scene.assets):
            b.asset(a, f"{a.kind}[{sum(x.kind == a.kind for x in scene.assets[:i])}]")
    except BaseException:
        for body in reversed(b.bodies):
            client.removeBody(body)
        raise
    return tuple(b.bodies)


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
