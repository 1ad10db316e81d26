"""Typed errors raised by the scene loader and the world."""

from __future__ import annotations


class SceneError(Exception):
    """A scene file or scene description is invalid, or could not be built into a world.

    The message names the file, the key path inside it and what is wrong, e.g.
    ``arena.toml: box[2].half_extents[1]: must be a positive number of metres, got -1.0``.

    Attributes:
        source: the file (or built-in scene name) the problem is in, or "" when built in code.
        key: the dotted key path inside the scene ("" for the whole file).
        problem: what is wrong and how to fix it.
    """

    def __init__(self, source: str, key: str, problem: str) -> None:
        self.source = source
        self.key = key
        self.problem = problem
        where = ": ".join(part for part in (source, key) if part)
        super().__init__(f"{where}: {problem}" if where else problem)


class WorldError(Exception):
    """A world operation was given invalid arguments (wrong array shapes, NaN, a closed world)."""


class SettingsError(ValueError):
    """A world settings object was given an out-of-range value."""
