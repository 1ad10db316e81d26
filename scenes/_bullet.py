"""Import pybullet quietly and open one client per world; pause the garbage collector around big answers.

pybullet prints a build-time banner to the C-level stderr on import; `contextlib.redirect_stderr` cannot
catch it, so the file descriptor is duplicated around the import.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any, TextIO, TypeAlias

# A `pybullet_utils.bullet_client.BulletClient` (pybullet ships no type information).
Client: TypeAlias = Any


@contextlib.contextmanager
def silenced_c_output(*streams: TextIO) -> Iterator[None]:
    """Send the C-level output of the given streams (default stdout and stderr) to /dev/null."""
    saved: list[tuple[int, int]] = []
    for stream in streams or (sys.stdout, sys.stderr):
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):
            continue
        stream.flush()
        saved.append((fd, os.dup(fd)))
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    try:
        yield
    finally:
        for fd, copy in reversed(saved):
            os.dup2(copy, fd)
            os.close(copy)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while the block runs (resumed after, if it was on).

    For blocks that make and drop many PyBullet answers: a full ray batch is ~50,000 tuples, a solid probe
    per floor a list per box. Allocating them triggers collections, now and then a full one that walks
    every object of the process (70-120 ms with numba and shapely loaded, more than the rays themselves),
    and none of it can free anything: the answers hold no cycles and are freed by reference counting.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _quiet_import() -> tuple[ModuleType, ModuleType, ModuleType]:
    with silenced_c_output(sys.stderr):
        import pybullet
        import pybullet_data
        from pybullet_utils import bullet_client
    return pybullet, pybullet_data, bullet_client


pybullet, pybullet_data, bullet_client = _quiet_import()

DATA_PATH: str = pybullet_data.getDataPath()


def new_client(gui: bool = False) -> Client:
    """A fresh PyBullet physics client of its own (`scenes.new_client`, the public way to get one).

    One client per world: hand it to `World(scene, client=...)` (or to an `npc_ai.Simulation`) to share it
    with your own code, or let an env keep one for its whole life and rebuild worlds into it. The caller
    owns the client and closes it with `client.disconnect()`.

    Args:
        gui: open PyBullet's GUI window (needs a display; PyBullet allows one GUI client per process)
            instead of a headless DIRECT client. DIRECT clients print nothing on connect.
    Returns:
        a `pybullet_utils.bullet_client.BulletClient`: every pybullet function as a method bound to this
        client (`client.rayTestBatch(...)`, `client.stepSimulation()`, ...).
    Raises:
        pybullet.error: the GUI could not be opened (no display, or another GUI client is connected).
    """
    mode = pybullet.GUI if gui else pybullet.DIRECT
    if gui:
        return bullet_client.BulletClient(connection_mode=mode)
    with silenced_c_output(sys.stdout):
        return bullet_client.BulletClient(connection_mode=mode)
