"""`npc-ai bench nav`: the table on stdout, the JSON file, the peer's line, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from npc_ai.cli.main import main


def test_bench_nav_prints_the_table_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "nav.json"
    code = main(
        ["bench", "nav", "--maps", "arena", "--repeat", "1", "--no-peer", "--quiet", "--json", str(out)]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "| arena | 47 | " in text
    assert "pynavmesh: not run (--no-peer)" in text
    assert "fallback (A* + funnel, node budget exceeded): 0 paths on 1 maps" in text
    assert "first run: compiled kernels: " in text
    doc = json.loads(out.read_text())
    assert doc["maps"][0]["name"] == "arena" and doc["maps"][0]["fallbacks"] == 0
    assert set(doc["kernels"]) == {"compile_s", "compiled", "loaded"} and doc["first_query_s"] > 0


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--data", "/nowhere/at/all"], "--data /nowhere/at/all: no such folder"),
        (["--maps", "nowhere"], "nowhere.map: no such MovingAI file"),
        (["--json", "{tmp}/nav.csv"], "--json .* must end in .json"),
    ],
)
def test_bad_arguments_are_one_line_errors(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["bench", "nav", "--quiet", *[a.format(tmp=tmp_path) for a in argv]])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("npc-ai: error: ") and len(err.strip().splitlines()) == 1
    import re

    assert re.search(message, err), err
