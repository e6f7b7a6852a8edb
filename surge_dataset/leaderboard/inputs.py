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

A system is identified by what it scored, never by a name or a folder's name: the builder fingerprints the survey
files it has for each input itself (:func:`~surge_dataset.evaluation.fingerprints.survey_fingerprints`; the
fingerprints a results file records count only when its surveys are not here). Two inputs that scored the same
survey files under the same shared settings (protocol, aggregation, dataset, filters, data window) are one system:
the runs of one folder (an objective and a judged one) are one row, as ``surge report`` joins them
(:func:`~surge_dataset.report.results.merge_runs`); any other input of the same surveys -- a replay under a second
name, with a nudged score, or a results file reaching another system's folder ``ROOT/<name>`` by its recorded
path -- is no row but a *duplicate* of the system kept. Kept first: the inputs whose surveys are their own
(a submission's folder, ``ROOT/<its name or stem>``), then input order. Names are compared as
:func:`~surge_dataset.evaluation.results.name_key` reads them: a later name that looks like an earlier one is
refused.

One bad input never stops the build: an input that fails a check (unreadable, refused by the schema or by
:func:`~.submission.load_submission`, a name that clashes or leads outside the root...) is *refused* in one line and
the others are built; only the builder's own options (``--passages-root``, ``--details``) and an empty board raise.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import InputFileError, SurgeError
from surge_dataset.core.io import read_json
from surge_dataset.core.vocabulary import OFFICIAL, parse_assignments
from surge_dataset.evaluation.results import (
    NON_METRIC_KEYS,
    SystemResults,
    check_results,
    is_number,
    name_key,
    survey_sort_key,
    system_names,
)
from surge_dataset.evaluation.schema import check_name
from surge_dataset.leaderboard.schema import RankedResults
from surge_dataset.leaderboard.submission_rules import strip_local_paths
from surge_dataset.report.constants import ReportError
from surge_dataset.report.results import (
    RetrievalResults,
    is_retrieval_output,
    load_retrieval,
    merge_runs,
    merged_notes,
    same_data,
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

    @property
    def label(self) -> str:
        """The input as published: the file's or the submission folder's name, never a path."""
        return (self.submission or self.path).name


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


def refused_input(label: str, system: str | None, why: BaseException | str) -> dict[str, Any]:
    """A refused input as ``leaderboard.json`` lists it, at every stage of the build: its file or folder name, the
    name it claims, the first line of why (no local path, at most 500 characters: a submitter writes it)."""
    reason = strip_local_paths((str(why).strip().splitlines() or [type(why).__name__])[0])[:500]
    return {"file": label, "system": system, "reason": reason.removeprefix(f"{label}: ")}  # the file is named once


def _read(path: Path) -> _Raw | None:
    """One input read and checked (None: a retrieval-eval output); raises :class:`SurgeError` naming the file."""
    if path.is_dir():
        if not (path / SUBMISSION_FILE).is_file():
            raise InputFileError(f"{path} is a folder without {SUBMISSION_FILE}: pass results files of "
                                 "`surge evaluate` or submission folders of `surge submit`")
        return _submission(path)
    data = read_json(path)
    if is_retrieval_output(data):
        load_retrieval([path])  # checked here, so a bad one is refused alone
        return None
    data = ranked_results(path, data)
    return _Raw(data["config"].get("system") or None, path, data)


def _check_name(name: str, raw: _Raw, taken: dict[str, str]) -> None:
    """A plain, bounded name (:func:`.schema.check_name`) that looks like no name already on the board
    (:func:`~surge_dataset.evaluation.results.name_key`)."""
    try:
        check_name(name)
    except ValueError as exc:
        raise InputFileError(f"{raw.path}: {exc}: set config.system to a shorter plain name") from None
    other = taken.get(name_key(name))
    if other is not None:
        raise InputFileError(f"{json.dumps(name, ensure_ascii=False)} looks like "
                             f"{json.dumps(other, ensure_ascii=False)} (already on the board): rename it")


def read_inputs(
    paths: Sequence[str | Path], *, passages_root: str | Path | None = None, details: Iterable[str] = (),
) -> tuple[list[Entry], list[RetrievalResults], list[dict[str, Any]], list[dict[str, Any]]]:
    """(systems, retrieval-eval runs, refused inputs, duplicates) of the inputs.

    ``refused``: ``{"file", "system", "reason"}`` per input that failed a check (the file or folder name only,
    the name it claims or None, one line without local paths); ``duplicates``: ``{"file", "system",
    "duplicate_of", "differs"}`` per input that scored the same survey files as a system kept (``differs``: the
    first metric value that differs, or None). Raises :class:`InputFileError` only for the builder's own options
    (``--passages-root``, ``--details``) and when no input is left.
    """
    from surge_dataset.evaluation.passages import find_passages

    root = Path(passages_root) if passages_root is not None else None
    if root is not None and not root.is_dir():
        raise InputFileError(f"--passages-root {root}: no such folder")
    if root is not None:
        root = root.resolve()  # '.' has no name of its own: every message and check reads the real folder
    given = _details_option(details)
    refused: list[dict[str, Any]] = []
    first_problem: list[str] = []  # said in full, here on the builder's machine, when nothing is left to build
    gone: list[str] = []  # what --details may call a refused input
    raws: list[_Raw] = []
    retrieval: list[Path] = []
    for path in map(Path, paths):
        try:
            raw = _read(path)
        except SurgeError as exc:
            refused.append(refused_input(path.name, None, exc))
            first_problem.append(str(exc))
            gone += [path.stem, str(path)]
            continue
        if raw is None:
            retrieval.append(path)
        else:
            raws.append(raw)
    taken: dict[str, str] = {}
    read: list[tuple[_Raw, Entry]] = []
    for name, raw in zip(system_names([(raw.explicit, raw.path) for raw in raws]), raws, strict=True):
        try:
            _check_name(name, raw, taken)
            system = SystemResults.from_data(name, raw.path, raw.data)
            passages, notes = (raw.passages, []) if raw.submission is not None else \
                find_passages(name, raw.path, raw.data["config"], root=root)
        except SurgeError as exc:
            refused.append(refused_input(raw.label, name, exc))
            first_problem.append(str(exc))
            gone += [name, raw.path.stem, str(raw.path)]
            continue
        taken[name_key(name)] = name
        read.append((raw, Entry(system, passages, None, raw.submission, notes, results=raw.data)))
    for raw, entry in read:  # a --details file that is not there is the builder's own option: it raises
        entry.details = _details(raw, entry.system.name, given)
    for key in gone:
        given.pop(key, None)
    if given:
        names = ", ".join(entry.system.name for _, entry in read)
        raise InputFileError(f"--details {', '.join(given)}: no input is named so (names: {names})")
    if not read and not retrieval:
        if first_problem:
            more = f" (and {len(first_problem) - 1} more refused)" if len(first_problem) > 1 else ""
            raise InputFileError(f"nothing to build: {first_problem[0]}{more}")
        raise InputFileError("nothing to build: give results files of `surge evaluate` or submission folders")
    entries, duplicates, conflicts = _identified(read, root)
    return entries, load_retrieval(retrieval), refused + conflicts, duplicates


def _fingerprint(entry: Entry) -> None:
    """The entry's survey fingerprints as the builder computes them from the surveys it has (the recorded ones
    only when none of its scored surveys is here); a recorded set that disagrees is noted."""
    from surge_dataset.evaluation.fingerprints import fingerprint_difference, survey_fingerprints

    recorded = entry.system.fingerprints
    computed: dict[str, str] = {}
    if entry.passages is not None:
        try:
            computed = survey_fingerprints(entry.passages, str(entry.system.config.get("protocol") or OFFICIAL),
                                           survey_ids=entry.system.surveys)
        except SurgeError:
            computed = {}
    if computed and recorded is not None and (why := fingerprint_difference(recorded, computed)) is not None:
        entry.notes.append(f"{entry.system.name}: its recorded survey fingerprints do not match its surveys here "
                           f"({why}): the surveys here count")
    entry.system.fingerprints = computed or recorded


def _own(raw: _Raw, entry: Entry, root: Path | None) -> bool:
    """Whether the entry's surveys are its own: a submission's folder, or ``ROOT/<its name or file stem>`` (not a
    folder reached by a recorded path, which anyone may write)."""
    if raw.submission is not None:
        return True
    if root is None or entry.passages is None:
        return False
    return entry.passages.resolve() in {(root / entry.system.name).resolve(), (root / raw.path.stem).resolve()}


def _differs(kept: SystemResults, later: SystemResults) -> str | None:
    """The first metric value two runs of the same surveys disagree on, or the metrics only the later one holds
    (not ranked: its row is the kept one's), or None."""
    def columns(system: SystemResults) -> set[str]:
        return {k for r in system.surveys.values() for k, v in r.items() if k not in NON_METRIC_KEYS and is_number(v)}

    mine, theirs = columns(kept), columns(later)
    for key in sorted(mine & theirs):
        for sid in sorted(set(kept.surveys) & set(later.surveys), key=survey_sort_key):
            a, b = kept.surveys[sid].get(key), later.surveys[sid].get(key)
            if is_number(a) and is_number(b) and a != b:
                return f"{key} of survey {sid}: {a!r} vs {b!r}"
    extra = sorted(theirs - mine)
    return f"also holds {', '.join(extra)}, not ranked (only the kept system's own runs join it)" if extra else None


def _identified(read: list[tuple[_Raw, Entry]], root: Path | None) -> tuple[list[Entry], list[dict[str, Any]],
                                                                            list[dict[str, Any]]]:
    """(rows, duplicates, refused conflicts): inputs of the same survey files under the same shared settings are
    one system (module docstring): joined when they are runs of one folder (:func:`merge_runs`), else the later a
    duplicate of the one kept. Rows in input order."""
    from surge_dataset.evaluation.fingerprints import fingerprint_difference

    for _, entry in read:
        _fingerprint(entry)
    own = [_own(raw, entry, root) for raw, entry in read]
    rows: dict[int, list[int]] = {}  # the row's first input -> its inputs
    row_system: dict[int, SystemResults] = {}
    duplicates: list[tuple[int, dict[str, Any]]] = []
    refused: list[dict[str, Any]] = []
    for i in sorted(range(len(read)), key=lambda i: (not own[i], i)):  # own surveys first, then input order
        raw, entry = read[i]
        placed = False
        for head, members in rows.items():
            kept = row_system[head]
            fingerprinted = kept.fingerprints is not None and entry.system.fingerprints is not None
            if fingerprinted and (fingerprint_difference(kept.fingerprints or {}, entry.system.fingerprints or {})
                                  is not None or not same_data(kept, entry.system)):
                continue
            if not fingerprinted and (kept.fingerprints is not None or entry.system.fingerprints is not None):
                continue  # one of them unchecked: never the same system
            folder = read[head][1].passages
            borrowed = any(own[m] for m in members) and not own[i]
            same_folder = (folder is None) == (entry.passages is None) and \
                (folder is None or entry.passages is None or folder.resolve() == entry.passages.resolve())
            joined: list[SystemResults] = [kept, entry.system]
            if same_folder and not borrowed:
                try:
                    joined = merge_runs([kept, entry.system])
                except ReportError as exc:
                    if not fingerprinted:
                        refused.append(refused_input(raw.label, entry.system.name, exc))
                        placed = True
                        break
            if len(joined) == 1:
                row_system[head] = joined[0]
                members.append(i)
                placed = True
                break
            if fingerprinted:
                duplicates.append((i, {"file": raw.label, "system": entry.system.name, "duplicate_of": kept.name,
                                       "differs": _differs(kept, entry.system)}))
                placed = True
                break
        if not placed:
            rows[i] = [i]
            row_system[i] = entry.system
    entries = []
    for head in sorted(rows):
        parts = [read[m][1] for m in sorted(rows[head])]
        system = row_system[head]
        if len(parts) == 1:
            parts[0].system = system
            parts[0].notes += merged_notes([system])
            entries.append(parts[0])
            continue
        first = parts[0]
        entries.append(Entry(
            system,
            next((p.passages for p in parts if p.passages is not None), None),
            next((p.details for p in parts if p.details is not None), None),
            first.submission,
            [n for p in parts for n in p.notes] + merged_notes([system]),
            results={"config": system.config, "surveys": system.surveys, "failures": system.failures},
        ))
    return entries, [record for _, record in sorted(duplicates, key=lambda d: d[0])], refused
