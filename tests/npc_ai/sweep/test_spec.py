"""Spec loading: every malformed spec is a `SpecError` that names the key; trial ids and order."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npc_ai.sweep import SpecError, SweepSpec, load_spec, parse_spec
from npc_ai.sweep.spec import spec_from_dict
from tests.conftest import REPO

GOOD = """
[sweep]
task = "sync"
seeds = 3
[params]
scene = "arena"
[grid]
tau = [0.05, 0.3]
mode = ["root_motion", "agent_drives"]
"""


def test_trials_are_the_grid_times_the_seeds_in_id_order() -> None:
    spec = parse_spec(GOOD)
    trials = spec.trials()
    assert len(trials) == spec.trial_count == 2 * 2 * 3
    assert [t.id for t in trials] == [f"{i:04d}" for i in range(12)]
    # the last grid key varies fastest, then the seeds
    assert [(t.params["tau"], t.params["mode"], t.seed) for t in trials[:4]] == [
        (0.05, "root_motion", 0),
        (0.05, "root_motion", 1),
        (0.05, "root_motion", 2),
        (0.05, "agent_drives", 0),
    ]
    # parameters in the task's order, fixed ones included
    assert list(trials[0].params) == ["scene", "mode", "tau"]
    assert spec.swept == ("mode", "tau") and spec.columns == ("scene", "mode", "tau")


def test_cases_cross_the_grid_and_ints_become_floats() -> None:
    spec = parse_spec(
        '[sweep]\ntask = "sync"\nseeds = [4]\n[grid]\ntau = [1]\n[[cases]]\nroutes = 2\n[[cases]]\nroutes = 3\n'  # noqa: E501
    )
    assert [(t.params["routes"], t.params["tau"], t.seed) for t in spec.trials()] == [
        (2, 1.0, 4),
        (3, 1.0, 4),
    ]
    assert isinstance(spec.trials()[0].params["tau"], float)


def test_the_plan_leaves_the_report_out() -> None:
    a = parse_spec(GOOD)
    b = parse_spec(GOOD + '[report]\nx = "tau"\nmetrics = ["drift_mean_m"]\n')
    assert a.plan() == b.plan()
    assert a.plan() != parse_spec(GOOD.replace("seeds = 3", "seeds = 4")).plan()


def test_the_shipped_example_loads() -> None:
    spec = load_spec(REPO / "examples" / "sweeps" / "sync_tau.toml")
    assert spec.task == "sync" and spec.trial_count == 40 and spec.x == "tau"
    assert dict(spec.grid)["mode"] == ("root_motion", "root_motion_no_limit")


@pytest.mark.parametrize(
    "text, message",
    [
        ('[sweep]\ntask = "dance"', r"sweep.task: unknown task 'dance'; choose from sync, sim"),
        ("[sweep]\nseeds = 2", r"\[sweep\]: task is missing"),
        ('[sweep]\ntask = "sync"\nspeed = 2', r"\[sweep\]: unknown key 'speed'"),
        ('[sweep]\ntask = "sync"\n[grid]\nwings = [1]', r"grid: task 'sync' has no parameter 'wings'; its parameters: scene"),  # noqa: E501
        ('[sweep]\ntask = "sync"\n[grid]\ntau = []', r"grid.tau: give a non-empty list"),
        ('[sweep]\ntask = "sync"\n[grid]\ntau = 0.3', r"grid.tau: give a list of values"),
        ('[sweep]\ntask = "sync"\n[grid]\ntau = [0.3, "slow"]', r"grid.tau\[1\]: tau must be a number in \[0.001, 10\], got 'slow'"),  # noqa: E501
        ('[sweep]\ntask = "sync"\n[grid]\ntau = [0.3, 0.3]', r"grid.tau: a value is listed twice"),
        ('[sweep]\ntask = "sync"\n[grid]\nroutes = [2.5]', r"grid.routes\[0\]: routes must be an integer in \[1, 1000\], got 2.5"),  # noqa: E501
        ('[sweep]\ntask = "sync"\n[params]\nmode = "fly"', r"params: mode must be one of agent_drives, root_motion"),  # noqa: E501
        ('[sweep]\ntask = "sim"\n[params]\navoidance = 1', r"params: avoidance must be true or false, got 1"),
        ('[sweep]\ntask = "sync"\n[params]\ntau = 0.1\n[grid]\ntau = [0.2]', r"grid.tau: tau is also in \[params\]"),  # noqa: E501
        ('[sweep]\ntask = "sync"\nseeds = []', r"sweep.seeds: give at least one seed"),
        ('[sweep]\ntask = "sync"\nseeds = [1, 1]', r"sweep.seeds: a seed is listed twice"),
        ('[sweep]\ntask = "sync"\nseeds = [-1]', r"sweep.seeds\[0\]: a seed must be an integer"),
        ('[sweep]\ntask = "sync"\nseeds = "all"', r"sweep.seeds: a count \(5\) or a list"),
        ('[sweep]\ntask = "nav-scen"\nseeds = 2', r"task 'nav-scen' does not use the seed; give one seed"),
        ('[sweep]\ntask = "sync"\n[report]\nx = "tau"', r"report.x: 'tau' is not a grid or case parameter"),
        ('[sweep]\ntask = "sync"\n[[cases]]\n[[cases]]\nroutes = 2', r"cases\[0\]: an empty case"),
        ('[sweep]\ntask = "sync"\n[extra]\na = 1', r"the spec: unknown key 'extra'"),
        ('[sweep]\ntask = "sync"\nseeds = 101\n[grid]\nroutes = ' + str(list(range(1, 1001))) + "\n",
         r"more than 100000 trials"),
        ("[sweep\ntask = 1", r"not valid TOML"),
        ('[sweep]\ntask = "nav-scen"', r"params: task 'nav-scen' needs map \(a MovingAI .map file"),
    ],
)  # fmt: skip
def test_malformed_specs_say_what_to_fix(text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        parse_spec(text)


def test_load_spec_refuses_missing_and_non_toml_files(tmp_path) -> None:
    with pytest.raises(SpecError, match=r"a sweep spec is a .toml file"):
        load_spec(tmp_path / "spec.json")
    with pytest.raises(SpecError, match=r"cannot read the spec"):
        load_spec(tmp_path / "missing.toml")


def test_the_dataclass_checks_itself_too() -> None:
    with pytest.raises(SpecError, match=r"grid.tau: give a non-empty list"):
        SweepSpec(task="sync", seeds=(0,), grid=(("tau", ()),))
    with pytest.raises(SpecError, match="unknown task"):
        SweepSpec(task="", seeds=(0,))


names = st.sampled_from(["task", "seeds", "scene", "tau", "mode", "routes", "x", "metrics", "npcs", "zzz"])
scalars = st.one_of(
    st.integers(-5, 2000), st.floats(allow_nan=True), st.booleans(), st.text(string.ascii_letters, max_size=6)
)
values = st.one_of(scalars, st.lists(scalars, max_size=4), st.dictionaries(names, scalars, max_size=3))
tables = st.dictionaries(names, values, max_size=4)
documents = st.dictionaries(
    st.sampled_from(["sweep", "params", "grid", "cases", "report", "other"]),
    st.one_of(tables, st.lists(tables, max_size=2), scalars),
    max_size=5,
)


@settings(max_examples=150, deadline=None)
@given(documents, st.sampled_from(["sync", "run", "sim", "crowd", "nav-scen", "env"]))
def test_any_document_is_a_spec_or_a_spec_error(doc: dict, task: str) -> None:
    """Whatever the parsed TOML holds, loading gives a checked spec or a SpecError, nothing else."""
    if isinstance(doc.get("sweep"), dict):
        doc["sweep"].setdefault("task", task)
    try:
        spec = spec_from_dict(doc)
    except SpecError as exc:
        assert str(exc)
        return
    trials = spec.trials()
    assert len(trials) == spec.trial_count >= 1
    assert [t.id for t in trials] == sorted(t.id for t in trials)


def test_checking_a_spec_loads_nothing_heavy() -> None:
    """A spec is checked before any trial: no Ray, pyarrow, PyBullet, numba or simulation on the way."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from npc_ai.sweep import load_spec\n"
        f"load_spec({str(REPO / 'examples' / 'sweeps' / 'sync_tau.toml')!r})\n"
        "heavy = {'ray', 'pyarrow', 'pybullet', 'numba', 'npc_ai.sim', 'matplotlib'} & set(sys.modules)\n"
        "print(sorted(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"
