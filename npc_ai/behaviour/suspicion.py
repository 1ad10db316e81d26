"""Gradual detection: a suspicion meter per NPC that fills while it sees the player and empties while it
does not, with three thresholds (Unreal's AI perception and stealth games build detection up over time).

The meter is a number in [0, 1]. On each of its perception ticks an NPC that sees the player (inside its
cone and sight radius, line of sight clear) adds `rate * dt` to it, `dt` being the time since its last
look [s]; one that does not takes `dt / suspicion_decay_s` off it. The rate [1/s] is

    rate = range * angle * motion * stance / detection_time_s

    range  = 1 - (1 - range_factor) * min(1, distance / sight_radius)       (point blank 1, the radius
             range_factor)
    angle  = 1 within central_angle_deg of the view direction, falling linearly to peripheral_factor at
             the cone's edge (half_angle_deg)
    motion = still_factor + (1 - still_factor) * min(1, target speed / run_speed)   (a runner is seen
             sooner than someone standing still)
    stance = crouch_factor when the player crouches, else 1

so a target in plain view (central, distance d, standing) is hostile after
`detection_time_s / (range(d) * still_factor)` seconds, and anything less visible takes longer. The
levels, with the NPC's reaction on the way up (each crossing is a `suspicion` event with its `level`):

| level | meter | reaction |
|---|---|---|
| calm | < suspicious_level | none |
| suspicious | >= suspicious_level | stands and turns to look where it glimpsed the player, for `look_s` |
| investigate | >= investigate_level | goes to investigate that position (the Investigate state) |
| hostile | 1 | the player is spotted: Aim / Chase, as instant detection does |

A level drops again once the meter falls `HYSTERESIS` below its threshold (no event). With
`detection_time_s = 0` the meter is not used: seen means hostile (the seed's instant detection).

Pure functions over arrays (one row per NPC), and `suspect`, the meters' perception tick over the rows of
a `BehaviourBatch` (which `BehaviourBatch.sight` calls): per-row Python only for the rare crossings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from navigation.angles import wrap_angle

if TYPE_CHECKING:
    from npc_ai.behaviour.batch import BehaviourBatch

LEVELS = ("calm", "suspicious", "investigate", "hostile")  # by code
CALM, SUSPICIOUS, INVESTIGATE, HOSTILE = range(len(LEVELS))
HYSTERESIS = 0.05  # a level drops once the meter falls this far below its threshold


def visibility_rate(
    distance: np.ndarray,
    off_centre: np.ndarray,
    target_speed: float,
    crouching: bool,
    *,
    detection_time_s: np.ndarray,
    sight_radius: np.ndarray,
    central_angle: np.ndarray,
    half_angle: np.ndarray,
    range_factor: np.ndarray,
    peripheral_factor: np.ndarray,
    still_factor: np.ndarray,
    run_speed: np.ndarray,
    crouch_factor: np.ndarray,
) -> np.ndarray:
    """(m,) meter fill rates [1/s] of m NPCs that see the target (see the module docstring).

    Args:
        distance: (m,) horizontal distances to the target [m]. off_centre: (m,) angles between each view
            direction and the target [rad, >= 0]. target_speed: the target's horizontal speed [m/s].
        crouching: the target crouches. The rest: (m,) settings of each NPC (angles in radians).
    Returns:
        (m,) rates; infinite where `detection_time_s` is 0 (instant detection).
    """
    near = np.clip(distance / sight_radius, 0.0, 1.0)
    by_range = 1.0 - (1.0 - range_factor) * near
    span = np.maximum(half_angle - central_angle, 1e-9)
    out = np.clip((off_centre - central_angle) / span, 0.0, 1.0)
    by_angle = 1.0 - (1.0 - peripheral_factor) * out
    pace = np.clip(target_speed / run_speed, 0.0, 1.0)
    by_motion = still_factor + (1.0 - still_factor) * pace
    by_stance = crouch_factor if crouching else np.ones_like(crouch_factor)
    visibility = by_range * by_angle * by_motion * by_stance
    with np.errstate(divide="ignore"):
        return np.where(detection_time_s > 0.0, visibility / np.maximum(detection_time_s, 1e-300), np.inf)


def fill(
    meter: np.ndarray, seen: np.ndarray, rate: np.ndarray, dt: np.ndarray, decay_s: np.ndarray
) -> np.ndarray:
    """(m,) meters after `dt` (m,) seconds [s]: filled at `rate` (m,) [1/s] where `seen`, emptied at
    `1 / decay_s` where not; clipped to [0, 1]."""
    change = np.where(seen, np.where(np.isinf(rate), 1.0, rate * dt), -dt / decay_s)
    return np.clip(meter + change, 0.0, 1.0)


def level_of(
    meter: np.ndarray, previous: np.ndarray, suspicious_level: np.ndarray, investigate_level: np.ndarray
) -> np.ndarray:
    """(m,) level codes of meters given each row's previous level: up as soon as a threshold is reached,
    down only once the meter is `HYSTERESIS` below the threshold of the level it held."""
    up = np.where(
        meter >= 1.0,
        HOSTILE,
        np.where(
            meter >= investigate_level, INVESTIGATE, np.where(meter >= suspicious_level, SUSPICIOUS, CALM)
        ),
    )
    down = np.where(
        meter >= 1.0 - HYSTERESIS,
        HOSTILE,
        np.where(
            meter >= investigate_level - HYSTERESIS,
            INVESTIGATE,
            np.where(meter >= suspicious_level - HYSTERESIS, SUSPICIOUS, CALM),
        ),
    )
    return np.maximum(up, np.minimum(previous, down)).astype(np.int64)


def suspect(
    b: BehaviourBatch,
    rows: np.ndarray,
    seen: np.ndarray,
    feet: np.ndarray,
    dt: np.ndarray,
    target_speed: float,
    crouching: bool,
) -> None:
    """The perception tick of the suspicion meters of `rows` (gradual detection): `seen` (m,) bool, the
    player's feet (3,) [m], `dt` (m,) the time since each row's last look [s], the player's speed [m/s]
    and stance. Fills or empties the meters, records a `suspicion` event for each level crossed upward,
    and sets the reactions: a suspicious row looks toward `feet` (`look_point`, `look_until`), an
    investigating one remembers `feet` and is `curious` (its calm state hands over to Investigate); a full
    meter makes the level hostile, which `sight` turns into a sighting."""
    from npc_ai.behaviour.batch import SUSPICION  # a memory the meter made (batch imports this module)

    if rows.size == 0:
        return
    c, t = b.cfg, b.env.time
    here = b.positions()[rows]
    gap = np.asarray(feet, dtype=np.float64)[None, :2] - here[:, :2]
    distance = np.hypot(gap[:, 0], gap[:, 1])
    heading = np.arctan2(gap[:, 1], gap[:, 0])
    off = np.abs(wrap_angle(heading - b.locomotion.yaw[rows]))
    rate = visibility_rate(
        distance, off, target_speed, crouching,
        detection_time_s=c.detection_time_s[rows], sight_radius=c.sight_radius[rows],
        central_angle=c.central_angle[rows], half_angle=c.half_angle[rows],
        range_factor=c.range_factor[rows], peripheral_factor=c.peripheral_factor[rows],
        still_factor=c.still_factor[rows], run_speed=c.run_speed[rows], crouch_factor=c.crouch_factor[rows],
    )  # fmt: skip
    meter = fill(b.suspicion[rows], seen, rate, dt, c.suspicion_decay_s[rows])
    meter[seen & b.sees[rows]] = 1.0  # a hostile NPC that sees the player stays hostile
    b.suspicion[rows] = meter
    old = b.level[rows]
    new = level_of(meter, old, c.suspicious_level[rows], c.investigate_level[rows])
    b.level[rows] = new
    glimpse = seen & (new >= SUSPICIOUS) & (new < HOSTILE)
    if glimpse.any():  # look toward the latest glimpse for a while
        r = rows[glimpse]
        b.look_point[r] = feet
        b.look_until[r] = t + c.look_s[r]
    where = [round(v, 4) for v in np.asarray(feet, dtype=np.float64).tolist()]
    for k in ((new > old) | (glimpse & (new == INVESTIGATE))).nonzero()[0].tolist():
        i = int(rows[k])
        for level in range(int(old[k]) + 1, int(new[k]) + 1):
            b.record(
                i, "suspicion", level=LEVELS[level], value=round(float(meter[k]), 4), target=where,
                distance=round(float(distance[k]), 3),
            )  # fmt: skip
        if seen[k] and new[k] == INVESTIGATE:  # investigate the latest glimpse
            b.remember(i, np.asarray(feet, dtype=np.float64), t, SUSPICION)
            b.curious[i] = True
