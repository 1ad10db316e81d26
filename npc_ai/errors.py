"""Typed errors of the npc_ai package that are not specific to one sub-package."""

from __future__ import annotations


class NpcAiError(Exception):
    """Base class of npc_ai's errors on bad input."""


class UsageError(NpcAiError):
    """A command-line argument is invalid (the CLI prints it on one line and exits with status 2)."""
