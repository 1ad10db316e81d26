"""Typed errors of the animation package (all are `npc_ai.NpcAiError`s)."""

from __future__ import annotations

from npc_ai.errors import NpcAiError


class AnimationError(NpcAiError):
    """Base class for every error raised by ``npc_ai.animation``."""


class ClipFormatError(AnimationError, ValueError):
    """A motion file is malformed or truncated; the message names the file and the line or frame."""

    def __init__(self, source: str, where: str, problem: str) -> None:
        self.source = source
        self.where = where
        self.problem = problem
        super().__init__(f"{source}: {where}: {problem}")


class AnimationSettingsError(AnimationError, ValueError):
    """An animation settings dataclass or function argument has an invalid value."""
