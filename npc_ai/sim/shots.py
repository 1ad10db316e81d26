"""Shots in a simulation: an NPC's hit-scan shot at the player, and the player's own shots at NPCs (heard,
and putting under fire the NPCs they pass close to, `npc_ai.behaviour.cover`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from npc_ai.behaviour import BehaviourBatch, Npc
from npc_ai.behaviour.batch import xyz as _xyz
from npc_ai.behaviour.cover import under_fire
from npc_ai.behaviour.perception import EYE_CLEARANCE
from npc_ai.sim.player import Player
from scenes import groups

if TYPE_CHECKING:
    from npc_ai.sim.simulation import Simulation

IMPACT_BACK = 0.3  # [m] an impact's noise is made this far back along the shot from where it struck


def npc_shot(sim: Simulation, npc: Npc) -> dict[str, Any]:
    """Fire npc's hit-scan ray along its facing, pitched at the player, with the seeded spread; the shot
    is heard at its feet (`shot_loudness`) and where it strikes (`impact_loudness`). Returns the `shoot`
    event's data (hit, struck, target, point, struck_npc)."""
    s = npc.settings
    eye = npc.eye
    target = npc.target_point if npc.target_point is not None else eye + np.array([1.0, 0, 0])
    horizontal = float(np.hypot(*(target - eye)[:2]))
    pitch = math.atan2(float(target[2] - eye[2]), max(horizontal, 1e-6))
    spread = math.radians(s.shot_spread_deg)
    yaw = npc.yaw + float(npc.rng.uniform(-spread, spread))
    pitch += float(npc.rng.uniform(-spread, spread))
    direction = np.array([math.cos(pitch) * math.cos(yaw), math.cos(pitch) * math.sin(yaw), math.sin(pitch)])
    start = eye + direction * (npc.locomotor.character.radius + EYE_CLEARANCE)
    hits = sim.world.ray_test(start[None], (start + direction * s.shoot_range)[None])
    body = int(hits.body[0])
    hit = sim.player is not None and body == sim.player.body
    kind = groups.NAMES.get(sim.world.groups.get(body, 0), "none") if body >= 0 else "none"
    feet = npc.position
    if s.shot_loudness > 0:  # the shot is heard at the shooter's feet, the impact where it struck
        sim.emit_noise(feet, s.shot_loudness, npc.name)
    if s.impact_loudness > 0 and body >= 0:  # a little back toward the shooter, off the surface
        back = hits.point[0] - direction * IMPACT_BACK
        sim.emit_noise([back[0], back[1], feet[2]], s.impact_loudness, npc.name)
    out: dict[str, Any] = {"hit": hit, "struck": kind}
    if sim.player is not None:
        out["target"] = _xyz(sim.player.position)
    if body >= 0:
        out["point"] = _xyz(hits.point[0])
    if body in sim._bodies:
        out["struck_npc"] = sim._bodies[body].name
    return out


class ShotWorld(Protocol):
    """What `fire_shots` needs of the simulation: its events and its noises."""

    def record(self, npc: Npc | None, event: str, data: dict[str, Any]) -> None: ...

    def emit_noise(self, position: object, loudness: float = 1.0, source: str = "") -> None: ...


def fire_shots(player: Player, b: BehaviourBatch, npc_of_body: dict[int, Npc], sim: ShotWorld) -> None:
    """Fire the player's queued shots (`Player.shoot`), in order: each is heard at its feet, recorded as a
    `player-shot` event, and puts under fire (`BehaviourBatch.under_fire`) the NPCs it hits or passes within
    their `under_fire_radius` (`npc_ai.behaviour.cover.under_fire`, all NPCs at once)."""
    shots, player.shots = player.shots, []
    for target in shots:
        start, end, body = player.fire(target)
        sim.emit_noise(player.position, player.settings.shot_loudness, "player")
        near = under_fire(b.positions(), start, end, b.cfg.under_fire_radius)
        struck = npc_of_body.get(body)
        if struck is not None:
            near[struck.index] = True
        name = "" if struck is None else struck.name
        data = {"target": _xyz(target), "point": _xyz(end), "struck_npc": name}
        sim.record(None, "player-shot", data)
        for i in np.flatnonzero(near).tolist():
            b.under_fire(i, start, "player")
