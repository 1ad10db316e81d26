"""Bake once: navmeshes cached on disk under a content hash of (what was baked + how)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from navigation.errors import NavMeshError
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


def cached_bake(key: Sequence[object], bake: Callable[[], NavMesh], cache_dir: str | Path) -> NavMesh:
    """Load the mesh cached under content_hash(*key) in cache_dir, or call bake() and store it.

    A cache file that cannot be read (old version, corrupt) is re-baked and overwritten.
    """
    digest = content_hash(*key)
    directory = Path(cache_dir)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"navmesh-{digest[:24]}.npz"
    if path.exists():
        try:
            mesh = NavMesh.load(path)
            if mesh.meta.get("content_hash") == digest:
                return mesh
        except NavMeshError:
            pass
    mesh = bake()
    mesh = dataclasses.replace(mesh, meta={**mesh.meta, "content_hash": digest})
    tmp = directory / f".{path.stem}.{os.getpid()}.tmp.npz"
    mesh.save(tmp)
    os.replace(tmp, path)
    return mesh
