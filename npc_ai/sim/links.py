"""NPCs crossing off-mesh links: paths planned over a scene's links, and the crossing itself, played
with the root motion of the jump clip, announced by `link_enter` / `link_exit` events.

With links in the scene, the NPCs' path planner is a `navigation.LinkedQuery`: an agent walks to its
next link's start (its remaining distance counts the rest of the plan, so a chase does not "arrive" at
a ledge). There the crossing begins (`link_enter`): the agent moves on to the link's end and waits there,
re-planning from it, while the body crosses. Unreal's motion warping is the model: the jump clip's root
(pybullet_data's DeepMimic `humanoid3d_jump`) gives the forward progress (its root's forward
displacement, stretched to the link's length) and the lift (its root height above its standing height);
a drop or a climb blends the two ends' heights along the way. At the end (`link_exit`) the body stands at
the link's end and walks on. A `LinkHandler` given to the simulation takes over any crossing: it returns
where the feet are each tick, or None when it is done.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from navigation.agent_kernels import UNKNOWN
from navigation.links import LinkedQuery, OffMeshLink
from navigation.results import PathResult
from npc_ai.animation.library import load_clip

if TYPE_CHECKING:
    from npc_ai.sim.simulation import Simulation

START_DISTANCE = 0.3  # an agent this close to its next link's start [m, horizontal] begins crossing

LinkHandler = Callable[[Any, OffMeshLink, bool, float], "np.ndarray | None"]
"""`handler(npc, link, reverse, elapsed)`: the feet position (3,) [m] of an NPC `elapsed` [s] into crossing
`link` (end -> start when `reverse`), or None when the crossing is over. Called once per tick."""


class JumpMotion:
    """The jump clip's root motion as (forward progress 0..1, lift [m]) over its duration [s]."""

    def __init__(self) -> None:
        clip = load_clip("jump")
        root = np.asarray(clip.positions, dtype=np.float64) + np.asarray(clip.root_offsets, dtype=np.float64)
        travel = root[-1, :2] - root[0, :2]
        along = (root[:, :2] - root[0, :2]) @ (travel / np.hypot(*travel))
        self.times = np.asarray(clip.frame_times, dtype=np.float64) - float(clip.frame_times[0])
        self.duration = float(self.times[-1])
        self.progress = np.clip(np.maximum.accumulate(along) / along[-1], 0.0, 1.0)  # never backwards
        self.lift = np.maximum(root[:, 2] - root[0, 2], 0.0)  # above standing; a crouch stays on the floor

    def feet(self, start: np.ndarray, end: np.ndarray, elapsed: float) -> np.ndarray | None:
        """Feet [m] `elapsed` [s] into a crossing from `start` to `end`; None once the clip is over."""
        if elapsed >= self.duration:
            return None
        s = float(np.interp(elapsed, self.times, self.progress))
        out = start + (end - start) * s
        out[2] += float(np.interp(elapsed, self.times, self.lift))
        return out


class LinkTraversals:
    """The NPCs' plans over links and their crossings (a row's link state lives in arrays).

    Args:
        sim: the simulation (its query, locomotion, NPCs and event record).
        links: the scene's links (`npc_ai.levels.scene_links`).
        handler: a `LinkHandler` that takes over every crossing (None: the jump clip's root motion).
    Raises:
        SimulationError: a link end off the navmesh, or a handler that is not callable.
    """

    def __init__(
        self, sim: Simulation, links: Sequence[OffMeshLink], handler: LinkHandler | None = None
    ) -> None:
        if handler is not None and not callable(handler):
            raise _error(f"link_handler must be callable, got {type(handler).__name__}")
        try:
            self.linked = LinkedQuery(sim.query, links, snap_distance=1.0)
        except Exception as exc:
            raise _error(f"the scene's links: {exc}") from exc
        self.sim = sim
        self.handler = handler
        self.motion = JumpMotion()
        n = len(sim.npcs)
        self.next_link = np.full(n, -1, dtype=np.int64)  # the link a row's plan crosses next (-1: none)
        self.next_reverse = np.zeros(n, dtype=bool)
        self.active = np.full(n, -1, dtype=np.int64)  # the link a row is crossing now (-1: none)
        self.reverse = np.zeros(n, dtype=bool)
        self.elapsed = np.zeros(n)
        self.crossings = np.zeros(n, dtype=np.int64)  # links crossed so far
        sim.locomotion.agents.planner = self._plan

    def _plan(self, i: int, start: np.ndarray, goal: np.ndarray) -> PathResult:
        """Row i's path: the walk to its next link (the rest of the plan in `beyond`), or the whole way."""
        path = self.linked.find_path(start, goal)
        ag = self.sim.locomotion.agents
        if path.links:
            self.next_link[i], self.next_reverse[i] = path.links[0], path.reverse[0]
            ag.beyond[i] = path.cost - path.legs[0].length
        else:
            self.next_link[i], ag.beyond[i] = -1, 0.0
        return path.legs[0]

    def _ends(self, k: int, reverse: bool) -> tuple[np.ndarray, np.ndarray]:
        a, b = self.linked.ends[k]
        return (b, a) if reverse else (a, b)

    def before(self) -> None:
        """Rows at their next link's start begin crossing it (before the locomotion phase)."""
        ag = self.sim.locomotion.agents
        waiting = np.flatnonzero((self.next_link >= 0) & (self.active < 0))
        for i in waiting.tolist():
            entry, _ = self._ends(int(self.next_link[i]), bool(self.next_reverse[i]))
            gap = ag.next_position[i, :2] - entry[:2]
            if math.hypot(float(gap[0]), float(gap[1])) <= START_DISTANCE:
                self._start(i)

    def _start(self, i: int) -> None:
        k, reverse = int(self.next_link[i]), bool(self.next_reverse[i])
        entry, out = self._ends(k, reverse)
        lo, ag = self.sim.locomotion, self.sim.locomotion.agents
        self.active[i], self.reverse[i], self.elapsed[i] = k, reverse, 0.0
        self.next_link[i] = -1
        link = self.linked.links[k]
        self.sim.record(self.sim.npcs[i], "link_enter", _event(k, link, reverse, entry, out))
        lo.yaw[i] = math.atan2(float(out[1] - entry[1]), float(out[0] - entry[0]))
        goal = ag.destination[i].copy() if ag.has_destination[i] else None
        self._hold(i, out)
        ag.is_stopped[i] = True  # the agent waits at the link's end while the body crosses
        if goal is not None:
            ag.set_destination(i, goal)  # the plan on from the link's end (further links included)

    def _hold(self, i: int, point: np.ndarray) -> None:
        ag = self.sim.locomotion.agents
        ag.next_position[i], ag.velocity[i], ag.poly_id[i] = point, 0.0, UNKNOWN

    def after(self, dt: float) -> None:
        """Place the bodies crossing links for this tick (after physics and the locomotion's read-back)."""
        lo, world = self.sim.locomotion, self.sim.world
        for i in np.flatnonzero(self.active >= 0).tolist():
            k, reverse = int(self.active[i]), bool(self.reverse[i])
            entry, out = self._ends(k, reverse)
            self.elapsed[i] += dt
            if self.handler is not None:
                feet = self.handler(self.sim.npcs[i], self.linked.links[k], reverse, float(self.elapsed[i]))
            else:
                feet = self.motion.feet(entry, out, float(self.elapsed[i]))
            if feet is not None:
                feet = np.asarray(feet, dtype=np.float64)
                if feet.shape != (3,) or not np.isfinite(feet).all():
                    raise _error(f"the link handler must return 3 finite numbers or None, got {feet!r}")
            done = feet is None
            at: np.ndarray = out if feet is None else feet
            body = int(lo.bodies[i])
            world.teleport(body, at + [0.0, 0.0, 0.01 + lo.height / 2])
            world.set_velocity(body, (0.0, 0.0, 0.0), yaw_rate=0.0)
            self._hold(i, out)
            if done:
                lo.agents.is_stopped[i] = False
                lo.smooth_delta[i] = 0.0
                self.active[i] = -1
                self.crossings[i] += 1
                link = self.linked.links[k]
                self.sim.record(self.sim.npcs[i], "link_exit", _event(k, link, reverse, entry, out))


def _event(k: int, link: OffMeshLink, reverse: bool, a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    return {
        "link": k,
        "name": link.name,
        "kind": link.kind,
        "reverse": reverse,
        "from": [round(float(c), 4) for c in a],
        "to": [round(float(c), 4) for c in b],
    }


def _error(message: str) -> Exception:
    """A `SimulationError` (defined with the simulation, which imports this module)."""
    from npc_ai.sim.simulation import SimulationError

    return SimulationError(message)
