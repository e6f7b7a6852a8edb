"""Files the package writes atomically get the mode a plain ``open()`` would give them (the umask), not 0600."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from surge_dataset.core.io import (
    JsonlJournal,
    atomic_directory,
    atomic_write_json,
    atomic_write_text,
    current_umask,
)


@pytest.fixture
def umask() -> Iterator[Callable[[int], None]]:
    """Set the process umask for one test and restore it afterwards."""
    previous = os.umask(0o022)

    def set_mask(mask: int) -> None:
        os.umask(mask)

    yield set_mask
    os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize(("mask", "file_mode", "dir_mode"), [(0o022, 0o644, 0o755), (0o077, 0o600, 0o700),
                                                             (0o002, 0o664, 0o775)])
def test_atomic_writes_honour_the_umask(tmp_path: Path, umask, mask: int, file_mode: int, dir_mode: int) -> None:
    umask(mask)
    assert current_umask() == mask
    atomic_write_text(tmp_path / "survey.md", "# A\n")
    atomic_write_json(tmp_path / "results.json", {"a": 1})
    journal = JsonlJournal(tmp_path / "results.json.journal.jsonl")
    journal.append({"survey_id": 0})
    with atomic_directory(tmp_path / "report") as folder:
        (folder / "table.md").write_text("x")
    assert mode(tmp_path / "survey.md") == file_mode
    assert mode(tmp_path / "results.json") == file_mode
    assert mode(journal.path) == file_mode  # results and their journal alike
    assert mode(tmp_path / "report") == dir_mode
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "no temporary file left behind"


def test_rewriting_keeps_the_mode_the_user_gave_a_file(tmp_path: Path, umask) -> None:
    umask(0o022)
    target = tmp_path / "results.json"
    atomic_write_json(target, {"a": 1})
    target.chmod(0o640)
    atomic_write_json(target, {"a": 2})
    assert mode(target) == 0o640 and target.read_text().strip().endswith("}")
