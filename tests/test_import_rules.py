"""The import rules of docs/architecture.md, enforced on every module (an AST scan, lazy imports included).

- `navigation` and `scenes` are siblings: neither imports the other, and neither imports `npc_ai`.
- `scenes` needs no polygon or scientific library (shapely, scipy, networkx).
- `npc_ai.animation` is pure: no physics engine, no level, no navigation, no other part of `npc_ai`.
Plus the same rules checked at run time in a fresh interpreter, where lazy exports could hide a breach.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# package (dotted prefix) -> top-level modules it must never import, and npc_ai sub-packages allowed
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "navigation": ("npc_ai", "scenes", "pybullet", "pybullet_data", "pybullet_utils"),
    "scenes": ("npc_ai", "navigation", "shapely", "scipy", "networkx"),
    # pybullet_data is allowed: it only locates the motion files shipped in the wheel (no engine)
    "npc_ai.animation": ("scenes", "navigation", "pybullet", "pybullet_utils"),
}
ANIMATION_MAY_IMPORT = ("npc_ai.animation", "npc_ai.errors")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the file, relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((node.lineno, name))
            # `from npc_ai import x` may name a sub-module x
            found += [(node.lineno, f"{name}.{alias.name}") for alias in node.names]
    return found


def breaches(path: Path) -> list[str]:
    me = module_name(path)
    out = []
    for package, banned in FORBIDDEN.items():
        if me != package and not me.startswith(package + "."):
            continue
        for line, name in imported_modules(path):
            top = name.split(".")[0]
            if top in banned:
                out.append(f"{path.relative_to(ROOT)}:{line}: {me} imports {name}")
            if package == "npc_ai.animation" and top == "npc_ai":
                allowed = any(name == a or name.startswith(a + ".") for a in ANIMATION_MAY_IMPORT)
                if not allowed and not name.startswith("npc_ai.errors"):
                    # `from npc_ai.errors import NpcAiError` also yields "npc_ai.errors.NpcAiError"
                    out.append(f"{path.relative_to(ROOT)}:{line}: {me} imports {name}")
    return out


SOURCES = sorted(p for pkg in ("navigation", "scenes", "npc_ai") for p in (ROOT / pkg).rglob("*.py"))


def test_the_scan_sees_every_package() -> None:
    names = {module_name(p) for p in SOURCES}
    assert {"navigation.query", "scenes.world", "npc_ai.animation.clip", "npc_ai.sim.simulation"} <= names


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_breaks_an_import_rule(path: Path) -> None:
    assert breaches(path) == []


def test_the_scan_catches_a_breach(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_root = tmp_path
    (fake_root / "scenes").mkdir()
    bad = fake_root / "scenes" / "bad.py"
    bad.write_text("def f():\n    from navigation.protocols import RayHits\n    import shapely\n")
    (fake_root / "npc_ai" / "animation").mkdir(parents=True)
    rel = fake_root / "npc_ai" / "animation" / "rel.py"
    rel.write_text("from ..sim import simulation\nfrom ..errors import NpcAiError\nimport pybullet\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", fake_root)
    assert [b.split(": ", 1)[1] for b in breaches(bad)] == [
        "scenes.bad imports navigation.protocols",
        "scenes.bad imports navigation.protocols.RayHits",
        "scenes.bad imports shapely",
    ]
    found = [b.split(": ", 1)[1] for b in breaches(rel)]
    assert "npc_ai.animation.rel imports npc_ai.sim" in found
    assert "npc_ai.animation.rel imports pybullet" in found
    assert not any("errors" in b for b in found)


@pytest.mark.parametrize(
    "module, banned",
    [
        ("scenes", ("navigation", "shapely", "scipy", "networkx", "npc_ai")),
        ("navigation", ("scenes", "npc_ai", "pybullet")),
        ("npc_ai.animation", ("pybullet", "scenes", "navigation")),
        # the research envs are an optional extra: the core never loads gymnasium or pettingzoo
        ("npc_ai", ("pybullet", "scenes", "navigation", "matplotlib", "gymnasium", "pettingzoo")),
        ("npc_ai.sim", ("gymnasium", "pettingzoo", "npc_ai.envs")),
    ],
)
def test_importing_a_package_loads_nothing_it_must_not(module: str, banned: tuple[str, ...]) -> None:
    code = f"import sys, {module}; print(' '.join(m for m in {banned!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == ""
