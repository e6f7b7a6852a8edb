"""Where a system's generated surveys are: one rule for ``surge evaluate`` (which records it), ``surge leaderboard
build``, ``surge arena`` and re-scoring with another judge (which follow it).

``surge evaluate`` records its ``--passages`` folder in ``config.passages`` relative to the results file's folder
(``../outputs/rag``), so the pair can move together and the record holds no absolute path. Results written before
recorded it as given (relative to where the run started, or absolute): those are still followed.

:func:`find_passages` looks, in order, in ``ROOT/<system name>`` and ``ROOT/<results file stem>`` (``--passages-root
ROOT``), the recorded folder (relative to the results file, then as given), then ``ROOT/<the recorded folder's last
part>``. With a root nothing outside it is read: a system name that leads outside (``../x``, ``/abs``) is refused,
and a recorded folder outside is not followed (said in the notes). ``confine`` (the leaderboard: results may come
from anyone) keeps a recorded folder below the results file's folder when no root is given.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import InputFileError

__all__ = ["find_passages", "recorded_passages"]


def recorded_passages(passage_dir: str | os.PathLike[str], results: str | os.PathLike[str]) -> str:
    """``passage_dir`` as a results file at ``results`` records it: relative to the file's folder, POSIX slashes
    (absolute only where no relative path exists, another drive on Windows)."""
    folder = os.path.abspath(passage_dir)
    try:
        return Path(os.path.relpath(folder, os.path.dirname(os.path.abspath(results)))).as_posix()
    except ValueError:
        return Path(folder).as_posix()


def _inside(path: Path, root: Path) -> bool:
    resolved = path.resolve()
    return resolved == root or root in resolved.parents


def find_passages(name: str, results: str | os.PathLike[str], config: Mapping[str, Any], *,
                  root: str | os.PathLike[str] | None = None, confine: bool = True) -> tuple[Path | None, list[str]]:
    """(the passage folder of system ``name`` whose results file is ``results``, or None and why a recorded folder
    was not followed). Raises :class:`InputFileError` for a system name or file stem that leads outside ``root``."""
    results = Path(results)
    base = Path(root).resolve() if root is not None else None
    candidates: list[Path] = []
    if base is not None:
        for label, part in (("system name", name), ("results file name", results.stem)):
            target = base / part
            if not _inside(target, base):
                raise InputFileError(f"{results}: the {label} {part!r} leads outside --passages-root: refused (nothing "
                                     "outside the root is read)")
            candidates.append(target)
    notes: list[str] = []
    stored = config.get("passages")
    if isinstance(stored, str) and stored.strip("/. "):
        recorded = Path(stored)
        fence = base if base is not None else results.parent.resolve() if confine else None
        where = "--passages-root" if base is not None else \
            "the results file's folder (pass --passages-root DIR, a folder holding both)"
        for folder in dict.fromkeys([results.parent / recorded, recorded]):
            if fence is None or _inside(folder, fence):
                candidates.append(folder)
            elif folder.is_dir():
                notes.append(f"{name}: its recorded passages folder {recorded.name!r} is outside {where}: not followed")
        if base is not None:
            candidates.append(base / recorded.name)
    found = next((c for c in candidates if c.is_dir() and (base is None or _inside(c, base))), None)
    return found, list(dict.fromkeys(notes)) if found is None else []
