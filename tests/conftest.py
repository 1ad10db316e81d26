"""Shared test fixtures: the path of ../shared/data beside the repository, a session navmesh cache."""

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


@pytest.fixture(scope="session", autouse=True)
def navmesh_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A navmesh cache of the test session's own (unless NPC_AI_CACHE is set), so the suite neither reads
    a developer's stale cache nor leaves files behind; child processes inherit it."""
    import os

    if os.environ.get("NPC_AI_CACHE"):
        return Path(os.environ["NPC_AI_CACHE"])
    folder = tmp_path_factory.mktemp("navmesh-cache")
    os.environ["NPC_AI_CACHE"] = str(folder)
    return folder
