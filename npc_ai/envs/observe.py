"""Observations and rewards of the two roles, built from `Match`es after each env step.

Two phases, so that a vector env makes each one pass for all its worlds:
1. `read` (per world, as it needs that world's physics client): one ray batch for every observing agent
   (their scans, plus the learning player's lines of sight to the guards in its view), the player's
   memory of the guards brought up to date, and the raw state the observations are made of (a `Reading`).
2. `guard_observations` / `player_observations` (any number of readings at once): the observation arrays,
   one row per observing agent (see `npc_ai.envs.sensing` for the fields and units).

The arrays are small (16 rays, 8 guards), so each builder is written for few numpy calls: a call costs a
microsecond or more whatever its size, and a step makes a few dozen.

Rewards per env step (`RewardWeights` holds the numbers), elementwise over worlds or guards:
- player (Stealth): progress (metres of navmesh path to the goal gained) x `progress`, + `goal` per goal
  reached, - `detected` per second seen by at least one guard, - `hit` per hit taken, - `caught` once,
  on the step it is caught.
- guard: + `sight` per second it sees the player, + `guard_hit` per hit it scores, + `catch` once when
  the player is caught, to each guard credited with the catch (it hit the player during the episode, or it
  sees the player within `catch_radius` at that moment).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from npc_ai.envs.errors import EnvError
from npc_ai.envs.match import Match, Tally
from npc_ai.envs.sensing import FAR, OLD, RAY_CLEARANCE, TARGET_FIELDS, scan_distances


@dataclass(frozen=True)
class RewardWeights:
    """The reward's terms (see the module doc); progress per metre, sight and detection per second."""

    progress: float = 0.1
    goal: float = 10.0
    detected: float = 0.5
    hit: float = 1.0
    caught: float = 10.0
    sight: float = 0.1
    guard_hit: float = 2.0
    catch: float = 5.0


WEIGHTS = RewardWeights()


@dataclass
class Reading:
    """One world's raw state for one env step's observations. Its observing agents are `guards` (in that
    order), then the player when `player` is set: a = len(guards) + player rows.

    Attributes:
        ray_range: the scan rays' length [m]. frac, kind: (a, rays) scan hit fractions and hit kinds
            (HIT_*). clearance: (a,) where each agent's rays start, from its axis [m].
        feet: (a, 3) [m]. yaw: (a,) [rad]. selves: per agent, its "self" fields but the first two, and its
            velocity: (yaw_rate, time_left, hits, alarm, vx, vy) [rad/s, s, -, -, m/s, m/s].
        known, memory, age, sees: per observing guard, its memory of the player: known at all, where [m],
            how old [s]; and whether it sees the player now. player_yaw: the player's facing [rad].
        slots: the player's memory of each guard slot (max_guards), as arrays (known, position [m], age
            [s], visible now, facing then [rad], alert then); None without the player.
        goal: (goal x, y, corner x, y, path length, goals left) of the player, None without a goal left.
    """

    guards: list[int]
    player: bool
    ray_range: float
    frac: np.ndarray
    kind: np.ndarray
    clearance: np.ndarray
    feet: np.ndarray
    yaw: np.ndarray
    selves: list[tuple[float, float, float, float, float, float]]
    known: np.ndarray
    memory: np.ndarray
    age: np.ndarray
    sees: np.ndarray
    player_yaw: float
    slots: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
    goal: tuple[float, float, float, float, float, int] | None = None


def read(match: Match, guards: Sequence[int], player: bool) -> Reading:
    """The raw state of the listed guards (by index) and, when `player`, of the player, from one ray batch
    (see the module doc); updates the player's memory of the guards it sees."""
    sim, cfg = match.sim, match.config
    if not (sim is not None and cfg is not None and sim.player is not None):
        raise EnvError("the env's world is not ready: call reset() first")
    guards = list(guards)
    p = sim.player
    loco = sim.locomotion
    positions = loco.positions  # every guard's feet [m], read once
    time_left = match.time_left
    rates = match.yaw_rate.tolist()
    npcs = [sim.npcs[g] for g in guards]
    sees = [npc.sees for npc in npcs]
    selves = []
    if guards:
        v = loco.velocities[guards].tolist()
        for g, npc, seen, (vx, vy, _) in zip(guards, npcs, sees, v, strict=True):
            selves.append((rates[g], time_left, float(npc.hits), float(seen), vx, vy))
    feet, yaw, radii = positions[guards], loco.yaw[guards], match.guard_radii[guards]
    if player:
        here = p.position
        feet = np.concatenate([feet, here[None]])
        yaw = np.append(yaw, p.yaw)
        radii = np.append(radii, match.player_radius)
        vx, vy, _ = p.locomotor.character.velocity.tolist()
        watchers = sum(npc.sees for npc in sim.npcs)
        selves.append((rates[-1], time_left, float(match.hits_taken), float(watchers), vx, vy))
        cand, los_from, los_to = match.player_sight_rays(here, positions)
    else:
        cand, los_from, los_to = np.zeros(0, dtype=np.int64), None, None
    clearance = radii + RAY_CLEARANCE
    frac, kind, first = match.senses.cast_raw(feet, yaw, clearance, los_from, los_to)
    memories = [npc.memory for npc in npcs]
    reading = Reading(
        guards=guards,
        player=player,
        ray_range=cfg.ray_range,
        frac=frac,
        kind=kind,
        clearance=clearance,
        feet=feet,
        yaw=yaw,
        selves=selves,
        known=np.array([m is not None for m in memories], dtype=bool),
        memory=np.array([m.position if m is not None else np.zeros(3) for m in memories]).reshape(-1, 3),
        age=np.array([m.age(sim.time) if m is not None else 0.0 for m in memories], dtype=np.float64),
        sees=np.array(sees, dtype=bool),
        player_yaw=p.yaw,
    )
    if not player:
        return reading
    match.update_player_memory(cand, first, positions)
    known = np.isfinite(match.seen_time)
    age = np.where(known, sim.time - np.where(known, match.seen_time, 0.0), 0.0)
    reading.slots = (known, match.seen_pos, age, match.visible, match.seen_yaw, match.seen_alert)
    if match.goals_left:
        gx, gy, _ = match.goals[match.goal_index].tolist()
        cx, cy, _ = match.corner.tolist()
        reading.goal = (gx, gy, cx, cy, float(match.path_length), match.goals_left)
    return reading


def _rows(parts: list[np.ndarray]) -> np.ndarray:
    """One row per reading (a view of the only one, when there is one)."""
    return parts[0][None] if len(parts) == 1 else np.stack(parts)


def _cat(parts: list[np.ndarray]) -> np.ndarray:
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def guard_observations(readings: Sequence[Reading]) -> dict[str, np.ndarray]:
    """Every observing guard of the readings, in order, one row each: "scan" (r, rays), "scan_hit",
    "self" (r, 6), "targets" (r, 1, 9) (its one target: the player)."""
    g = [len(r.guards) for r in readings]
    frac = _cat([r.frac[:k] for r, k in zip(readings, g, strict=True)])
    clearance = _cat([r.clearance[:k] for r, k in zip(readings, g, strict=True)])
    yaw = _cat([r.yaw[:k] for r, k in zip(readings, g, strict=True)])
    sees = _cat([r.sees for r in readings])
    known = _cat([r.known for r in readings])
    if known.any():
        player_yaw = np.repeat([r.player_yaw for r in readings], g)
        targets = target_block(
            _cat([r.feet[:k] for r, k in zip(readings, g, strict=True)]),
            yaw,
            known[:, None],
            _cat([r.memory for r in readings])[:, None],
            _cat([r.age for r in readings])[:, None],
            sees[:, None],
            np.where(sees, player_yaw, 0.0)[:, None],
            np.zeros((len(yaw), 1), dtype=bool),
        )
        targets[~sees, :, 6:8] = 0.0  # its facing, only while seen
    else:
        targets = np.zeros((len(yaw), 1, len(TARGET_FIELDS)), dtype=np.float32)
    return {
        "scan": scan_distances(frac, clearance, readings[0].ray_range),
        "scan_hit": _cat([r.kind[:k] for r, k in zip(readings, g, strict=True)]),
        "self": self_rows(yaw, [s for r, k in zip(readings, g, strict=True) for s in r.selves[:k]]),
        "targets": targets,
    }


def player_observations(readings: Sequence[Reading]) -> dict[str, np.ndarray]:
    """The player of each reading, one row per reading: "scan" (w, rays), "scan_hit", "self" (w, 6),
    "targets" (w, max_guards, 9), "goal" (w, 6)."""
    slots = [r.slots for r in readings]
    if not all(r.player for r in readings) or any(s is None for s in slots):
        raise EnvError("a reading without the player has no player observation")
    feet = _rows([r.feet[-1] for r in readings])
    yaw = np.array([r.yaw[-1] for r in readings])
    columns = [_rows(list(c)) for c in zip(*slots, strict=True)]  # known, position, age, visible, ...
    known = columns[0]
    if known.any():
        targets = target_block(feet, yaw, *columns)
    else:
        targets = np.zeros((*known.shape, len(TARGET_FIELDS)), dtype=np.float32)
    return {
        "scan": scan_distances(
            _rows([r.frac[-1] for r in readings]),
            np.array([r.clearance[-1] for r in readings]),
            readings[0].ray_range,
        ),
        "scan_hit": _rows([r.kind[-1] for r in readings]),
        "self": self_rows(yaw, [r.selves[-1] for r in readings]),
        "targets": targets,
        "goal": goal_rows(feet, yaw, [r.goal for r in readings]),
    }


def self_rows(
    yaw: np.ndarray, selves: Sequence[tuple[float, float, float, float, float, float]]
) -> np.ndarray:
    """(r, 6) float32 "self" rows (SELF_FIELDS) of agents facing `yaw` (r,) [rad], from each one's (yaw
    rate, time left, hits, alarm, vx, vy) (see `Reading`); velocities and yaw rates clipped to the space."""
    rows = []
    for c, s, (rate, time_left, hits, alarm, vx, vy) in zip(
        np.cos(yaw).tolist(), np.sin(yaw).tolist(), selves, strict=True
    ):
        forward = min(max(c * vx + s * vy, -20.0), 20.0)
        left = min(max(-s * vx + c * vy, -20.0), 20.0)
        rows.append((forward, left, min(max(rate, -100.0), 100.0), time_left, hits, alarm))
    return np.array(rows, dtype=np.float32).reshape(-1, 6)


def target_block(
    origin: np.ndarray,
    yaw: np.ndarray,
    known: np.ndarray,
    positions: np.ndarray,
    ages: np.ndarray,
    visible: np.ndarray,
    facings: np.ndarray,
    alert: np.ndarray,
) -> np.ndarray:
    """(r, slots, 9) float32 target rows (TARGET_FIELDS) of r observers at `origin` (r, 3) facing `yaw` (r,)
    [rad]: `npc_ai.envs.sensing.target_rows` for every observer at once; rows not known are all zero.

    Args:
        known, visible, alert: (r, slots) bool. positions: (r, slots, 3) last known positions [m].
        ages: (r, slots) [s]. facings: (r, slots) the targets' facings then [rad, world].
    """
    # rotation into each observer's frame: x = c dx + s dy, y = -s dx + c dy
    turn = np.array([[[[c, s], [-s, c]]] for c, s in ((math.cos(y), math.sin(y)) for y in yaw.tolist())])
    d = positions[..., :2] - origin[:, None, :2]
    parts = d[..., None, :] * turn  # (r, slots, 2, 2): each product of the rotation
    ego = np.minimum(np.maximum(parts[..., 0] + parts[..., 1], -FAR), FAR)
    rows = np.empty((*known.shape, len(TARGET_FIELDS)))
    rows[..., 0:2] = ego
    rows[..., 2] = np.minimum(np.hypot(ego[..., 0], ego[..., 1]), FAR)
    rows[..., 3] = np.minimum(np.maximum(ages, 0.0), OLD)
    rows[..., 4] = visible
    rows[..., 5] = 1.0
    rel = facings - yaw[:, None]
    rows[..., 6] = np.cos(rel)
    rows[..., 7] = np.sin(rel)
    rows[..., 8] = alert
    rows[~known] = 0.0
    return rows.astype(np.float32)


def goal_rows(
    feet: np.ndarray, yaw: np.ndarray, goals: Sequence[tuple[float, float, float, float, float, int] | None]
) -> np.ndarray:
    """(w, 6) float32 "goal" rows (GOAL_FIELDS) of players at `feet` (w, 3) facing `yaw` (w,) [rad], from
    each one's (goal x, y, corner x, y, path length, goals left), all zero for None (no goal left)."""
    rows = []
    for (fx, fy, _), heading, goal in zip(feet.tolist(), yaw.tolist(), goals, strict=True):
        if goal is None:
            rows.append((0.0,) * 6)
            continue
        gx, gy, cx, cy, length, left = goal
        c, s = math.cos(heading), math.sin(heading)
        ego = []
        for dx, dy in ((gx - fx, gy - fy), (cx - fx, cy - fy)):
            ego += [min(max(c * dx + s * dy, -FAR), FAR), min(max(-s * dx + c * dy, -FAR), FAR)]
        rows.append((ego[0], ego[1], min(max(length, -FAR), FAR), ego[2], ego[3], float(left)))
    return np.array(rows, dtype=np.float32).reshape(-1, 6)


def observe(match: Match, guards: list[int], player: bool) -> tuple[dict[int, dict[str, Any]], Any]:
    """Observations of the listed guards (by index) and, when `player`, of the player (returned second;
    None otherwise), from one ray batch."""
    reading = read(match, guards, player)
    by_guard: dict[int, dict[str, Any]] = {}
    if guards:
        rows = guard_observations([reading])
        by_guard = {g: {k: v[i] for k, v in rows.items()} for i, g in enumerate(guards)}
    if not player:
        return by_guard, None
    return by_guard, {k: v[0] for k, v in player_observations([reading]).items()}


def _pick(condition: Any, yes: Any, no: Any) -> Any:
    """`yes` where `condition`, else `no`: elementwise for arrays, a plain choice for scalars."""
    if isinstance(condition, np.ndarray):
        return np.where(condition, yes, no)
    return yes if condition else no


def player_rewards(
    path_before: Any,
    path_after: Any,
    goals: Any,
    seen_s: Any,
    hits: Any,
    just_caught: Any,
    w: RewardWeights = WEIGHTS,
) -> Any:
    """The player's rewards for the step just taken (see the module doc), elementwise over worlds (arrays)
    or for one world (scalars): path lengths to the goal before and after the step [m], goals reached,
    seconds seen, hits taken, caught on this step."""
    progress = _pick(goals == 0, path_before - path_after, 0.0)
    r = w.progress * progress + w.goal * goals - w.detected * seen_s - w.hit * hits
    return _pick(just_caught, r - w.caught, r)


def guard_rewards(sight_s: Any, hits: Any, credited: Any, w: RewardWeights = WEIGHTS) -> Any:
    """Guards' rewards for the step just taken (see the module doc), elementwise (arrays) or for one guard
    (scalars): seconds each saw the player, hits each scored, credited with the catch made this step."""
    r = w.sight * sight_s + w.guard_hit * hits
    return _pick(credited, r + w.catch, r)


def player_reward(match: Match, tally: Tally, path_before: float, w: RewardWeights = WEIGHTS) -> float:
    """The player's reward for the step just taken (see the module doc)."""
    r = player_rewards(
        path_before,
        match.path_length,
        tally.goals,
        tally.seen_s,
        int(tally.hits.sum()),
        match.just_caught,
        w,
    )
    return float(r)
