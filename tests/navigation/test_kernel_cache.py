"""numba's disk cache forgets a module's kernels when a kernel module they call changed (numba #1833)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from navigation.kernel_cache import forget_stale_kernels


def test_cache_is_dropped_when_a_dependency_changes(tmp_path: Path, monkeypatch) -> None:
    package = tmp_path / "kpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    dep = package / "dep.py"
    dep.write_text("X = 1\n")
    user = package / "user.py"
    user.write_text("")
    cache = package / "__pycache__"
    cache.mkdir()
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("kpkg", None)
    files = [cache / "user.f-3.py311.nbi", cache / "user.f-3.py311.0.nbc"]
    other = cache / "dep.g-1.py311.nbi"  # another module's cache is never touched

    assert forget_stale_kernels(str(user), ("kpkg.dep",)) is False  # first stamp: nothing cached yet
    for f in (*files, other):
        f.write_bytes(b"x")
    assert forget_stale_kernels(str(user), ("kpkg.dep",)) is False  # unchanged dependency: cache kept
    assert all(f.exists() for f in files)

    dep.write_text(textwrap.dedent("X = 2\n"))
    assert forget_stale_kernels(str(user), ("kpkg.dep",)) is True
    assert not any(f.exists() for f in files) and other.exists()
    assert forget_stale_kernels(str(user), ("kpkg.dep",)) is False  # stamped again
