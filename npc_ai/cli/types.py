"""Argument types shared by the `npc-ai` commands: each turns text into a checked value or raises
`argparse.ArgumentTypeError` with a message that says what is wanted (argparse prints it, exit 2)."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

from npc_ai.errors import NpcAiError


class UsageError(NpcAiError):
    """A command-line argument is invalid (the CLI prints it on one line and exits with status 2)."""


def _number(text: str, what: str, cast: type = float) -> float:
    try:
        value = cast(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what}, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{what}, got {text!r}")
    return value


def seconds(text: str) -> float:
    """Simulated seconds in (0, 86400]."""
    value = _number(text, "seconds must be a number")
    if not 0 < value <= 86_400:
        raise argparse.ArgumentTypeError(f"seconds must be in (0, 86400], got {text!r}")
    return value


def seed(text: str) -> int:
    """A non-negative integer seed."""
    value = int(_number(text, "seed must be a non-negative integer", int))
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed must be a non-negative integer, got {text!r}")
    return value


def count(text: str) -> int:
    """A whole number in 0..10000 (how many NPCs)."""
    value = int(_number(text, "must be a whole number", int))
    if not 0 <= value <= 10_000:
        raise argparse.ArgumentTypeError(f"must be in 0..10000, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1."""
    value = int(_number(text, "must be a positive integer", int))
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0."""
    value = _number(text, "must be a positive number")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def writable_file(path: str | None, what: str) -> Path | None:
    """Check an output file before any work is done: its folder must exist and it must not be a folder.

    Raises `UsageError` naming the option (`what`), so a long run never dies at the end on a bad path.
    """
    if path is None:
        return None
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{what} {path!r} is a folder; give a file name")
    if not p.parent.exists():
        raise UsageError(f"{what} {path!r}: the folder {str(p.parent)!r} does not exist")
    return p


def writable_folder(path: str | None, what: str) -> Path | None:
    """Check an output folder: it may not exist yet, but its parent must, and it must not be a file."""
    if path is None:
        return None
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise UsageError(f"{what} {path!r} is a file; give a folder")
    if not p.exists() and not p.parent.exists():
        raise UsageError(f"{what} {path!r}: the folder {str(p.parent)!r} does not exist")
    return p


def has_display() -> bool:
    """Whether a GUI window can be opened (an X or Wayland display is set)."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
