"""Every script in examples/ (but those in NOT_RUN, with the reason) runs in a fresh interpreter, exits 0 and
prints what it promises; every one is listed in examples/README.md."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

EXAMPLES = REPO / "examples"
ALL_SCRIPTS = sorted(p.name for p in EXAMPLES.glob("*.py"))
# scripts the tests do not run, and why
NOT_RUN = {
    "07_train_ppo.py": "needs stable-baselines3 and torch (not npc-ai dependencies) and trains for minutes",
}
SCRIPTS = [s for s in ALL_SCRIPTS if s not in NOT_RUN]
# scripts that need the `rl` extra: skipped (not failed) where gymnasium / pettingzoo are not installed
NEEDS_RL = {"07_research_envs.py"}
NUMBER = r"\d+\.\d+"

# script -> patterns its output must match (one per line of interest)
EXPECTED: dict[str, tuple[str, ...]] = {
    "01_step_world.py": (
        r"scene arena: \d+ boxes, 3 NPC spawns",
        r"ray hits: \[True, True\]",
        r"t = 1\.00 s after 60 ticks",
        r"capsule centre \[m\]: \[",
    ),
    "02_navmesh_path.py": (
        r"navmesh: \d+ polygons",
        rf"path status: success, length {NUMBER} m, \d+ corners",
        r"path status: partial, ends at \[",
    ),
    "03_npc_states.py": (
        r"t = 4\.0 s, player at \[",
        r"  rookie .* (wander|patrol|aim|shoot|chase|search|investigate) .*sees (the player|nothing)",
        r"arrived (True|False)",
        r"events: .*spotted",
    ),
    "04_custom_player.py": (
        r"t = 5 s: player at \[.*\], seen by \d",
        r"player: waypoint \d, spotted \d+ times",
    ),
    "05_movingai_map.py": (
        r"map tiny: MovingAI map 12x8",
        rf"path status: success, length {NUMBER} m",
        r"npc0 .* now \w+",
    ),
    "06_bring_your_own_client.py": (
        r"bodies in your client while simulating: \d+",
        r"after close: connected True, bodies 0",
        r"world still open at t = 2\.\d+ s with \d NPC bodies in it",
    ),
    "08_living_navmesh.py": (
        r"size default: \d+ polygons, [\d.]+ m\^2, areas \{'water': 1\}",
        r"size large: \d+ polygons",
        r"no filter: success, length 8\.00 m, exact True",
        r"water costs 1\.5: success, length 8\.00 m, cost 10\.00, exact False",
        r"water costs 10: success, length 12\.\d\d m, cost 12\.\d\d, exact False",
        r"water excluded: success, length 12\.\d\d m, cost 12\.\d\d, exact True",
        r"default agent across the wall: success",
        r"large agent across the wall: partial",
        r"found \d+ jumps: -1\.4 -> 1\.0 m",
        r"platform to platform: success, cost [\d.]+ m, links \[\d+\]",
        r"guard +link_enter .* kind=jump",
        r"guard +link_exit",
        r"guard now at x = [1-9]\.\d m",
    ),
    "07_research_envs.py": (
        r"observation: \{'scan': \(16,\), 'scan_hit': \(16,\), 'self': \(6,\), "
        r"'targets': \(8, 9\), 'goal': \(6,\)\}",
        rf"episode: return -?{NUMBER}, goals \d, caught (True|False), t {NUMBER} s",
        r"frame: \(\d+, \d+, 3\)",
        r"vector: scan \(3, 16\) rewards \(3,\)",
        r"guards_v0 agents: guard_0, guard_1, player",
    ),
}


def run(script: str, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"{script} exited {proc.returncode}:\n{proc.stderr}"
    return proc.stdout


def test_every_example_has_expectations() -> None:
    assert SCRIPTS, "no examples found"
    assert set(SCRIPTS) == set(EXPECTED)


@pytest.mark.parametrize("script", SCRIPTS)
def test_example_runs_and_prints_what_it_promises(script: str) -> None:
    if script in NEEDS_RL:
        pytest.importorskip("gymnasium")
        pytest.importorskip("pettingzoo")
    out = run(script)
    for pattern in EXPECTED.get(script, ()):
        assert re.search(pattern, out), f"{script}: no line matches {pattern!r} in:\n{out}"


def test_movingai_example_runs_on_a_benchmark_map(movingai_dir: Path) -> None:
    small = min(movingai_dir.glob("*.map"), key=lambda p: p.stat().st_size)
    out = run("05_movingai_map.py", str(small))
    assert f"map {small.stem}: MovingAI map" in out
    assert re.search(r"path status: (success|partial|invalid)", out)
    assert "now" in out


def test_every_example_is_listed_in_the_readme() -> None:
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    missing = [s for s in ALL_SCRIPTS if f"[`{s}`]({s})" not in readme]
    assert not missing, f"examples/README.md does not list: {missing}"
    listed = set(re.findall(r"\[`([\w.]+\.py)`\]", readme))
    stale = listed - set(ALL_SCRIPTS)
    assert not stale, f"examples/README.md lists missing scripts: {stale}"


def test_examples_use_only_the_public_api() -> None:
    """No private names (`_x`) and no internal modules: the top-level packages and their public
    sub-packages only."""
    public = {"npc_ai", "npc_ai.levels", "npc_ai.sim", "npc_ai.envs", "scenes", "navigation"}
    for script in ALL_SCRIPTS:
        text = (EXAMPLES / script).read_text(encoding="utf-8")
        for module in re.findall(r"^\s*(?:from|import) ([\w.]+)", text, flags=re.MULTILINE):
            root = module.split(".")[0]
            if root in {"npc_ai", "scenes", "navigation"}:
                assert module in public, f"{script} imports the internal module {module}"
        assert not re.search(r"\.\_[a-z]", text), f"{script} uses a private name"
        assert len(text.splitlines()) <= 45, f"{script} is longer than a short example"
