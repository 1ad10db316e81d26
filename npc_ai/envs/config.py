"""What an environment simulates: the validated settings, and `reset(options=...)` applied on top of them.

Units: metres, seconds, radians (names ending in `_deg` are degrees).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from npc_ai.envs.errors import EnvOptionsError
from npc_ai.errors import NpcAiError
from scenes import Scene, SceneError

# difficulty -> behaviour settings applied to every scripted guard (on top of the scene's archetype)
DIFFICULTIES: dict[str, dict[str, float]] = {
    "easy": {"sight_radius": 10.0, "half_angle_deg": 45.0, "reaction_time_s": 1.0, "shot_spread_deg": 4.0},
    "normal": {},
    "hard": {"sight_radius": 20.0, "half_angle_deg": 75.0, "reaction_time_s": 0.25, "shot_spread_deg": 0.5},
}
OPTION_KEYS = ("scene", "guards", "difficulty")


@dataclass(frozen=True)
class EnvConfig:
    """The settings of one environment.

    Attributes:
        scene: a built-in scene name ("arena", "warehouse", "compound", "monastery"), a `.toml` scene file,
            a MovingAI `.map` file, or a `scenes.Scene`.
        guards: how many guards [0..max_guards]; None = the scene's own NPC spawns (capped at max_guards).
        max_guards: guard slots in the observation (and PettingZoo's `possible_agents`) [>= 1].
        difficulty: "easy", "normal" (the scene's archetypes) or "hard" (see `DIFFICULTIES`); applies to the
            scripted guards (a learning guard keeps the scene's senses).
        tick_hz: physics and behaviour ticks per simulated second [10..600].
        frame_skip: ticks per env step (the action is held for all of them) [>= 1].
        time_limit_s: an episode is truncated after this much simulated time [s, > 0].
        rays: egocentric scan rays per agent, evenly spread over 360 degrees, ray 0 straight ahead [>= 1].
        ray_range: length of a scan ray [m, > 0].
        ray_height: scan rays are cast this high above the feet [m, > 0].
        sight_range: the learning player notices guards within this distance [m, > 0].
        sight_half_angle_deg: ... and within this half angle of its facing [deg, 0..180].
        goals: goal points the player must reach in turn (Stealth; the PettingZoo player) [>= 1].
        goal_radius: a goal counts as reached within this horizontal distance [m, > 0].
        goal_min_distance: goals are drawn at least this far (straight line) from the previous point [m].
        hits_to_catch: the player is caught after this many hits [>= 1].
        catch_radius: ... or when a guard that sees it comes this close [m, >= 0; 0 = never].
        action_type: "continuous" (Box: speed, turn rate in [-1, 1]) or "discrete" (9 actions).
        cell_size: cell edge for MovingAI maps [m, > 0].
        bodies: the guards' bodies, `SimulationSettings.bodies`: "dynamic" (capsules physics pushes) or
            "kinematic" (capsules root motion moves on the navmesh; cheaper ticks, see README).
    """

    scene: str | Path | Scene = "arena"
    guards: int | None = 3
    max_guards: int = 8
    difficulty: str = "normal"
    tick_hz: float = 60.0
    frame_skip: int = 4
    time_limit_s: float = 60.0
    rays: int = 16
    ray_range: float = 10.0
    ray_height: float = 0.6
    sight_range: float = 30.0
    sight_half_angle_deg: float = 100.0
    goals: int = 2
    goal_radius: float = 1.0
    goal_min_distance: float = 8.0
    hits_to_catch: int = 3
    catch_radius: float = 1.0
    action_type: str = "continuous"
    cell_size: float = 1.0
    bodies: str = "dynamic"

    def __post_init__(self) -> None:
        if not isinstance(self.scene, str | Path | Scene):
            raise EnvOptionsError(f"scene must be a scene name, a file path or a Scene, got {self.scene!r}")
        _int(self.max_guards, "max_guards", 1, 256)
        if self.guards is not None:
            _int(self.guards, "guards", 0, self.max_guards)
        if self.difficulty not in DIFFICULTIES:
            raise EnvOptionsError(
                f"difficulty must be one of {', '.join(DIFFICULTIES)}, got {self.difficulty!r}"
            )
        _num(self.tick_hz, "tick_hz", 10.0, 600.0)
        _int(self.frame_skip, "frame_skip", 1, 10_000)
        _num(self.time_limit_s, "time_limit_s", 1e-3, 1e6)
        _int(self.rays, "rays", 1, 1024)
        _num(self.ray_range, "ray_range", 0.1, 1000.0)
        _num(self.ray_height, "ray_height", 0.05, 5.0)
        _num(self.sight_range, "sight_range", 0.1, 1000.0)
        _num(self.sight_half_angle_deg, "sight_half_angle_deg", 0.0, 180.0)
        _int(self.goals, "goals", 1, 1000)
        _num(self.goal_radius, "goal_radius", 0.05, 100.0)
        _num(self.goal_min_distance, "goal_min_distance", 0.0, 1000.0)
        _int(self.hits_to_catch, "hits_to_catch", 1, 1000)
        _num(self.catch_radius, "catch_radius", 0.0, 100.0)
        if self.action_type not in ("continuous", "discrete"):
            raise EnvOptionsError(f"action_type must be 'continuous' or 'discrete', got {self.action_type!r}")
        _num(self.cell_size, "cell_size", 1e-3, 100.0)
        if self.bodies not in ("dynamic", "kinematic"):
            raise EnvOptionsError(f"bodies must be 'dynamic' or 'kinematic', got {self.bodies!r}")

    @property
    def dt(self) -> float:
        """One tick [s]."""
        return 1.0 / self.tick_hz

    @property
    def step_s(self) -> float:
        """One env step [s]."""
        return self.frame_skip / self.tick_hz

    @property
    def max_steps(self) -> int:
        """Env steps before truncation."""
        return max(1, math.ceil(self.time_limit_s / self.step_s - 1e-9))

    def with_options(self, options: Mapping[str, Any] | None, *, ignore: tuple[str, ...] = ()) -> EnvConfig:
        """This config with a `reset(options=...)` applied: "scene", "guards" (int >= 0, or None for the
        scene's spawns) and "difficulty".

        Args:
            ignore: keys accepted and ignored (guards_v0 ignores "options": PettingZoo's API test probes
                `reset(options={"options": 1})`).
        Raises:
            EnvOptionsError: options that are not a mapping, an unknown key (a typo would otherwise be
                silently ignored), or a bad value for a known key.
        """
        if options is None:
            return self
        if not isinstance(options, Mapping):
            raise EnvOptionsError(f"options must be a dict, got {type(options).__name__}")
        unknown = [k for k in options if k not in OPTION_KEYS and k not in ignore]
        if unknown:
            raise EnvOptionsError(
                f"unknown reset option(s) {', '.join(map(repr, unknown))}; known: {', '.join(OPTION_KEYS)}"
            )
        changes = {k: options[k] for k in OPTION_KEYS if k in options}
        if not changes:
            return self
        return dataclasses.replace(self, **changes)


def _int(value: object, name: str, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EnvOptionsError(f"{name} must be an integer in {low}..{high}, got {value!r}")


def _num(value: object, name: str, low: float, high: float) -> None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not (ok and low <= value <= high):  # type: ignore[operator]
        raise EnvOptionsError(f"{name} must be a number in [{low:g}, {high:g}], got {value!r}")


def load_scene(config: EnvConfig) -> Scene:
    """The config's scene, loaded the way the CLI loads one (`npc_ai.levels.load_level`).

    Raises:
        EnvOptionsError: an unknown scene name, a missing or malformed file (the cause is chained).
    """
    if isinstance(config.scene, Scene):
        return config.scene
    from navigation import NavigationError
    from npc_ai.levels import load_level

    try:
        return load_level(config.scene, cell_size=config.cell_size)
    except (SceneError, NavigationError, NpcAiError, OSError) as exc:
        raise EnvOptionsError(f"cannot load scene {config.scene!r}: {exc}") from exc
