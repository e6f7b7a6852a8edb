"""The one root of the errors a user can fix: the CLI catches :class:`SurgeError` once, prints its message
as one line and exits 2, so no command has to list exception families of its own.

Each family also keeps the built-in base its callers caught before (``ValueError``, ``RuntimeError``,
``FileExistsError``), so library users' ``except`` clauses keep working.
"""

from __future__ import annotations

import errno
from pathlib import Path

__all__ = ["InputFileError", "OutputFolderError", "SettingError", "SurgeError", "disk_full_message", "error_text"]


class SurgeError(Exception):
    """Something the user can fix: the CLI prints the message alone and exits 2."""


class SettingError(SurgeError, ValueError):
    """A setting with a value it cannot take, or settings that do not go together (``--judge-weighted`` with a
    server judge): raised by the configs' ``__post_init__``, the one place settings are checked."""


class InputFileError(SurgeError, ValueError):
    """An input file that cannot be read as what the command expects (missing, not JSON, a field of the
    wrong type): the message names the file and the problem."""


class OutputFolderError(SurgeError, FileExistsError):
    """An ``--out`` folder that must not be written: someone else's files, the input itself, another kind."""


def disk_full_message(exc: OSError) -> str | None:
    """One line for a full disk or quota (ENOSPC, EDQUOT), naming the folder of the file being written
    (``io.py`` names it on every write error); ``None`` for other errors."""
    if exc.errno not in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return None
    where = Path(exc.filename).parent if exc.filename else "the output folder"
    return (f"no space left on the device holding {where}: finished work is kept and no file was left "
            "half-written; free some space and rerun the same command, which resumes")


def error_text(exc: BaseException) -> str:
    """What went wrong, in words a user reads in a failure record or a one-line message: the exception's message
    without its class name (``KeyError: '...'`` reads as Python, not as the problem) or a ``KeyError``'s quotes;
    an exception without a message says it is unexpected (class name then, for a bug report)."""
    text = str(exc.args[0]) if isinstance(exc, KeyError) and len(exc.args) == 1 else str(exc)
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    return text.strip() or f"an unexpected error without a message ({type(exc).__name__}); please report it"
