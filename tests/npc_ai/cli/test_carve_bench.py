"""`npc-ai bench carve`: the report on stdout, the JSON file with the issue's keys, bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from npc_ai.cli.main import main


def test_bench_carve_prints_the_report_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "carve.json"
    code = main(
        ["bench", "carve", "--updates", "6", "--paths", "2", "--seed", "1", "--quiet", "--json", str(out)]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert text.startswith("carve benchmark: warehouse, 6 changes")
    assert "12 of 12 equal to the full rebuild's" in text and f"wrote {out}" in text
    doc = json.loads(out.read_text())
    assert {
        "updates",
        "rebuild_ms_median",
        "rebuild_ms_p95",
        "paths_compared",
        "paths_equal_to_full_rebake",
    } <= set(doc)
    assert doc["updates"] == 6 and doc["paths_compared"] == 12 == doc["paths_equal_to_full_rebake"]
    assert doc["scene"] == "warehouse" and doc["seed"] == 1


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--json", "{tmp}/carve.csv"], "--json .* must end in .json"),
        (["--scene", "nowhere"], "nowhere"),
    ],
)
def test_bad_arguments_are_one_line_errors(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["bench", "carve", "--quiet", *[a.format(tmp=tmp_path) for a in argv]])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("npc-ai: error: ") and len(err.strip().splitlines()) == 1
    assert re.search(message, err), err


def test_a_bad_count_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["bench", "carve", "--updates", "0"])
    assert stop.value.code == 2 and "--updates" in capsys.readouterr().err
