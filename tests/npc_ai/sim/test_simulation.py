"""The simulation loop: tick order, batched and staggered perception, NPC counts, determinism."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from npc_ai.levels import load_level
from npc_ai.sim.player import PlayerSettings
from npc_ai.sim.simulation import Simulation, SimulationError, SimulationSettings
from scenes import load_scene
from tests.conftest import REPO

SCRIPT = """
import sys
from npc_ai.sim.player import PlayerSettings
from npc_ai.sim.simulation import Simulation, SimulationSettings
from scenes import load_scene
settings = SimulationSettings(npcs=5, player=PlayerSettings(mode="wander"))
with Simulation(load_scene("warehouse"), seed=1, settings=settings) as sim:  # a seed with sightings
    sim.run(20.0)
    sim.events.write_jsonl(sys.argv[1])
"""


def test_same_seed_same_event_file_in_two_processes(tmp_path: Path) -> None:
    outs = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    procs = [
        subprocess.Popen([sys.executable, "-c", SCRIPT, str(o)], cwd=REPO, stderr=subprocess.PIPE)
        for o in outs
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    a, b = (o.read_bytes() for o in outs)
    assert a == b
    lines = a.decode().splitlines()
    assert len(lines) > 20  # something happened: sightings, chases
    assert b'"event":"spotted"' in a and b'"event":"chase"' in a


def test_perception_is_one_ray_batch_per_tick_and_staggered() -> None:
    # timer_batch=1: every NPC on its own phase (a crowd of 16 x 6 NPCs or more is dealt this way too)
    settings = SimulationSettings(npcs=12, player=PlayerSettings(mode="still"), timer_batch=1)
    with Simulation(load_scene("arena"), seed=3, settings=settings) as sim:
        batches = []
        see = sim.perception.see

        def counting(*a, **kw):
            batches.append(sim.world.tick)
            before = sim.perception.batches
            out = see(*a, **kw)
            assert sim.perception.batches - before <= 1  # at most one ray batch for all viewers
            return out

        sim.perception.see = counting  # type: ignore[method-assign]
        fired = {}
        sight = sim.behaviour.sight

        def spy(rows, *a, **kw):
            fired.setdefault(sim.world.tick, []).extend(rows.tolist())
            return sight(rows, *a, **kw)

        sim.behaviour.sight = spy  # type: ignore[method-assign]
        sim.run(1.0)
        assert len(batches) == len(set(batches)) == 60  # one sense call per tick
        period = sim.sight_timers.periods[0]
        assert period == 6
        for tick, who in fired.items():  # each NPC perceives once per period, on its own phase
            assert sorted(who) == [i for i in range(12) if (tick + i) % period == 0]


def test_npc_counts_and_spawns() -> None:
    scene = load_scene("arena")
    with Simulation(scene, seed=1, settings=SimulationSettings(npcs=5, player=None)) as sim:
        assert [n.name for n in sim.npcs] == ["guard_a", "guard_b", "guard_c", "npc3", "npc4"]
        for n in sim.npcs:
            assert sim.query.polygon_at(n.position) >= 0
    with Simulation(scene, seed=1, settings=SimulationSettings(npcs=1, player=None)) as sim:
        assert [n.name for n in sim.npcs] == ["guard_a"]
        assert sim.npcs[0].state == "patrol"
    with pytest.raises(SimulationError, match="npcs must be an integer"):
        SimulationSettings(npcs=-1)
    with pytest.raises(
        SimulationError, match=r"avoidance must be a navigation\.AvoidanceSettings or None, got dict"
    ):
        SimulationSettings(avoidance={"time_horizon": 2.0})  # type: ignore[arg-type]


def test_movingai_map_runs(movingai_dir: Path) -> None:
    maps = sorted(movingai_dir.glob("*.map"), key=lambda p: p.stat().st_size)
    scene = load_level(str(maps[0]))
    with Simulation(scene, seed=0, settings=SimulationSettings(npcs=2)) as sim:
        sim.run(2.0)
        assert len(sim.npcs) == 2 and sim.player is not None


def test_trace_and_summary() -> None:
    with Simulation(load_scene("arena"), seed=2, settings=SimulationSettings(trail_every=6)) as sim:
        sim.run(3.0)
        tr = sim.trace.arrays()
        assert tr["positions"].shape == (len(tr["times"]), 3, 3)
        assert tr["states"].shape == (len(tr["times"]), 3)
        assert np.isfinite(tr["player"]).all()
        lines = sim.summary()
        assert len(lines) == 3 and lines[0].startswith("guard_a")
        assert sim.timings.ticks == 180 and sim.timings.physics > 0


@pytest.mark.parametrize("avoiding", [False, True])
def test_with_avoidance_the_wander_probes_see_the_level_and_not_the_other_npcs(avoiding: bool) -> None:
    """A wanderer faces another NPC 1.5 m ahead in an open lane of the arena. Without the crowd's avoidance
    its box cast stops at that NPC (it would stop short of it and turn away); with it, the avoidance steers
    round the NPCs, so the probes see the level only and nothing is ahead."""
    from navigation.avoidance import AvoidanceSettings
    from scenes import NpcSpawn

    scene = load_scene("arena").with_npcs(
        NpcSpawn(position=(-6.0, -8.0, 0.0), yaw_deg=0.0, name="a"),
        NpcSpawn(position=(-4.5, -8.0, 0.0), yaw_deg=180.0, name="b"),
        keep_existing=False,
    )
    settings = SimulationSettings(player=None, avoidance=AvoidanceSettings() if avoiding else None)
    with Simulation(scene, seed=1, settings=settings) as sim:
        b = sim.behaviour
        b.wander_speed[0], b.wander_next_pick[0] = b.cfg.walk_speed[0], 1e9  # a means to walk, no new pick
        sim.step()
        assert b.probe_time[0] == pytest.approx(sim.time - sim.dt, abs=1e-9)  # probed this tick
        gap = 1.5 - 2 * sim.locomotion.radius
        if avoiding:
            assert b.probe_forward[0] == np.inf
        else:
            assert b.probe_forward[0] == pytest.approx(gap, abs=0.05)
