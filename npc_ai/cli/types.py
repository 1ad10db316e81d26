"""Argument types shared by the `npc-ai` commands: each turns text into a checked value or raises
`argparse.ArgumentTypeError` with a message that says what is wanted (argparse prints it, exit 2)."""

from __future__ import annotations

import argparse
import errno
import math
import os
import tempfile
from collections.abc import Sequence
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


FIGURE = (".png", ".svg", ".pdf")  # what matplotlib writes for our plots
PNG = (".png",)
GIF = (".gif",)
JSON = (".json",)
JSONL = (".jsonl",)
CSV = (".csv",)
NPZ = (".npz",)


def _either(suffixes: Sequence[str]) -> str:
    return suffixes[0] if len(suffixes) == 1 else ", ".join(suffixes[:-1]) + " or " + suffixes[-1]


def _creatable_in(folder: Path) -> str | None:
    """Why no file can be created in `folder` (None when one can): tried for real, with a probe file that is
    removed at once, because `os.access` says yes to root in /proc and on some read-only mounts."""
    if not os.access(folder, os.W_OK | os.X_OK):
        return "is not writable"
    try:
        fd, probe = tempfile.mkstemp(prefix=".npc-ai-probe-", dir=folder)
    except OSError as exc:
        reason = {errno.EROFS: " (read-only file system)", errno.ENOSPC: " (no space left)"}
        return "is not writable" + reason.get(exc.errno or 0, "")
    os.close(fd)
    os.unlink(probe)
    return None


def _check_folder(folder: Path, what: str, path: str) -> None:
    """The folder an output goes into must exist, be a folder, and take new files."""
    if not folder.exists():
        blocking = next((a for a in folder.parents if a.exists()), None)
        if blocking is not None and not blocking.is_dir():
            raise UsageError(f"{what} {path!r}: {str(blocking)!r} is a file, not a folder")
        raise UsageError(f"{what} {path!r}: the folder {str(folder)!r} does not exist")
    if not folder.is_dir():
        raise UsageError(f"{what} {path!r}: {str(folder)!r} is a file, not a folder")
    why = _creatable_in(folder)
    if why is not None:
        raise UsageError(f"{what} {path!r}: the folder {str(folder)!r} {why}")


def writable_file(path: str | None, what: str, suffixes: Sequence[str] = ()) -> Path | None:
    """Check an output file before any work is done, so a long run never dies at the end on a bad path.

    Refused: a name whose extension is not one of `suffixes` (exact, lower case; any when empty); a folder;
    an existing target that is not a regular file (`/dev/null`, a pipe) or not writable; a folder that does
    not exist, is a file (`notes.txt/out.png`), or takes no new files (`/proc`; tried with a probe file).
    Raises `UsageError` naming the option (`what`); returns the path.
    """
    if path is None:
        return None
    if not path.strip():
        raise UsageError(f"{what} needs a file name, got {path!r}")
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{what} {path!r} is a folder; give a file name")
    if suffixes and p.suffix not in suffixes:
        raise UsageError(f"{what} {path!r}: the file name must end in {_either(suffixes)}")
    if p.exists() or p.is_symlink():
        if not p.is_file():
            raise UsageError(f"{what} {path!r} is not a regular file")
        if not os.access(p, os.W_OK):
            raise UsageError(f"{what} {path!r} is not writable")
        return p
    _check_folder(p.parent, what, path)
    return p


def writable_folder(path: str | None, what: str) -> Path | None:
    """Check an output folder before any work is done: it may not exist yet (it is then created), but its
    parent must; it must not be a file; it (or its parent) must take new files (tried with a probe file).
    Raises `UsageError` naming the option (`what`); returns the path."""
    if path is None:
        return None
    if not path.strip():
        raise UsageError(f"{what} needs a folder name, got {path!r}")
    p = Path(path)
    if p.exists():
        if not p.is_dir():
            raise UsageError(f"{what} {path!r} is a file; give a folder")
        why = _creatable_in(p)
        if why is not None:
            raise UsageError(f"{what} {path!r}: the folder {why}")
        return p
    _check_folder(p.parent, what, path)
    return p


def has_display() -> bool:
    """Whether a GUI window can be opened (an X or Wayland display is set)."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
