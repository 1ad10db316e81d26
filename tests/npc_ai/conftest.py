"""Shared fixtures: built-in clips and the CMU BVH from <repo>/../shared/data (never copied into the repo)."""

from __future__ import annotations

from pathlib import Path

import pytest

from npc_ai.animation import load_bvh, load_clip

CMU_BVH = (
    Path(__file__).resolve().parents[2]
    / ".."
    / "shared"
    / "data"
    / "mocap"
    / "cmu_131_01_start_walk_stop.bvh"
)


@pytest.fixture(scope="session")
def walk():
    return load_clip("walk")


@pytest.fixture(scope="session")
def run():
    return load_clip("run")


@pytest.fixture(scope="session")
def cmu():
    if not CMU_BVH.exists():
        pytest.fail(
            f"shared mocap data missing at {CMU_BVH}: the tests expect ../shared beside the repository"
        )
    return load_bvh(CMU_BVH)
