"""The one loader of ``surge evaluate`` results files: ``surge report``, the leaderboard, ``surge judge-agreement``,
``surge meta-eval``, ``surge arena`` and ``surge judge-agreement --rescore`` all read a results file here.

A file is read as JSON (:func:`~surge_dataset.core.io.read_json`) and checked against the one schema
(:class:`~surge_dataset.evaluation.schema.ResultsFile`) before anything else reads it: a bad file is refused in one
line naming the file, the record and the field (:class:`~surge_dataset.core.errors.InputFileError`). A system is
named by the name its caller gives (``NAME=PATH``), else ``config.system``, else the file stem; stems that collide
(``a/results.json``, ``b/results.json``) get their folder, and two names that look alike (:func:`name_key`: ``gt``,
``GT``, ``gt.``) are refused (:func:`unique_names`).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import InputFileError
from surge_dataset.core.io import file_sha256, read_json

__all__ = ["NON_METRIC_KEYS", "SystemResults", "check_results", "is_number", "load_results", "name_key",
           "read_results", "survey_sort_key", "system_names", "unique_names"]

#: Per-survey keys of a results file that are not metric values.
NON_METRIC_KEYS = frozenset({"counts", "diagnostics"})


def is_number(value: Any) -> bool:
    """A metric value that counts: a finite int or float, not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def survey_sort_key(survey_id: str) -> tuple[int, int, str]:
    """Survey ids in number order (any other key after them, in text order)."""
    return (0, int(survey_id), "") if survey_id.isdigit() else (1, 0, survey_id)


#: Characters that do not tell two names apart at their ends: punctuation and spaces (Unicode P*, Z*).
_EDGE = ("P", "Z")


def name_key(name: str) -> str:
    """What two system names are compared by: NFKC, case-folded, invisible format characters (zero-width) dropped,
    punctuation and spaces trimmed at both ends and runs of inner spaces made one. ``gt``, ``GT``, ``gt.``,
    `` gt`` and ``ｇｔ`` have one key, as do ``café`` in NFC and NFD; ``gt-2`` and ``gt2`` do not."""
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    text = re.sub(r"\s+", " ", text)
    start, end = 0, len(text)
    while start < end and unicodedata.category(text[start])[0] in _EDGE:
        start += 1
    while end > start and unicodedata.category(text[end - 1])[0] in _EDGE:
        end -= 1
    return text[start:end] or text


def check_results(label: str | Path, data: Any, schema: Any = None) -> dict[str, Any]:
    """``data`` if it is a results file that ``schema`` (default :class:`~.schema.ResultsFile`) holds, else one
    :class:`InputFileError` naming ``label`` (the file), the record and the field."""
    from pydantic import ValidationError

    from surge_dataset.evaluation.schema import ResultsFile, refusal

    if not isinstance(data, dict) or not isinstance(data.get("surveys"), dict) or \
            not isinstance(data.get("config") or {}, dict):
        raise InputFileError(f"{label}: not a `surge evaluate` results file (expected an object with a 'config' "
                             "object and a 'surveys' object)")
    try:
        (schema or ResultsFile).model_validate(data)
    except ValidationError as exc:
        raise InputFileError(refusal(str(label), exc)) from None
    return data


def read_results(path: str | Path, schema: Any = None) -> dict[str, Any]:
    """A results file read and checked (:func:`check_results`)."""
    return check_results(path, read_json(path), schema)


@dataclass
class SystemResults:
    """One system's ``surge evaluate`` output, as its readers need it."""

    name: str
    path: Path
    sha256: str
    config: dict[str, Any]
    surveys: dict[str, dict[str, Any]]
    failures: list[dict[str, Any]] = field(default_factory=list)
    #: What the file's means are over (``results["averaging"]`` of ``surge evaluate``; empty for older files).
    averaging: dict[str, Any] = field(default_factory=dict)
    #: survey id -> sha256 of the survey file scored (``results["fingerprints"]["surveys"]``; None for a file
    #: written before surge evaluate recorded them). The leaderboard replaces it with what it computes itself.
    fingerprints: dict[str, str] | None = None
    #: Why this file was not joined to an earlier one of the same name or folder (``merge_runs``).
    join_notes: list[str] = field(default_factory=list)
    #: The results files this system was merged from (``surge report``'s ``merge_runs``), in input order; empty for
    #: one file.
    parts: list[SystemResults] = field(default_factory=list)

    @classmethod
    def from_data(cls, name: str, path: str | Path, data: dict[str, Any]) -> SystemResults:
        """A checked results file's content (:func:`check_results`) as one system."""
        averaging = data.get("averaging")
        recorded = (data.get("fingerprints") or {}).get("surveys")
        return cls(name=name, path=Path(path), sha256=file_sha256(path), config=dict(data.get("config") or {}),
                   surveys={str(k): v for k, v in data["surveys"].items()}, failures=list(data.get("failures") or []),
                   averaging=averaging if isinstance(averaging, dict) else {},
                   fingerprints=dict(recorded) if isinstance(recorded, dict) else None)

    @property
    def files(self) -> list[SystemResults]:
        """The files behind this row: its parts, or itself."""
        return self.parts or [self]

    @property
    def survey_ids(self) -> list[str]:
        return sorted(self.surveys, key=survey_sort_key)

    def values(self, metric: str) -> dict[str, float]:
        """survey id -> value, only where the metric is defined (the evaluator's mean leaves the rest out)."""
        return {sid: float(self.surveys[sid][metric]) for sid in self.survey_ids if is_number(self.surveys[sid].get(metric))}

    def scores(self) -> dict[str, dict[str, float]]:
        """survey id -> every metric value of that survey (numbers only; counts and diagnostics left out)."""
        return {sid: {k: float(v) for k, v in record.items() if k not in NON_METRIC_KEYS and is_number(v)}
                for sid, record in self.surveys.items()}


def system_names(entries: Sequence[tuple[str | None, Path]]) -> list[str]:
    """Each ``(explicit name, path)``'s system name: the explicit one, else the file stem; stems that look alike
    (:func:`name_key`) get their folder (``a/results``). Names may still clash: :func:`unique_names` refuses that."""
    first = [explicit or path.stem for explicit, path in entries]
    keys = [name_key(name) for name in first]
    return [name if explicit or keys.count(key) == 1 else f"{path.parent.name}/{path.stem}"
            for name, key, (explicit, path) in zip(first, keys, entries, strict=True)]


def unique_names(entries: Sequence[tuple[str | None, Path]]) -> list[str]:
    """:func:`system_names`, and two inputs whose names look alike (one :func:`name_key`: ``gt`` and ``GT.``) are
    an :class:`InputFileError` naming the names and the files."""
    names = system_names(entries)
    keys = [name_key(n) for n in names]
    clash = [k for k in dict.fromkeys(keys) if keys.count(k) > 1]
    if clash:
        alike = list(dict.fromkeys(n for n, k in zip(names, keys, strict=True) if k in clash))
        clashing = [str(p) for (_, p), k in zip(entries, keys, strict=True) if k in clash]
        raise InputFileError(
            f"several inputs are named {', '.join(repr(d) for d in alike)}"
            f"{' (names that look alike)' if len(alike) > len(clash) else ''} ({', '.join(clashing)}); "
            "rename the files or set config.system in them (or name them NAME=PATH)"
        )
    return names


def load_results(paths: Sequence[str | Path], names: Sequence[str | None] | None = None) -> list[SystemResults]:
    """Read and check results files (:func:`read_results`); each system is named ``names[i]`` when given, else by
    its ``config.system``, else by its file stem (:func:`unique_names`)."""
    paths = [Path(p) for p in paths]
    given = list(names) if names is not None else [None] * len(paths)
    data = [read_results(path) for path in paths]
    explicit = [name or (d.get("config") or {}).get("system") or None for name, d in zip(given, data, strict=True)]
    named = unique_names(list(zip(explicit, paths, strict=True)))
    return [SystemResults.from_data(name, path, d) for name, path, d in zip(named, paths, data, strict=True)]
