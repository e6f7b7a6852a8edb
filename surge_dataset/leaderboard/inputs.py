"""What ``surge leaderboard build`` reads: ``surge evaluate`` results files, ``surge retrieval-eval`` outputs and
submission folders (``surge submit``), each read by the one results loader and checked against the results schema
with the leaderboard's own demands (:class:`.schema.RankedResults`) before anything else.

A system's generated surveys are found by the one rule of :func:`~surge_dataset.evaluation.passages.find_passages`:
the submission's own folder; ``--passages-root DIR`` holding ``DIR/<system name>/`` or ``DIR/<results file stem>/``;
the ``passages`` folder its results file records (relative to the file). Nothing outside ``--passages-root`` (or
the results file's folder, without one) is read: a results file may come from anyone, and a system name or path
leading outside is refused in one line. Its ``--details`` JSONL: the submission's; ``--details NAME=FILE``; a sibling
``<stem>.details.jsonl`` of the results file. Missing surveys or details are not errors: the viewer shows what there
is and says what is missing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import InputFileError
from surge_dataset.core.io import read_json
from surge_dataset.core.vocabulary import parse_assignments
from surge_dataset.evaluation.results import SystemResults, check_results, unique_names
from surge_dataset.evaluation.schema import check_name
from surge_dataset.leaderboard.schema import RankedResults
from surge_dataset.report.results import (
    RetrievalResults,
    is_retrieval_output,
    load_retrieval,
    merge_runs,
    merged_notes,
)

SUBMISSION_FILE = "submission.json"


@dataclass
class Entry:
    """One system of the leaderboard: its results, where its surveys and ``--details`` are (if anywhere), and
    what re-scoring found (:mod:`.verify`)."""

    system: SystemResults
    passages: Path | None
    details: Path | None
    submission: Path | None = None
    notes: list[str] = field(default_factory=list)
    verification: dict[str, Any] | None = None
    results: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class _Raw:
    explicit: str | None
    path: Path
    data: dict[str, Any]
    passages: Path | None = None
    details: Path | None = None
    submission: Path | None = None


def ranked_results(path: Path | str, data: Any) -> dict[str, Any]:
    """``data`` if it is a results file the leaderboard can rank (the one loader's check with
    :class:`.schema.RankedResults`), else one :class:`InputFileError` naming the file, the record and the field."""
    return check_results(path, data, RankedResults)


def _submission(folder: Path) -> _Raw:
    from surge_dataset.leaderboard.submission import load_submission

    sub = load_submission(folder)  # the manifest, results and details checked against the schema there
    data = ranked_results(Path(sub.results), read_json(Path(sub.results)))
    return _Raw(sub.name, Path(sub.results), data, Path(sub.passages), Path(sub.details) if sub.details else None,
                folder)


def _details_option(items: Iterable[str]) -> dict[str, Path]:
    pairs = parse_assignments(list(items), "--details", shape="NAME=FILE", hint=" (NAME: a system name or results file stem)")
    return {name: Path(path) for name, path in pairs.items()}


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


def _names(raws: Sequence[_Raw]) -> list[str]:
    """The systems' names (explicit, else the file stem): unique, plain text, bounded (:func:`.schema.check_name`)."""
    names = unique_names([(raw.explicit, raw.path) for raw in raws])
    for name, raw in zip(names, raws, strict=True):
        try:
            check_name(name)
        except ValueError as exc:
            raise InputFileError(f"{raw.path}: {exc}: set config.system to a shorter plain name") from None
    return names


def read_inputs(
    paths: Sequence[str | Path], *, passages_root: str | Path | None = None, details: Iterable[str] = (),
) -> tuple[list[Entry], list[RetrievalResults]]:
    """(systems, retrieval-eval runs) of the inputs; raises :class:`InputFileError` naming a bad file."""
    from surge_dataset.evaluation.passages import find_passages

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
        data = ranked_results(path, data)
        raws.append(_Raw(data["config"].get("system") or None, path, data))
    if not raws and not retrieval:
        raise InputFileError("nothing to build: give results files of `surge evaluate` or submission folders")
    names = _names(raws)
    root = Path(passages_root) if passages_root is not None else None
    if root is not None and not root.is_dir():
        raise InputFileError(f"--passages-root {root}: no such folder")
    given = _details_option(details)
    entries = []
    for name, raw in zip(names, raws, strict=True):
        system = SystemResults.from_data(name, raw.path, raw.data)
        passages, notes = (raw.passages, []) if raw.submission is not None else \
            find_passages(name, raw.path, raw.data["config"], root=root)
        entries.append(Entry(system, passages, _details(raw, name, given), raw.submission, notes, results=raw.data))
    if given:
        raise InputFileError(f"--details {', '.join(given)}: no input is named so (names: {', '.join(names)})")
    return _merged(entries), load_retrieval(retrieval)


def _merged(entries: list[Entry]) -> list[Entry]:
    """Entries of one system under one set of settings as one row (``surge report``'s rule,
    :func:`~surge_dataset.report.results.merge_runs`): the objective run and the judged run of a folder together."""
    by_path = {entry.system.path: entry for entry in entries}
    merged = []
    for system in merge_runs([entry.system for entry in entries]):
        parts = [by_path[part.path] for part in system.files]
        if len(parts) == 1:
            merged.append(parts[0])
            continue
        first = parts[0]
        merged.append(Entry(
            system,
            next((p.passages for p in parts if p.passages is not None), None),
            next((p.details for p in parts if p.details is not None), None),
            first.submission,
            [n for p in parts for n in p.notes] + merged_notes([system]),
            results={"config": system.config, "surveys": system.surveys, "failures": system.failures},
        ))
    return merged
