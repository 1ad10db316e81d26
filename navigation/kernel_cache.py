"""Keep numba's on-disk kernel cache honest across modules.

numba caches a compiled kernel next to its module (``__pycache__/<module>.<function>-<line>.py<ver>.nbi`` and
``.nbc``) and checks only that module's own source file before reusing it. A kernel that calls a compiled
function of another module carries that function's machine code too, and numba does not notice when the
other file changes (numba issue #1833): the old code would run. `forget_stale_kernels` closes the gap: a
module lists the kernel modules it calls, and when any of their sources changed since its cache was
written, its cache files are deleted so numba compiles it again.

A fresh environment (an install, CI) has no cache and always compiles from the current sources; this only
matters while the sources are being edited.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path


def forget_stale_kernels(module_file: str, dependencies: tuple[str, ...]) -> bool:
    """Delete the cached kernels of the module at `module_file` when the source of any of `dependencies`
    (module names) differs from when its cache was written; True when something was deleted.

    Best effort: a cache folder that cannot be read or written is left alone."""
    here = Path(module_file)
    cache = here.parent / "__pycache__"
    digest = hashlib.sha256()
    for name in dependencies:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        digest.update(Path(spec.origin).read_bytes())
    stamp = cache / f"{here.stem}.kernel-deps"
    want = digest.hexdigest()
    try:
        if stamp.exists() and stamp.read_text(encoding="ascii") == want:
            return False
        stale = [*cache.glob(f"{here.stem}.*.nbi"), *cache.glob(f"{here.stem}.*.nbc")]
        for path in stale:
            path.unlink()
        cache.mkdir(exist_ok=True)
        stamp.write_text(want, encoding="ascii")
    except OSError:
        return False
    return bool(stale)
