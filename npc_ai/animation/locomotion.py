"""The locomotion set (idle, walk, run, sprint clips) and gait selection with hysteresis.

Speeds in m/s. Clips come from pybullet_data's DeepMimic motions (real motion capture):
    * walk: humanoid3d_walk (0.98 m/s), run: humanoid3d_run (3.56 m/s).
    * sprint: the run clip played 6.0 / 3.56 = 1.69x faster (pybullet_data has no sprint capture; this
      is ALS's play-rate scaling: stride length kept, cadence 150 -> 253 steps/min, within sprinting).
    * idle: the last frame of humanoid3d_getup_facedown, held for 1 s. It is the only moment in the
      DeepMimic set where the actor stands still upright: both ankles within 1 mm of their lowest
      heights in that clip, root 0.87 m high; the walk and run never stand still. A held pose has no
      root motion (``has_root_motion`` is False) so callers use code-driven velocity for it.

Cleanup: by default the walk and run (and so the sprint) are cleaned with ``cleanup.clean_clip`` (foot
locking with two-bone IK: the planted foot is held at its plant point, which removes the walk's mirror-seam
snap and the run's landing slide); ``default_locomotion_set(clean=False)`` builds the set from the raw
captures. Root tracks are unchanged by the cleanup, so speeds and phases are the same either way.
"""

from __future__ import annotations

import enum
import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import kernels, quat
from .clip import Clip
from .contacts import ContactSettings, detect_contacts
from .errors import AnimationError, AnimationSettingsError


class Gait(enum.Enum):
    IDLE = "idle"
    WALK = "walk"
    RUN = "run"
    SPRINT = "sprint"


_ORDER = (Gait.IDLE, Gait.WALK, Gait.RUN, Gait.SPRINT)
GAITS = _ORDER  # the gaits by level: idle 0, walk 1, run 2, sprint 3


@dataclass(frozen=True)
class GaitSettings:
    """Gait thresholds with hysteresis [m/s]: go up a gait above ``*_up``, back down below ``*_down``.

    Attributes:
        walk_up / walk_down: idle -> walk above walk_up, walk -> idle below walk_down.
        run_up / run_down: walk -> run above 3.3, run -> walk below 3.0 (a 0.3 m/s band just under the
            run clip's 3.56 m/s, so a 3.5 m/s top speed runs whether it arrives exactly or overshoots).
        sprint_up / sprint_down: run -> sprint above 5.5, sprint -> run below 5.2.
    """

    walk_up: float = 0.1
    walk_down: float = 0.05
    run_up: float = 3.3
    run_down: float = 3.0
    sprint_up: float = 5.5
    sprint_down: float = 5.2

    def __post_init__(self) -> None:
        values = (self.walk_down, self.walk_up, self.run_down, self.run_up, self.sprint_down, self.sprint_up)
        if not all(isinstance(v, (int, float)) and math.isfinite(v) and v >= 0 for v in values):
            raise AnimationSettingsError(f"gait thresholds must be non-negative numbers of m/s, got {values}")
        if not (
            self.walk_down
            <= self.walk_up
            <= self.run_down
            <= self.run_up
            <= self.sprint_down
            <= self.sprint_up
        ):
            raise AnimationSettingsError(
                "gait thresholds must satisfy walk_down <= walk_up <= run_down <= run_up <= sprint_down"
                " <= sprint_up, "
                f"got {values}"
            )


def select_gait(speed: float, current: Gait, settings: GaitSettings | None = None) -> Gait:
    """The gait for ``speed`` [m/s] given the ``current`` one (hysteresis: thresholds differ up and down)."""
    if not math.isfinite(speed):
        raise AnimationSettingsError(f"speed must be finite, got {speed!r}")
    level = select_gait_levels(np.array([float(speed)]), np.array([_ORDER.index(current)]), settings)
    return _ORDER[int(level[0])]


def select_gait_levels(
    speeds: np.ndarray, current: np.ndarray, settings: GaitSettings | None = None
) -> np.ndarray:
    """(N,) gait levels (0 idle, 1 walk, 2 run, 3 sprint; `GAITS` order) for N speeds [m/s] given the
    current levels: up a gait above its ``*_up`` threshold, down below its ``*_down`` (hysteresis)."""
    ups, downs = gait_thresholds(settings if settings is not None else GaitSettings())
    v = np.ascontiguousarray(speeds, dtype=np.float64).reshape(-1)
    level = np.ascontiguousarray(current, dtype=np.int64).reshape(-1)
    return kernels.gait_levels_flat(v, level, ups, downs)


def gait_thresholds(settings: GaitSettings) -> tuple[np.ndarray, np.ndarray]:
    """The thresholds of `GaitSettings` by level [m/s]: (ups, downs), each (4,); go up from level i above
    ups[i], down below downs[i] (ups[3] = inf, downs[0] = -inf)."""
    s = settings
    return (
        np.array([s.walk_up, s.run_up, s.sprint_up, np.inf]),
        np.array([-np.inf, s.walk_down, s.run_down, s.sprint_down]),
    )


@dataclass(frozen=True, eq=False)
class LocomotionClip:
    """A clip in the locomotion set.

    Attributes:
        clip: The clip. speed: Its root speed [m/s]. cycle: Whether it is phase-synchronised (a loop
        with root motion). phase_offset: Normalised time of its left-foot-down event (phase 0).
    """

    clip: Clip
    speed: float
    cycle: bool
    phase_offset: float

    def time_at(self, phase: np.ndarray | float) -> np.ndarray:
        """Clip time [s] at normalised locomotion phase (0 = left foot down)."""
        return (np.asarray(phase, dtype=float) + self.phase_offset) * self.clip.duration


def left_down_offset(clip: Clip, settings: ContactSettings | None = None) -> float:
    """Normalised time in [0, 1) of the clip's first left-foot-down event."""
    contacts = detect_contacts(clip, settings)
    downs = contacts.down_phases(0)
    if downs.size == 0:
        raise AnimationError(f"clip {clip.name!r} has no left-foot contact to synchronise on")
    return float(np.sort(downs)[0])


def make_locomotion_clip(
    clip: Clip, min_speed_mps: float = 0.1, phase_offset: float | None = None
) -> LocomotionClip:
    """Wrap a clip: loops with root motion are phase-synchronised on their left-foot-down event (or on
    ``phase_offset`` if given, e.g. the source clip's offset for a play-rate scaled copy)."""
    speed = clip.root_speed()
    cycle = clip.loop and speed >= min_speed_mps
    if cycle and phase_offset is not None:
        return LocomotionClip(clip=clip, speed=speed, cycle=True, phase_offset=float(phase_offset) % 1.0)
    return LocomotionClip(
        clip=clip,
        speed=speed if cycle else 0.0,
        cycle=cycle,
        phase_offset=left_down_offset(clip) if cycle else 0.0,
    )


def hold_pose(clip: Clip, time_s: float, duration_s: float = 1.0, name: str = "idle") -> Clip:
    """A looping clip that holds ``clip``'s pose at ``time_s`` [s], facing +x at the origin."""
    s = clip.sample(time_s)
    world_rot = quat.multiply(quat.from_yaw(s.yaw), s.pose.rotations[0])
    rots = np.stack([s.pose.rotations, s.pose.rotations])
    root = quat.rotate_yaw(s.yaw, s.pose.root_offset)
    return Clip.from_root_track(
        name=name,
        skeleton=clip.skeleton,
        fps=1.0 / duration_s,
        root_world_positions=np.stack([root, root]),
        root_world_rotations=np.stack([world_rot, world_rot]),
        local_rotations=rots,
        loop=True,
        feet=clip.feet,
        source=f"{clip.source} @ {time_s:g} s (held)",
    )


@dataclass(frozen=True, eq=False)
class LocomotionSet:
    """Idle, walk, run and sprint clips ordered by speed. ``sprint_speed`` [m/s] normalises blend speeds."""

    idle: LocomotionClip
    walk: LocomotionClip
    run: LocomotionClip
    sprint: LocomotionClip

    def __post_init__(self) -> None:
        speeds = [c.speed for c in self.samples]
        if any(b <= a for a, b in itertools.pairwise(speeds[1:])) or speeds[0] != 0.0:
            raise AnimationSettingsError(
                f"locomotion clips must be idle (0 m/s) then increasing speeds, got {speeds}"
            )

    @property
    def samples(self) -> tuple[LocomotionClip, ...]:
        return (self.idle, self.walk, self.run, self.sprint)

    @property
    def sprint_speed(self) -> float:
        return self.sprint.speed


def default_locomotion_set(sprint_speed: float = 6.0, clean: bool = True) -> LocomotionSet:
    """The built-in set from pybullet_data (see the module docstring); ``clean`` selects the cleaned
    (default) or the raw walk and run.

    Built once per (sprint_speed, clean) and shared: the set and its clips are immutable, and every
    animator of a simulation (and every env reset) asks for it."""
    if not (isinstance(sprint_speed, int | float) and not isinstance(sprint_speed, bool)):
        raise AnimationSettingsError(f"sprint speed must be a number of m/s, got {sprint_speed!r}")
    return _default_locomotion_set(float(sprint_speed), bool(clean))


@lru_cache(maxsize=8)
def _default_locomotion_set(sprint_speed: float, clean: bool) -> LocomotionSet:
    from .library import load_clip

    run = load_clip("run", clean=clean)
    if not (math.isfinite(sprint_speed) and sprint_speed > run.root_speed()):
        raise AnimationSettingsError(
            f"sprint speed must exceed the run's {run.root_speed():.2f} m/s, got {sprint_speed!r}"
        )
    sprint = run.with_play_rate(sprint_speed / run.root_speed(), name="sprint")
    run_sample = make_locomotion_clip(run)
    return LocomotionSet(
        idle=make_locomotion_clip(load_clip("idle")),
        walk=make_locomotion_clip(load_clip("walk", clean=clean)),
        run=run_sample,
        sprint=make_locomotion_clip(sprint, phase_offset=run_sample.phase_offset),
    )
