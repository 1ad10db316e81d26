"""One validated settings object per NPC archetype, loadable from a scene's `[archetype.NAME]` table.

The defaults are the seed's enemy: wander at walking speed or stand (re-chosen every 5-10 s), box-cast for
obstacles on a timer and turn away by 45-110 degrees, notice the player inside a 60 degree half-angle cone,
stop and aim, chase the last seen position at running speed.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from npc_ai.errors import NpcAiError


class BehaviourSettingsError(NpcAiError, ValueError):
    """A behaviour setting is out of range or of the wrong type.

    Attributes:
        key: the setting's name, or its key path `archetype.NAME.KEY` when read from a scene.
        problem: what is wrong and how to fix it.
        source: the scene file (or built-in scene) the table came from, "" when built in code.
    """

    def __init__(self, key: str, problem: str, source: str = "") -> None:
        self.key = key
        self.problem = problem
        self.source = source
        super().__init__(": ".join(part for part in (source, key, problem) if part))


# name -> (low, high, low inclusive, unit); None: unbounded on that side
_LIMITS: dict[str, tuple[float | None, float | None, bool, str]] = {
    "walk_speed": (0.0, 10.0, False, "m/s"),
    "run_speed": (0.0, 15.0, False, "m/s"),
    "move_probability": (0.0, 1.0, True, "probability"),
    "speed_change_min_s": (0.0, None, False, "s"),
    "speed_change_max_s": (0.0, None, False, "s"),
    "speed_smoothing_s": (0.0, None, True, "s"),
    "turn_rate_deg": (0.0, 3600.0, False, "deg/s"),
    "probe_interval_s": (0.0, 5.0, False, "s"),
    "probe_range": (0.0, 100.0, False, "m"),
    "obstacle_range": (0.0, 100.0, False, "m"),
    "stop_gap": (0.0, 10.0, True, "m"),
    "probe_skin": (0.0, 2.0, True, "m"),
    "turn_min_deg": (0.0, 180.0, True, "deg"),
    "turn_max_deg": (0.0, 180.0, True, "deg"),
    "sight_radius": (0.0, 1000.0, False, "m"),
    "lose_sight_radius": (0.0, 1000.0, False, "m"),
    "half_angle_deg": (0.0, 180.0, False, "deg"),
    "eye_height": (0.0, 5.0, False, "m"),
    "perception_period_s": (0.0, 5.0, False, "s"),
    "aim_turn_rate_deg": (0.0, 3600.0, False, "deg/s"),
    "stop_speed": (0.0, 5.0, False, "m/s"),
    "aim_tolerance_deg": (0.0, 180.0, False, "deg"),
    "reaction_time_s": (0.0, 60.0, True, "s"),
    "shoot_cooldown_s": (0.0, 600.0, False, "s"),
    "shot_duration_s": (0.0, 10.0, False, "s"),
    "shoot_range": (0.0, 1000.0, False, "m"),
    "shot_spread_deg": (0.0, 45.0, True, "deg"),
    "search_duration_s": (0.0, 600.0, True, "s"),
    "search_turn_rate_deg": (0.0, 3600.0, False, "deg/s"),
    "chase_timeout_s": (0.0, 3600.0, False, "s"),
    "stuck_timeout_s": (0.0, 60.0, False, "s"),
    "crowd_radius": (0.0, 100.0, True, "m"),
    "memory_expiry_s": (0.0, 86400.0, False, "s"),
    "hearing_range": (0.0, 1000.0, True, "m"),
    "alert_radius": (0.0, 1000.0, True, "m"),
    "alert_cooldown_s": (0.0, 600.0, True, "s"),
    "lose_sight_margin_deg": (0.0, 90.0, True, "deg"),
    "lose_after_s": (0.0, 10.0, True, "s"),
    "detection_time_s": (0.0, 60.0, True, "s"),
    "suspicion_decay_s": (0.0, 600.0, False, "s"),
    "suspicious_level": (0.0, 1.0, False, "share of the meter"),
    "investigate_level": (0.0, 1.0, False, "share of the meter"),
    "central_angle_deg": (0.0, 180.0, True, "deg"),
    "peripheral_factor": (0.0, 1.0, True, "factor"),
    "range_factor": (0.0, 1.0, True, "factor"),
    "still_factor": (0.0, 1.0, True, "factor"),
    "crouch_factor": (0.0, 1.0, True, "factor"),
    "look_s": (0.0, 60.0, True, "s"),
    "occluded_hearing_factor": (0.0, 1.0, True, "factor"),
    "shot_loudness": (0.0, 100.0, True, "loudness"),
    "impact_loudness": (0.0, 100.0, True, "loudness"),
    "shout_loudness": (0.0, 100.0, True, "loudness"),
    "search_points": (0.0, 16.0, True, "points"),
    "search_radius": (0.0, 100.0, False, "m"),
    "cover_s": (0.0, 600.0, True, "s"),
    "cover_radius": (0.0, 100.0, False, "m"),
    "under_fire_radius": (0.0, 20.0, True, "m"),
}
_FLAGS = ("patrol", "radio", "cover")  # the settings that are true or false


@dataclass(frozen=True)
class BehaviourSettings:
    """How one archetype of NPC behaves. Every field can be set in a scene's `[archetype.NAME]` table.

    Attributes:
        walk_speed: wander / patrol / investigate speed [m/s, > 0]; the walk clip's 0.98 by default.
        run_speed: chase speed [m/s, > 0]; the run clip's 3.56 by default.
        move_probability: chance that a wander speed pick is `walk_speed` rather than 0 [0..1].
        speed_change_min_s, speed_change_max_s: a new wander target speed every uniform(min, max) s
            [s, 0 < min <= max].
        speed_smoothing_s: time constant with which the current speed follows the target speed [s, >= 0].
        turn_rate_deg: angular smoothing of wander turns: the largest turn rate [deg/s, > 0].
        probe_interval_s: obstacle detection timer while moving [s, > 0].
        probe_range: maximum range of the forward obstacle box cast [m, > 0].
        obstacle_range: an obstacle nearer than this makes the NPC turn away [m, 0 < x <= probe_range].
        stop_gap: the wander speed falls linearly to 0 as the free gap ahead shrinks from obstacle_range
            to this [m, 0 <= x < obstacle_range], so a turn never carries the body into a wall.
        probe_skin: the cast box is the body's width plus this on each side [m, >= 0].
        turn_min_deg, turn_max_deg: a turn away from an obstacle is uniform in [min, max] degrees
            [deg, 0 <= min <= max <= 180].
        sight_radius: distance at which the player is first noticed [m, > 0].
        lose_sight_radius: distance at which a seen player is lost [m, >= sight_radius].
        half_angle_deg: half of the view cone, from forward [deg, 0 < x <= 180].
        eye_height: eye height above the feet [m, > 0].
        perception_period_s: sight runs on a staggered timer of this period [s, > 0].
        aim_turn_rate_deg: turn rate while aiming and searching at the player [deg/s, > 0].
        stop_speed: below this body speed the NPC counts as stopped [m/s, > 0].
        aim_tolerance_deg: shoot only when facing the player within this [deg, > 0].
        reaction_time_s: line of sight must have held this long before a shot [s, >= 0].
        shoot_cooldown_s: shortest time between two shots [s, > 0].
        shot_duration_s: how long the Shoot state holds before returning to Aim [s, > 0].
        shoot_range: length of the hit-scan ray [m, > 0].
        shot_spread_deg: a shot's direction is perturbed by up to this (uniform, seeded) [deg, >= 0].
        search_duration_s: how long to look around at the last known position, or the time budget of a
            search route [s, >= 0].
        search_points: a search walks a route of up to this many navmesh points chosen to see the most
            of the area within `search_radius` of the last known position (`npc_ai.behaviour.search`;
            searchers near one position share the points) [integer 0..16; 0 = look around where the
            player was last known, as the seed].
        search_radius: the area a search route covers [m, > 0].
        cover: under fire (a shot that hits it or passes within `under_fire_radius`), the NPC runs to the
            nearest navmesh point within `cover_radius` that hides it from the shooter (`npc_ai.behaviour.
            cover`) and holds it, facing the shooter, for `cover_s` before it fights on.
        cover_s: how long it holds cover [s, >= 0]. cover_radius: how far it looks for cover [m, > 0].
        under_fire_radius: a shot passing this close counts as fire at it [m, >= 0].
        search_turn_rate_deg: turn rate while looking around [deg/s, > 0].
        chase_timeout_s: give up a chase (or investigation) that takes longer than this [s, > 0].
        stuck_timeout_s: an NPC on a path (Patrol, Chase, Investigate) whose feet have not moved 0.3 m for
            this long is stuck (a crowd, a shove): a patrol goes on to its next waypoint; a pursuer
            within `crowd_radius` of its goal has arrived (others stand there); farther, it plans again
            once if it was knocked off its path (its body more than the agent radius from its agent),
            and otherwise, or after that, gives up and searches where it is [s, > 0].
        crowd_radius: how close to its goal a stuck pursuer counts as arrived [m, >= 0].
        memory_expiry_s: a last known position older than this is forgotten [s, > 0].
        hearing_range: a noise of loudness L is heard within hearing_range * L [m, >= 0; 0 = deaf].
        occluded_hearing_factor: a noise with a wall between it and the NPC is heard within this share of
            its open range (`npc_ai.behaviour.hearing`) [0..1].
        shot_loudness: the loudness of this NPC's shots, heard at its feet [>= 0; 0 = silent].
        impact_loudness: the loudness of where its shot strikes [>= 0; 0 = silent].
        alert_radius: a sighting is shouted to allies within this distance that see the shouter or hear
            the shout [m, >= 0; 0 = no shouts].
        shout_loudness: the shout's loudness: heard within `hearing_range * shout_loudness` of an ally in
            the open, `occluded_hearing_factor` of that through a wall [>= 0].
        radio: alerts go by radio instead: every ally learns of a sighting, at any distance.
        alert_cooldown_s: an NPC alerts its allies at most once per this many seconds, so a player
            who ducks in and out of view does not flood the radio [s, >= 0].
        lose_sight_margin_deg: while an NPC sees the player its cone is this much wider, so a player at
            the cone's edge is not spotted and lost by turns [deg, 0..90].
        lose_after_s: a seen player must stay unseen this long before the NPC reports "lost" (a glimpse
            lost for a moment is no loss) [s, 0..10; 0 = at once, as the seed].
        detection_time_s: gradual detection: the time a suspicion meter takes to fill for the most visible
            target (point blank, in central vision, running, standing up); less visible targets take
            longer (`npc_ai.behaviour.suspicion` gives the rule) [s, 0..60; 0 = instant detection, the
            seed's: seen means hostile].
        suspicion_decay_s: an unseen target's full meter empties in this long [s, > 0].
        suspicious_level: the meter level at which the NPC stops and looks toward the target for
            `look_s` [0 < x <= investigate_level].
        investigate_level: the level at which it goes to investigate where it saw the target
            [suspicious_level <= x < 1]; a full meter (1) is hostile: Aim / Chase.
        central_angle_deg: central vision: within this angle of the view direction the meter fills at
            full rate [deg, >= 0].
        peripheral_factor: at the edge of the cone the rate is this share of the central rate (linear in
            between) [0..1].
        range_factor: at the sight radius the rate is this share of the rate at point blank (linear in
            between) [0..1].
        still_factor: a target standing still fills the meter at this share of the rate of one moving
            at the NPC's `run_speed` or faster (linear in between) [0..1].
        crouch_factor: a crouching target fills it at this share of the rate of one standing up [0..1].
        look_s: a suspicious NPC stands and looks this long after its last glimpse [s, >= 0].
        patrol: follow the spawn's patrol route (when it has one) instead of wandering.

    Alerts carry the last known position and when it was seen (the ally's memory has its age).
    """

    walk_speed: float = 0.98
    run_speed: float = 3.56
    move_probability: float = 0.5
    speed_change_min_s: float = 5.0
    speed_change_max_s: float = 10.0
    speed_smoothing_s: float = 0.4
    turn_rate_deg: float = 120.0
    probe_interval_s: float = 0.1
    probe_range: float = 4.0
    obstacle_range: float = 1.5
    stop_gap: float = 0.3
    probe_skin: float = 0.1
    turn_min_deg: float = 45.0
    turn_max_deg: float = 110.0
    sight_radius: float = 15.0
    lose_sight_radius: float = 20.0
    half_angle_deg: float = 60.0
    eye_height: float = 1.6
    perception_period_s: float = 0.1
    aim_turn_rate_deg: float = 240.0
    stop_speed: float = 0.1
    aim_tolerance_deg: float = 5.0
    reaction_time_s: float = 0.5
    shoot_cooldown_s: float = 1.0
    shot_duration_s: float = 0.2
    shoot_range: float = 40.0
    shot_spread_deg: float = 1.0
    search_duration_s: float = 4.0
    search_turn_rate_deg: float = 90.0
    chase_timeout_s: float = 30.0
    stuck_timeout_s: float = 1.0
    crowd_radius: float = 3.0
    memory_expiry_s: float = 30.0
    hearing_range: float = 12.0
    alert_radius: float = 12.0
    alert_cooldown_s: float = 3.0
    lose_sight_margin_deg: float = 10.0
    lose_after_s: float = 0.3
    detection_time_s: float = 0.0
    suspicion_decay_s: float = 5.0
    suspicious_level: float = 0.25
    investigate_level: float = 0.6
    central_angle_deg: float = 20.0
    peripheral_factor: float = 0.3
    range_factor: float = 0.25
    still_factor: float = 0.6
    crouch_factor: float = 0.5
    look_s: float = 2.0
    occluded_hearing_factor: float = 0.5
    shot_loudness: float = 3.0
    impact_loudness: float = 1.0
    shout_loudness: float = 1.0
    search_points: float = 0.0
    search_radius: float = 15.0
    cover: bool = False
    cover_s: float = 3.0
    cover_radius: float = 10.0
    under_fire_radius: float = 1.5
    radio: bool = False
    patrol: bool = True

    def __post_init__(self) -> None:
        for name, (lo, hi, lo_inclusive, unit) in _LIMITS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise BehaviourSettingsError(name, f"must be a finite number [{unit}], got {value!r}")
            too_low = lo is not None and (value < lo if lo_inclusive else value <= lo)
            too_high = hi is not None and value > hi
            if too_low or too_high:
                low = "" if lo is None else (f">= {lo:g}" if lo_inclusive else f"> {lo:g}")
                high = "" if hi is None else f"<= {hi:g}"
                bounds = " and ".join(b for b in (low, high) if b)
                raise BehaviourSettingsError(name, f"must be {bounds} [{unit}], got {value!r}")
        for flag in _FLAGS:
            if not isinstance(getattr(self, flag), bool):
                raise BehaviourSettingsError(flag, f"must be true or false, got {getattr(self, flag)!r}")
        pairs = (
            ("lose_sight_radius", "sight_radius", ">="),
            ("speed_change_max_s", "speed_change_min_s", ">="),
            ("turn_max_deg", "turn_min_deg", ">="),
            ("probe_range", "obstacle_range", ">="),
            ("investigate_level", "suspicious_level", ">="),
        )
        for big, small, rel in pairs:
            if getattr(self, big) < getattr(self, small):
                raise BehaviourSettingsError(
                    big, f"must be {rel} {small} ({getattr(self, small)!r}), got {getattr(self, big)!r}"
                )
        if self.search_points != int(self.search_points):
            raise BehaviourSettingsError(
                "search_points", f"must be a whole number, got {self.search_points!r}"
            )
        if self.investigate_level >= 1.0:
            raise BehaviourSettingsError(
                "investigate_level", f"must be < 1 (a full meter is hostile), got {self.investigate_level!r}"
            )
        if self.stop_gap >= self.obstacle_range:
            raise BehaviourSettingsError(
                "stop_gap", f"must be < obstacle_range ({self.obstacle_range!r}), got {self.stop_gap!r}"
            )

    @property
    def cos_half_angle(self) -> float:
        return math.cos(math.radians(self.half_angle_deg))

    @property
    def cos_lose_half_angle(self) -> float:
        """Cosine of the half angle of the cone while the NPC sees the player (the margin added)."""
        return math.cos(math.radians(min(180.0, self.half_angle_deg + self.lose_sight_margin_deg)))

    @classmethod
    def from_table(
        cls, table: dict[str, Any], *, source: str = "", name: str = "default"
    ) -> BehaviourSettings:
        """Settings from the raw scalars of an `[archetype.NAME]` table (missing keys keep the defaults).

        Raises:
            BehaviourSettingsError: `source: archetype.NAME.KEY: problem` for an unknown key or a bad value.
        """
        known = {f.name: f for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for key, value in table.items():
            where = f"archetype.{name}.{key}"
            if key not in known:
                raise BehaviourSettingsError(
                    where, f"unknown behaviour setting; known: {', '.join(sorted(known))}", source
                )
            if key in _FLAGS:
                if not isinstance(value, bool):
                    raise BehaviourSettingsError(where, f"must be true or false, got {value!r}", source)
            elif isinstance(value, bool) or not isinstance(value, int | float):
                raise BehaviourSettingsError(where, f"must be a number, got {value!r}", source)
            values[key] = value if key in _FLAGS else float(value)
        try:
            return cls(**values)
        except BehaviourSettingsError as exc:
            raise BehaviourSettingsError(f"archetype.{name}.{exc.key}", exc.problem, source) from None

    @classmethod
    def for_archetype(cls, scene: Any, name: str) -> BehaviourSettings:
        """The settings of archetype `name` of `scene` (defaults for "default" or an empty table)."""
        return cls.from_table(scene.archetype(name), source=scene.source or scene.name, name=name)
