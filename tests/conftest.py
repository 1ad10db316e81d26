"""Shared test fixtures: the path of ../shared/data beside the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
MOVINGAI = SHARED_DATA / "movingai"
MOCAP = SHARED_DATA / "mocap"


@pytest.fixture(scope="session")
def movingai_dir() -> Path:
    if not MOVINGAI.is_dir():
        pytest.fail(f"benchmark data missing: {MOVINGAI} (the repo expects ../shared beside it)")
    return MOVINGAI
