"""How navigation and root-motion animation share control of a character: one small strategy per mode.

Every mode runs in two halves around the physics step: `before_physics` updates the nav agent and the
animator and sets the character body's horizontal velocity; `after_physics` reconciles the agent with
where physics actually put the body. Information flows one way in each mode (reference.md section 1):

- `agent_drives` (animation follows agent): the agent moves the character; its speed drives the animator.
  Robust, but the feet slide whenever the animation cannot match the velocity.
- `root_motion` (agent follows animation): the agent only simulates `next_position`; the animator is
  asked for the agent's planned velocity plus the offset from the character to the agent (in the
  character's frame, low-pass filtered with `smooth = min(1, dt / tau)`) closed over `feedforward_s`; the
  animator's root motion moves the character. Sharp turns are taken on the spot (`turn_in_place`) and
  about the planted foot (`pivot_turns`); the locomotor locks planted feet (`foot_lock`).
- the reference loop (`REFERENCE`, reference.md section 1): the filtered offset / dt is the velocity,
  and the character stands below 0.5 m/s. Under-damped at 60 Hz: speed overshoots and gaits flicker.
- the drift limit: when the agent and the character are farther apart than the agent radius, pull the
  agent toward the character (the default) or the character toward the agent.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

import numpy as np

from navigation.agent import NavAgent
from navigation.angles import wrap_angle
from npc_ai.animation import Animator, RootMotion
from npc_ai.body.character import Character
from npc_ai.errors import NpcAiError

REFERENCE_SHOULD_MOVE_SPEED = 0.5  # the reference's threshold under which the character stands [m/s]


class CouplingError(NpcAiError, ValueError):
    """A coupling mode or its settings are invalid."""


class DriftLimit(enum.Enum):
    """What the drift limit moves when agent and character drift apart by more than the agent radius."""

    NONE = "none"
    PULL_CHARACTER = "pull_character"  # move the character toward the agent
    PULL_AGENT = "pull_agent"  # move the agent's simulated position toward the character


@dataclass(frozen=True)
class CouplingSettings:
    """Settings of a coupling mode.

    Attributes:
        mode: "agent_drives" or "root_motion".
        tau: time constant of the low-pass filter on the agent-to-character offset [s, > 0]
            (root_motion only; the reference uses 0.15).
        drift_limit: what the drift limit moves (root_motion only). By default the agent is pulled back
            toward a body that was pushed or blocked, so the two never drift farther apart than the
            agent radius and the body is never teleported.
        drift_keep: after a pull, the drift left is `drift_keep * radius` [0 < x < 1]; 0.9 is the
            reference's factor when the drift has just crossed the radius.
        turn_rate_deg: how fast code turns the character to face its steering target [deg/s, > 0].
        max_speed_factor: the speed asked of the animator is capped at this times the agent's top speed
            [>= 1] (root_motion only).
        feedforward_s: None for the reference loop (velocity = filtered offset / dt, which is under-damped:
            damping ratio about 0.5 * sqrt(dt / tau), 0.17 at 60 Hz with tau 0.15 s, so speed overshoots at
            start-up and gaits flicker). A number [s, > 0] feeds the agent's own velocity forward and closes
            the filtered offset over that many seconds instead (root_motion only).
        speed_damping_s: time constant with which the animator's speed parameter follows the agent's
            speed under agent_drives [s, >= 0], as game animators damp their parameters (Unity's damped
            SetFloat, ALS's interpolation); 0 feeds the speed undamped. root_motion filters the agent
            offset with `tau` instead.
        should_move_speed: below this commanded speed the character stands still [m/s, >= 0]
            (root_motion only). The reference's 0.5 m/s holds the body while the agent pulls ahead, then
            the speed input jumps; 0.05 lets it start and stop smoothly.
        turn_in_place: scale the forward speed by the cosine of the heading error (0 beyond 90 degrees),
            so a sharp turn is taken on the spot instead of on a wide arc with sliding feet (root_motion).
        pivot_turns: when code turns the character while the animation has a foot planted, turn about
            that foot instead of about the root (the body moves on a small arc), so the turn does not drag
            the planted foot (root_motion; reads the feet of the pose, so simulations with
            `root_only_animation` leave it off).
        foot_lock: pin each foot the animation plants where it landed, with two-bone IK, and release it
            smoothly (`npc_ai.animation.foot_lock`; the locomotor applies it after physics). Costs a full
            skeleton pose per tick, so simulations with `root_only_animation` leave it off.
    """

    mode: str = "root_motion"
    tau: float = 0.15
    drift_limit: DriftLimit = DriftLimit.PULL_AGENT
    drift_keep: float = 0.9
    turn_rate_deg: float = 360.0
    max_speed_factor: float = 1.5
    speed_damping_s: float = 0.1
    feedforward_s: float | None = 0.3
    should_move_speed: float = 0.05
    turn_in_place: bool = True
    foot_lock: bool = True
    pivot_turns: bool = True

    def __post_init__(self) -> None:
        if self.mode not in ("agent_drives", "root_motion"):
            raise CouplingError(f"mode must be 'agent_drives' or 'root_motion', got {self.mode!r}")
        if not (isinstance(self.tau, int | float) and math.isfinite(self.tau) and self.tau > 0):
            raise CouplingError(f"tau must be a positive number of seconds, got {self.tau!r}")
        if not isinstance(self.drift_limit, DriftLimit):
            raise CouplingError(f"drift_limit must be a DriftLimit, got {self.drift_limit!r}")
        if not (math.isfinite(self.drift_keep) and 0 < self.drift_keep < 1):
            raise CouplingError(f"drift_keep must lie strictly between 0 and 1, got {self.drift_keep!r}")
        if not (math.isfinite(self.turn_rate_deg) and self.turn_rate_deg > 0):
            raise CouplingError(
                f"turn_rate_deg must be a positive number of deg/s, got {self.turn_rate_deg!r}"
            )
        if self.feedforward_s is not None and not (
            isinstance(self.feedforward_s, int | float)
            and math.isfinite(self.feedforward_s)
            and self.feedforward_s > 0
        ):
            raise CouplingError(
                f"feedforward_s must be None or a positive number of seconds, got {self.feedforward_s!r}"
            )
        if not (math.isfinite(self.speed_damping_s) and self.speed_damping_s >= 0):
            raise CouplingError(
                f"speed_damping_s must be a number of seconds >= 0, got {self.speed_damping_s!r}"
            )
        if not (
            isinstance(self.should_move_speed, int | float)
            and math.isfinite(self.should_move_speed)
            and self.should_move_speed >= 0
        ):
            raise CouplingError(
                f"should_move_speed must be a number of m/s >= 0, got {self.should_move_speed!r}"
            )
        for flag in ("turn_in_place", "foot_lock", "pivot_turns"):
            if not isinstance(getattr(self, flag), bool):
                raise CouplingError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        if not (math.isfinite(self.max_speed_factor) and self.max_speed_factor >= 1):
            raise CouplingError(f"max_speed_factor must be a number >= 1, got {self.max_speed_factor!r}")


# The reference loop (reference.md section 1): velocity = filtered offset / dt, 0.5 m/s threshold.
REFERENCE = CouplingSettings(
    mode="root_motion",
    drift_limit=DriftLimit.NONE,
    feedforward_s=None,
    should_move_speed=REFERENCE_SHOULD_MOVE_SPEED,
    turn_in_place=False,
    foot_lock=False,
    pivot_turns=False,
)

MODES: dict[str, CouplingSettings] = {
    "agent_drives": CouplingSettings(mode="agent_drives", foot_lock=False),  # the naive coupling
    "root_motion": CouplingSettings(mode="root_motion"),  # the default: drift limited by pulling the agent
    "root_motion_no_limit": CouplingSettings(mode="root_motion", drift_limit=DriftLimit.NONE),
    "root_motion_pull_character": CouplingSettings(mode="root_motion", drift_limit=DriftLimit.PULL_CHARACTER),
    "root_motion_reference": REFERENCE,
}


def horizontal(v: np.ndarray) -> np.ndarray:
    """The vector with its z set to 0."""
    out = np.array(v, dtype=np.float64)
    out[2] = 0.0
    return out


@dataclass
class CouplingState:
    """What a coupling remembers between ticks and reports for metrics.

    Attributes:
        smooth_delta: filtered agent offset in the character frame (right, forward) [m].
        velocity: filtered velocity fed to the animator (right, forward) [m/s].
        should_move: whether the character is walking this tick.
        pulls: how many times the drift limit acted.
        damped_speed: the animator's speed parameter under agent_drives [m/s].
        root_motion: this tick's root motion from the animator.
        command: the horizontal world velocity given to the body this tick [m/s].
    """

    smooth_delta: np.ndarray = field(default_factory=lambda: np.zeros(2))
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(2))
    should_move: bool = False
    pulls: int = 0
    root_motion: RootMotion | None = None
    damped_speed: float = 0.0
    command: np.ndarray = field(default_factory=lambda: np.zeros(2))


class Coupling:
    """One coupling mode applied to one character (agent + animator + body)."""

    def __init__(
        self, settings: CouplingSettings, agent: NavAgent, animator: Animator, character: Character
    ) -> None:
        self.settings = settings
        self.agent = agent
        self.animator = animator
        self.character = character
        self.state = CouplingState()
        root_follows = settings.mode == "root_motion"
        agent.update_position = False  # physics moves the body in every mode
        agent.update_rotation = not root_follows

    def before_physics(self, dt: float) -> None:
        """Advance agent and animator, then set the body's horizontal velocity for this tick."""
        if self.settings.mode == "agent_drives":
            self._agent_drives(dt)
        else:
            self._root_motion(dt)

    def free_move(self, speed: float, heading: float | None, dt: float) -> None:
        """Locomotion without a path (Wander): ask the animator for `speed` [m/s], turn toward `heading`
        [rad] (None keeps the facing), move the character by the root motion, and keep the agent on it."""
        c, s = self.character, self.settings
        if heading is not None:
            c.turn_toward(heading, math.radians(s.turn_rate_deg), dt)
        self.animator.set_speed(max(0.0, float(speed)))
        rm = self.animator.advance(dt)
        self.state.root_motion = rm
        self.state.should_move = speed > 0.0
        d = rm.delta_local
        step = c.forward * float(d[0]) - c.right * float(d[1])
        self._drive(float(step[0]) / dt, float(step[1]) / dt)
        self.agent.reset_path()

    def after_physics(self) -> None:
        """Tell the agent where physics put the character."""
        position = self.character.position
        self.agent.position = position
        if not self.agent.has_path:  # free movement: the agent rides along with the character
            self.agent.next_position = position
            return
        if self.settings.mode == "agent_drives":
            # a body blocked by physics (another character) must not leave its agent running away
            nxt = self.agent.next_position
            if math.hypot(nxt[0] - position[0], nxt[1] - position[1]) > self.agent.settings.radius:
                self.agent.next_position = position
        elif self.settings.drift_limit is DriftLimit.PULL_AGENT:
            # the step itself may have carried the body off (a shove, a crowd): limit at the tick's end too
            self._limit_drift(horizontal(self.agent.next_position - self.character.position))

    @property
    def drift(self) -> float:
        """Horizontal distance between the agent's simulated position and the character [m]."""
        return float(np.linalg.norm(horizontal(self.agent.next_position - self.character.position)))

    # -- modes -------------------------------------------------------------------------------------
    def _agent_drives(self, dt: float) -> None:
        a, c = self.agent, self.character
        nxt, position = a.update(dt), c.position
        self._drive(float(nxt[0] - position[0]) / dt, float(nxt[1] - position[1]) / dt)
        c.yaw = a.yaw
        damp = self.settings.speed_damping_s
        k = 1.0 if damp <= 0 else min(1.0, dt / damp)
        self.state.damped_speed += k * (a.speed - self.state.damped_speed)
        self.animator.set_speed(self.state.damped_speed)
        self.state.root_motion = self.animator.advance(dt)
        self.state.should_move = a.speed > 1e-3

    def _root_motion(self, dt: float) -> None:
        s, a, c, st = self.settings, self.agent, self.character, self.state
        a.update(dt)
        world_delta = horizontal(a.next_position - c.position)
        if s.drift_limit is not DriftLimit.NONE:
            world_delta = self._limit_drift(world_delta)
        local = np.array([float(c.right @ world_delta), float(c.forward @ world_delta)])
        smooth = min(1.0, dt / s.tau)
        st.smooth_delta = st.smooth_delta + smooth * (local - st.smooth_delta)
        if s.feedforward_s is None:  # the reference: the filtered offset per tick is the velocity
            st.velocity = st.smooth_delta / dt if dt > 1e-5 else np.zeros(2)
        else:  # the agent's planned velocity, plus the filtered offset closed over feedforward_s seconds
            v = horizontal(a.velocity)
            st.velocity = (
                np.array([float(c.right @ v), float(c.forward @ v)]) + st.smooth_delta / s.feedforward_s
            )
        # The blend space is 1-D (forward speed), so the animator gets the forward part of the velocity and
        # code turns the character toward the agent; capped so a large drift cannot ask for a sprint.
        forward_speed = min(max(0.0, float(st.velocity[1])), s.max_speed_factor * a.settings.speed)
        behind = a.remaining_distance + float(np.linalg.norm(world_delta))  # the character's distance to go
        st.should_move = (
            float(np.linalg.norm(st.velocity)) > s.should_move_speed and behind > a.settings.stopping_distance
        )
        # face the steering target (reference step 5), not the tiny agent offset, whose direction jitters
        to_target = horizontal(a.steering_target - c.position)
        pivot = np.zeros(3)
        if st.should_move and float(np.linalg.norm(to_target)) > 0.05:
            heading = math.atan2(to_target[1], to_target[0])
            before = c.yaw
            turned = c.turn_toward(heading, math.radians(s.turn_rate_deg), dt)
            if s.pivot_turns and turned != 0.0:
                pivot = self._pivot_offset(before, c.yaw)
            if s.turn_in_place:  # a sharp turn is taken mostly on the spot, as people do
                forward_speed *= max(0.0, math.cos(wrap_angle(heading - c.yaw)))
        self.animator.set_speed(forward_speed if st.should_move else 0.0)
        rm = self.animator.advance(dt)
        st.root_motion = rm
        d = rm.delta_local  # character frame: x forward, y left
        step = c.forward * float(d[0]) - c.right * float(d[1]) + pivot
        self._drive(float(step[0]) / dt, float(step[1]) / dt)

    def _pivot_offset(self, yaw_before: float, yaw_after: float) -> np.ndarray:
        """The body displacement [m] that keeps the most planted foot (weight >= 0.5) where it is while
        the facing turns from `yaw_before` to `yaw_after` [rad]; zero when no foot is planted."""
        planted = self.animator.planted()
        foot = int(np.argmax(planted))
        if planted[foot] < 0.5:
            return np.zeros(3)
        f = self.animator.foot_positions()[foot]
        c0, s0, c1, s1 = math.cos(yaw_before), math.sin(yaw_before), math.cos(yaw_after), math.sin(yaw_after)
        before = np.array([c0 * f[0] - s0 * f[1], s0 * f[0] + c0 * f[1], 0.0])
        after = np.array([c1 * f[0] - s1 * f[1], s1 * f[0] + c1 * f[1], 0.0])
        return before - after

    def _drive(self, vx: float, vy: float) -> None:
        """Give the body its horizontal velocity [m/s] for this tick and remember it."""
        self.character.set_horizontal_velocity(vx, vy)
        self.state.command = np.array([vx, vy])

    def _limit_drift(self, world_delta: np.ndarray) -> np.ndarray:
        a, c, s = self.agent, self.character, self.settings
        r = a.settings.radius
        dist = float(np.linalg.norm(world_delta))
        if dist <= r:
            return world_delta
        kept = world_delta * (s.drift_keep * r / dist)
        self.state.pulls += 1
        if s.drift_limit is DriftLimit.PULL_CHARACTER:
            target = a.next_position - kept
            target[2] = c.position[2]
            c.teleport(target)
        else:
            a.next_position = c.position + kept
        return horizontal(a.next_position - c.position)
