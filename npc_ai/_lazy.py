"""Names that a package exports and loads on first use (PEP 562), so importing the package stays cheap.

`navigation` has the same few lines of its own: it may not import `npc_ai`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str], renamed: Mapping[str, str] | None = None
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level `__getattr__` and `__dir__` of `package`: `exports` maps a public name to the
    module that defines it (under the name `renamed` gives, else the same name). A name is imported once:
    its value is then stored in the package's namespace, which later look-ups find first."""
    names = dict(renamed or {})

    def get(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), names.get(name, name))
        setattr(importlib.import_module(package), name, value)  # later look-ups skip this function
        return value

    def listing() -> list[str]:
        return sorted(set(vars(importlib.import_module(package))) | set(exports))

    return get, listing
