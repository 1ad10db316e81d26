"""The replay picture."""

from __future__ import annotations

from pathlib import Path

from npc_ai.sim.simulation import Simulation, SimulationSettings
from npc_ai.viz.replay import plot_replay
from scenes import load_scene


def test_replay_writes_a_png(tmp_path: Path) -> None:
    with Simulation(load_scene("warehouse"), seed=0, settings=SimulationSettings(npcs=4)) as sim:
        sim.run(5.0)
        out = plot_replay(sim, tmp_path / "replay.png")
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 20_000
