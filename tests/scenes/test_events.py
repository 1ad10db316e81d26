"""The event log: a bounded memory of the latest events, exact counts, and a file streamed line by line that
equals what the in-memory write gives."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from scenes import EventLog, WorldError
from scenes.events import DEFAULT_KEEP, Event


def _fill(log: EventLog, n: int) -> None:
    """n events of three kinds with the details a simulation records (floats, arrays, NaN, nesting)."""
    kinds = ("spotted", "noise", "chase")
    for i in range(n):
        log.record(
            i / 60,
            kinds[i % 3],
            npc=f"npc{i % 4}",
            position=np.array([i * 0.1, -1.0 / 3.0, 0.0]),
            distance=float("nan") if i % 7 == 0 else i / 7,
            nested={"to": (1.25, 2.5), "ok": i % 2 == 0},
        )


def test_keep_bounds_memory_and_counts_stay_exact() -> None:
    log = EventLog(keep=5)
    for n in range(1, 40):
        log.record(n, "a" if n % 2 else "b", k=n)
        assert len(log) <= 5
    assert len(log) == 5 and log.recorded == 39 and log.dropped == 34
    assert [e.data["k"] for e in log] == [35, 36, 37, 38, 39]  # the latest, in order
    assert log.counts == {"a": 20, "b": 19}
    assert [e.data["k"] for e in log.of("b")] == [36, 38]
    assert log.keep == 5


def test_default_keep_and_unbounded() -> None:
    assert EventLog().keep == DEFAULT_KEEP
    log = EventLog(keep=None)
    _fill(log, 300)
    assert len(log) == log.recorded == 300 and log.dropped == 0
    assert EventLog(keep=0).record(0.0, "x").event == "x"  # keep nothing, still count
    zero = EventLog(keep=0)
    zero.record(0.0, "x")
    assert len(zero) == 0 and zero.counts == {"x": 1}


@pytest.mark.parametrize("keep", [-1, 2.5, True, "10"])
def test_bad_keep(keep) -> None:
    with pytest.raises(WorldError, match="keeps a whole number >= 0 of events"):
        EventLog(keep=keep)


def test_streamed_file_equals_the_in_memory_write(tmp_path: Path) -> None:
    whole = EventLog(keep=None)
    _fill(whole, 500)
    whole.write_jsonl(tmp_path / "memory.jsonl")
    # a small in-memory cap, streamed to an open file from the start
    with open(tmp_path / "stream.jsonl", "w", encoding="utf-8") as f:
        log = EventLog(keep=16, sink=f)
        _fill(log, 500)
        log.close()
        assert not f.closed  # the caller's file stays open
    assert (tmp_path / "stream.jsonl").read_bytes() == (tmp_path / "memory.jsonl").read_bytes()
    assert len(log) == 16 and log.recorded == 500
    assert log.to_jsonl() == "".join(whole.to_jsonl().splitlines(keepends=True)[-16:])
    # a path sink is opened and closed by the log
    log = EventLog(keep=3, sink=tmp_path / "path.jsonl")
    assert log.streaming
    _fill(log, 500)
    log.close()
    assert not log.streaming
    assert (tmp_path / "path.jsonl").read_bytes() == (tmp_path / "memory.jsonl").read_bytes()
    lines = (tmp_path / "path.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    assert list(first)[:2] == ["t", "event"] and first["distance"] is None  # NaN -> null


def test_lines_are_written_as_events_happen() -> None:
    sink = io.StringIO()
    log = EventLog(keep=2, sink=sink)
    e = log.record(1.5, "spotted", npc="a")
    assert sink.getvalue() == e.to_line() == '{"t":1.5,"event":"spotted","npc":"a"}\n'
    log.record(2.0, "lost", npc="a")
    assert sink.getvalue().count("\n") == 2


def test_stream_to_writes_the_held_events_first() -> None:
    log = EventLog(keep=10)
    _fill(log, 4)
    sink = io.StringIO()
    log.stream_to(sink)
    _fill(log, 3)
    whole = EventLog(keep=None)
    _fill(whole, 4)
    _fill(whole, 3)
    assert sink.getvalue() == whole.to_jsonl()


def test_stream_to_refuses_an_incomplete_file_or_a_second_sink() -> None:
    log = EventLog(keep=3)
    _fill(log, 5)
    with pytest.raises(WorldError, match="already forgotten its first 2 events"):
        log.stream_to(io.StringIO())
    log = EventLog(keep=3, sink=io.StringIO())
    with pytest.raises(WorldError, match="already streams"):
        log.stream_to(io.StringIO())
    log.close()
    log.close()  # twice is harmless
    log.stream_to(io.StringIO())


def test_event_json_shape() -> None:
    e = Event(0.1234567, "shot", {"hit": True, "at": np.array([1.0, 2.0, 3.0])})
    assert e.to_json() == {"t": 0.123457, "event": "shot", "hit": True, "at": [1.0, 2.0, 3.0]}
