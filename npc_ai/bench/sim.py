"""`npc-ai bench sim`: simulation throughput (NPC-ticks per second) for growing NPC counts, next to the share
of the wall time spent inside PyBullet itself (physics steps, pose reads, velocity writes, rays, box casts,
overlap queries).

PyBullet's time is measured exactly, call by call, in a second run of the same simulation: same scene,
seed and settings make the same PyBullet calls (checked: the call counts must match), and during its timed
ticks every function of the `pybullet` module is wrapped with a clock (`timed_pybullet`). The throughput
run itself carries no instrumentation beyond the phase clocks.

Per NPC count it also reports the wall time of each phase of the tick per tick [ms], the PyBullet calls per
tick by kind (from `scenes.World.pybullet_calls`, summed over the timed ticks), the time to build the
simulation [s] and the resident memory after the run [MB]. The simulation's tick is not instrumented per
call, so calls are grouped into phases by kind (`CALL_PHASES`), not measured per phase.
"""

from __future__ import annotations

import time
import types
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from navigation.avoidance import AvoidanceSettings
from npc_ai.bench.soak import rss_mb
from npc_ai.errors import BenchmarkError, BenchmarkSettingsError
from npc_ai.sim.player import PlayerSettings
from npc_ai.sim.simulation import Simulation, SimulationSettings
from scenes import Scene

_CHUNK = 30  # ticks timed between two progress reports
WARMUP_S = 0.25  # simulated seconds run before the timed ticks, by default

PHASES = ("perceive", "decide", "locomotion", "physics", "record")
"""The phases of a tick, in order (`npc_ai.sim.trace.Timings`)."""

CALL_PHASES: dict[str, tuple[str, ...]] = {
    "perceive": ("rayTestBatch", "getClosestPoints", "getOverlappingObjects", "getAABB"),
    "physics": (
        "stepSimulation",
        "getBasePositionAndOrientation",
        "getBaseVelocity",
        "resetBaseVelocity",
        "performCollisionDetection",
        "getContactPoints",
        "resetBasePositionAndOrientation",
    ),
}
"""Which phase each kind of PyBullet call is listed under (by name); any other kind is "other".

Queries (rays, box casts, overlaps) are perception's; body-state calls are physics'. The grouping is by
kind, not by where the call is made: the velocity writes of the locomotion phase (`resetBaseVelocity`)
count as physics, the player's line-of-sight rays (decide phase) and the NPCs' shots (record phase) as
perceive."""


def _no_progress(stage: str, done: int, total: int | None) -> None:
    pass


def call_phase(kind: str) -> str:
    """The phase a kind of PyBullet call is listed under (see `CALL_PHASES`)."""
    for phase, kinds in CALL_PHASES.items():
        if kind in kinds:
            return phase
    return "other"


@dataclass(frozen=True)
class SimBenchResult:
    """One NPC count.

    Attributes:
        npcs: NPCs simulated. ticks: ticks timed. wall_s: wall time of those ticks [s].
        npc_ticks_per_s: npcs x ticks / wall_s. pybullet_s: wall time inside PyBullet calls [s] (the
        timing run). pybullet_share: pybullet_s / wall_s. phases: wall time per tick phase over the
        timed ticks [s].
        realtime_factor: simulated seconds per wall second. events: events recorded.
        dt: tick length [s]. build_s: wall time to build the simulation (world, navmesh, NPCs) [s].
        rss_mb: resident memory of the process after the timed ticks, simulation still open [MB].
        pybullet_calls: PyBullet calls made during the timed ticks, by kind (`World.pybullet_calls`).
        pybullet_time: seconds inside each pybullet function during the timed ticks (the timing run).
        crowd_s: wall time of the crowd avoidance during the timed ticks [s] (inside the locomotion phase).
    """

    npcs: int
    ticks: int
    wall_s: float
    npc_ticks_per_s: float
    pybullet_s: float
    pybullet_share: float
    phases: dict[str, float]
    realtime_factor: float
    events: int
    dt: float = 1.0 / 60.0
    build_s: float = 0.0
    rss_mb: float = 0.0
    pybullet_calls: dict[str, int] = field(default_factory=dict)
    pybullet_time: dict[str, float] = field(default_factory=dict)
    crowd_s: float = 0.0

    @property
    def crowd_ms_per_tick(self) -> float:
        """Wall time of the crowd avoidance per tick [ms] (part of the locomotion phase; 0 without it)."""
        return 1e3 * self.crowd_s / self.ticks

    @property
    def pybullet_ms_per_tick(self) -> dict[str, float]:
        """Time inside each pybullet function per tick [ms], largest first."""
        items = sorted(self.pybullet_time.items(), key=lambda kv: -kv[1])
        return {k: 1e3 * v / self.ticks for k, v in items}

    @property
    def ms_per_tick(self) -> dict[str, float]:
        """Wall time per tick of each phase, and of the PyBullet calls across them ("pybullet") [ms]."""
        out = {k: 1e3 * self.phases[k] / self.ticks for k in PHASES}
        out["pybullet"] = 1e3 * self.pybullet_s / self.ticks
        return out

    @property
    def tick_ms(self) -> float:
        """Wall time of a whole tick [ms]."""
        return 1e3 * self.wall_s / self.ticks

    @property
    def pybullet_calls_per_tick(self) -> dict[str, float]:
        """PyBullet calls per tick by kind (sorted by kind)."""
        return {k: self.pybullet_calls[k] / self.ticks for k in sorted(self.pybullet_calls)}

    def calls_per_tick_by_phase(self) -> dict[str, float]:
        """PyBullet calls per tick summed over the kinds of each phase of `CALL_PHASES` (and "other")."""
        out = dict.fromkeys((*CALL_PHASES, "other"), 0.0)
        for kind, n in self.pybullet_calls_per_tick.items():
            out[call_phase(kind)] += n
        return out

    def to_json(self) -> dict[str, Any]:
        rtf = round(self.realtime_factor, 3)
        return {
            "npcs": self.npcs,
            "ticks": self.ticks,
            "dt": self.dt,
            "wall_s": round(self.wall_s, 6),
            "npc_ticks_per_s": round(self.npc_ticks_per_s, 1),
            "pybullet_s": round(self.pybullet_s, 6),
            "pybullet_share": round(self.pybullet_share, 4),
            "real_time_factor": rtf,
            "realtime_factor": rtf,  # the old name, kept for readers of older files
            "phases": {k: round(v, 4) for k, v in self.phases.items()},
            "ms_per_tick": {k: round(v, 4) for k, v in self.ms_per_tick.items()},
            "pybullet_calls_per_tick": {k: round(v, 4) for k, v in self.pybullet_calls_per_tick.items()},
            "pybullet_calls_per_tick_by_phase": {
                k: round(v, 4) for k, v in self.calls_per_tick_by_phase().items()
            },
            "pybullet_ms_per_tick": {k: round(v, 4) for k, v in self.pybullet_ms_per_tick.items()},
            "crowd_ms_per_tick": round(self.crowd_ms_per_tick, 4),
            "build_s": round(self.build_s, 4),
            "rss_mb": round(self.rss_mb, 1),
            "events": self.events,
        }


def run_bench_sim(
    scene: Scene,
    sizes: Sequence[int] = (10, 100),
    *,
    seconds: float = 2.0,
    warmup_s: float = WARMUP_S,
    seed: int = 0,
    root_only_animation: bool = True,
    avoidance: bool = False,
    bodies: str = "dynamic",
    progress: Callable[[str, int, int | None], None] | None = None,
) -> list[SimBenchResult]:
    """Simulate `seconds` (after `warmup_s`) with each NPC count and time it.

    `progress(stage, done, total)`, when given, is told the ticks simulated for each count (stage
    "N NPCs"); it is called between timed chunks of ticks, so it costs the timings nothing. `avoidance`
    True runs with crowd avoidance (`SimulationSettings.avoidance = AvoidanceSettings()`); `bodies` is
    `SimulationSettings.bodies` ("dynamic" or "kinematic").
    """
    if not sizes or any(not isinstance(n, int) or n < 1 for n in sizes):
        raise BenchmarkSettingsError(f"NPC counts must be positive integers, got {list(sizes)!r}")
    if not (seconds > 0):
        raise BenchmarkSettingsError(f"seconds must be positive, got {seconds!r}")
    report = progress if progress is not None else _no_progress
    out = []
    for n in sizes:
        settings = SimulationSettings(
            npcs=n,
            player=PlayerSettings(mode="wander"),
            trail_every=0,
            root_only_animation=root_only_animation,
            avoidance=AvoidanceSettings() if avoidance else None,
            bodies=bodies,
        )
        stage = f"{n} NPCs"
        report(stage, 0, None)  # building the world and the NPCs
        b0 = time.perf_counter()
        with Simulation(scene, seed=seed, settings=settings) as sim:
            build_s = time.perf_counter() - b0
            ticks = max(1, round(seconds / sim.dt))
            warm = round(warmup_s / sim.dt)
            report(stage, 0, warm + ticks)
            sim.run(warmup_s)
            report(stage, warm, warm + ticks)
            before = sim.timings.__dict__.copy()
            crowd = sim.locomotion.crowd
            crowd0 = 0.0 if crowd is None else crowd.seconds
            calls0 = Counter(sim.world.pybullet_calls)
            events0 = sim.events.recorded
            wall = 0.0
            for done in range(0, ticks, _CHUNK):
                t0 = time.perf_counter()
                for _ in range(min(_CHUNK, ticks - done)):
                    sim.step()
                wall += time.perf_counter() - t0
                report(stage, warm + min(done + _CHUNK, ticks), warm + ticks)
            tm = sim.timings
            phases = {k: getattr(tm, k) - before[k] for k in PHASES}
            calls = sim.world.pybullet_calls - calls0  # drops kinds not called while timed
            events, dt, memory = sim.events.recorded - events0, sim.dt, rss_mb()
            crowd_s = 0.0 if crowd is None else crowd.seconds - crowd0
        spent = _pybullet_time(scene, seed, settings, warm, ticks, calls)
        pyb = sum(spent.values())
        out.append(
            SimBenchResult(
                npcs=n,
                ticks=ticks,
                wall_s=wall,
                npc_ticks_per_s=n * ticks / wall,
                pybullet_s=pyb,
                pybullet_share=pyb / wall,
                phases=phases,
                realtime_factor=ticks * dt / wall,
                events=events,
                dt=dt,
                build_s=build_s,
                rss_mb=memory,
                pybullet_calls=dict(calls),
                pybullet_time=dict(spent),
                crowd_s=crowd_s,
            )
        )
    return out


@contextmanager
def timed_pybullet() -> Iterator[dict[str, float]]:
    """While the block runs, every function of the `pybullet` module is wrapped with a clock; the yielded
    counter collects the seconds spent inside each (by function name). Calls through a `BulletClient` and
    raw `pybullet.f(..., physicsClientId=...)` calls both look the function up on the module, so both are
    timed. Adds about half a microsecond per call to the caller."""
    from scenes._bullet import pybullet

    spent: defaultdict[str, float] = defaultdict(float)
    clock = time.perf_counter
    saved = {k: f for k, f in vars(pybullet).items() if isinstance(f, types.BuiltinFunctionType)}

    def timed(name: str, f: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            t = clock()
            try:
                return f(*args, **kwargs)
            finally:
                spent[name] += clock() - t

        return call

    for name, f in saved.items():
        setattr(pybullet, name, timed(name, f))
    try:
        yield spent
    finally:
        for name, f in saved.items():
            setattr(pybullet, name, f)


def _pybullet_time(
    scene: Scene, seed: int, settings: SimulationSettings, warm: int, ticks: int, calls: Counter[str]
) -> dict[str, float]:
    """Seconds inside each pybullet function over `ticks` ticks after `warm` untimed ones, in a new run of
    the simulation; it must make the same PyBullet `calls` as the throughput run did."""
    with Simulation(scene, seed=seed, settings=settings) as sim:
        for _ in range(warm):
            sim.step()
        calls0 = Counter(sim.world.pybullet_calls)
        with timed_pybullet() as spent:
            for _ in range(ticks):
                sim.step()
        again = sim.world.pybullet_calls - calls0
    if again != calls:
        raise BenchmarkError(
            f"the PyBullet timing run made other calls than the measured run ({dict(again)} against "
            f"{dict(calls)}): the simulation is not deterministic under seed {seed}"
        )
    return spent


def report_json(
    results: Sequence[SimBenchResult],
    *,
    scene: str,
    seconds: float,
    seed: int,
    warmup_s: float = WARMUP_S,
    bodies: str = "dynamic",
) -> dict[str, Any]:
    """The `--json` document: `{"scene", "bodies", "seconds", "seed", "warmup_s", "results": [...]}`."""
    return {
        "scene": scene,
        "bodies": bodies,
        "seconds": seconds,
        "seed": seed,
        "warmup_s": warmup_s,
        "results": [r.to_json() for r in results],
    }


def format_table(results: Sequence[SimBenchResult]) -> list[str]:
    """One line per NPC count."""
    lines = [
        "  npcs   ticks   wall [s]   npc-ticks/s   realtime x   pybullet [s]   pybullet %   "
        "perceive / decide / locomotion / physics [ms/tick]"
    ]
    for r in results:
        ms = r.ms_per_tick
        lines.append(
            f"{r.npcs:>6} {r.ticks:>7} {r.wall_s:>10.2f} {r.npc_ticks_per_s:>13.0f} "
            f"{r.realtime_factor:>12.2f} "
            f"{r.pybullet_s:>14.2f} {100 * r.pybullet_share:>11.1f}   "
            f"{ms['perceive']:.2f} / {ms['decide']:.2f} / {ms['locomotion']:.2f} / {ms['physics']:.2f}"
        )
    return lines


def _calls(v: float) -> str:
    return f"{v:.0f}" if v >= 100 else f"{v:.3g}"


def _kind_list(r: SimBenchResult, phase: str) -> str:
    per_tick = r.pybullet_calls_per_tick
    kinds = CALL_PHASES.get(phase, tuple(k for k in per_tick if call_phase(k) == "other"))
    return ", ".join(f"{k} {_calls(per_tick[k])}" for k in kinds if k in per_tick)


def format_profile(results: Sequence[SimBenchResult]) -> list[str]:
    """Per NPC count: ms per tick of each phase, its share of the tick, PyBullet's share, and the PyBullet
    calls per tick of the kinds listed under each phase (`CALL_PHASES`)."""
    lines: list[str] = []
    for r in results:
        ms, tick, by_phase = r.ms_per_tick, r.tick_ms, r.calls_per_tick_by_phase()
        lines += [
            "",
            f"{r.npcs} NPCs: {tick:.3f} ms a tick, {r.npc_ticks_per_s:,.0f} NPC-ticks/s, "
            f"{r.realtime_factor:.2f}x real time, built in {r.build_s:.2f} s, RSS {r.rss_mb:.0f} MB",
            f"  {'phase':<12}{'ms/tick':>9}{'% tick':>8}{'calls/tick':>12}  PyBullet calls per tick by kind",
        ]
        for phase in PHASES:
            calls = f"{_calls(by_phase[phase]):>12}  {_kind_list(r, phase)}" if phase in by_phase else ""
            lines.append(f"  {phase:<12}{ms[phase]:>9.3f}{100 * ms[phase] / tick:>8.1f}{calls}".rstrip())
        if r.crowd_s:
            crowd = r.crowd_ms_per_tick
            lines.append(f"  {'  crowd':<12}{crowd:>9.3f}{100 * crowd / tick:>8.1f}  (inside locomotion)")
        rest = tick - sum(ms[p] for p in PHASES)
        lines.append(f"  {'(untimed)':<12}{rest:>9.3f}{100 * rest / tick:>8.1f}")
        if by_phase["other"]:
            lines.append(
                f"  {'(other)':<12}{'':>9}{'':>8}{_calls(by_phase['other']):>12}  {_kind_list(r, 'other')}"
            )
        lines.append(
            f"  {'PyBullet':<12}{ms['pybullet']:>9.3f}{100 * r.pybullet_share:>8.1f}"
            f"{_calls(sum(by_phase.values())):>12}  (inside the phases above)"
        )
        inside = r.pybullet_ms_per_tick
        if inside:
            top = ", ".join(f"{k} {v:.3f}" for k, v in list(inside.items())[:6])
            lines.append(f"  {'':<12}{'':>9}{'':>8}{'':>12}  ms per tick inside: {top}")
    return lines[1:]


def plot_bench_sim(results: Sequence[SimBenchResult], out: Path, *, title: str = "") -> Path:
    """NPC-ticks per second against the NPC count (log-log), the real-time line (NPCs / dt: one tick of
    every NPC per tick length), and each point's PyBullet share; write a PNG to `out`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    rs = sorted(results, key=lambda r: r.npcs)
    x = [r.npcs for r in rs]
    y = [r.npc_ticks_per_s for r in rs]
    hz = 1.0 / rs[0].dt
    lo, hi = min(x) / 2, max(x) * 2
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    ax.plot(x, y, "o-", color="tab:blue", label="measured NPC-ticks/s")
    ax.plot([lo, hi], [lo * hz, hi * hz], "--", color="tab:red", label=f"real time ({hz:g} Hz x NPCs)")
    for r in rs:
        ax.annotate(
            f"PyBullet {100 * r.pybullet_share:.0f} %\n{r.realtime_factor:.2g}x real time",
            (r.npcs, r.npc_ticks_per_s),
            textcoords="offset points",
            xytext=(0, -10),
            ha="center",
            va="top",
            fontsize=8,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(min(min(y), lo * hz) / 3, max(max(y), hi * hz) * 2)
    plain = FuncFormatter(lambda v, _pos: f"{v:g}")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(plain)
        axis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("NPCs")
    ax.set_ylabel("NPC-ticks per second")
    ax.set_title(title or "simulation throughput", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
