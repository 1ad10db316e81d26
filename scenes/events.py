"""An append-only log of what happened in a world, in simulated time, writable as JSON lines."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Event:
    """One thing that happened.

    Attributes:
        t: simulated time [s]. event: its name ("spotted", "shot", ...). data: JSON-serialisable details.
    """

    t: float
    event: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The record as one flat JSON object: `t`, `event`, then the details."""
        return {"t": round(self.t, 6), "event": self.event, **_jsonable(self.data)}


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if hasattr(value, "tolist"):
        return _jsonable(value.tolist())
    if isinstance(value, float):
        return round(value, 6) if math.isfinite(value) else None
    return value


class EventLog:
    """Events in the order they were recorded."""

    def __init__(self) -> None:
        self._events: list[Event] = []

    def record(self, t: float, event: str, **data: Any) -> Event:
        """Append an event at simulated time `t` [s] and return it."""
        e = Event(float(t), event, dict(data))
        self._events.append(e)
        return e

    def __iter__(self) -> Iterator[Event]:
        return iter(self._events)

    def __len__(self) -> int:
        return len(self._events)

    def of(self, event: str) -> list[Event]:
        """All events with this name."""
        return [e for e in self._events if e.event == event]

    def to_jsonl(self) -> str:
        """One JSON object per line, keys in a stable order."""
        return "".join(json.dumps(e.to_json(), separators=(",", ":")) + "\n" for e in self._events)

    def write_jsonl(self, path: str | Path) -> None:
        """Write the log as JSON lines to `path`."""
        Path(path).write_text(self.to_jsonl(), encoding="utf-8")
