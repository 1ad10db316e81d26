"""Every ```python block of README.md runs as written, in a fresh interpreter, in a few seconds, and points
at the library reference and the examples."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```python\n(.*?)^```", README, flags=re.MULTILINE | re.DOTALL)


def block_id(code: str) -> str:
    first = next(line for line in code.splitlines() if line.startswith(("from", "import")))
    return first.split()[1]


def test_readme_has_python_snippets() -> None:
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("code", BLOCKS, ids=[f"{i}-{block_id(c)}" for i, c in enumerate(BLOCKS)])
def test_snippet_runs(code: str, tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=90
    )
    assert proc.returncode == 0, f"README snippet failed:\n{code}\n--- stderr ---\n{proc.stderr}"


def test_readme_points_to_the_reference_and_the_examples() -> None:
    assert "(docs/api.md)" in README and (REPO / "docs" / "api.md").is_file()
    assert "(examples/" in README and (REPO / "examples" / "README.md").is_file()


def test_snippets_use_no_dataclasses_replace_on_scenes() -> None:
    for code in BLOCKS:
        assert "dataclasses" not in code and "replace(" not in code, code
