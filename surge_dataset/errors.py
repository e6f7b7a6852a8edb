"""The one root of the errors a user can fix: the CLI catches :class:`SurgeError` once, prints its message
as one line and exits 2, so no command has to list exception families of its own.

Each family also keeps the built-in base its callers caught before (``ValueError``, ``RuntimeError``,
``FileExistsError``), so library users' ``except`` clauses keep working.
"""

from __future__ import annotations

import difflib
import errno
from collections.abc import Sequence
from pathlib import Path

__all__ = ["OutputFolderError", "SurgeError", "UnknownNameError", "disk_full_message"]


class SurgeError(Exception):
    """Something the user can fix: the CLI prints the message alone and exits 2."""


class OutputFolderError(SurgeError, FileExistsError):
    """An ``--out`` folder that must not be written: someone else's files, the input itself, another kind."""


class UnknownNameError(SurgeError, KeyError):
    """An unknown name (metric, model, format, ...), with the closest known one as a hint."""

    def __init__(self, kind: str, name: str, known: Sequence[str]) -> None:
        close = difflib.get_close_matches(name, list(known), n=1)
        hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(known)}"
        super().__init__(f"unknown {kind} {name!r} ({hint})")

    __str__ = Exception.__str__  # no KeyError quotes around the message


def disk_full_message(exc: OSError, folder: str | Path | None = None) -> str | None:
    """One line for a full disk or quota (ENOSPC, EDQUOT), naming the folder; ``None`` for other errors."""
    if exc.errno not in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return None
    where = folder if folder is not None else (Path(exc.filename).parent if exc.filename else "the output folder")
    return (f"no space left on the device holding {where}: finished work is kept and no file was left "
            "half-written; free some space and rerun the same command, which resumes")
