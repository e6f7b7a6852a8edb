"""What ``surge leaderboard build`` reads: ``surge evaluate`` results files, ``surge retrieval-eval`` outputs
and submission folders (``surge submit``), each checked before anything is written.

A system's generated surveys are found, in this order: the submission's own folder; ``--passages-root
DIR`` holding ``DIR/<system name>/`` or ``DIR/<results file stem>/``; the ``passages`` folder its results
file names, if it still exists. Its ``--details`` JSONL: the submission's; ``--details NAME=FILE``; a
sibling ``<stem>.details.jsonl`` of the results file. Missing surveys or details are not errors: the
viewer shows what there is and says what is missing. (The ``passages`` path inside a results file is
followed only below ``--passages-root`` or the results file's folder: a results file may come from anyone.)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputFileError
from ..io import reading_input
from ..report.constants import _is_number
from ..report.results import (
    RetrievalResults,
    SystemResults,
    _unique_names,
    file_sha256,
    is_retrieval_output,
    load_retrieval,
)

SUBMISSION_FILE = "submission.json"


@dataclass
class Entry:
    """One system of the leaderboard: its results, and where its surveys and ``--details`` are (if anywhere)."""

    system: SystemResults
    passages: Path | None
    details: Path | None
    submission: Path | None = None


@dataclass
class _Raw:
    explicit: str | None
    path: Path
    data: dict[str, Any]
    passages: Path | None = None
    details: Path | None = None
    submission: Path | None = None


def read_json(path: Path) -> Any:
    """A JSON file, or :class:`InputFileError` naming it (missing, truncated, not UTF-8)."""
    with reading_input(path):
        return json.loads(Path(path).read_text(encoding="utf-8"))


def check_results(path: Path, data: Any) -> dict[str, Any]:
    """Refuse, naming the file, anything that is not a ``surge evaluate`` results file."""
    if not isinstance(data, dict) or not isinstance(data.get("surveys"), dict) or not isinstance(data.get("config"), dict):
        raise InputFileError(f"{path}: not a `surge evaluate` results file (expected an object with a 'config' "
                             "object and a 'surveys' object)")
    for survey_id, record in data["surveys"].items():
        if not isinstance(record, dict):
            raise InputFileError(f"{path}: survey {survey_id!r} is {type(record).__name__}, not an object of scores")
        bad = [k for k, v in record.items() if k not in ("counts", "diagnostics") and v is not None
               and not _is_number(v) and not isinstance(v, (dict, list, str))]
        if bad or not isinstance(record.get("counts", {}), dict) or not isinstance(record.get("diagnostics", []), list):
            raise InputFileError(f"{path}: survey {survey_id!r} has values of the wrong type "
                                 f"({', '.join(bad) or 'counts/diagnostics'}): not a `surge evaluate` results file")
    return data


def _submission(folder: Path) -> _Raw:
    try:
        from .submission import load_submission
    except ModuleNotFoundError as exc:
        if exc.name != f"{__package__}.submission":
            raise
        raise InputFileError(f"{folder}: a submission folder, but this surge-bench cannot read submissions "
                             "(surge_dataset.leaderboard.submission is missing)") from None
    sub = load_submission(folder)
    data = check_results(Path(sub.results), read_json(Path(sub.results)))
    return _Raw(sub.name, Path(sub.results), data, Path(sub.passages) if sub.passages else None,
                Path(sub.details) if sub.details else None, folder)


def _details_option(items: Iterable[str]) -> dict[str, Path]:
    pairs = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise InputFileError(f"--details {item!r}: expected NAME=FILE (NAME: a system name or results file stem)")
        pairs[name.strip()] = Path(path.strip())
    return pairs


def _passages(raw: _Raw, name: str, root: Path | None) -> Path | None:
    if raw.passages is not None:
        return raw.passages
    candidates = [root / name, root / raw.path.stem] if root is not None else []
    stored = raw.data["config"].get("passages")
    if isinstance(stored, str) and stored.strip("/. "):
        # a results file may come from anyone: its own path is followed only below --passages-root or
        # below the results file's folder, never to an absolute place on this machine
        if root is not None:
            candidates.append(root / Path(stored).name)
        if not Path(stored).is_absolute() and ".." not in Path(stored).parts:
            candidates.append(raw.path.parent / stored)
    return next((c for c in candidates if c.is_dir()), None)


def _details(raw: _Raw, name: str, given: dict[str, Path]) -> Path | None:
    for key in (name, raw.path.stem, str(raw.path)):
        if key in given:
            path = given.pop(key)
            if not path.is_file():
                raise InputFileError(f"--details {key}={path}: no such file")
            return path
    if raw.details is not None:
        return raw.details
    for sibling in (raw.path.with_name(raw.path.stem + ".details.jsonl"), raw.path.with_name(raw.path.stem + "_details.jsonl")):
        if sibling.is_file():
            return sibling
    return None


def read_inputs(
    paths: Sequence[str | Path], *, passages_root: str | Path | None = None, details: Iterable[str] = (),
) -> tuple[list[Entry], list[RetrievalResults]]:
    """(systems, retrieval-eval runs) of the inputs; raises :class:`InputFileError` naming a bad file."""
    raws: list[_Raw] = []
    retrieval: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            if not (path / SUBMISSION_FILE).is_file():
                raise InputFileError(f"{path} is a folder without {SUBMISSION_FILE}: pass results files of "
                                     "`surge evaluate` or submission folders of `surge submit`")
            raws.append(_submission(path))
            continue
        data = read_json(path)
        if is_retrieval_output(data):
            retrieval.append(path)
            continue
        data = check_results(path, data)
        raws.append(_Raw(data["config"].get("system") or None, path, data))
    if not raws and not retrieval:
        raise InputFileError("nothing to build: give results files of `surge evaluate` or submission folders")
    names = _unique_names([(raw.explicit, raw.path) for raw in raws])
    root = Path(passages_root) if passages_root is not None else None
    if root is not None and not root.is_dir():
        raise InputFileError(f"--passages-root {root}: no such folder")
    given = _details_option(details)
    entries = []
    for name, raw in zip(names, raws, strict=True):
        system = SystemResults(name=name, path=raw.path, sha256=file_sha256(raw.path), config=raw.data["config"],
                               surveys={str(k): v for k, v in raw.data["surveys"].items()},
                               failures=list(raw.data.get("failures") or []))
        entries.append(Entry(system, _passages(raw, name, root), _details(raw, name, given), raw.submission))
    if given:
        raise InputFileError(f"--details {', '.join(given)}: no input is named so (names: {', '.join(names)})")
    return entries, load_retrieval(retrieval)
