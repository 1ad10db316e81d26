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
from npc_ai.envs.sensing import FAR, OLD, TARGET_FIELDS


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


Agent = tuple[float, float, float, float, float, float, float, float, float]
"""An observing agent's own state: feet x, y [m], yaw [rad], yaw rate [rad/s], time left [s], hits, alarm,
velocity x, y [m/s] (the "self" fields before rotation into its frame)."""

Target = tuple[float, float, float, bool, "float | None", bool]
"""What an agent knows of one target: its last known x, y [m], age [s], visible now, its facing then [rad,
world] (None: not shown, its cos and sin read 0), alert then."""


@dataclass
class Reading:
    """One world's raw state for one env step's observations. Its observing agents are `guards` (in that
    order), then the player when `player` is set: a = len(guards) + player rows.

    Attributes:
        distance, kind: (a, rays) the scans: distances [m] (float32) and hit kinds (HIT_*).
        agents: (a) each observing agent's own state (`Agent`).
        targets: (a) each observing agent's target slots (`Target`, None: unknown): one for a guard (the
            player), max_guards for the player (guard i in slot i).
        goal: (goal x, y, corner x, y, path length [m], goals left) of the player; None without the player
            or without a goal left.
    """

    guards: list[int]
    player: bool
    distance: np.ndarray
    kind: np.ndarray
    agents: list[Agent]
    targets: list[list[Target | None]]
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
    time_left, now = match.time_left, sim.time
    rates = match.yaw_rate.tolist()
    player_yaw = p.yaw
    agents: list[Agent] = []
    targets: list[list[Target | None]] = []
    feet, yaw, radii = positions[guards], loco.yaw[guards], match.guard_radii[guards]
    if guards:
        for g, (fx, fy, _), heading, (vx, vy, _) in zip(
            guards, feet.tolist(), yaw.tolist(), loco.velocities[guards].tolist(), strict=True
        ):
            npc = sim.npcs[g]
            sees, memory = npc.sees, npc.memory
            agents.append((fx, fy, heading, rates[g], time_left, float(npc.hits), float(sees), vx, vy))
            if memory is None:
                targets.append([None])
            else:
                mx, my, _ = memory.position.tolist()
                facing = player_yaw if sees else None  # its facing, only while seen
                targets.append([(mx, my, memory.age(now), sees, facing, False)])
    if player:
        here = p.position
        feet = np.concatenate([feet, here[None]]) if guards else here[None]
        yaw = np.append(yaw, player_yaw)
        radii = np.append(radii, match.player_radius)
        fx, fy, _ = here.tolist()
        vx, vy, _ = p.locomotor.character.velocity.tolist()
        watchers = sum(npc.sees for npc in sim.npcs)
        agents.append(
            (fx, fy, player_yaw, rates[-1], time_left, float(match.hits_taken), float(watchers), vx, vy)
        )
        cand, los_from, los_to = match.player_sight_rays(here, positions)
    else:
        cand, los_from, los_to = np.zeros(0, dtype=np.int64), None, None
    distance, kind, first = match.senses.cast(feet, yaw, radii, los_from, los_to)
    reading = Reading(guards, player, distance, kind, agents, targets)
    if not player:
        return reading
    match.update_player_memory(cand, first, positions)
    slots: list[Target | None] = []
    for (x, y, _), t, seen, facing, alert in zip(
        match.seen_pos.tolist(),
        match.seen_time.tolist(),
        match.visible.tolist(),
        match.seen_yaw.tolist(),
        match.seen_alert.tolist(),
        strict=True,
    ):
        slots.append((x, y, now - t, seen, facing, alert) if math.isfinite(t) else None)
    targets.append(slots)
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
    agents = [a for r, k in zip(readings, g, strict=True) for a in r.agents[:k]]
    return {
        "scan": _cat([r.distance[:k] for r, k in zip(readings, g, strict=True)]),
        "scan_hit": _cat([r.kind[:k] for r, k in zip(readings, g, strict=True)]),
        "self": self_rows(agents),
        "targets": target_rows(agents, [t for r, k in zip(readings, g, strict=True) for t in r.targets[:k]]),
    }


def player_observations(readings: Sequence[Reading]) -> dict[str, np.ndarray]:
    """The player of each reading, one row per reading: "scan" (w, rays), "scan_hit", "self" (w, 6),
    "targets" (w, max_guards, 9), "goal" (w, 6)."""
    if not all(r.player for r in readings):
        raise EnvError("a reading without the player has no player observation")
    agents = [r.agents[-1] for r in readings]
    return {
        "scan": _rows([r.distance[-1] for r in readings]),
        "scan_hit": _rows([r.kind[-1] for r in readings]),
        "self": self_rows(agents),
        "targets": target_rows(agents, [r.targets[-1] for r in readings]),
        "goal": goal_rows(agents, [r.goal for r in readings]),
    }


def self_rows(agents: Sequence[Agent]) -> np.ndarray:
    """(r, 6) float32 "self" rows (SELF_FIELDS) of the agents: velocities turned into each one's frame,
    velocities and yaw rates clipped to the space."""
    yaw = np.array([a[2] for a in agents], dtype=np.float64)
    rows = []
    for c, s, (_, _, _, rate, time_left, hits, alarm, vx, vy) in zip(
        np.cos(yaw).tolist(), np.sin(yaw).tolist(), agents, strict=True
    ):
        forward = min(max(c * vx + s * vy, -20.0), 20.0)
        left = min(max(-s * vx + c * vy, -20.0), 20.0)
        rows.append((forward, left, min(max(rate, -100.0), 100.0), time_left, hits, alarm))
    return np.array(rows, dtype=np.float32).reshape(-1, 6)


def target_rows(agents: Sequence[Agent], slots: Sequence[Sequence[Target | None]]) -> np.ndarray:
    """(r, slots, 9) float32 target rows (TARGET_FIELDS) of r agents from what each knows of its targets;
    unknown slots are all zero. The known ones' arithmetic in plain floats (a handful of rows), their
    hypot, cos and sin in one numpy call each for all of them."""
    width = len(TARGET_FIELDS)
    xs, ys, rel, rest, where = [], [], [], [], []
    for i, ((fx, fy, heading, *_), known) in enumerate(zip(agents, slots, strict=True)):
        c, s = math.cos(heading), math.sin(heading)
        for j, target in enumerate(known):
            if target is None:
                continue
            px, py, age, visible, facing, alert = target
            dx, dy = px - fx, py - fy  # egocentric: x forward, y left
            xs.append(min(max(c * dx + s * dy, -FAR), FAR))
            ys.append(min(max(-s * dx + c * dy, -FAR), FAR))
            rel.append(0.0 if facing is None else facing - heading)
            rest.append((min(max(age, 0.0), OLD), float(visible), facing is not None, float(alert)))
            where.append((i, j))
    count = max((len(k) for k in slots), default=0)
    if not where:
        return np.zeros((len(agents), count, width), dtype=np.float32)
    distance = np.minimum(np.hypot(xs, ys), FAR).tolist()
    cos_rel, sin_rel = np.cos(rel).tolist(), np.sin(rel).tolist()
    zero = (0.0,) * width
    rows = [[zero] * count for _ in agents]
    for (i, j), x, y, dist, (age, visible, shown, alert), c, s in zip(
        where, xs, ys, distance, rest, cos_rel, sin_rel, strict=True
    ):
        rows[i][j] = (x, y, dist, age, visible, 1.0, c if shown else 0.0, s if shown else 0.0, alert)
    return np.array(rows, dtype=np.float32).reshape(len(agents), count, width)


def goal_rows(
    agents: Sequence[Agent], goals: Sequence[tuple[float, float, float, float, float, int] | None]
) -> np.ndarray:
    """(w, 6) float32 "goal" rows (GOAL_FIELDS) of players, from each one's (goal x, y, corner x, y, path
    length, goals left), all zero for None (no goal left)."""
    rows = []
    for (fx, fy, heading, *_), goal in zip(agents, goals, strict=True):
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
