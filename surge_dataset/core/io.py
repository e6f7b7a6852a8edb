"""Crash-safe file writing (nothing a user computed is ever left half-written), and reading a user's input file
with one-line errors that name it."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

_UMASK_LOCK = threading.Lock()


def current_umask() -> int:
    """The process umask, read without changing it where the OS allows (``/proc``), else set-and-restore."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    with _UMASK_LOCK:  # os.umask can only be read by setting it: keep the window as short as possible
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def _give_default_mode(path: Path, target: Path, *, directory: bool = False) -> None:
    """Give a temporary file/folder the mode a plain ``open()``/``mkdir()`` would have given ``target``.

    ``mkstemp``/``mkdtemp`` create 0600/0700 entries (private while half-written); renamed as is, results
    would be unreadable by the group/others the user's umask allows. An existing target keeps its mode.
    """
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except OSError:
        mode = (0o777 if directory else 0o666) & ~current_umask()
    os.chmod(path, mode)


def temporary_prefix(name: str) -> str:
    """How the temporary file of :func:`atomic_path` for ``name`` starts (it ends in ``.tmp``)."""
    return f".{name}."


@contextlib.contextmanager
def naming_errors(target: str | os.PathLike[str]) -> Iterator[None]:
    """Give an ``OSError`` raised while writing ``target`` the path it is about (``write`` and ``fsync``
    raise ENOSPC without one), so a caller can say which folder is full."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            exc.filename = str(target)
        raise


@contextlib.contextmanager
def reading_input(path: str | os.PathLike[str]) -> Iterator[None]:
    """Reading a user's input file: a missing file, a folder, broken JSON or non-UTF-8 bytes become one
    :class:`~surge_dataset.core.errors.InputFileError` that names the file (one line, exit 2 in the CLI)."""
    from surge_dataset.core.errors import InputFileError

    try:
        yield
    except json.JSONDecodeError as exc:
        raise InputFileError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except UnicodeDecodeError as exc:
        raise InputFileError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise InputFileError(f"{path}: {exc.strerror or exc}") from None


def read_json(path: str | os.PathLike[str]) -> Any:
    """A user's JSON file, or one :class:`~surge_dataset.core.errors.InputFileError` naming it: no such file, a
    folder, not UTF-8, not valid JSON, nested too deeply."""
    from surge_dataset.core.errors import InputFileError

    path = Path(path)
    if path.is_dir():
        raise InputFileError(f"{path} is a folder, not a JSON file")
    if not path.exists():
        raise InputFileError(f"{path}: no such file")
    with reading_input(path):
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except RecursionError:
            raise InputFileError(f"{path}: JSON nested too deeply") from None
        except ValueError as exc:  # JSONDecodeError is one (reading_input names it); an over-long integer too
            if isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError)):
                raise
            raise InputFileError(f"{path}: not valid JSON ({exc})") from None


def file_sha256(path: str | os.PathLike[str]) -> str:
    """A file's SHA-256 (hex), read 4 MiB at a time."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str], *, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``target``; rename it over ``target`` only if the block succeeds."""
    target = Path(target)
    with naming_errors(target):
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=temporary_prefix(target.name), suffix=suffix + ".tmp", dir=target.parent)
        os.close(fd)
    tmp_path = Path(tmp)
    try:
        with naming_errors(target):
            yield tmp_path
        if tmp_path.exists():
            _give_default_mode(tmp_path, target)
        os.replace(tmp_path, target)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def atomic_write_text(target: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``target`` atomically (temporary file + fsync + rename)."""
    with atomic_path(target) as tmp:
        with open(tmp, "w", encoding=encoding) as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())


def atomic_write_json(target: str | os.PathLike[str], obj: Any, *, indent: int | None = 2) -> None:
    """Serialise ``obj`` as UTF-8 JSON and write it atomically."""
    atomic_write_text(target, json.dumps(obj, ensure_ascii=False, indent=indent) + "\n")


def atomic_write_json_array(target: str | os.PathLike[str], records: Iterable[Any]) -> int:
    """Stream ``records`` as a JSON array to ``target`` atomically, one object per line (the layout of the
    official SurGE files, and a corpus never held in memory); returns how many were written."""
    count = 0
    with atomic_path(target) as tmp, open(tmp, "w", encoding="utf-8") as handle:
        handle.write("[")
        for record in records:
            handle.write(",\n" if count else "\n")
            handle.write(json.dumps(record, ensure_ascii=False))
            count += 1
        handle.write("\n]\n" if count else "]\n")
    return count


@contextlib.contextmanager
def atomic_directory(target: str | os.PathLike[str], *, overwrite: bool = False) -> Iterator[Path]:
    """Yield a temporary folder beside ``target``; it replaces ``target`` only when the block succeeds.

    On any error the temporary folder is removed, so ``target`` is either the old complete folder,
    absent, or the new complete folder -- never a half-written one.
    """
    target = Path(target)
    if target.exists() and not overwrite:
        from surge_dataset.core.errors import OutputFolderError

        raise OutputFolderError(f"{target} already exists; pass --overwrite to replace it")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=temporary_prefix(target.name), suffix=".tmp", dir=target.parent))
    try:
        yield tmp
        _give_default_mode(tmp, target, directory=True)
        if target.exists():
            backup = target.with_name(f".{target.name}.old")
            if backup.exists():
                shutil.rmtree(backup)
            os.replace(target, backup)
            os.replace(tmp, target)
            shutil.rmtree(backup)
        else:
            os.replace(tmp, target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


class JsonlJournal:
    """Append-only JSON-lines journal: one line per finished unit of work, fsynced, torn tail ignored."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)

    def read(self) -> list[dict[str, Any]]:
        """All complete records; a torn last line (crash mid-write) is dropped."""
        if not self.path.exists():
            return []
        records = []
        with open(self.path, encoding="utf-8") as handle:
            for line in handle:
                line = line.strip()
                if not line:
                    continue
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    continue
        return records

    def append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False)
        with naming_errors(self.path):
            self._append_line(line)

    def _append_line(self, line: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as handle:
            # A previous crash may have left a torn line without a newline; start on a fresh line.
            if handle.tell() > 0:
                with open(self.path, "rb") as check:
                    check.seek(-1, os.SEEK_END)
                    if check.read(1) != b"\n":
                        handle.write("\n")
            handle.write(line + "\n")
            handle.flush()
            os.fsync(handle.fileno())
