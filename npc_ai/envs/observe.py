"""Observations and rewards of the two roles, built from a `Match` after each env step.

One `observe` call casts one ray batch for every observing agent (their scans, plus the learning player's
lines of sight to the guards in its view) and returns each agent's observation dict (see
`npc_ai.envs.sensing` for the fields and units).

Rewards per env step (`RewardWeights` holds the numbers):
- player (Stealth): progress (metres of navmesh path to the goal gained) x `progress`, + `goal` per goal
  reached, - `detected` per second seen by at least one guard, - `hit` per hit taken, - `caught` once,
  on the step it is caught.
- guard: + `sight` per second it sees the player, + `guard_hit` per hit it scores, + `catch` once when
  the player is caught, to each guard credited with the catch (it hit the player during the episode, or it
  sees the player within `catch_radius` at that moment).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from npc_ai.envs.errors import EnvError
from npc_ai.envs.match import Match, Tally
from npc_ai.envs.sensing import FAR, egocentric, target_rows


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


def observe(match: Match, guards: list[int], player: bool) -> tuple[dict[int, dict[str, Any]], Any]:
    """Observations of the listed guards (by index) and, when `player`, of the player (returned second;
    None otherwise), from one ray batch."""
    sim = match.sim
    if not (sim is not None and sim.player is not None):
        raise EnvError("the env's world is not ready: call reset() first")
    feet, yaws, radii = [], [], []
    for g in guards:
        npc = sim.npcs[g]
        feet.append(npc.position)
        yaws.append(npc.yaw)
        radii.append(npc.locomotor.character.radius)
    if player:
        feet.append(sim.player.position)
        yaws.append(sim.player.yaw)
        radii.append(sim.player.locomotor.character.radius)
        cand, los_from, los_to = match.player_sight_rays()
    else:
        cand, los_from, los_to = np.zeros(0, dtype=np.int64), None, None
    dist, kind, first = match.senses.cast(
        np.array(feet).reshape(-1, 3), np.array(yaws), np.array(radii), los_from, los_to
    )
    out = {g: _guard(match, g, dist[k], kind[k]) for k, g in enumerate(guards)}
    if not player:
        return out, None
    match.update_player_memory(cand, first)
    return out, _player(match, dist[-1], kind[-1])


def _velocity(v: np.ndarray, yaw: float) -> tuple[float, float]:
    c, s = np.cos(yaw), np.sin(yaw)
    return float(c * v[0] + s * v[1]), float(-s * v[0] + c * v[1])


def _self(match: Match, row: int, velocity: np.ndarray, yaw: float, hits: float, alarm: float) -> np.ndarray:
    fwd, left = _velocity(velocity, yaw)
    rate = float(np.clip(match.yaw_rate[row], -100.0, 100.0))
    v = np.clip([fwd, left], -20.0, 20.0)
    return np.array([v[0], v[1], rate, match.time_left, hits, alarm], dtype=np.float32)


def _guard(match: Match, g: int, dist: np.ndarray, kind: np.ndarray) -> dict[str, Any]:
    sim = match.sim
    if not (sim is not None and sim.player is not None):
        raise EnvError("the env's world is not ready: call reset() first")
    npc = sim.npcs[g]
    mem = npc.memory
    known = np.array([mem is not None])
    pos = mem.position[None] if mem is not None else np.zeros((1, 3))
    age = np.array([mem.age(sim.time) if mem is not None else 0.0])
    facing = np.array([sim.player.yaw if npc.sees else 0.0])
    rows = target_rows(npc.position, npc.yaw, known, pos, age, np.array([npc.sees]), facing, np.zeros(1))
    if not npc.sees:
        rows[:, 6:8] = 0.0
    return {
        "scan": dist.copy(),
        "scan_hit": kind.copy(),
        "self": _self(match, g, npc.locomotor.character.velocity, npc.yaw, npc.hits, float(npc.sees)),
        "targets": rows,
    }


def _player(match: Match, dist: np.ndarray, kind: np.ndarray) -> dict[str, Any]:
    sim, cfg = match.sim, match.config
    if not (sim is not None and cfg is not None and sim.player is not None):
        raise EnvError("the env's world is not ready: call reset() first")
    p = sim.player
    n = len(sim.npcs)
    known = np.isfinite(match.seen_time)
    rows = np.zeros((cfg.max_guards, 9), dtype=np.float32)
    if n:
        ages = np.where(known, sim.time - np.where(known, match.seen_time, 0.0), 0.0)
        rows[:n] = target_rows(
            p.position, p.yaw, known, match.seen_pos, ages, match.visible, match.seen_yaw, match.seen_alert
        )
    watchers = sum(npc.sees for npc in sim.npcs)
    goal = np.zeros(6, dtype=np.float32)
    if match.goals_left:
        target = match.goals[match.goal_index]
        ego = egocentric(np.array([target, match.corner]), p.position, p.yaw)
        goal[:] = np.clip([ego[0, 0], ego[0, 1], match.path_length, ego[1, 0], ego[1, 1], 0.0], -FAR, FAR)
        goal[5] = match.goals_left
    return {
        "scan": dist.copy(),
        "scan_hit": kind.copy(),
        "self": _self(match, n, p.locomotor.character.velocity, p.yaw, match.hits_taken, watchers),
        "targets": rows,
        "goal": goal,
    }


def player_reward(match: Match, tally: Tally, path_before: float, w: RewardWeights = WEIGHTS) -> float:
    """The player's reward for the step just taken (see the module doc)."""
    progress = path_before - match.path_length if tally.goals == 0 else 0.0
    r = (
        w.progress * progress
        + w.goal * tally.goals
        - w.detected * tally.seen_s
        - w.hit * int(tally.hits.sum())
    )
    if match.just_caught:
        r -= w.caught
    return float(r)


def guard_reward(match: Match, tally: Tally, g: int, w: RewardWeights = WEIGHTS) -> float:
    """Guard g's reward for the step just taken (see the module doc)."""
    r = w.sight * float(tally.guard_sight_s[g]) + w.guard_hit * int(tally.hits[g])
    if match.just_caught and g in match.caught_by:
        r += w.catch
    return float(r)
