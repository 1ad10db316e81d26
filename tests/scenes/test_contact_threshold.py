"""The contact threshold: how fast capsules whose velocities code sets every tick may close and still stop at
the touch."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scenes import World, WorldSettings, WorldSettingsError, parse_scene

FLOOR = """
[scene]
name = "floor"
[floor]
size = [30.0, 30.0]
"""
RADIUS = 0.4  # the warehouse NPCs' capsules [m]
RUN = 3.56  # [m/s] an NPC's run speed


def _closest(settings: WorldSettings, b_velocity: tuple[float, float], b_start: tuple[float, float]) -> float:
    """Capsule A runs along +x at `RUN` from the origin, capsule B from `b_start` at `b_velocity` [m/s],
    both set every tick as the coupling sets them, for 1.5 s: the smallest gap between them [m] (< 0:
    one inside the other), the worst of five runs with B's start moved back by fifths of a tick's move
    (how deep a body gets depends on the gap left one step before the contact)."""
    return min(_run(settings, b_velocity, b_start, k / 5) for k in range(5))


def _run(
    settings: WorldSettings, b_velocity: tuple[float, float], b_start: tuple[float, float], share: float
) -> float:
    with World(parse_scene(FLOOR), settings=settings) as w:
        back = share * settings.dt
        a = w.add_capsule((0.0, 0.0, 0.0), radius=RADIUS)
        b = w.add_capsule(
            (b_start[0] - back * b_velocity[0], b_start[1] - back * b_velocity[1], 0.0), radius=RADIUS
        )
        rows = [w.poses.index(a), w.poses.index(b)]
        closest = math.inf
        for _ in range(90):
            for body, row, (vx, vy) in ((a, rows[0], (RUN, 0.0)), (b, rows[1], b_velocity)):
                w.set_velocity(body, (vx, vy, float(w.poses.velocities[row, 2])), yaw_rate=0.0)
            w.step()
            p = w.poses.positions[rows, :2]
            closest = min(closest, float(np.hypot(*(p[0] - p[1]))) - 2 * RADIUS)
        return closest


HEAD_ON = ((-RUN, 0.0), (4.0, 0.0))  # two runners meeting: 7.1 m/s closing
FLANK = ((0.0, -RUN), (2.5, 2.5))  # one running into the other's side (the chase's overlaps)


@pytest.mark.parametrize("velocity, start", [HEAD_ON, FLANK], ids=["head-on", "flank"])
def test_a_threshold_above_a_steps_closing_keeps_running_capsules_apart(
    velocity: tuple[float, float], start: tuple[float, float]
) -> None:
    """0.15 m: more than the 11.9 cm two runners close in a tick, within a centimetre of touching."""
    assert _closest(WorldSettings(contact_threshold=0.15), velocity, start) > -0.01


@pytest.mark.parametrize("velocity, start", [HEAD_ON, FLANK], ids=["head-on", "flank"])
def test_with_bullets_own_threshold_they_run_into_each_other(
    velocity: tuple[float, float], start: tuple[float, float]
) -> None:
    """The same runs with Bullet's 0.02 m: the contact comes a step too late."""
    assert _closest(WorldSettings(contact_threshold=0.02), velocity, start) < -0.02


@pytest.mark.parametrize("bad", [0.0, -0.1, 1.5, math.nan, math.inf, "0.1", True])
def test_contact_threshold_is_validated(bad: object) -> None:
    with pytest.raises(WorldSettingsError, match="contact_threshold"):
        WorldSettings(contact_threshold=bad)  # type: ignore[arg-type]
