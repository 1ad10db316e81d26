"""Typed errors of the scenes package: one root, `SceneError`, and a subclass per kind of fault."""

from __future__ import annotations


class SceneError(Exception):
    """Root of every error the scenes package raises on bad input; raised itself for a bad scene.

    For a scene file or scene description the message names the file, the key path inside it and what is
    wrong, e.g. ``arena.toml: box[2].half_extents[1]: must be a positive number of metres, got -1.0``.

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


class WorldError(SceneError):
    """A world operation was given invalid arguments (wrong array shapes, NaN, a closed world)."""

    def __init__(self, problem: str) -> None:
        super().__init__("", "", problem)


class WorldSettingsError(SceneError, ValueError):
    """`WorldSettings` was given an out-of-range value (tick length, substeps, ray threads)."""

    def __init__(self, problem: str) -> None:
        super().__init__("", "", problem)
