"""`bench soak`: a short real run is clean and writes the documented JSON; every detector sees a body put
where it should never be (inside a wall, below the floor, off the navmesh, at NaN), exceptions are counted
and the run goes on, and NPCs that want to move but do not are stuck."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

from npc_ai.behaviour import BehaviourBatch, states
from npc_ai.bench.soak import SoakProbe, SoakSettings, format_table, rss_mb, run_soak
from npc_ai.cli.sim import add_bench_soak_arguments, cmd_bench_soak
from npc_ai.cli.types import UsageError
from npc_ai.errors import BenchmarkSettingsError
from npc_ai.sim.player import PlayerSettings
from npc_ai.sim.simulation import Simulation, SimulationSettings
from scenes import load_scene

KEYS = {
    "scene",
    "npcs",
    "seconds",
    "exceptions",
    "nonfinite",
    "below_floor",
    "inside_static",
    "off_navmesh",
    "stuck_share",
    "rss_growth_mb",
}
WALL_EAST = (15.25, 0.0)  # arena's east wall: 0.5 m thick, 3 m high, centred on x = 15.25


def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_bench_soak_arguments(p)
    return p.parse_args(list(argv))


def test_short_real_run_writes_the_documented_json(tmp_path: Path, capsys) -> None:
    out = tmp_path / "soak.json"
    assert cmd_bench_soak(_args("--scene", "arena", "--npcs", "3", "--seconds", "4", "--json", str(out))) == 0
    data = json.loads(out.read_text())
    assert list(data) == ["runs"] and len(data["runs"]) == 1
    run = data["runs"][0]
    assert set(run) >= KEYS
    assert run["scene"] == "arena" and run["npcs"] == 3 and run["seconds"] == pytest.approx(4.0)
    counts = {k: run[k] for k in ("exceptions", "nonfinite", "below_floor", "inside_static", "off_navmesh")}
    assert counts == dict.fromkeys(counts, 0)
    assert 0.0 <= run["stuck_share"] <= 1.0 and isinstance(run["rss_growth_mb"], float)
    assert run["samples"] == 8 and run["ticks"] == 240 and not run["aborted"]
    text = capsys.readouterr()
    assert "inside_static" in text.out and f"wrote {out}" in text.out
    assert "soak on arena" in text.err  # progress on stderr


def test_output_path_is_checked_before_any_work(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"--json .*must end in \.json"):
        cmd_bench_soak(_args("--json", str(tmp_path / "soak.txt")))
    with pytest.raises(UsageError, match="--npcs must be positive"):
        cmd_bench_soak(_args("--npcs", "0"))


@pytest.fixture
def sim():
    settings = SimulationSettings(npcs=3, player=PlayerSettings(mode="still"))
    with Simulation(load_scene("arena"), seed=1, settings=settings) as s:
        s.run(0.5)
        yield s


def _counts(probe: SoakProbe) -> tuple[int, int, int, int]:
    return probe.nonfinite, probe.below_floor, probe.inside_static, probe.off_navmesh


def _put(sim: Simulation, feet: tuple[float, float, float]) -> None:
    """Teleport NPC 0's body so its feet are at `feet`."""
    ch = sim.npcs[0].locomotor.character
    sim.world.teleport(ch.body, (feet[0], feet[1], feet[2] + ch.height / 2))


def test_a_clean_sample_counts_nothing(sim) -> None:
    probe = SoakProbe(sim)
    probe.sample()
    assert _counts(probe) == (0, 0, 0, 0) and probe.samples == 1 and probe.npc_samples == 3


def test_inside_a_wall_is_seen(sim) -> None:
    probe = SoakProbe(sim)
    _put(sim, (WALL_EAST[0], WALL_EAST[1], 0.0))
    probe.sample()
    assert probe.inside_static == 1 and probe.below_floor == 0 and probe.nonfinite == 0
    assert probe.off_navmesh == 1  # the middle of a wall is far from the mesh, too
    inside = [i for i in probe.incidents if i["kind"] == "inside_static"]
    assert inside[0]["who"] == sim.npcs[0].name and inside[0]["depth"] > 0.3
    # half a capsule radius into the wall's face is inside; touching it is not
    radius = sim.npcs[0].locomotor.character.radius
    _put(sim, (15.0 - radius - 0.001, 3.0, 0.02))
    probe.sample()
    assert probe.inside_static == 1
    _put(sim, (15.0 - radius / 2, 3.0, 0.02))
    probe.sample()
    assert probe.inside_static == 2
    face = [i for i in probe.incidents if i["kind"] == "inside_static"][-1]
    assert face["depth"] == pytest.approx(radius / 2, abs=0.01)
    assert face["normal"] == [-1.0, 0.0, 0.0]  # out of the wall, toward the room
    assert 0.0 < face["height"] < sim.npcs[0].locomotor.character.height


def test_below_the_floor_is_seen(sim) -> None:
    probe = SoakProbe(sim)
    _put(sim, (3.0, 3.0, -3.0))
    probe.sample()
    assert probe.below_floor == 1 and probe.inside_static == 0
    assert probe.off_navmesh == 1  # 3 m below the mesh
    below = next(i for i in probe.incidents if i["kind"] == "below_floor")
    assert below["position"] == [3.0, 3.0, -3.0] and below["floor_z"] < 0.0
    # outside the level's walls there is no floor at all: the bottom of the level counts
    _put(sim, (40.0, 0.0, -5.0))
    probe.sample()
    assert probe.below_floor == 2


def test_off_the_navmesh_is_seen(sim) -> None:
    probe = SoakProbe(sim)
    x, y, _ = sim.npcs[0].position
    _put(sim, (x, y, 3.0))  # in the air, above its own spot
    probe.sample()
    assert _counts(probe) == (0, 0, 0, 1)
    off = probe.incidents[0]
    assert off["kind"] == "off_navmesh" and off["vertical"] > 2.5 and off["horizontal"] == 0.0
    # the mesh ends the agent radius (0.4 m) to a cell and a half (0.3 m) more before the wall at x = 15
    edge = float(sim.query.nearest_point((15.0, 0.0, 0.0)).point[0])
    assert 15.0 - 0.7 - 1e-6 <= edge <= 15.0 - 0.4
    _put(sim, (edge + 0.03, 0.0, 0.0))  # 3 cm past the mesh edge: within the 5 cm tolerance
    probe.sample()
    assert probe.off_navmesh == 1
    assert probe.max_off_navmesh_m == pytest.approx(0.03, abs=0.005)
    _put(sim, (edge + 0.3, 0.0, 0.0))  # 0.3 m past it: where a capsule pushed against the wall may stand
    probe.sample()
    assert probe.off_navmesh == 2
    assert probe.incidents[-1]["horizontal"] == pytest.approx(0.3, abs=0.01)
    assert probe.max_off_navmesh_m == pytest.approx(0.3, abs=0.01)


def test_non_finite_positions_are_seen(sim) -> None:
    probe = SoakProbe(sim)
    row = sim.world.poses.index(sim.npcs[1].body)
    sim.world.poses.positions[row] = np.nan
    probe.sample()  # the other detectors skip the NaN body, and do not raise
    assert probe.nonfinite == 1 and probe.incidents[0]["who"] == sim.npcs[1].name
    assert probe.incidents[0]["what"] == "body"


def test_run_soak_sees_a_body_put_in_a_wall_right_before_a_sample() -> None:
    def into_the_wall(sim: Simulation) -> None:
        if 1.9 < sim.time < 2.1:
            _put(sim, (WALL_EAST[0], WALL_EAST[1], 0.0))

    settings = SoakSettings(npcs=2, seconds=3.0)
    result = run_soak(load_scene("arena"), settings, before_sample=into_the_wall)
    assert result.inside_static >= 1 and result.off_navmesh >= 1
    assert result.exceptions == 0 and result.nonfinite == 0
    assert any(i["kind"] == "inside_static" and 1.9 < i["t"] < 2.1 for i in result.incidents)
    assert result.to_json()["inside_static"] == result.inside_static


def test_exceptions_are_counted_and_the_run_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    decide = states.decide
    failures = [3]

    def flaky(batch: BehaviourBatch, active: np.ndarray | None = None) -> None:
        if batch.env.time >= 1.0 and failures[0] > 0:
            failures[0] -= 1
            raise RuntimeError("boom")
        decide(batch, active)

    monkeypatch.setattr(states, "decide", flaky)
    result = run_soak(load_scene("arena"), SoakSettings(npcs=2, seconds=2.0, max_messages=2))
    assert result.exceptions == 3
    assert result.ticks == 120 and not result.aborted  # the run went on to the end
    assert result.seconds == pytest.approx(2.0) and result.samples == 4
    assert len(result.messages) == 2 and "RuntimeError: boom" in result.messages[0]
    assert "t=1.0" in result.messages[0] and "in flaky" in result.messages[0]
    # a tick that always raises stops the run
    monkeypatch.setattr(states, "decide", lambda *a: (_ for _ in ()).throw(RuntimeError("always")))
    stopped = run_soak(load_scene("arena"), SoakSettings(npcs=1, seconds=2.0, max_failures=5))
    assert stopped.aborted and stopped.exceptions == 5 and stopped.ticks == 0
    assert "(aborted)" in format_table([stopped])[1]


def test_npcs_that_want_to_move_but_do_not_are_stuck(sim) -> None:
    probe = SoakProbe(sim, SoakSettings(stuck_window_s=1.0, sample_every_s=0.5))
    for _ in range(5):  # no ticks between samples: nobody moves
        probe.sample()
    wanting = sum(n.wants_to_move for n in sim.npcs)
    assert wanting >= 1
    assert probe.stuck_checked == 3 * 3  # three samples with a full window, three NPCs each
    assert probe.stuck == 3 * wanting and probe.stuck_share == pytest.approx(wanting / 3)
    assert sum(probe.stuck_by_state.values()) == probe.stuck
    # NPCs that walk are not stuck
    moving = SoakProbe(sim, SoakSettings(stuck_window_s=1.0))
    for _ in range(6):
        moving.sample()
        sim.run(0.5)
    assert moving.stuck_share < 1.0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"npcs": 0}, "npcs must be an integer in 1..10000"),
        ({"seconds": 0.0}, "seconds must be a positive number"),
        ({"sample_every_s": float("nan")}, "sample_every_s must be a positive number"),
        ({"inside_depth": -0.1}, "inside_depth must be a number of metres >= 0"),
        ({"warmup_s": -1.0}, "warmup_s must be >= 0 seconds or None"),
        ({"max_failures": 0}, "max_failures must be a whole number"),
        ({"seed": -3}, "seed must be an integer >= 0"),
    ],
)
def test_bad_settings(kwargs, message) -> None:
    with pytest.raises(BenchmarkSettingsError, match=message):
        SoakSettings(**kwargs)


def test_warmup_and_rss() -> None:
    assert SoakSettings(seconds=600.0).warmup == 30.0
    assert SoakSettings(seconds=4.0).warmup == pytest.approx(0.4)
    assert SoakSettings(seconds=4.0, warmup_s=10.0).warmup == 4.0
    assert rss_mb() > 10.0
