"""Shared test fixtures: the path of ../shared/data beside the repository, a session navmesh cache."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
MOVINGAI = SHARED_DATA / "movingai"
MOCAP = SHARED_DATA / "mocap"


def pytest_configure(config: pytest.Config) -> None:
    """Before xdist starts its workers, compile every numba kernel once (or load it: a few seconds when
    cached), so the workers do not each compile the same kernels at the same time. Twice, side by side: in
    this process (the package in the repository, which the tests import) and in a child process started
    outside the repository, which imports the installed copy that the CLI and script tests run (numba
    caches each copy's machine code beside its own source). A cold environment spends about two minutes
    of one core on each."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return  # an xdist worker (the controller did it), or no workers at all
    import subprocess
    import sys
    import tempfile

    code = (
        "import sys, npc_ai; from pathlib import Path\n"
        "if Path(npc_ai.__file__).resolve().parents[1] == Path(sys.argv[1]): sys.exit(0)\n"
        "from npc_ai.bench.kernels import compile_all; compile_all()\n"
    )
    with tempfile.TemporaryDirectory() as outside:
        installed = subprocess.Popen([sys.executable, "-c", code, str(REPO)], cwd=outside)
        from npc_ai.bench.kernels import compile_all

        compile_all()
        installed.wait()


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
