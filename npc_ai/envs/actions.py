"""Action spaces and their decoding into a speed [m/s] and a turn rate [rad/s].

- continuous: `Box(-1, 1, (2,), float32)`: `[speed, turn]`; speed [m/s] = (a0 + 1) / 2 * top speed (so -1
  stands still), turn rate [rad/s] = a1 * `MAX_TURN_RATE` (positive turns left, counter-clockwise).
- discrete: `Discrete(9)`: index = 3 * gait + turn, gait 0 stand / 1 walk / 2 run, turn 0 left /
  1 straight / 2 right at `MAX_TURN_RATE`.

An action is held for every tick of the env step: each tick the agent is steered toward its current facing
plus turn rate x tick (turning is also capped by the body's own turn rate, 360 deg/s).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from npc_ai.envs.errors import ActionError

MAX_TURN_RATE = math.pi  # [rad/s] a full action turns half a circle per second
_TOLERANCE = 1e-6  # float32 rounding of a value at the bounds


@dataclass(frozen=True)
class Gaits:
    """An agent's speeds [m/s]: walk (the discrete middle gait) and run (the top speed)."""

    walk: float
    run: float


def action_space(action_type: str) -> spaces.Space[Any]:
    """The action space of one agent ("continuous" or "discrete")."""
    if action_type == "discrete":
        return spaces.Discrete(9)
    return spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)


def decode(action: object, action_type: str, gaits: Gaits, who: str = "action") -> tuple[float, float]:
    """(speed [m/s, >= 0], turn rate [rad/s, + = left]) of one action.

    Raises:
        ActionError: an action outside the space, saying what was expected.
    """
    if action_type == "discrete":
        if isinstance(action, bool | np.bool_) or not isinstance(action, int | np.integer):
            arr = np.asarray(action)
            if arr.shape == () and arr.dtype.kind in "iu":
                action = int(arr)
            else:
                raise ActionError(f"{who} must be an integer in 0..8 (discrete actions), got {action!r}")
        index = int(action)
        if not 0 <= index <= 8:
            raise ActionError(f"{who} must be an integer in 0..8 (discrete actions), got {index}")
        gait, turn = divmod(index, 3)
        speed = (0.0, gaits.walk, gaits.run)[gait]
        return speed, (MAX_TURN_RATE, 0.0, -MAX_TURN_RATE)[turn]
    if type(action) is np.ndarray and action.shape == (2,) and action.dtype.kind == "f":
        # the usual case (an array from the space or a policy), in plain floats: the same checks and
        # arithmetic as below, without a dozen numpy calls on two numbers
        a0, a1 = action.tolist()
        if math.isfinite(a0) and math.isfinite(a1) and max(abs(a0), abs(a1)) <= 1.0 + _TOLERANCE:
            a0, a1 = min(max(a0, -1.0), 1.0), min(max(a1, -1.0), 1.0)
            return (a0 + 1.0) * 0.5 * gaits.run, a1 * MAX_TURN_RATE
    try:
        a = np.asarray(action, dtype=np.float64)
    except (TypeError, ValueError):
        raise ActionError(f"{who} must be 2 numbers [speed, turn] in [-1, 1], got {action!r}") from None
    if a.shape != (2,):
        raise ActionError(f"{who} must have shape (2,) = [speed, turn] in [-1, 1], got shape {a.shape}")
    if not np.isfinite(a).all() or np.abs(a).max() > 1.0 + _TOLERANCE:
        raise ActionError(f"{who} must be 2 finite numbers [speed, turn] in [-1, 1], got {a.tolist()}")
    a = np.clip(a, -1.0, 1.0)
    return float((a[0] + 1.0) * 0.5 * gaits.run), float(a[1] * MAX_TURN_RATE)


def decode_batch(actions: np.ndarray, action_type: str, run: np.ndarray, walk: np.ndarray) -> np.ndarray:
    """(n, 2) [speed m/s, turn rate rad/s] of n actions at once (the native vector env's path).

    Raises:
        ActionError: any action outside the space (the row is named).
    """
    n = len(run)
    if action_type == "discrete":
        a = np.asarray(actions)
        if a.shape != (n,) or a.dtype.kind not in "iu" or (a < 0).any() or (a > 8).any():
            raise ActionError(f"actions must be ({n},) integers in 0..8, got {actions!r}")
        gait, turn = np.divmod(a.astype(np.int64), 3)
        speed = np.choose(gait, [np.zeros(n), walk, run])
        rate = np.array([MAX_TURN_RATE, 0.0, -MAX_TURN_RATE])[turn]
        return np.column_stack([speed, rate])
    a = np.asarray(actions, dtype=np.float64)
    if a.shape != (n, 2):
        raise ActionError(f"actions must have shape ({n}, 2), got {a.shape}")
    bad = ~np.isfinite(a).all(axis=1) | (np.abs(np.nan_to_num(a, nan=9.0)).max(axis=1) > 1.0 + _TOLERANCE)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ActionError(f"actions[{i}] must be 2 finite numbers in [-1, 1], got {a[i].tolist()}")
    a = np.clip(a, -1.0, 1.0)
    return np.column_stack([(a[:, 0] + 1.0) * 0.5 * run, a[:, 1] * MAX_TURN_RATE])


def encode_continuous(speed: float, turn_rate: float, top_speed: float) -> np.ndarray:
    """The continuous action that asks for `speed` [m/s] and `turn_rate` [rad/s] (clipped to the space)."""
    a = np.array([2.0 * speed / top_speed - 1.0, turn_rate / MAX_TURN_RATE])
    return np.clip(a, -1.0, 1.0).astype(np.float32)
