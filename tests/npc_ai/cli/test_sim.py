"""`npc-ai run`, `npc-ai demo`: outputs, the events file, bad input."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from npc_ai.cli.sim import add_demo_arguments, add_run_arguments, cmd_demo, cmd_run
from npc_ai.cli.types import UsageError
from scenes import SceneError

EVENT_NAMES = {"spotted", "aim", "shoot", "lost", "chase", "arrived", "search", "gave-up", "heard", "alerted"}


def parse(add, argv):
    p = argparse.ArgumentParser()
    add(p)
    return p.parse_args(argv)


def test_run_writes_events_and_plot(tmp_path: Path, capsys) -> None:
    events, plot = tmp_path / "e.jsonl", tmp_path / "r.png"
    args = parse(
        add_run_arguments,
        [
            "warehouse",
            "--npcs",
            "5",
            "--seconds",
            "20",
            "--seed",
            "3",
            "--player",
            "wander",
            "--events",
            str(events),
            "--plot",
            str(plot),
        ],
    )
    assert cmd_run(args) == 0
    out = capsys.readouterr().out
    assert "timeline:" in out and "summary:" in out and "spotted" in out
    rows = [json.loads(line) for line in events.read_text().splitlines()]
    assert rows and all({"t", "event", "npc"} <= set(r) for r in rows)
    named = [r for r in rows if r["event"] in EVENT_NAMES]
    assert {"spotted", "aim", "chase"} <= {r["event"] for r in named}
    assert all("position" in r for r in named)
    assert all("target" in r for r in named if r["event"] in ("spotted", "chase", "alerted"))
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_run_writes_an_animated_gif(tmp_path: Path, capsys) -> None:
    gif = tmp_path / "replay.gif"
    args = parse(add_run_arguments, ["arena", "--seconds", "1", "--quiet", "--gif", str(gif)])
    assert cmd_run(args) == 0
    assert f"wrote {gif} (" in capsys.readouterr().out
    from PIL import Image

    with Image.open(gif) as im:
        assert im.format == "GIF" and im.n_frames > 5
        shown = 0
        for k in range(im.n_frames):
            im.seek(k)
            shown += im.info["duration"]
    assert shown == pytest.approx(6000, abs=100)  # [ms]: 6 s, however short the run
    assert gif.stat().st_size < 3_000_000


def test_demo_writes_the_default_picture(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert cmd_demo(parse(add_demo_arguments, ["--seconds", "3"])) == 0
    assert (tmp_path / "npc-ai-demo.png").is_file()
    assert "guards in the warehouse" in capsys.readouterr().out


def test_bad_input(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="does not exist"):
        cmd_run(parse(add_run_arguments, ["arena", "--events", str(tmp_path / "no" / "e.jsonl")]))
    with pytest.raises(SceneError, match="not a built-in scene"):
        cmd_run(parse(add_run_arguments, ["nowhere"]))
    with pytest.raises(UsageError, match=r"--gif .*: the file name must end in \.gif"):
        cmd_run(parse(add_run_arguments, ["arena", "--gif", str(tmp_path / "replay.png")]))
    with pytest.raises(UsageError, match="--player keyboard needs --gui"):
        cmd_run(parse(add_run_arguments, ["arena", "--player", "keyboard"]))
    with pytest.raises(SystemExit):
        parse(add_run_arguments, ["arena", "--npcs", "-1"])


def test_run_prints_and_logs_the_suspicion_events(tmp_path: Path, capsys) -> None:
    from tests.npc_ai.sim_helpers import RANGE_TOML

    scene = tmp_path / "watch.toml"  # the range scene, gradual detection, the player standing 5 m ahead
    text = RANGE_TOML.replace("[archetype.guard]\n", "[archetype.guard]\ndetection_time_s = 0.5\n")
    scene.write_text(text + "[player]\nposition = [5.0, 0.0, 0.0]\n")
    events, plot = tmp_path / "e.jsonl", tmp_path / "r.png"
    argv = [str(scene), "--seconds", "2", "--player", "still", "--events", str(events), "--plot", str(plot)]
    assert cmd_run(parse(add_run_arguments, argv)) == 0
    out = capsys.readouterr().out
    printed = [line for line in out.splitlines() if " suspicion " in line]
    assert len(printed) == 3 and all("level=" in line for line in printed)
    rows = [json.loads(line) for line in events.read_text().splitlines()]
    assert [r["level"] for r in rows if r["event"] == "suspicion"] == ["suspicious", "investigate", "hostile"]
