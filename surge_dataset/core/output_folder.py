"""Which ``--out`` folders a command may write, replace or refuse: never a user's own files.

Every folder a ``surge`` command writes carries a marker saying what wrote it (:data:`MARKER`, or the
marker files that built datasets and indexes have always had). The rules, for every command:

* ``--out`` equal to, inside or containing one of the command's inputs is refused, with or without
  ``--overwrite`` (building ``examples/sample`` into ``examples/sample`` would replace the raw files);
* an existing folder with files that no ``surge`` command wrote is refused, with or without ``--overwrite``;
* a folder of ours of *another kind* (a built dataset given to ``surge index bm25 --out``) is refused too;
* a folder of ours of the same kind is replaced only with ``--overwrite`` (commands that add to their
  folder, such as a resumable ``surge generate``, write into it without).

Refusals are :class:`~surge_dataset.core.errors.OutputFolderError`: one line, naming a different folder to use.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Literal

from surge_dataset.core.errors import OutputFolderError
from surge_dataset.core.io import atomic_directory, atomic_write_json, temporary_prefix

__all__ = [
    "MARKER",
    "OutputKind",
    "check_output_folder",
    "claim_output_folder",
    "folder_kind",
    "replacing_output_folder",
    "suggest_other_folder",
    "write_marker",
]

#: Written into every folder a command creates: {"kind": ..., "command": ...}. Hidden, so a folder of
#: generated surveys still reads as DIR/<survey_id>/ to both evaluators.
MARKER = ".surge-output.json"

OutputKind = Literal[
    "dataset", "index", "retrieval-export", "official-json", "rendered-surveys",
    "imported-surveys", "generated-surveys", "metric-module", "submission",
    "leaderboard-space", "human-packets",
]

#: Files that are part of a kind's own format (a built dataset's metadata, an index's manifest): they prove the kind too.
_FORMAT_MARKERS: dict[str, OutputKind] = {
    "surge_meta.json": "dataset",
    "surge_index.json": "index",
    "encoding.json": "index",  # a dense index while its shards are being encoded
    "submission.json": "submission",  # its manifest lists every file, so no marker file is added to it
}

_DESCRIPTION: dict[str, str] = {
    "dataset": "a built SurGE dataset",
    "index": "a retrieval index",
    "retrieval-export": "a BEIR/MTEB export",
    "official-json": "official JSON files exported by `surge data export`",
    "rendered-surveys": "surveys rendered by `surge data render`",
    "imported-surveys": "surveys imported by `surge import`",
    "generated-surveys": "surveys written by `surge generate`",
    "metric-module": "an installed metric module",
    "submission": "a submission packed by `surge submit`",
    "leaderboard-space": "a leaderboard Space built by `surge leaderboard build`",
    "human-packets": "annotation packets written by `surge human export`",
}


def folder_kind(folder: str | os.PathLike[str]) -> str | None:
    """The kind of output a ``surge`` command wrote into ``folder``, or ``None`` when none did."""
    folder = Path(folder)
    marker = folder / MARKER
    if marker.is_file():
        try:
            return str(json.loads(marker.read_text(encoding="utf-8"))["kind"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
    for name, kind in _FORMAT_MARKERS.items():
        if (folder / name).is_file():
            return kind
    return None


def suggest_other_folder(path: str | os.PathLike[str], suffix: str = "built") -> Path:
    """A sibling folder name that does not exist yet, e.g. ``examples/sample-built``."""
    path = Path(path)
    if path.name in ("", ".."):  # '.' and '..' name no folder of their own: the folder they mean does
        path = path.resolve()
    if not path.name:  # the file system's root has no sibling
        return path / suffix
    candidate = path.with_name(f"{path.name}-{suffix}")
    n = 2
    while candidate.exists():
        candidate = path.with_name(f"{path.name}-{suffix}{n}")
        n += 1
    return candidate


def _overlap(out: Path, source: Path) -> str | None:
    """How ``out`` and ``source`` overlap ('is', 'is inside', 'contains'), or ``None``."""
    out_r, source_r = out.resolve(), source.resolve()
    if out_r == source_r:
        return "is"
    if source_r in out_r.parents:
        return "is inside"
    if out_r in source_r.parents:
        return "contains"
    return None


def _visible_entries(folder: Path) -> list[str]:
    """What ``folder`` holds besides our marker and our own half-written temporary files (``.<name>.*.tmp``,
    see :func:`~surge_dataset.core.io.atomic_path`): another process may be writing the marker right now."""
    return sorted(p.name for p in folder.iterdir()
                  if p.name != MARKER and not (p.name.startswith(temporary_prefix(MARKER)) and p.name.endswith(".tmp")))


def check_output_folder(
    out: str | os.PathLike[str],
    kind: OutputKind,
    *,
    inputs: Iterable[tuple[str, str | os.PathLike[str] | None]] = (),
    overwrite: bool = False,
    adds_to_existing: bool = False,
    option: str = "--out",
) -> bool:
    """Refuse an ``--out`` this command must not write (see the module docstring); True if it holds ours.

    ``inputs`` are (option name, path) pairs of what the command reads; ``adds_to_existing`` lets a
    command write into a folder of its own kind without ``--overwrite`` (resumable writers).
    """
    out = Path(out)
    other = suggest_other_folder(out, "new")
    for name, source in inputs:
        if source is None or not Path(source).exists():
            continue
        how = _overlap(out, Path(source))
        if how is not None:
            other = suggest_other_folder(Path(source))
            raise OutputFolderError(
                f"{option} {out} {how} {'the folder of ' if how == 'is' else ''}{name} {source}: writing there could "
                f"destroy the input; choose a different folder, e.g. {option} {other}"
            )
    if not out.exists():
        return False
    if not out.is_dir():
        raise OutputFolderError(f"{option} {out} is a file, not a folder; choose a different folder, e.g. {option} {other}")
    entries = _visible_entries(out)
    if not entries:
        return False
    found = folder_kind(out)
    if found is None:
        shown = ", ".join(repr(e) for e in entries[:3]) + (", ..." if len(entries) > 3 else "")
        raise OutputFolderError(
            f"{option} {out} holds files that surge did not write ({shown}); they are never replaced, even with "
            f"--overwrite: choose a different folder, e.g. {option} {other}"
        )
    if found != kind:
        raise OutputFolderError(
            f"{option} {out} holds {_DESCRIPTION.get(found, found)}, not {_DESCRIPTION[kind]}; it is not replaced, "
            f"even with --overwrite: choose a different folder, e.g. {option} {other}"
        )
    if not overwrite and not adds_to_existing:
        raise OutputFolderError(f"{option} {out} already exists ({_DESCRIPTION[kind]}); pass --overwrite to replace it")
    return True


def write_marker(folder: str | os.PathLike[str], kind: OutputKind, command: str) -> None:
    """Mark ``folder`` as written by ``command`` (kept if it is already there with the same kind)."""
    folder = Path(folder)
    if folder_kind(folder) == kind:  # a built dataset's or an index's own manifest already says so
        return
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_json(folder / MARKER, {"kind": kind, "command": command})


def claim_output_folder(
    out: str | os.PathLike[str],
    kind: OutputKind,
    command: str,
    *,
    inputs: Iterable[tuple[str, str | os.PathLike[str] | None]] = (),
    overwrite: bool = False,
    adds_to_existing: bool = True,
    option: str = "--out",
) -> Path:
    """Check ``out`` for a command that writes files *into* it, create it and mark it; returns it."""
    check_output_folder(out, kind, inputs=inputs, overwrite=overwrite, adds_to_existing=adds_to_existing,
                        option=option)
    write_marker(out, kind, command)
    return Path(out)


@contextlib.contextmanager
def replacing_output_folder(
    out: str | os.PathLike[str],
    kind: OutputKind,
    command: str,
    *,
    inputs: Iterable[tuple[str, str | os.PathLike[str] | None]] = (),
    overwrite: bool = False,
    option: str = "--out",
) -> Iterator[Path]:
    """Check ``out``, then yield a temporary folder that replaces it whole when the block succeeds."""
    check_output_folder(out, kind, inputs=inputs, overwrite=overwrite, option=option)
    with atomic_directory(out, overwrite=True) as tmp:
        yield tmp
        write_marker(tmp, kind, command)
