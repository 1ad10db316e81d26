"""Bake once: navmeshes cached on disk under a content hash of (what was baked + how)."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import threading
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from navigation.errors import CacheWarning, NavMeshError
from navigation.navmesh import FORMAT_VERSION, NavMesh


def _feed(h: hashlib._Hash, part: object) -> None:
    if isinstance(part, bytes):
        h.update(b"b" + part)
    elif isinstance(part, str):
        h.update(b"s" + part.encode())
    elif isinstance(part, np.ndarray):
        a = np.ascontiguousarray(part)
        h.update(f"a{a.dtype.str}{a.shape}".encode() + a.tobytes())
    elif dataclasses.is_dataclass(part) and not isinstance(part, type):
        h.update(b"d" + type(part).__name__.encode())
        for f in dataclasses.fields(part):
            h.update(f.name.encode())
            _feed(h, getattr(part, f.name))
    elif isinstance(part, (int, float, bool)) or part is None:
        h.update(b"j" + json.dumps(part).encode())
    elif isinstance(part, dict):
        h.update(b"m" + json.dumps(part, sort_keys=True, default=str).encode())
    elif isinstance(part, (list, tuple)):
        h.update(f"l{len(part)}".encode())
        for p in part:
            _feed(h, p)
    else:
        raise NavMeshError(f"cannot hash a {type(part).__name__} for the navmesh cache; pass bytes or arrays")


def content_hash(*parts: object) -> str:
    """SHA-256 hex digest of scene bytes, arrays, settings dataclasses, numbers, strings (in order)."""
    h = hashlib.sha256()
    _feed(h, FORMAT_VERSION)
    for p in parts:
        _feed(h, p)
    return h.hexdigest()


_warned: set[str] = set()  # cache folders this process has already warned about


def _skip_cache(directory: Path, problem: str) -> None:
    """Warn (once per folder and process) that the cache is not used, and why."""
    name = str(directory.absolute())
    if name in _warned:
        return
    _warned.add(name)
    warnings.warn(
        f"navmesh cache {problem}; baking without the cache (point NPC_AI_CACHE at a writable folder)",
        CacheWarning,
        stacklevel=3,
    )


def _unusable_folder(directory: Path) -> str | None:
    """Why `directory` cannot hold cache files (None when it can: it exists or was just created)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        return f"folder {str(directory)!r} is a file, not a folder"
    except OSError as exc:
        return f"folder {str(directory)!r}: cannot create it ({exc.strerror or type(exc).__name__})"
    return None


def cached_bake(key: Sequence[object], bake: Callable[[], NavMesh], cache_dir: str | Path) -> NavMesh:
    """Load the mesh cached under content_hash(*key) in cache_dir, or call bake() and store it.

    A cache file that cannot be read (old version, corrupt) is re-baked and overwritten. A cache that
    cannot be used at all (cache_dir is a file or cannot be created, the entry is a folder, the file cannot
    be written) never fails the bake: the mesh is baked without it and a `CacheWarning` says why, once
    per cache folder and process.
    """
    digest = content_hash(*key)
    directory = Path(cache_dir)
    path = directory / f"navmesh-{digest[:24]}.npz"

    def baked() -> NavMesh:
        mesh = bake()
        return dataclasses.replace(mesh, meta={**mesh.meta, "content_hash": digest})

    problem = _unusable_folder(directory)
    if problem is None and (path.exists() or path.is_symlink()) and not path.is_file():
        problem = f"entry {str(path)!r} is not a file (a folder or something else is in the way)"
    if problem is not None:
        _skip_cache(directory, problem)
        return baked()
    if path.exists():
        try:
            cached = NavMesh.load(path)
            if cached.meta.get("content_hash") == digest:
                return cached
        except NavMeshError:
            pass
    mesh = baked()
    tmp = directory / f".{path.stem}.{os.getpid()}.{threading.get_ident()}.tmp.npz"
    try:
        mesh.save(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        _skip_cache(directory, f"file {str(path)!r} cannot be written ({exc.strerror or type(exc).__name__})")
    return mesh
