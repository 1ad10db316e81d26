"""Experiment sweeps: a task (a benchmark, a simulation, an env rollout) over a grid of parameters and
seeds, on every core of this machine (`local`) or on a Ray cluster (`ray`), with results that do not
depend on where they ran (`npc-ai sweep SPEC.toml`; docs/sweeps.md).

- `spec`: the TOML spec, checked into a frozen `SweepSpec`; `tasks`: what a trial can run;
- `trial`: one trial -> one row; `backends`: where trials run; `store`: the output folder;
- `report`: report.md with confidence intervals and plots; `runner`: `run_sweep`, tying them together.

Nothing here imports Ray or pyarrow until they are used.
"""

from __future__ import annotations

from npc_ai.sweep.errors import BackendError, ResumeError, SpecError, SweepError
from npc_ai.sweep.runner import SweepResult, run_sweep
from npc_ai.sweep.spec import SweepSpec, Trial, load_spec, parse_spec
from npc_ai.sweep.tasks import TASKS

__all__ = [
    "TASKS",
    "BackendError",
    "ResumeError",
    "SpecError",
    "SweepError",
    "SweepResult",
    "SweepSpec",
    "Trial",
    "load_spec",
    "parse_spec",
    "run_sweep",
]
