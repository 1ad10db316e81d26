"""A log of what happened in a world, in simulated time: the latest events in memory, every event streamed
as one JSON line to a file when it is recorded.

Memory stays bounded over a run of any length: the log holds the last `keep` events (older ones are
forgotten, `dropped` counts them), while `recorded` and `counts` (per event name) stay exact. To keep every
event, stream them to a file (`sink=` or `stream_to`): each line is written when the event is recorded, and
the file is byte for byte what `to_jsonl` would give for the whole run.
"""

from __future__ import annotations

import json
import math
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from scenes.errors import WorldError

DEFAULT_KEEP = 10_000  # events held in memory by default (about 6 MB of typical simulation events)


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

    def to_line(self) -> str:
        """The record as one line of JSON (compact, keys in a stable order, ending in a newline)."""
        return json.dumps(self.to_json(), separators=(",", ":")) + "\n"


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
    """Events in the order they were recorded: the last `keep` in memory, all of them in the sink.

    Args:
        keep: how many of the latest events to hold in memory [>= 0; None: every one, unbounded]. Iteration,
            `len`, `of`, `to_jsonl` and `write_jsonl` see the held events only; `recorded`, `dropped` and
            `counts` cover every event ever recorded.
        sink: where each event is written as one JSON line when it is recorded (see `stream_to`): an open
            text file (left open: its owner closes it) or a path (created or truncated now, closed by
            `close`).
    Raises:
        WorldError: `keep` is not a whole number >= 0.
    """

    def __init__(self, keep: int | None = DEFAULT_KEEP, *, sink: TextIO | str | Path | None = None) -> None:
        if keep is not None and not (isinstance(keep, int) and not isinstance(keep, bool) and keep >= 0):
            raise WorldError(f"an event log keeps a whole number >= 0 of events (or None: all), got {keep!r}")
        self._keep = keep
        self._events: deque[Event] = deque(maxlen=keep)
        self._counts: Counter[str] = Counter()
        self._recorded = 0
        self._sink: TextIO | None = None
        self._owns_sink = False
        if sink is not None:
            self.stream_to(sink)

    # -- recording ---------------------------------------------------------------------------------------
    def record(self, t: float, event: str, **data: Any) -> Event:
        """Append an event at simulated time `t` [s], write it to the sink if there is one, and return it."""
        e = Event(float(t), event, dict(data))
        if self._sink is not None:
            self._sink.write(e.to_line())
        self._events.append(e)
        self._counts[event] += 1
        self._recorded += 1
        return e

    def stream_to(self, sink: TextIO | str | Path) -> None:
        """Write every event to `sink` from now on, one JSON line each, as it is recorded; the events held so
        far are written first, so the file starts at the first event of the log.

        Args:
            sink: an open text file (its owner closes it) or a path (created or truncated; `close` closes it).
        Raises:
            WorldError: the log already streams, or it has already forgotten events (`dropped` > 0), so
                the file could not hold the whole run: attach the sink before `keep` events are recorded.
        """
        if self._sink is not None:
            raise WorldError("this event log already streams to a file; close() it first")
        if self.dropped:
            raise WorldError(
                f"this event log has already forgotten its first {self.dropped} events (it keeps "
                f"{self._keep}): attach the sink before that many events are recorded, or keep=None"
            )
        if isinstance(sink, str | Path):
            self._sink = open(sink, "w", encoding="utf-8")  # noqa: SIM115 - closed by close()
            self._owns_sink = True
        else:
            self._sink = sink
            self._owns_sink = False
        for e in self._events:
            self._sink.write(e.to_line())

    @property
    def streaming(self) -> bool:
        """Whether events are being written to a sink."""
        return self._sink is not None

    def flush(self) -> None:
        """Flush the sink, if any (lines are written as events are recorded; this empties the buffer)."""
        if self._sink is not None:
            self._sink.flush()

    def close(self) -> None:
        """Stop streaming: flush the sink, and close it if the log opened it from a path. The held events
        stay; recording goes on in memory only."""
        sink, self._sink = self._sink, None
        if sink is None:
            return
        if self._owns_sink:
            sink.close()
        else:
            sink.flush()
        self._owns_sink = False

    # -- reading -----------------------------------------------------------------------------------------
    @property
    def keep(self) -> int | None:
        """How many of the latest events are held in memory (None: all)."""
        return self._keep

    @property
    def recorded(self) -> int:
        """Events recorded since the log was made, held or not."""
        return self._recorded

    @property
    def dropped(self) -> int:
        """Events forgotten to stay within `keep` (the oldest ones)."""
        return self._recorded - len(self._events)

    @property
    def counts(self) -> dict[str, int]:
        """Events recorded per event name, held or not (exact over the whole run)."""
        return dict(self._counts)

    def __iter__(self) -> Iterator[Event]:
        return iter(self._events)

    def __len__(self) -> int:
        """The number of events held (at most `keep`; see `recorded` for all of them)."""
        return len(self._events)

    def of(self, event: str) -> list[Event]:
        """The held events with this name."""
        return [e for e in self._events if e.event == event]

    def to_jsonl(self) -> str:
        """The held events, one JSON object per line, keys in a stable order."""
        return "".join(e.to_line() for e in self._events)

    def write_jsonl(self, path: str | Path) -> None:
        """Write the held events as JSON lines to `path` (to keep every event of a long run, stream them
        with `stream_to` instead)."""
        Path(path).write_text(self.to_jsonl(), encoding="utf-8")
