"""Archetype settings: validation, loading from `[archetype.NAME]` tables, exact error messages."""

from __future__ import annotations

import pytest

from npc_ai.behaviour import BehaviourSettings, BehaviourSettingsError
from scenes import parse_scene

SCENE = """
[scene]
name = "t"
[floor]
size = [10.0, 10.0]
[archetype.sniper]
{body}
[[npc]]
position = [0.0, 0.0, 0.0]
archetype = "sniper"
"""


def test_defaults_are_the_seed() -> None:
    s = BehaviourSettings()
    assert (s.speed_change_min_s, s.speed_change_max_s) == (5.0, 10.0)
    assert (s.turn_min_deg, s.turn_max_deg) == (45.0, 110.0)
    assert s.walk_speed == 0.98 and s.run_speed == 3.56
    assert s.lose_sight_radius > s.sight_radius


def test_loaded_from_the_scene_file() -> None:
    scene = parse_scene(
        SCENE.format(body="sight_radius = 30\nlose_sight_radius = 40.0\npatrol = false"), source="t.toml"
    )
    s = BehaviourSettings.for_archetype(scene, "sniper")
    assert (s.sight_radius, s.lose_sight_radius, s.patrol) == (30.0, 40.0, False)
    assert BehaviourSettings.for_archetype(scene, "default") == BehaviourSettings()


@pytest.mark.parametrize(
    "body, message",
    [
        (
            "sight_radius = -1.0",
            r"t\.toml: archetype\.sniper\.sight_radius: must be > 0 and <= 1000 \[m\], got -1\.0",
        ),
        ("eyes = 2.0", r"t\.toml: archetype\.sniper\.eyes: unknown behaviour setting; known: .*sight_radius"),
        ('walk_speed = "fast"', r"archetype\.sniper\.walk_speed: must be a number, got 'fast'"),
        ("walk_speed = true", r"archetype\.sniper\.walk_speed: must be a number, got True"),
        ("patrol = 1", r"archetype\.sniper\.patrol: must be true or false, got 1"),
        (
            "sight_radius = 25.0",
            r"archetype\.sniper\.lose_sight_radius: must be >= sight_radius \(25\.0\), got 20\.0",
        ),
        ("turn_min_deg = 120.0", r"archetype\.sniper\.turn_max_deg: must be >= turn_min_deg"),
        (
            "half_angle_deg = 0.0",
            r"archetype\.sniper\.half_angle_deg: must be > 0 and <= 180 \[deg\], got 0\.0",
        ),
        ("move_probability = 1.5", r"archetype\.sniper\.move_probability: must be >= 0 and <= 1"),
        ("stop_gap = 2.0", r"archetype\.sniper\.stop_gap: must be < obstacle_range \(1\.5\), got 2\.0"),
        (
            "stuck_timeout_s = 0.0",
            r"archetype\.sniper\.stuck_timeout_s: must be > 0 and <= 60 \[s\], got 0\.0",
        ),
        ("crowd_radius = -1.0", r"archetype\.sniper\.crowd_radius: must be >= 0 and <= 100 \[m\], got -1\.0"),
    ],
)
def test_malformed_archetype(body: str, message: str) -> None:
    scene = parse_scene(SCENE.format(body=body), source="t.toml")
    with pytest.raises(BehaviourSettingsError, match=message) as info:
        BehaviourSettings.for_archetype(scene, "sniper")
    assert info.value.source == "t.toml"
    assert info.value.key.startswith("archetype.sniper.")


def test_direct_construction_raises_a_typed_error() -> None:
    with pytest.raises(BehaviourSettingsError, match="reaction_time_s: must be >= 0") as info:
        BehaviourSettings(reaction_time_s=-0.1)
    assert info.value.key == "reaction_time_s"
    with pytest.raises(BehaviourSettingsError, match="must be a finite number"):
        BehaviourSettings(hearing_range=float("nan"))


def test_simulation_rejects_a_bad_archetype_before_spawning() -> None:
    from npc_ai.sim.simulation import Simulation, SimulationSettings

    scene = parse_scene(SCENE.format(body="shoot_cooldown_s = 0"), source="t.toml")
    with pytest.raises(BehaviourSettingsError, match=r"archetype\.sniper\.shoot_cooldown_s: must be > 0"):
        Simulation(scene, settings=SimulationSettings(player=None, use_cache=False))
