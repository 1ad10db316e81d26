"""The animator: a small state machine (locomotion + one-shot actions such as jump / land) with
cross-fades, a speed input and per-tick root-motion output.

Each state has ``enter``, ``update -> next state name or None`` and ``exit`` hooks and an
``interruptible`` flag; the animator records every transition. Cross-fades blend the outgoing and incoming
states' poses and root motion linearly over the fade time. Inside locomotion, a gait change (chosen with
hysteresis) cross-fades the blend-space weights over the gait's fade time (idle<->walk 0.3 s, walk<->run
0.25 s, run<->sprint 0.2 s). Output frame: the character frame (x forward, y left, z up), metres, radians.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from .batch import AnimatorBatch
from .clip import Clip, Pose, blend_poses
from .errors import AnimationError, AnimationSettingsError
from .locomotion import GAITS, Gait, GaitSettings, LocomotionSet, default_locomotion_set
from .root_motion import RootMotion, root_motion_deltas
from .skeleton import Skeleton, ancestors, forward_kinematics

_GAIT_LEVEL = {Gait.IDLE: 0, Gait.WALK: 1, Gait.RUN: 2, Gait.SPRINT: 3}


@dataclass(frozen=True)
class AnimatorSettings:
    """Animator settings.

    Attributes:
        fade_idle_walk_s / fade_walk_run_s / fade_run_sprint_s: Gait cross-fade times [s, >= 0].
        fade_action_s: Cross-fade into and out of action states [s, >= 0].
        speed_smoothing_s: Time constant of the speed input's low-pass filter [s, >= 0; 0 = none].
        gait_smoothing_s: Time constant of the low-pass filter on the speed the gait is chosen from
            [s, >= 0; 0 = none]: a command hovering at a threshold (a stop's last centimetres, a route
            speed at the run threshold) does not flicker the gait. The blend still follows the speed.
        max_play_rate: Play-rate cap of the blend space [>= 1].
        gait: Gait thresholds with hysteresis.
        lazy_pose: Compute the skeleton pose only when it is read (``pose``, ``joint_positions``,
            ``foot_positions``); root motion is the same either way. Saves most of a tick's cost for
            NPCs whose pose nobody looks at.
    """

    fade_idle_walk_s: float = 0.3
    fade_walk_run_s: float = 0.25
    fade_run_sprint_s: float = 0.2
    fade_action_s: float = 0.2
    speed_smoothing_s: float = 0.0
    gait_smoothing_s: float = 0.2
    max_play_rate: float = 3.0
    gait: GaitSettings = field(default_factory=GaitSettings)
    lazy_pose: bool = False

    def __post_init__(self) -> None:
        for name in (
            "fade_idle_walk_s",
            "fade_walk_run_s",
            "fade_run_sprint_s",
            "fade_action_s",
            "speed_smoothing_s",
            "gait_smoothing_s",
        ):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise AnimationSettingsError(
                    f"{name} must be a non-negative number of seconds, got {value!r}"
                )
        if not (math.isfinite(self.max_play_rate) and self.max_play_rate >= 1):
            raise AnimationSettingsError(f"max_play_rate must be a number >= 1, got {self.max_play_rate!r}")

    def gait_fade(self, a: Gait, b: Gait) -> float:
        """Fade time [s] between two gaits: the longest fade among the gait boundaries crossed."""
        fades = (self.fade_idle_walk_s, self.fade_walk_run_s, self.fade_run_sprint_s)
        lo, hi = sorted((_GAIT_LEVEL[a], _GAIT_LEVEL[b]))
        return max(fades[lo:hi], default=0.0)


@dataclass(frozen=True)
class Transition:
    """A recorded state or gait change at animator time ``time_s`` [s]."""

    time_s: float
    source: str
    target: str
    kind: str  # "state" or "gait"


@dataclass(frozen=True)
class _Tick:
    pose: Pose | Callable[[], Pose]  # a callable when the pose is computed only if someone asks
    delta_local: np.ndarray
    delta_yaw: float


def _resolve(pose: Pose | Callable[[], Pose]) -> Pose:
    return pose() if callable(pose) else pose


class AnimState(abc.ABC):
    """Base state: override the hooks. ``tick`` returns this tick's pose and root motion."""

    name = "state"
    interruptible = True

    def enter(self, animator: Animator) -> None:  # noqa: B027 - an optional hook
        """Called when the state becomes current."""

    def update(self, animator: Animator, dt: float) -> str | None:
        """Called each tick before ``tick``: the name of the next state, or None to stay."""
        return None

    def exit(self, animator: Animator) -> None:  # noqa: B027 - an optional hook
        """Called when the state stops being current."""

    @abc.abstractmethod
    def tick(self, animator: Animator, dt: float) -> _Tick:
        """Advance by ``dt`` [s]: this tick's pose and root motion."""


class LocomotionState(AnimState):
    """Speed-driven blend of idle / walk / run / sprint with gait cross-fades: one row of an
    `AnimatorBatch` (the rules live there, for one character or a thousand)."""

    name = "locomotion"
    interruptible = True

    def __init__(self, batch: AnimatorBatch) -> None:
        if batch.n != 1:
            raise AnimationSettingsError(f"a locomotion state runs a batch of one row, got {batch.n}")
        self.batch = batch
        self.blend = batch.blend

    @property
    def phase(self) -> float:
        return float(self.batch.phase[0])

    @property
    def free_time(self) -> float:
        return float(self.batch.free_time[0])

    @property
    def gait(self) -> Gait:
        return GAITS[int(self.batch.gait[0])]

    @property
    def weights(self) -> np.ndarray:
        return self.batch.weights[0].copy()

    @property
    def play_rate(self) -> float:
        return float(self.batch.play_rate[0])

    def tick(self, animator: Animator, dt: float) -> _Tick:
        b = self.batch
        b.smoothed_speed[0] = animator.smoothed_speed
        b.gait_speed[0] = animator.gait_speed
        delta, dyaw, changes = b.tick(dt, _ROW)
        for old, new in zip(changes.old, changes.new, strict=True):
            animator._record(GAITS[old].value, GAITS[new].value, "gait")
        pose = b.pose(0) if not animator.settings.lazy_pose else partial(b.pose, 0)
        return _Tick(pose, delta[0], float(dyaw[0]))


_ROW = slice(None)  # the one row of the batch, as a view (no gather and scatter)


class ActionState(AnimState):
    """A one-shot clip (jump, land, ...) with its own root motion; returns to ``exit_to`` when done."""

    def __init__(
        self, name: str, clip: Clip, interruptible: bool = False, exit_to: str = "locomotion"
    ) -> None:
        self.name = name
        self.clip = clip.replace(loop=False)
        self.interruptible = interruptible
        self.exit_to = exit_to
        self.time = 0.0

    def enter(self, animator: Animator) -> None:
        self.time = 0.0

    def update(self, animator: Animator, dt: float) -> str | None:
        fade = animator.settings.fade_action_s
        return self.exit_to if self.time >= self.clip.duration - fade else None

    def tick(self, animator: Animator, dt: float) -> _Tick:
        d, y = root_motion_deltas(self.clip, self.time, self.time + dt)
        self.time += dt
        return _Tick(self.clip.sample(self.time).pose, d, float(y))


class Animator:
    """Drives a skeleton from a speed input; ``advance(dt)`` yields the tick's root motion.

    Args:
        locomotion: The locomotion clips (default: the built-in DeepMimic set).
        settings: Fade times, speed smoothing, play-rate cap, gait thresholds.
        actions: Extra one-shot states by name, e.g. ``{"jump": ActionState("jump", load_clip("jump"))}``.
    """

    def __init__(
        self,
        locomotion: LocomotionSet | None = None,
        settings: AnimatorSettings | None = None,
        actions: dict[str, AnimState] | None = None,
    ) -> None:
        self.settings = settings or AnimatorSettings()
        self.locomotion_set = locomotion or default_locomotion_set()
        self.skeleton: Skeleton = self.locomotion_set.walk.clip.skeleton
        self.feet = self.locomotion_set.walk.clip.feet
        self._locomotion = LocomotionState(AnimatorBatch(1, self.locomotion_set, self.settings))
        self.states: dict[str, AnimState] = {"locomotion": self._locomotion}
        for name, state in (actions or {}).items():
            if name in self.states:
                raise AnimationSettingsError(f"state name {name!r} is taken")
            self.states[name] = state
        self.time = 0.0
        self.transitions: list[Transition] = []
        self.speed = 0.0
        self.smoothed_speed = 0.0
        self.gait_speed = 0.0  # the speed the gait is chosen from [m/s]
        self._state = self.states["locomotion"]
        self._fade_out: AnimState | None = None
        self._fade_elapsed = 0.0
        self._fade_time = 0.0
        self._state.enter(self)
        first = self._state.tick(self, 0.0)
        self._pose: Pose | Callable[[], Pose] = first.pose
        self._joints: np.ndarray | None = None
        self._joints_known: set[int] = set()
        self.foot_indices = tuple(self.skeleton.index(f) for f in self.feet)  # joints of `feet`

    # ------------------------------------------------------------------ inputs
    def set_speed(self, speed: float) -> None:
        """Requested ground speed [m/s, >= 0] (clamp diagonal input to length 1 before scaling)."""
        if not (math.isfinite(speed) and speed >= 0):
            raise AnimationSettingsError(f"speed must be a non-negative number of m/s, got {speed!r}")
        self.speed = float(speed)

    def trigger(self, name: str) -> bool:
        """Request state ``name``; False if the current state is not interruptible. Unknown states raise."""
        if name not in self.states:
            raise AnimationError(f"no animator state {name!r}; states are {', '.join(self.states)}")
        if name == self._state.name:
            return False
        if not self._state.interruptible:
            return False
        self._switch(name)
        return True

    # ------------------------------------------------------------------ outputs
    @property
    def pose(self) -> Pose:
        """The current pose (computed on first access after a tick when ``lazy_pose`` is on)."""
        if callable(self._pose):
            self._pose = self._pose()
        return self._pose

    @property
    def state(self) -> str:
        return self._state.name

    @property
    def gait(self) -> Gait:
        return self._locomotion.gait

    @property
    def phase(self) -> float:
        return self._locomotion.phase

    def planted(self) -> np.ndarray:
        """(2,) how planted the (left, right) feet are in the current locomotion blend [0..1]: each
        clip's own contact labels at its current time, averaged with the blend weights (an action
        state counts both feet as not planted)."""
        loco = self._locomotion
        if self._state is not loco:
            return np.zeros(2)
        return loco.batch.planted()[0]

    def joint_positions(self, only: Sequence[int] | None = None) -> np.ndarray:
        """(J, 3) joint positions of the current pose in the character frame (origin on the floor under
        the root, x forward, y left, z up) [m]. ``only``: just these joints and their ancestors are
        computed (the others are NaN). Computed once per tick, however often it is read."""
        need = set(range(self.skeleton.n_joints)) if only is None else {int(j) for j in only}
        if self._joints is None or not need <= self._joints_known:
            full = only is None or self._joints is not None  # a second, different subset: do them all
            self._joints = forward_kinematics(
                self.skeleton, self.pose.root_offset, self.pose.rotations, None if full else list(need)
            )[0]
            self._joints_known = (
                set(range(self.skeleton.n_joints)) if full else set(ancestors(self.skeleton, list(need)))
            )
        return self._joints.copy()

    def foot_positions(self) -> np.ndarray:
        """(2, 3) (left, right) foot positions in the character frame [m]."""
        feet = self.foot_indices
        return self.joint_positions(only=feet)[list(feet)]

    # ------------------------------------------------------------------ the tick
    def advance(self, dt: float) -> RootMotion:
        """Advance by ``dt`` [s]: smooth the speed, run state hooks and fades, return the root motion."""
        if not (math.isfinite(dt) and dt > 0):
            raise AnimationSettingsError(f"dt must be a positive number of seconds, got {dt!r}")
        tau = self.settings.speed_smoothing_s
        a = 1.0 if tau <= 0 else min(1.0, dt / tau)
        self.smoothed_speed += a * (self.speed - self.smoothed_speed)
        tau_g = self.settings.gait_smoothing_s
        g = 1.0 if tau_g <= 0 else min(1.0, dt / tau_g)
        self.gait_speed += g * (self.smoothed_speed - self.gait_speed)
        self.time += dt
        nxt = self._state.update(self, dt)
        if nxt is not None:
            if nxt not in self.states:
                raise AnimationError(f"state {self._state.name!r} asked for unknown state {nxt!r}")
            self._switch(nxt)
        out = self._state.tick(self, dt)
        if self._fade_out is not None:
            old = self._fade_out.tick(self, dt)
            self._fade_elapsed += dt
            w = 1.0 if self._fade_time <= 0 else min(1.0, self._fade_elapsed / self._fade_time)
            out = _Tick(
                blend_poses([_resolve(old.pose), _resolve(out.pose)], np.array([1.0 - w, w])),
                (1.0 - w) * old.delta_local + w * out.delta_local,
                (1.0 - w) * old.delta_yaw + w * out.delta_yaw,
            )
            if w >= 1.0:
                self._fade_out = None
        self._pose = out.pose
        self._joints = None
        b = self._locomotion.batch  # its one row, read straight from the arrays
        return RootMotion(
            np.asarray(out.delta_local, dtype=float),
            float(out.delta_yaw),
            dt,
            float(b.phase[0]),
            float(b.play_rate[0]),
            self._state.name,
            GAITS[int(b.gait[0])].value,
            tuple(b.weights[0].tolist()),
        )

    def _switch(self, name: str) -> None:
        old = self._state
        old.exit(self)
        self._record(old.name, name, "state")
        self._fade_out = old
        self._fade_elapsed = 0.0
        self._fade_time = self.settings.fade_action_s
        self._state = self.states[name]
        self._state.enter(self)

    def _record(self, source: str, target: str, kind: str) -> None:
        self.transitions.append(Transition(round(self.time, 9), source, target, kind))
