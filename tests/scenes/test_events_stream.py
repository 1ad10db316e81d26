"""A long simulation keeps bounded memory: the event log holds its latest events and the replay trace is
decimated, while the `--events` file streamed by the CLI is every event, byte for byte what the old
in-memory write gave, and the replay still draws."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from npc_ai.cli.sim import simulate
from npc_ai.sim.player import PlayerSettings
from npc_ai.sim.simulation import Simulation, SimulationError, SimulationSettings
from scenes import EventLog, World, load_scene

SETTINGS = SimulationSettings(npcs=6, player=PlayerSettings(mode="wander"))


def test_long_run_with_small_caps_stays_bounded(tmp_path: Path) -> None:
    scene = load_scene("arena")
    sink = io.StringIO()
    with World(scene, seed=4) as world:
        world.events = EventLog(keep=40, sink=sink)  # every event in the sink, 40 in memory
        settings = SimulationSettings(npcs=6, player=PlayerSettings(mode="wander"), trail_capacity=16)
        with Simulation(scene, world=world, settings=settings) as sim:
            held, samples = [], []
            for _ in range(round(40.0 / sim.dt)):
                sim.step()
                held.append(len(sim.events))
                samples.append(len(sim.trace.times))
            assert max(held) == 40 and max(samples) <= 16  # the caps hold at every tick
            log = sim.events
            lines = sink.getvalue().splitlines(keepends=True)
            assert log.recorded == len(lines) > 200 and log.dropped == len(lines) - 40
            assert log.to_jsonl() == "".join(lines[-40:])  # memory holds the latest events
            records = [json.loads(line) for line in lines]
            assert log.counts == Counter(r["event"] for r in records)  # exact, over the whole run
            # the summary counts every event, not only the held ones
            per_npc = Counter((r["npc"], r["event"]) for r in records)
            for npc, line in zip(sim.npcs, sim.summary(), strict=True):
                assert f"chases {per_npc[(npc.name, 'chase')]}," in line
                assert f"heard {per_npc[(npc.name, 'heard')]};" in line
            # the trace spans the whole run, evenly spaced, at a coarser interval
            tr = sim.trace.arrays()
            times = tr["times"]
            step = sim.trace.stride * settings.trail_every * sim.dt
            assert sim.trace.stride >= 16 and 8 <= len(times) <= 16
            assert times[0] == pytest.approx(sim.dt)  # the first sample, after the settling tick
            assert np.allclose(np.diff(times[1:]), step)  # then every `step`, on multiples of it
            assert np.allclose(times[1:] / step, np.round(times[1:] / step))
            assert times[-1] > sim.time - step
            assert tr["positions"].shape == (len(times), 6, 3) and tr["states"].shape == (len(times), 6)
            from npc_ai.viz.replay import plot_replay

            out = plot_replay(sim, tmp_path / "replay.png")  # the replay still draws
            assert out.stat().st_size > 10_000


def test_trace_decimation_keeps_every_other_sample() -> None:
    from npc_ai.sim.trace import Trace

    tr = Trace(["a"], capacity=4)
    stored = []
    for k in range(20):
        if tr.offer():
            tr.add(float(k), np.zeros((1, 3)), np.zeros(1), np.zeros(1, dtype=int), np.zeros(3))
            stored.append(k)
        assert len(tr.times) <= 4
    # offers 0..19; the kept ones are always evenly spaced from 0
    assert tr.times == [0.0, 8.0, 16.0] and tr.stride == 8
    with pytest.raises(SimulationError, match="trail_capacity must be an integer >= 2"):
        SimulationSettings(trail_capacity=1)


@pytest.mark.parametrize("keep", [None, 25])
def test_cli_streams_the_events_file_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep: int | None
) -> None:
    """The file `npc-ai run --events` streams is what the whole in-memory log wrote before streaming, even
    when the in-memory log keeps far fewer events than the run records."""
    scene = load_scene("arena")
    with World(scene, seed=5) as world:
        world.events = EventLog(keep=None)  # the old log: every event in memory, written at the end
        with Simulation(scene, world=world, settings=SETTINGS) as sim:
            sim.run(12.0)
            expected = sim.events.to_jsonl()
    monkeypatch.setattr("scenes.world.EventLog", lambda: EventLog(keep=keep))
    out = io.StringIO()
    path = tmp_path / "events.jsonl"
    simulate(scene, npcs=6, seconds=12.0, seed=5, player="wander", events=path, quiet=False, out=out)
    assert path.read_text(encoding="utf-8") == expected
    count = expected.count("\n")
    assert f"wrote {path} ({count} events)" in out.getvalue()
    if keep is not None:
        assert count > keep
        assert f"timeline (the last {keep} of {count} events):" in out.getvalue()
