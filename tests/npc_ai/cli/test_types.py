"""Output paths are checked before any work: `writable_file` and `writable_folder`."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

import pytest

from npc_ai.cli import types as cli_types
from npc_ai.cli.types import UsageError, writable_file, writable_folder


@pytest.fixture
def place(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text("a file\n")
    (tmp_path / "sub").mkdir()
    os.mkfifo(tmp_path / "pipe.png")
    return tmp_path


@pytest.mark.parametrize(
    ("name", "suffixes", "message"),
    [
        ("plot.txt", cli_types.FIGURE, "must end in .png, .svg or .pdf"),
        ("plot", cli_types.FIGURE, "must end in .png, .svg or .pdf"),
        ("plot.PNG", cli_types.FIGURE, "must end in .png, .svg or .pdf"),
        ("mesh.npz.bak", cli_types.NPZ, "must end in .npz"),
        ("events.json", cli_types.JSONL, "must end in .jsonl"),
        ("sub", cli_types.FIGURE, "is a folder; give a file name"),
        ("notes.txt/out.png", cli_types.FIGURE, "'{tmp}/notes.txt' is a file, not a folder"),
        ("notes.txt/deeper/out.png", cli_types.FIGURE, "'{tmp}/notes.txt' is a file, not a folder"),
        ("missing/out.png", cli_types.FIGURE, "the folder '{tmp}/missing' does not exist"),
        ("pipe.png", cli_types.FIGURE, "is not a regular file"),
        ("   ", cli_types.FIGURE, "needs a file name"),
    ],
)
def test_writable_file_refuses(place: Path, name: str, suffixes: tuple[str, ...], message: str) -> None:
    path = name if not name.strip() else str(place / name)
    with pytest.raises(UsageError, match=r"^--out ") as info:
        writable_file(path, "--out", suffixes)
    assert message.format(tmp=place) in str(info.value)


def test_writable_file_accepts_new_and_existing_files_and_leaves_nothing(place: Path) -> None:
    before = sorted(place.iterdir())
    assert writable_file(str(place / "new.svg"), "--plot", cli_types.FIGURE) == place / "new.svg"
    assert writable_file(str(place / "notes.txt"), "--out") == place / "notes.txt"  # any suffix by default
    assert writable_file(None, "--out", cli_types.FIGURE) is None
    assert sorted(place.iterdir()) == before  # the probe file is gone


@pytest.mark.parametrize("special", ["/proc", "/sys"])
def test_special_folders_are_refused_even_for_root(special: str) -> None:
    if not os.path.isdir(special):
        pytest.skip(f"no {special} here")
    with pytest.raises(UsageError, match=f"the folder '{special}' is not writable"):
        writable_file(f"{special}/npc-ai-out.png", "--plot", cli_types.FIGURE)
    with pytest.raises(UsageError, match="is not writable"):
        writable_folder(f"{special}/npc-ai-out", "--out")


def test_a_read_only_folder_is_refused_with_the_reason(place: Path, monkeypatch) -> None:
    def read_only(*args: object, **kwargs: object) -> tuple[int, str]:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    with pytest.raises(UsageError, match=r"is not writable \(read-only file system\)"):
        writable_file(str(place / "out.png"), "--plot", cli_types.FIGURE)
    with pytest.raises(UsageError, match=r"--out '.*sub': the folder is not writable"):
        writable_folder(str(place / "sub"), "--out")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("notes.txt", "is a file; give a folder"),
        ("notes.txt/results", "'{tmp}/notes.txt' is a file, not a folder"),
        ("missing/results", "the folder '{tmp}/missing' does not exist"),
        ("", "needs a folder name"),
    ],
)
def test_writable_folder_refuses(place: Path, name: str, message: str) -> None:
    path = str(place / name) if name else ""
    with pytest.raises(UsageError, match=r"^--out ") as info:
        writable_folder(path, "--out")
    assert message.format(tmp=place) in str(info.value)


def test_writable_folder_accepts_a_new_or_existing_folder(place: Path) -> None:
    assert writable_folder(str(place / "results"), "--out") == place / "results"
    assert not (place / "results").exists()  # created by the command that writes into it, not here
    assert writable_folder(str(place / "sub"), "--out") == place / "sub"
    assert list((place / "sub").iterdir()) == []
