"""MovingAI grid benchmark files: `.map` grids and `.map.scen` scenario lists (Sturtevant 2012).

A map cell (x, y) is the unit square [x, x+1] x [y, y+1] (x = column, y = row, row 0 first).

Terrain, as the format defines it (movingai.com/benchmarks/formats.html): `.` and `G` are passable terrain,
`S` is swamp, passable from regular terrain, so it is walkable here; `T` (trees) is impassable, `@` and `O`
are out of bounds, and `W` is water, "traversable, but not passable from terrain": no walker on land can
enter it, so it is blocked. The outside of the map is blocked too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from navigation.errors import MapFormatError

WALKABLE_CHARS = frozenset(".GS")
_KNOWN_CHARS = frozenset(".G@OTSW")


@dataclass(frozen=True)
class GridMap:
    """A MovingAI octile map.

    Attributes:
        blocked: (height, width) bool array, True where a cell is not walkable; row index = y.
        name: the file name the map came from.
    """

    blocked: np.ndarray
    name: str = ""

    @property
    def width(self) -> int:
        return int(self.blocked.shape[1])

    @property
    def height(self) -> int:
        return int(self.blocked.shape[0])


@dataclass(frozen=True)
class Scenario:
    """One row of a `.scen` file; coordinates are cells (x = column, y = row)."""

    index: int
    bucket: int
    map_name: str
    start: tuple[int, int]
    goal: tuple[int, int]
    optimal_length: float

    @property
    def start_point(self) -> tuple[float, float]:
        """The start cell's centre [cells]."""
        return (self.start[0] + 0.5, self.start[1] + 0.5)

    @property
    def goal_point(self) -> tuple[float, float]:
        """The goal cell's centre [cells]."""
        return (self.goal[0] + 0.5, self.goal[1] + 0.5)


def parse_map(text: str, name: str = "<string>") -> GridMap:
    """Parse the text of a `.map` file; raise MapFormatError naming the line on any defect."""
    lines = text.splitlines()
    header: dict[str, str] = {}
    i = 0
    while i < len(lines) and lines[i].strip().lower() != "map":
        parts = lines[i].split()
        if len(parts) != 2:
            raise MapFormatError(f"{name}:{i + 1}: expected 'key value' header line, got {lines[i]!r}")
        header[parts[0].lower()] = parts[1]
        i += 1
    if i == len(lines):
        raise MapFormatError(f"{name}: no 'map' line: a MovingAI map has 'type', 'height', 'width', 'map'")
    for key in ("height", "width"):
        if key not in header:
            raise MapFormatError(f"{name}: header has no '{key}' line")
        if not header[key].isdigit() or int(header[key]) <= 0:
            raise MapFormatError(f"{name}: '{key}' must be a positive integer, got {header[key]!r}")
    height, width = int(header["height"]), int(header["width"])
    rows = lines[i + 1 : i + 1 + height]
    if len(rows) != height:
        raise MapFormatError(f"{name}: header says height {height} but the map has {len(rows)} rows")
    blocked = np.ones((height, width), dtype=bool)
    for y, row in enumerate(rows):
        row = row.rstrip("\r\n")
        if len(row) != width:
            raise MapFormatError(
                f"{name}:{i + 2 + y}: row {y} has {len(row)} cells, header says width {width}"
            )
        bad = set(row) - _KNOWN_CHARS
        if bad:
            raise MapFormatError(f"{name}:{i + 2 + y}: unknown map characters {sorted(bad)!r}")
        blocked[y] = [c not in WALKABLE_CHARS for c in row]
    blocked.setflags(write=False)
    return GridMap(blocked=blocked, name=name)


def _read_ascii(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="ascii")
    except FileNotFoundError:
        raise MapFormatError(f"{path}: no such {what} file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MapFormatError(f"{path}: cannot read {what} file: {exc}") from None


def read_map(path: str | Path) -> GridMap:
    """Read a `.map` file from disk."""
    p = Path(path)
    return parse_map(_read_ascii(p, "map"), name=str(p))


def parse_scenarios(text: str, name: str = "<string>") -> list[Scenario]:
    """Parse the text of a `.map.scen` file (version 1)."""
    lines = text.splitlines()
    out: list[Scenario] = []
    start = 1 if lines and lines[0].lower().startswith("version") else 0
    for lineno, line in enumerate(lines[start:], start=start + 1):
        if not line.strip():
            continue
        parts = line.split("\t") if "\t" in line else line.split()
        if len(parts) != 9:
            raise MapFormatError(f"{name}:{lineno}: expected 9 fields, got {len(parts)}")
        try:
            bucket, sx, sy, gx, gy = (int(parts[k]) for k in (0, 4, 5, 6, 7))
            opt = float(parts[8])
        except ValueError:
            raise MapFormatError(f"{name}:{lineno}: non-numeric field in {line!r}") from None
        if not math.isfinite(opt) or opt < 0:
            raise MapFormatError(f"{name}:{lineno}: optimal length must be finite and >= 0, got {parts[8]!r}")
        out.append(Scenario(len(out), bucket, parts[1], (sx, sy), (gx, gy), opt))
    return out


def read_scenarios(path: str | Path) -> list[Scenario]:
    """Read a `.map.scen` file from disk."""
    p = Path(path)
    return parse_scenarios(_read_ascii(p, "scenario"), name=str(p))
