"""MovingAI `.map` grid files as scenes: blocked cells become wall boxes on a floor.

Coordinates match the benchmark's: cell (x, y) (x = column, y = row, row 0 first) is the square
[x, x+1] x [y, y+1] times `cell_size` metres, so scenario cell centres map to (x + 0.5, y + 0.5) * cell_size.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import numpy as np

from navigation.movingai import WALKABLE_CHARS, GridMap, read_map
from npc_ai.errors import LevelError
from scenes.model import Box, Floor, NavmeshSpec, NpcSpawn, PlayerSpawn, Scene


def blocked_rectangles(blocked: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Cover the True cells of a (H, W) grid with disjoint rectangles (x0, y0, x1, y1), end-exclusive.

    Greedy: take each row's runs and grow them downwards while the rows below hold the same run.
    """
    h = blocked.shape[0]
    taken = np.zeros_like(blocked, dtype=bool)
    rects: list[tuple[int, int, int, int]] = []
    for y in range(h):
        row = blocked[y] & ~taken[y]
        if not row.any():
            continue
        padded = np.concatenate(([False], row, [False]))
        edges = np.flatnonzero(padded[1:] != padded[:-1])
        for x0, x1 in zip(edges[::2], edges[1::2], strict=True):
            y1 = y + 1
            while y1 < h and blocked[y1, x0:x1].all() and not taken[y1, x0:x1].any():
                y1 += 1
            taken[y:y1, x0:x1] = True
            rects.append((int(x0), int(y), int(x1), int(y1)))
    return rects


def scene_from_grid(
    grid: GridMap, *, cell_size: float = 1.0, wall_height: float = 2.0, name: str = "", source: str = ""
) -> Scene:
    """Build a scene from a grid: a floor under the whole map and one box per blocked rectangle.

    One NPC spawns at the walkable cell nearest the map centre, the player at the walkable cell nearest
    the first quarter point, so `npc-ai run` has someone to simulate.
    """
    if not cell_size > 0:
        raise LevelError(
            f"{source or grid.name}: cell_size must be a positive number of metres, got {cell_size!r}"
        )
    free = np.argwhere(~grid.blocked)  # (k, 2) rows of (y, x)
    if free.size == 0:
        raise LevelError(f"{source or grid.name}: the map has no walkable cell ('.', 'G' or 'S')")
    boxes = tuple(
        Box(
            center=((x0 + x1) / 2 * cell_size, (y0 + y1) / 2 * cell_size, wall_height / 2),
            half_extents=((x1 - x0) / 2 * cell_size, (y1 - y0) / 2 * cell_size, wall_height / 2),
            name="wall",
        )
        for x0, y0, x1, y1 in blocked_rectangles(grid.blocked)
    )

    def nearest_free(fx: float, fy: float) -> tuple[float, float, float]:
        d = (free[:, 1] - fx * grid.width) ** 2 + (free[:, 0] - fy * grid.height) ** 2
        y, x = free[int(np.argmin(d))]
        return ((x + 0.5) * cell_size, (y + 0.5) * cell_size, 0.0)

    size = (grid.width * cell_size, grid.height * cell_size)
    return Scene(
        name=name or Path(grid.name).stem,
        description=f"MovingAI map {grid.width}x{grid.height}, {len(free)} walkable cells",
        floor=Floor(size=size, center=(size[0] / 2, size[1] / 2)),
        boxes=boxes,
        npcs=(NpcSpawn(position=nearest_free(0.5, 0.5), name="npc0"),),
        player=PlayerSpawn(position=nearest_free(0.25, 0.25)),
        # not eroded (the MovingAI corner rule is kept exactly); the seed character's height and step
        navmesh=NavmeshSpec(agent_radius=0.0, agent_height=1.8, max_climb=0.4, cell_size=cell_size / 4),
        source=source,
    )


def scene_from_map_file(path: str | Path, *, cell_size: float = 1.0) -> Scene:
    """Load a MovingAI `.map` file as a scene.

    Raises:
        navigation.MapFormatError: the file is missing or malformed (the message names the file and line).
        LevelError: the map has no walkable cell, or `cell_size` is not positive.
    """
    p = Path(path)
    grid = read_map(p)
    scene = scene_from_grid(grid, cell_size=cell_size, source=str(p))
    # the walkable characters are part of the key: the same file parsed another way is another scene
    walkable = "".join(sorted(WALKABLE_CHARS))
    digest = hashlib.sha256(p.read_bytes() + f"cell={cell_size};walkable={walkable}".encode()).hexdigest()
    return replace(scene, content_hash=digest)
