"""The errors of `npc_ai.sweep`: every one says what to fix, and none is raised after results were lost."""

from __future__ import annotations

from npc_ai.errors import NpcAiError


class SweepError(NpcAiError):
    """Base class of the sweep runner's errors on bad input."""


class SpecError(SweepError, ValueError):
    """A sweep spec is malformed: an unknown task or parameter, a value of the wrong type or out of range,
    an empty grid. The message names the key (`grid.tau[2]`) and what it accepts."""


class ResumeError(SweepError):
    """The output folder cannot take this sweep: it holds another spec's trials, or results without
    `--resume`. Nothing in the folder was changed."""


class BackendError(SweepError):
    """A backend cannot run: an unknown name, the `ray` extra missing, a worker pool that broke."""
