"""A sweep spec: a TOML file naming a task, its fixed parameters, a grid and/or a list of cases, and seeds.

```toml
[sweep]
task = "sync"                 # one of npc_ai.sweep.tasks.TASKS
seeds = 5                     # 0..4; or a list: [0, 7, 11]
title = "tau x coupling mode" # optional: the report's heading

[params]                      # fixed for every trial
scene = "arena"

[grid]                        # the cartesian product, in the order written
tau = [0.05, 0.15, 0.3, 0.6]
mode = ["root_motion", "root_motion_no_limit"]

[[cases]]                     # optional: explicit combinations, each crossed with the grid
routes = 4

[report]                      # optional: what report.md tabulates and plots
metrics = ["planted_slide_cm_per_m", "drift_mean_m"]
x = "tau"                     # the plots' x axis (default: the first numeric grid parameter)
```

Trials are the combinations (cases outer, grid inner, the last grid key fastest) times the seeds (fastest);
trial ids are their zero-padded indices (`0000`, `0001`, ...), so sorting by id is that order. Every key is
documented in docs/sweeps.md. `load_spec` checks everything before any trial runs and raises `SpecError`
naming the key at fault.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from npc_ai.sweep.errors import SpecError
from npc_ai.sweep.params import TaskInfo, Value
from npc_ai.sweep.tasks import task_info

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MAX_TRIALS = 100_000
MAX_SEED = 2**32 - 1
SECTIONS = ("sweep", "params", "grid", "cases", "report")
SWEEP_KEYS = ("task", "seeds", "title")
REPORT_KEYS = ("metrics", "x")


@dataclass(frozen=True)
class Trial:
    """One trial: its id (the zero-padded index), the parameters the spec sets (fixed, case and grid,
    in the task's order), and the seed."""

    id: str
    params: dict[str, Value]
    seed: int


@dataclass(frozen=True)
class SweepSpec:
    """A checked sweep spec (see the module doc).

    Attributes:
        task: the task's name (`npc_ai.sweep.tasks.TASKS`).
        seeds: the seeds, each in [0, 2**32 - 1], distinct, at least one.
        params: fixed parameters, name -> value.
        grid: (name, values) pairs; each list non-empty, without repeats.
        cases: explicit combinations, each a name -> value mapping (may be empty: no cases).
        title: the report's heading ("" for the default).
        metrics: the metrics report.md tabulates and plots (empty: every numeric metric).
        x: the grid parameter on the plots' x axis (None: the first numeric grid parameter).
    """

    task: str
    seeds: tuple[int, ...]
    params: tuple[tuple[str, Value], ...] = ()
    grid: tuple[tuple[str, tuple[Value, ...]], ...] = ()
    cases: tuple[tuple[tuple[str, Value], ...], ...] = ()
    title: str = ""
    metrics: tuple[str, ...] = ()
    x: str | None = None
    info: TaskInfo = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        info = task_info(self.task)
        object.__setattr__(self, "info", info)
        if not self.seeds:
            raise SpecError("sweep.seeds: give at least one seed (seeds = 5, or seeds = [0, 1, 2])")
        for i, s in enumerate(self.seeds):
            if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= MAX_SEED:
                raise SpecError(f"sweep.seeds[{i}]: a seed must be an integer in [0, {MAX_SEED}], got {s!r}")
        if len(set(self.seeds)) != len(self.seeds):
            raise SpecError(f"sweep.seeds: a seed is listed twice in {list(self.seeds)}")
        if not info.seeded and len(self.seeds) > 1:
            raise SpecError(f"sweep.seeds: task {self.task!r} does not use the seed; give one seed")
        fixed = dict(self.params)
        for name, value in self.params:
            info.param(name, "params").check(value, "params")
        grid_names = [name for name, _ in self.grid]
        for name, values in self.grid:
            p = info.param(name, "grid")
            if name in fixed:
                raise SpecError(f"grid.{name}: {name} is also in [params]; give it in one place")
            if not isinstance(values, tuple) or not values:
                raise SpecError(f"grid.{name}: give a non-empty list of values, got {values!r}")
            checked = [p.check(v, f"grid.{name}[{i}]") for i, v in enumerate(values)]
            if len(set(checked)) != len(checked):
                raise SpecError(f"grid.{name}: a value is listed twice in {list(values)}")
        for k, case in enumerate(self.cases):
            if not case:
                raise SpecError(f"cases[{k}]: an empty case; give at least one parameter")
            for name, value in case:
                p = info.param(name, f"cases[{k}]")
                if name in fixed or name in grid_names:
                    raise SpecError(f"cases[{k}].{name}: {name} is also in [params] or [grid]; give it once")
                p.check(value, f"cases[{k}]")
        for p in info.params:
            given = p.name in fixed or p.name in grid_names
            in_cases = bool(self.cases) and all(p.name in dict(c) for c in self.cases)
            if p.required and not given and not in_cases:
                raise SpecError(f"params: task {self.task!r} needs {p.name} ({p.doc})")
        if self.trial_count > MAX_TRIALS:
            raise SpecError(f"the spec makes more than {MAX_TRIALS} trials; split it into smaller sweeps")
        if self.x is not None and self.x not in grid_names and not any(self.x in dict(c) for c in self.cases):
            raise SpecError(f"report.x: {self.x!r} is not a grid or case parameter; choose from {grid_names}")
        for i, m in enumerate(self.metrics):
            if not isinstance(m, str) or not m:
                raise SpecError(f"report.metrics[{i}]: a metric name (a string), got {m!r}")

    @property
    def trial_count(self) -> int:
        """How many trials the spec makes."""
        n = len(self.seeds) * max(1, len(self.cases))
        for _, values in self.grid:
            n *= len(values) if isinstance(values, tuple) else 1
        return n

    @property
    def swept(self) -> tuple[str, ...]:
        """The parameters that vary between trials (grid and case keys), in the task's order."""
        names = {n for n, _ in self.grid} | {n for case in self.cases for n, _ in case}
        return tuple(p.name for p in self.info.params if p.name in names)

    @property
    def columns(self) -> tuple[str, ...]:
        """The parameters the spec sets (fixed, grid, cases), in the task's order: results.csv's."""
        names = set(dict(self.params)) | set(self.swept)
        return tuple(p.name for p in self.info.params if p.name in names)

    def trials(self) -> list[Trial]:
        """Every trial, in id order (module doc)."""
        combos = []
        grid_names = [n for n, _ in self.grid]
        for case in self.cases or ((),):
            for values in itertools.product(*(v for _, v in self.grid)):
                given = {**dict(self.params), **dict(case), **dict(zip(grid_names, values, strict=True))}
                combos.append(given)
        n = len(combos) * len(self.seeds)
        width = max(4, len(str(n - 1)))
        order = [p.name for p in self.info.params]
        out = []
        for i, (given, seed) in enumerate(itertools.product(combos, self.seeds)):
            params = {n: self.info.param(n, "").check(given[n], "") for n in order if n in given}
            out.append(Trial(f"{i:0{width}d}", params, seed))
        return out

    def plan(self) -> dict[str, Any]:
        """What decides the trials and their results (task, parameters, seeds): stored in DIR/spec.json;
        `--resume` refuses a spec whose plan differs. The report keys are not part of it."""
        return {
            "task": self.task,
            "seeds": list(self.seeds),
            "params": dict(self.params),
            "grid": {n: list(v) for n, v in self.grid},
            "cases": [dict(c) for c in self.cases],
        }

    def to_json(self) -> dict[str, Any]:
        return {**self.plan(), "title": self.title, "report": {"metrics": list(self.metrics), "x": self.x}}


def _table(doc: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = doc.get(key, {})
    if not isinstance(value, Mapping):
        raise SpecError(f"[{key}] must be a table of key = value lines, got {value!r}")
    return value


def _known(table: Mapping[str, Any], allowed: tuple[str, ...], where: str) -> None:
    for key in table:
        if key not in allowed:
            raise SpecError(f"{where}: unknown key {key!r}; allowed: {', '.join(allowed)}")


def spec_from_dict(doc: Mapping[str, Any]) -> SweepSpec:
    """A `SweepSpec` from a parsed TOML document (module doc), or `SpecError`."""
    _known(doc, SECTIONS, "the spec")
    sweep = _table(doc, "sweep")
    _known(sweep, SWEEP_KEYS, "[sweep]")
    if "task" not in sweep:
        raise SpecError('[sweep]: task is missing; e.g. task = "sync"')
    task_info(sweep["task"])
    seeds_raw = sweep.get("seeds", 1)
    if isinstance(seeds_raw, int) and not isinstance(seeds_raw, bool):
        if not 1 <= seeds_raw <= MAX_TRIALS:
            raise SpecError(f"sweep.seeds: a count must be in [1, {MAX_TRIALS}], got {seeds_raw}")
        seeds = tuple(range(seeds_raw))
    elif isinstance(seeds_raw, list):
        seeds = tuple(seeds_raw)
    else:
        raise SpecError(f"sweep.seeds: a count (5) or a list of seeds ([0, 1, 2]), got {seeds_raw!r}")
    title = sweep.get("title", "")
    if not isinstance(title, str):
        raise SpecError(f"sweep.title must be a string, got {title!r}")
    grid = _table(doc, "grid")
    for name, values in grid.items():
        if not isinstance(values, list):
            raise SpecError(f"grid.{name}: give a list of values ({name} = [1, 2]), got {values!r}")
    cases = doc.get("cases", [])
    if not isinstance(cases, list) or not all(isinstance(c, Mapping) for c in cases):
        raise SpecError("cases: give [[cases]] tables, one per combination")
    report = _table(doc, "report")
    _known(report, REPORT_KEYS, "[report]")
    metrics = report.get("metrics", [])
    if not isinstance(metrics, list):
        raise SpecError(f"report.metrics: a list of metric names, got {metrics!r}")
    x = report.get("x")
    if x is not None and not isinstance(x, str):
        raise SpecError(f"report.x: a parameter name, got {x!r}")
    return SweepSpec(
        task=sweep["task"],
        seeds=seeds,
        params=tuple(_table(doc, "params").items()),
        grid=tuple((n, tuple(v)) for n, v in grid.items()),
        cases=tuple(tuple(c.items()) for c in cases),
        title=title,
        metrics=tuple(metrics),
        x=x,
    )


def parse_spec(text: str, source: str = "<spec>") -> SweepSpec:
    """A `SweepSpec` from TOML text; `SpecError` names `source` for a TOML syntax error."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{source}: not valid TOML: {exc}") from None
    return spec_from_dict(doc)


def load_spec(path: str | Path) -> SweepSpec:
    """Read and check a spec file; `SpecError` for a missing, unreadable or malformed one."""
    p = Path(path)
    if p.suffix != ".toml":
        raise SpecError(f"{path}: a sweep spec is a .toml file")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"{path}: cannot read the spec ({exc.__class__.__name__}: {exc})") from None
    try:
        return parse_spec(text, str(path))
    except SpecError as exc:
        raise SpecError(f"{path}: {exc}") from None


def canonical(plan: Mapping[str, Any]) -> str:
    """The plan as one JSON string (sorted keys), to compare two specs' plans."""
    return json.dumps(plan, sort_keys=True)
