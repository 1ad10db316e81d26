"""A task's parameters: name, type, default, limits and units, and the check every spec value goes through.

Kept apart from the tasks themselves so that loading and validating a spec imports nothing heavy (no
PyBullet, numba or the simulation): `npc-ai sweep bad.toml` answers in a fraction of a second.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from npc_ai.sweep.errors import SpecError

Value = int | float | str | bool
"""A parameter value, as TOML gives it (an int where a float is wanted is taken as that float)."""

_KINDS = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}


@dataclass(frozen=True)
class Param:
    """One parameter of a task.

    Attributes:
        name: the key in the spec.
        kind: `int`, `float`, `str` or `bool`.
        default: the value when the spec does not give one; None: the task's own default (`optional`).
        doc: what it sets, with its unit in brackets ("[s]").
        choices: the allowed values (strings), empty for any.
        low, high: inclusive limits of a number; None for no limit.
        optional: None is a valid value (the default), meaning "the task decides".
        required: the spec must give it (in [params], [grid] or every case); no default.
    """

    name: str
    kind: type
    default: Value | None
    doc: str
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    optional: bool = False
    required: bool = False

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise SpecError(f"parameter {self.name}: kind must be int, float, str or bool, got {self.kind!r}")
        if self.default is None and not (self.optional or self.required):
            raise SpecError(f"parameter {self.name}: a default of None needs optional=True or required=True")
        if self.default is not None:
            self.check(self.default, f"default of {self.name}")

    def check(self, value: Any, where: str) -> Value:
        """`value` as this parameter's type, or `SpecError` naming `where` and what is accepted."""
        wanted = self.describe()
        if self.kind is bool:
            if not isinstance(value, bool):
                raise SpecError(f"{where}: {self.name} must be {wanted}, got {value!r}")
            return value
        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise SpecError(f"{where}: {self.name} must be {wanted}, got {value!r}")
        elif self.kind is float:
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise SpecError(f"{where}: {self.name} must be {wanted}, got {value!r}")
            value = float(value)
        elif not isinstance(value, str) or not value:
            raise SpecError(f"{where}: {self.name} must be {wanted}, got {value!r}")
        if self.choices and value not in self.choices:
            raise SpecError(f"{where}: {self.name} must be {wanted}, got {value!r}")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise SpecError(f"{where}: {self.name} must be {wanted}, got {value!r}")
        return value

    def describe(self) -> str:
        """What the parameter accepts, in words ("a number in [0.001, 10]", "one of a, b")."""
        if self.choices:
            return "one of " + ", ".join(self.choices)
        text = _KINDS[self.kind]
        if self.low is not None and self.high is not None:
            text += f" in [{self.low:g}, {self.high:g}]"
        elif self.low is not None:
            text += f" >= {self.low:g}"
        elif self.high is not None:
            text += f" <= {self.high:g}"
        return text


@dataclass(frozen=True)
class TaskInfo:
    """What the spec loader knows of a task: its name, a one-line description, its parameters, whether
    its metrics depend on the seed, and which of its metrics are wall-clock times (kept out of
    results.csv, in timings.csv)."""

    name: str
    doc: str
    params: tuple[Param, ...]
    seeded: bool = True
    timing_metrics: tuple[str, ...] = ()

    def param(self, name: str, where: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.params)
        raise SpecError(f"{where}: task {self.name!r} has no parameter {name!r}; its parameters: {known}")

    def resolve(self, given: dict[str, Value]) -> dict[str, Value | None]:
        """Every parameter, the given ones over the defaults, in the task's order."""
        return {p.name: given.get(p.name, p.default) for p in self.params}
