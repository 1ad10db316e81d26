"""`npc-ai bench soak`: run a simulation for a long time and count what should never happen.

Every `sample_every_s` of simulated time a `SoakProbe` looks at every character (the NPCs and the player):

- **exceptions**: `Simulation.step` is called inside `try`; an exception is counted, its first messages are
  kept, and the run goes on (a step that failed before physics is tried again: the run always covers
  `seconds` of world time). It stops, `aborted`, after `max_failures` steps in a row fail.
- **nonfinite**: body feet positions (NPCs and player) and nav agent positions (`position`,
  `next_position`) that hold a NaN or an infinity, one count per character and sample.
- **below_floor**: feet more than `floor_margin` below the lowest static geometry in the body's column.
  One ray batch for all characters, cast upward (static groups only) from below the level's static
  bounds; its first hit is the lowest static surface there. A column with no static geometry counts the
  bottom of the level's bounds as its floor.
- **inside_static**: a capsule more than `inside_depth` inside static geometry. For each character the
  static bodies whose AABB overlaps its capsule's (`World.overlap`) are asked for closest points
  (`getClosestPoints` with distance 0: the negative contact distance is the penetration depth, exact for
  convex and compound shapes). PyBullet has no batched distance query, so this is one overlap query and
  one closest-point query per nearby static body, per character. A capsule wholly inside a closed
  triangle mesh touches no triangle and is not seen.
- **off_navmesh**: NPC body centres farther than `mesh_horizontal` (5 cm) horizontally, or `mesh_vertical`
  vertically (their feet), from the navmesh the agents walk on (`Simulation.query`: the walkable surface
  eroded by the agent radius, so it holds the places an NPC's centre may be; `NavMeshQuery.polygon_at`
  within the vertical tolerance, else `nearest_point`). This is the issue's "pushed off the navmesh". The
  bake erodes the mesh by the agent radius plus up to a cell and a half (`navigation.ray_bake`: 0.5-0.7 m
  from a wall on warehouse), so a capsule of the agent radius pushed against a wall stands 0.1-0.3 m off
  the mesh, on floor: the count includes such bodies. `max_off_navmesh_m` is the farthest any NPC centre
  was horizontally [m].
- **stuck_share**: of the NPC samples with `stuck_window_s` of history, the share whose NPC wanted to move
  (`Npc.wants_to_move`) at every sample of the window and whose feet moved less than `stuck_distance`
  horizontally over it.
- **rss_growth_mb**: resident memory (`VmRSS` of /proc/self/status, else the peak from `getrusage`) at
  the end of the run minus after `warmup_s`, both after a garbage collection.

Counts are character-samples: a body below the floor for 3 s counts 6 at the default 0.5 s. The first
`max_incidents` detections of each kind are kept with who, state, time and place (`incidents`).
"""

from __future__ import annotations

import gc
import math
import resource
import sys
import time
import traceback
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from navigation.avoidance import AvoidanceSettings
from npc_ai.errors import BenchmarkSettingsError
from npc_ai.sim.player import PlayerSettings
from npc_ai.sim.simulation import Simulation, SimulationSettings
from scenes import Scene, groups

_CHUNK = 60  # ticks between two progress reports
_KINDS = ("nonfinite", "below_floor", "inside_static", "off_navmesh")


def _no_progress(stage: str, done: int, total: int | None) -> None:
    pass


@dataclass(frozen=True)
class SoakSettings:
    """One soak run per scene.

    Attributes:
        npcs: NPCs simulated [>= 1]. seconds: simulated time per run [s, > 0]. seed: the world seed.
        warmup_s: simulated time before the memory baseline [s, >= 0]; None: a tenth of `seconds`, at most
            30 s. The detectors sample the warm-up too.
        sample_every_s: simulated time between two samples of the detectors [s, > 0].
        floor_margin: how far feet may be below the lowest static geometry [m, >= 0].
        inside_depth: how deep a capsule may be inside static geometry [m, >= 0].
        mesh_horizontal, mesh_vertical: how far an NPC's body centre (horizontally) and feet (vertically)
            may be from the navmesh the agents walk on [m, >= 0].
        stuck_window_s: how long an NPC must want to move and not move to be stuck [s, > 0].
        stuck_distance: the horizontal distance [m, > 0] below which it did not move.
        max_messages: exception messages kept per run. max_incidents: detections kept per kind and run.
        max_failures: steps in a row that may raise before the run stops [>= 1].
        bodies: `SimulationSettings.bodies` ("dynamic" or "kinematic").
        avoidance: crowd avoidance between the NPCs (`SimulationSettings.avoidance = AvoidanceSettings()`);
            False: the bodies only push each other.
    """

    npcs: int = 30
    seconds: float = 600.0
    seed: int = 0
    warmup_s: float | None = None
    sample_every_s: float = 0.5
    floor_margin: float = 0.5
    inside_depth: float = 0.05
    mesh_horizontal: float = 0.05
    mesh_vertical: float = 1.0
    stuck_window_s: float = 2.0
    stuck_distance: float = 0.1
    max_messages: int = 5
    max_incidents: int = 10
    max_failures: int = 600
    bodies: str = "dynamic"
    avoidance: bool = False

    def __post_init__(self) -> None:
        if not (isinstance(self.npcs, int) and 1 <= self.npcs <= 10_000):
            raise BenchmarkSettingsError(f"npcs must be an integer in 1..10000, got {self.npcs!r}")
        for name in ("seconds", "sample_every_s", "stuck_window_s", "stuck_distance"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise BenchmarkSettingsError(f"{name} must be a positive number, got {value!r}")
        for name in ("floor_margin", "inside_depth", "mesh_horizontal", "mesh_vertical"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
                raise BenchmarkSettingsError(f"{name} must be a number of metres >= 0, got {value!r}")
        if self.warmup_s is not None and not (math.isfinite(self.warmup_s) and self.warmup_s >= 0):
            raise BenchmarkSettingsError(f"warmup_s must be >= 0 seconds or None, got {self.warmup_s!r}")
        for name in ("max_messages", "max_incidents", "max_failures"):
            value = getattr(self, name)
            if not (isinstance(value, int) and value >= (1 if name == "max_failures" else 0)):
                raise BenchmarkSettingsError(f"{name} must be a whole number, got {value!r}")
        if not (isinstance(self.seed, int) and self.seed >= 0):
            raise BenchmarkSettingsError(f"seed must be an integer >= 0, got {self.seed!r}")
        if not isinstance(self.avoidance, bool):
            raise BenchmarkSettingsError(f"avoidance must be True or False, got {self.avoidance!r}")

    @property
    def warmup(self) -> float:
        """The warm-up actually used [s]: `warmup_s`, or a tenth of the run (at most 30 s)."""
        w = min(30.0, 0.1 * self.seconds) if self.warmup_s is None else self.warmup_s
        return min(w, self.seconds)


def rss_mb() -> float:
    """Resident memory of this process [MB]: VmRSS from /proc/self/status, else the peak (getrusage)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0  # kB
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kB on Linux, bytes on macOS
    return peak / (1024.0 * 1024.0) if sys.platform == "darwin" else peak / 1024.0


class SoakProbe:
    """The detectors of the soak benchmark, sampled on one simulation (see the module doc).

    Call `sample()` between ticks; read the counters (`nonfinite`, `below_floor`, `inside_static`,
    `off_navmesh`), `stuck_share`, and the first `incidents` of each kind.
    """

    def __init__(self, sim: Simulation, settings: SoakSettings | None = None) -> None:
        self.sim = sim
        self.settings = s = settings if settings is not None else SoakSettings()
        lo, hi = sim.world.static_bounds()
        self._z_lo, self._z_hi = float(lo[2]), float(hi[2])
        self.samples = 0
        self.npc_samples = 0
        self.nonfinite = 0
        self.below_floor = 0
        self.inside_static = 0
        self.off_navmesh = 0
        self.max_off_navmesh_m = 0.0  # the farthest an NPC centre was from the mesh, horizontally [m]
        self.stuck = 0
        self.stuck_checked = 0  # NPC samples with a full window of history
        self.stuck_by_state: Counter[str] = Counter()
        self.incidents: list[dict[str, Any]] = []
        self._kept: Counter[str] = Counter()
        self._window = max(1, round(s.stuck_window_s / s.sample_every_s))
        self._history: deque[tuple[np.ndarray, np.ndarray]] = deque(maxlen=self._window + 1)

    @property
    def stuck_share(self) -> float:
        """Stuck NPC samples / NPC samples with a full window (0 before any)."""
        return self.stuck / self.stuck_checked if self.stuck_checked else 0.0

    def _incident(self, kind: str, who: str, state: str, feet: np.ndarray, **detail: Any) -> None:
        if self._kept[kind] >= self.settings.max_incidents:
            return
        self._kept[kind] += 1
        where = [round(float(v), 3) if math.isfinite(v) else None for v in feet]
        self.incidents.append(
            {"kind": kind, "t": round(self.sim.time, 3), "who": who, "state": state, "position": where}
            | {k: round(v, 3) if isinstance(v, float) else v for k, v in detail.items()}
        )

    def sample(self) -> None:
        """Look at every character once (one ray batch; closest points near each body)."""
        sim = self.sim
        cast: list[tuple[str, str, Any]] = [(n.name, n.state, n.locomotor) for n in sim.npcs]
        if sim.player is not None:
            cast.append(("player", "player", sim.player.locomotor))
        n_npc = len(sim.npcs)
        self.samples += 1
        self.npc_samples += n_npc
        if not cast:
            return
        feet = np.array([loco.position for _, _, loco in cast], dtype=np.float64).reshape(-1, 3)
        agents = np.array(
            [np.concatenate([loco.agent.position, loco.agent.next_position]) for _, _, loco in cast]
        ).reshape(-1, 6)
        body_ok = np.asarray(np.isfinite(feet).all(axis=1))
        agent_ok = np.asarray(np.isfinite(agents).all(axis=1))
        for i in np.flatnonzero(~(body_ok & agent_ok)):
            who, state, _ = cast[i]
            self.nonfinite += 1
            what = "body" if not body_ok[i] else "agent"
            self._incident("nonfinite", who, state, feet[i], what=what, agent=agents[i].tolist())
        ok = np.flatnonzero(body_ok)
        if len(ok):
            self._below_floor(cast, feet, ok)
            self._inside_static(cast, feet, ok)
            self._off_navmesh(cast, feet, ok[ok < n_npc])
        self._stuck(sim, feet[:n_npc])

    def _below_floor(self, cast: list[tuple[str, str, Any]], feet: np.ndarray, ok: np.ndarray) -> None:
        p = feet[ok]
        starts = np.column_stack([p[:, :2], np.full(len(p), self._z_lo - 1.0)])
        ends = np.column_stack([p[:, :2], np.full(len(p), self._z_hi + 1.0)])
        hits = self.sim.world.ray_test(starts, ends, mask=groups.STATIC)
        floor = np.where(hits.hit, hits.point[:, 2], self._z_lo)
        for j in np.flatnonzero(p[:, 2] < floor - self.settings.floor_margin):
            i = ok[j]
            self.below_floor += 1
            who, state, _ = cast[i]
            self._incident("below_floor", who, state, feet[i], floor_z=float(floor[j]))

    def _inside_static(self, cast: list[tuple[str, str, Any]], feet: np.ndarray, ok: np.ndarray) -> None:
        world = self.sim.world
        for i in ok:
            who, state, loco = cast[i]
            ch = loco.character
            centre = feet[i] + (0.0, 0.0, ch.height / 2)
            half = np.array([ch.radius, ch.radius, ch.height / 2]) + 0.01
            depth, normal, height = 0.0, (0.0, 0.0, 0.0), 0.0
            for body in world.overlap(centre - half, centre + half, mask=groups.STATIC):
                for point in world.client.getClosestPoints(ch.body, body, 0.0) or ():
                    if -float(point[8]) > depth:  # the deepest contact: how deep, which way out, where
                        depth, normal, height = -float(point[8]), point[7], float(point[5][2] - feet[i][2])
            if depth > self.settings.inside_depth:
                self.inside_static += 1
                out = [round(float(v), 2) for v in normal]
                self._incident("inside_static", who, state, feet[i], depth=depth, normal=out, height=height)

    def _off_navmesh(self, cast: list[tuple[str, str, Any]], feet: np.ndarray, ok: np.ndarray) -> None:
        s, query = self.settings, self.sim.query
        for i in ok:
            p = feet[i]
            if query.polygon_at(p, s.mesh_vertical) >= 0:
                continue  # inside a polygon's outline, within the vertical tolerance
            near = query.nearest_point(p)
            h = float(np.hypot(*(near.point[:2] - p[:2]))) if near.found else math.inf
            v = abs(float(near.point[2] - p[2])) if near.found else math.inf
            if v <= s.mesh_vertical:
                self.max_off_navmesh_m = max(self.max_off_navmesh_m, h)
            if h > s.mesh_horizontal or v > s.mesh_vertical:
                self.off_navmesh += 1
                who, state, _ = cast[i]
                self._incident("off_navmesh", who, state, p, horizontal=h, vertical=v)

    def _stuck(self, sim: Simulation, feet: np.ndarray) -> None:
        wants = np.array([n.wants_to_move for n in sim.npcs], dtype=bool)
        self._history.append((feet.copy(), wants))
        if len(self._history) <= self._window:
            return
        old, _ = self._history[0]
        always = np.stack([w for _, w in self._history]).all(axis=0)
        moved = np.hypot(*(feet[:, :2] - old[:, :2]).T)
        valid = np.isfinite(moved)
        stuck = always & valid & (moved < self.settings.stuck_distance)
        self.stuck_checked += int(valid.sum())
        self.stuck += int(stuck.sum())
        for i in np.flatnonzero(stuck):
            npc = sim.npcs[i]
            self.stuck_by_state[npc.state] += 1
            self._incident("stuck", npc.name, npc.state, feet[i], moved=float(moved[i]))


@dataclass
class SoakResult:
    """One soak run (see the module doc for what each count means).

    Attributes:
        scene, npcs, seed: what ran. seconds: simulated time covered [s]. ticks: ticks the world advanced.
        exceptions: steps that raised. messages: the first exception messages (with where).
        nonfinite, below_floor, inside_static, off_navmesh: character-samples caught by each detector.
        max_off_navmesh_m: the farthest an NPC body centre was from the navmesh, horizontally [m].
        avoidance: crowd avoidance was on.
        stuck_share: share of NPC-time stuck. stuck_by_state: stuck NPC-samples per state.
        rss_growth_mb: resident memory at the end minus after the warm-up [MB].
        rss_warm_mb, rss_end_mb: those two readings [MB]. samples: detector samples taken.
        events: events recorded; events_held: held in memory at the end. trace_samples: replay samples held.
        wall_s: wall time of the run [s], build included. aborted: too many ticks in a row raised.
        incidents: the first detections of each kind: kind, time, who, state, feet position and details
            (inside_static: `depth` [m], `normal` out of the geometry (its z is +-1 for a floor or a
            ceiling, 0 for a wall) and the `height` of the contact above the feet [m]).
    """

    scene: str
    npcs: int
    seed: int
    seconds: float
    ticks: int
    exceptions: int
    messages: list[str]
    nonfinite: int
    below_floor: int
    inside_static: int
    off_navmesh: int
    stuck_share: float
    stuck_by_state: dict[str, int]
    rss_growth_mb: float
    rss_warm_mb: float
    rss_end_mb: float
    samples: int
    events: int
    events_held: int
    trace_samples: int
    wall_s: float
    aborted: bool = False
    max_off_navmesh_m: float = 0.0
    avoidance: bool = False
    incidents: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "scene": self.scene,
            "npcs": self.npcs,
            "seconds": round(self.seconds, 3),
            "exceptions": self.exceptions,
            "nonfinite": self.nonfinite,
            "below_floor": self.below_floor,
            "inside_static": self.inside_static,
            "off_navmesh": self.off_navmesh,
            "max_off_navmesh_m": round(self.max_off_navmesh_m, 4),
            "stuck_share": round(self.stuck_share, 4),
            "rss_growth_mb": round(self.rss_growth_mb, 2),
            "seed": self.seed,
            "ticks": self.ticks,
            "samples": self.samples,
            "messages": list(self.messages),
            "stuck_by_state": dict(sorted(self.stuck_by_state.items())),
            "rss_warm_mb": round(self.rss_warm_mb, 2),
            "rss_end_mb": round(self.rss_end_mb, 2),
            "events": self.events,
            "events_held": self.events_held,
            "trace_samples": self.trace_samples,
            "wall_s": round(self.wall_s, 2),
            "aborted": self.aborted,
            "avoidance": self.avoidance,
            "incidents": self.incidents,
        }


def run_soak(
    scene: Scene,
    settings: SoakSettings | None = None,
    *,
    progress: Callable[[str, int, int | None], None] | None = None,
    before_sample: Callable[[Simulation], None] | None = None,
) -> SoakResult:
    """Simulate `scene` for `settings.seconds` with `settings.npcs` NPCs and a wandering player, sampling
    the detectors every `settings.sample_every_s` (see the module doc).

    Args:
        progress: told `(stage, ticks done, ticks in all)` between chunks of ticks.
        before_sample: called with the simulation right before each sample (tests use it to put a body
            somewhere it should never be).
    """
    s = settings if settings is not None else SoakSettings()
    report = progress if progress is not None else _no_progress
    stage = f"{s.npcs} NPCs, {s.seconds:g} s"
    report(stage, 0, None)  # building the world, the navmesh and the NPCs
    t0 = time.perf_counter()
    sim_settings = SimulationSettings(
        npcs=s.npcs,
        player=PlayerSettings(mode="wander"),
        bodies=s.bodies,
        avoidance=AvoidanceSettings() if s.avoidance else None,
    )
    with Simulation(scene, seed=s.seed, settings=sim_settings) as sim:
        ticks = max(1, round(s.seconds / sim.dt))
        every = max(1, round(s.sample_every_s / sim.dt))
        warm = min(ticks, round(s.warmup / sim.dt))
        probe = SoakProbe(sim, s)
        exceptions, in_a_row, aborted = 0, 0, False
        messages: list[str] = []
        gc.collect()
        rss_warm = rss_mb()
        report(stage, 0, ticks)
        start = sim.world.tick
        done = 0  # ticks the world advanced
        while done < ticks:
            try:
                sim.step()
                in_a_row = 0
            except Exception as exc:  # counted, and the run goes on
                exceptions += 1
                in_a_row += 1
                if len(messages) < s.max_messages:
                    messages.append(_describe(exc, sim.time))
                if in_a_row >= s.max_failures:
                    aborted = True
                    break
            if sim.world.tick - start == done:
                continue  # the step failed before physics: the same tick is tried again
            done = sim.world.tick - start
            if done % every == 0:
                if before_sample is not None:
                    before_sample(sim)
                probe.sample()
            if done == warm:
                gc.collect()
                rss_warm = rss_mb()
            if done % _CHUNK == 0:
                report(stage, done, ticks)
        report(stage, done, ticks)
        gc.collect()
        rss_end = rss_mb()
        return SoakResult(
            scene=scene.name,
            npcs=len(sim.npcs),
            seed=s.seed,
            seconds=done * sim.dt,
            ticks=done,
            exceptions=exceptions,
            messages=messages,
            nonfinite=probe.nonfinite,
            below_floor=probe.below_floor,
            inside_static=probe.inside_static,
            off_navmesh=probe.off_navmesh,
            max_off_navmesh_m=probe.max_off_navmesh_m,
            avoidance=s.avoidance,
            stuck_share=probe.stuck_share,
            stuck_by_state=dict(probe.stuck_by_state),
            rss_growth_mb=rss_end - rss_warm,
            rss_warm_mb=rss_warm,
            rss_end_mb=rss_end,
            samples=probe.samples,
            events=sim.events.recorded,
            events_held=len(sim.events),
            trace_samples=len(sim.trace.times),
            wall_s=time.perf_counter() - t0,
            aborted=aborted,
            incidents=probe.incidents,
        )


def _describe(exc: BaseException, t: float) -> str:
    """`t=12.50 s ValueError: message (at file.py:123 in function)`: the innermost frame of the traceback."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = ""
    if frames:
        last = frames[-1]
        where = f" (at {last.filename.rsplit('/', 1)[-1]}:{last.lineno} in {last.name})"
    return f"t={t:.2f} s {type(exc).__name__}: {exc}{where}"


def run_soaks(
    scenes: Sequence[Scene],
    settings: SoakSettings | None = None,
    *,
    progress: Callable[[str, int, int | None], None] | None = None,
) -> list[SoakResult]:
    """`run_soak` on each scene in turn, with the same settings."""
    return [run_soak(scene, settings, progress=progress) for scene in scenes]


def format_table(results: Sequence[SoakResult]) -> list[str]:
    """One line per run: the counters, the stuck share and the memory growth."""
    lines = [
        "  scene        npcs  seconds  exceptions  nonfinite  below_floor  inside_static  off_navmesh  "
        "max off [m]  stuck %  rss growth [MB]"
    ]
    for r in results:
        lines.append(
            f"  {r.scene:<12} {r.npcs:>4} {r.seconds:>8.0f} {r.exceptions:>11} {r.nonfinite:>10} "
            f"{r.below_floor:>12} {r.inside_static:>14} {r.off_navmesh:>12} {r.max_off_navmesh_m:>12.3f} "
            f"{100 * r.stuck_share:>8.1f} "
            f"{r.rss_growth_mb:>16.1f}" + ("  (aborted)" if r.aborted else "")
        )
    return lines
