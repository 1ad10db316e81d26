"""docs/api.md is the library reference: every public name of every package is in its section, every entry
names something that exists, and every top-level `npc_ai` export resolves and has a docstring."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

import npc_ai

API_DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"
PACKAGES = (
    "npc_ai",
    "npc_ai.levels",
    "npc_ai.sim",
    "npc_ai.body",
    "npc_ai.behaviour",
    "npc_ai.animation",
    "npc_ai.envs",
    "npc_ai.sweep",
    "scenes",
    "navigation",
)
ENTRY = re.compile(r"^- `([\w.]+)` — \S", re.MULTILINE)


def sections(text: str) -> dict[str, str]:
    """The text under each `## \\`package\\`` heading, by package name."""
    parts = re.split(r"^## `([\w.]+)`\s*$", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def public_names(package: str) -> list[str]:
    if package == "npc_ai.envs":  # the `rl` extra
        pytest.importorskip("gymnasium")
        pytest.importorskip("pettingzoo")
    module = importlib.import_module(package)
    if package == "npc_ai":
        return sorted(set(module.__all__) | set(module._EXPORTS))
    return list(module.__all__)


@pytest.fixture(scope="module")
def doc() -> dict[str, str]:
    return sections(API_DOC.read_text(encoding="utf-8"))


def test_every_package_has_a_section(doc) -> None:
    assert set(PACKAGES) <= set(doc)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_is_documented_in_its_section(doc, package) -> None:
    text = doc[package]
    missing = [name for name in public_names(package) if f"`{name}`" not in text]
    assert not missing, f"docs/api.md, section `{package}`, lacks: {', '.join(missing)}"


@pytest.mark.parametrize("package", PACKAGES)
def test_every_entry_names_something_that_exists(doc, package) -> None:
    names = set(public_names(package))
    module = importlib.import_module(package)
    stale = []
    for entry in ENTRY.findall(doc[package]):
        head, *rest = entry.split(".")
        if head not in names:
            stale.append(entry)
            continue
        obj = getattr(module, head)
        for attr in rest:
            obj = getattr(obj, attr, None)
        if obj is None:
            stale.append(entry)
    assert not stale, f"docs/api.md, section `{package}`, documents names that do not exist: {stale}"


@pytest.mark.parametrize("name", sorted(npc_ai._EXPORTS))
def test_top_level_exports_resolve_and_have_docstrings(name) -> None:
    obj = getattr(npc_ai, name)
    assert name in dir(npc_ai)
    if not (inspect.isclass(obj) or inspect.isroutine(obj)):
        return  # a constant (COUPLING_MODES): documented in docs/api.md, no docstring of its own
    doc = obj.__doc__ or ""
    generated = doc.startswith(f"{obj.__name__}(")  # what dataclasses write when there is no docstring
    assert doc.strip() and not generated, f"npc_ai.{name} has no docstring"


def test_unknown_top_level_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        npc_ai.Nope  # noqa: B018
