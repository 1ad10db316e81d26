"""Argument types shared by the `npc-ai` commands: each turns text into a checked value or raises
`argparse.ArgumentTypeError` with a message that says what is wanted (argparse prints it, exit 2)."""

from __future__ import annotations

import argparse
import math
import os


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


def has_display() -> bool:
    """Whether a GUI window can be opened (an X or Wayland display is set)."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
