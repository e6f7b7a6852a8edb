"""Loading ``surge evaluate`` results (the one loader, :mod:`surge_dataset.evaluation.results`) and ``surge
retrieval-eval`` outputs, and checking they can be compared.

A system is named by ``config.system`` (else its file stem); systems must share their survey ids
(:func:`check_same_surveys`) because every statistic of the report is paired over surveys. Several files of one
system and settings that scored the same survey files (an objective run and a judged one) are one system
(:func:`merge_runs`).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import InputFileError
from surge_dataset.core.io import file_sha256, read_json
from surge_dataset.core.stats import compare_pairs
from surge_dataset.core.vocabulary import RELEASED, parse_list
from surge_dataset.evaluation import results as results_file
from surge_dataset.evaluation.results import (
    NON_METRIC_KEYS,
    SystemResults,
    is_number,
    survey_sort_key,
    unique_names,
)
from surge_dataset.report.constants import EXTRA_COLUMNS, TABLE4_COLUMNS, ReportError, SurveySetMismatchError


@dataclass
class RetrievalResults:
    """One ``surge retrieval-eval`` output: mean Recall@k etc. (and per-query values)."""

    name: str
    path: Path
    sha256: str
    means: dict[str, float]
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)

    def recall_at_k(self) -> list[tuple[int, float]]:
        return sorted((int(k.split("@", 1)[1]), v) for k, v in self.means.items()
                      if re.fullmatch(r"recall@\d+", k) and is_number(v))


def is_retrieval_output(data: Any) -> bool:
    """``retrieval-eval`` outputs hold ``recall@k`` means and no ``surveys``."""
    return isinstance(data, dict) and "surveys" not in data and any(re.fullmatch(r"recall@\d+", k) for k in data)


def _is_report_input(data: Any) -> bool:
    """A ``surge evaluate`` results file, a ``surge arena`` output or a ``retrieval-eval`` output."""
    return isinstance(data, dict) and (isinstance(data.get("surveys"), dict) or data.get("kind") == "surge-arena"
                                       or is_retrieval_output(data))


def expand_folders(paths: Iterable[str | Path]) -> tuple[list[Path], list[Path]]:
    """Files as given, a folder as the results files in it (its ``*.json`` that are ``surge evaluate`` results,
    arena or retrieval-eval outputs, by name): (files, the folders' other JSON files, which are skipped). A folder
    without any is a :class:`ReportError`: a typo, or results written elsewhere."""
    files: list[Path] = []
    skipped: list[Path] = []
    for path in map(Path, paths):
        if not path.is_dir():
            files.append(path)
            continue
        found = []
        for candidate in sorted(path.glob("*.json")):
            try:
                (found if _is_report_input(read_json(candidate)) else skipped).append(candidate)
            except InputFileError:
                skipped.append(candidate)
        if not found:
            raise ReportError(f"{path}: a folder without results files (no *.json file in it is a `surge evaluate` "
                              "results file, an arena or a retrieval-eval output)")
        files += found
    return files, skipped


def classify_inputs(paths: Iterable[str | Path]) -> tuple[list[Path], list[Path]]:
    """Split files into (evaluate results, retrieval-eval outputs) by their content, so a shell glob works."""
    results, retrieval = [], []
    for path in map(Path, paths):
        (retrieval if is_retrieval_output(read_json(path)) else results).append(path)
    return results, retrieval


def load_results(paths: Sequence[str | Path]) -> list[SystemResults]:
    """Read ``surge evaluate`` results files (the one loader, :func:`surge_dataset.evaluation.results.load_results`:
    checked against the results schema; a system is named by ``config.system``, else the file stem)."""
    try:
        return results_file.load_results(paths)
    except InputFileError as exc:
        for path in map(Path, paths):
            with contextlib.suppress(InputFileError):
                if is_retrieval_output(read_json(path)):
                    raise ReportError(f"{path} is a retrieval-eval output: pass it with --retrieval") from None
        raise ReportError(str(exc)) from None


def load_retrieval(paths: Sequence[str | Path]) -> list[RetrievalResults]:
    """Read ``retrieval-eval`` outputs; named by ``system`` / ``config.system``, else the file stem."""
    raw = []
    for path in map(Path, paths):
        data = read_json(path)
        if not is_retrieval_output(data):
            raise ReportError(f"{path}: not a retrieval-eval output (no 'recall@k' keys)")
        explicit = data.get("system") or (data.get("config") or {}).get("system") or None
        raw.append((explicit, path, data))
    try:
        names = unique_names([(explicit, path) for explicit, path, _ in raw])
    except InputFileError as exc:
        raise ReportError(str(exc)) from None
    return [
        RetrievalResults(name=name, path=path, sha256=file_sha256(path),
                         means={k: float(v) for k, v in data.items() if is_number(v)},
                         per_query=data.get("per_query") or {})
        for name, (_, path, data) in zip(names, raw, strict=True)
    ]


def check_same_surveys(systems: Sequence[SystemResults]) -> list[str]:
    """The common survey ids; raises :class:`SurveySetMismatchError` naming systems and differing ids."""
    if not systems:
        return []
    reference = systems[0]
    ref_ids = set(reference.survey_ids)
    problems = []
    for system in systems[1:]:
        ids = set(system.survey_ids)
        if ids == ref_ids:
            continue
        only_ref = sorted(ref_ids - ids, key=survey_sort_key)
        only_sys = sorted(ids - ref_ids, key=survey_sort_key)
        parts = []
        if only_ref:
            parts.append(f"only in {reference.name!r}: {', '.join(only_ref)}")
        if only_sys:
            parts.append(f"only in {system.name!r}: {', '.join(only_sys)}")
        problems.append(f"  {system.name!r} vs {reference.name!r}: {'; '.join(parts)}")
        for s in (reference, system):
            for failure in s.failures:
                if str(failure.get("survey_id")) in set(only_ref) | set(only_sys):
                    problems.append(f"    ({s.name!r} failed on survey {failure['survey_id']}: {failure.get('error')})")
    if problems:
        raise SurveySetMismatchError(
            "systems were evaluated on different survey sets; confidence intervals and paired significance "
            "need the same survey ids in every results file:\n" + "\n".join(problems) +
            "\nEvaluate every system on the same surveys (fix or drop the differing ones) and rerun `surge report`."
        )
    return reference.survey_ids


def significance(
    systems: Sequence[SystemResults], metrics: Sequence[str], *, seed: int = 0, resamples: int = 10_000,
) -> list[dict[str, Any]]:
    """Every metric x every pair (a before b in input order), paired over the surveys where both are defined
    (:func:`surge_dataset.core.stats.compare_pairs`); systems must share their survey ids (:func:`check_same_surveys`)."""
    check_same_surveys(systems)
    return compare_pairs(systems, metrics, seed=seed, resamples=resamples)


def comparability_warnings(systems: Sequence[SystemResults]) -> list[str]:
    """Settings that change the numbers and differ between systems (protocol, data, models)."""
    checks = {"protocol": None, "aggregate": None, "data_fingerprint": None, "min_cites": None, "exclude_empty": None,
              "nli_model": "citation_accuracy", "dtype": "citation_accuracy", "embedding_model": "shr",
              "embedding_dtype": "shr", "device": None, "judge_settings": None, "quiz_fingerprint": "quiz"}
    warnings = []
    for s in systems:  # the report's means are over evaluated surveys; results.json's released mean is not
        failed = [f for f in s.failures if f.get("survey_id") is not None]
        if failed and s.config.get("aggregate") == RELEASED:
            warnings.append(f"{s.name}: {len(failed)} survey folder(s) failed; results.json's average counts them 0 "
                            "(--aggregate released) while this report's means leave them out")
    for key, needs in checks.items():
        seen = {s.name: s.config.get(key) for s in systems
                if key in s.config and (needs is None or needs in (s.config.get("metrics") or []))}
        if len(set(map(str, seen.values()))) > 1:
            detail = ", ".join(f"{n}={v}" for n, v in seen.items())
            warnings.append(f"systems were evaluated with different {key}: {detail}")
    return warnings


def available_metrics(systems: Sequence[SystemResults]) -> list[str]:
    """Per-survey keys with a number somewhere (all-None = not computed): Table 4 order, ROUGE-1/2, the rest."""
    present = {k for s in systems for r in s.surveys.values() for k, v in r.items()
               if k not in NON_METRIC_KEYS and is_number(v)}
    present -= {k for k in present if k.endswith("_std") and k[:-4] in present}  # judge noise, not a metric
    ordered = [m for m in (*TABLE4_COLUMNS, *EXTRA_COLUMNS) if m in present]
    return ordered + sorted(present - set(ordered))


def select_metrics(systems: Sequence[SystemResults], requested: str | Sequence[str] | None = None) -> list[str]:
    """Default: the Table 4 columns some result has. ``requested``: result keys or metric groups, or 'all'."""
    present = available_metrics(systems)
    if requested is None or (isinstance(requested, str) and not requested.strip()):
        table4 = [m for m in present if m in TABLE4_COLUMNS]
        return table4 or present
    names = parse_list(requested)
    if "all" in names:
        return present
    from surge_dataset.evaluation import registry

    metrics = registry()
    chosen: list[str] = []
    for name in names:
        for key in (metrics[name].keys if name in metrics else (name,)):
            if key not in present:
                raise ReportError(f"metric {key!r} is in no results file (present: {', '.join(present) or 'none'})")
            if key not in chosen:
                chosen.append(key)
    return chosen


def metrics_without_value(systems: Sequence[SystemResults], shown: Sequence[str] | None = None
                          ) -> list[tuple[str, str, int, int]]:
    """``(system, key, judge answers missing, judge answers asked)`` for every key a system's surveys record with no
    value on any of them (every judge answer missing, say): such a key is no column of its own, and a table
    without a note would hide that it was asked. ``shown``: only these keys (the user's ``--metrics``)."""
    found = []
    for system in systems:
        recorded = {k for r in system.surveys.values() for k in r if k not in NON_METRIC_KEYS and not k.endswith("_std")}
        ordered = [m for m in (*TABLE4_COLUMNS, *EXTRA_COLUMNS) if m in recorded]
        for key in [*ordered, *sorted(recorded - set(ordered))]:
            if key in _columns(system) or (shown is not None and key not in shown):
                continue
            counts = [r.get("counts") or {} for r in system.surveys.values()]
            found.append((system.name, key, sum(c.get(f"{key}_missing", 0) for c in counts),
                          sum(c.get(f"{key}_judged", 0) for c in counts)))
    return found


# ------------------------------------------------------------------------------------------ runs of one system


def _identity(system: SystemResults) -> tuple[str, str] | None:
    """What makes two results files one system: the same ``config.system``, else the same recorded passage folder
    (None: neither is recorded, so the file is a system of its own)."""
    if system.config.get("system"):
        return "system", str(system.config["system"])
    passages = system.config.get("passages")  # recorded relative to the results file (evaluation.passages)
    return ("passages", os.path.normpath(os.path.join(os.path.abspath(system.path.parent), str(passages)))) \
        if passages else None


def _key_settings(config: dict[str, Any], key: str) -> dict[str, Any]:
    """The settings a result key's numbers depend on beyond the shared ones: those of the model kinds its metric
    needs (every model setting for a key no registered metric writes)."""
    from surge_dataset.evaluation import registry
    from surge_dataset.evaluation.config import MODEL_SETTINGS

    kinds: set[str] = set(MODEL_SETTINGS)
    for metric in registry().values():
        if key in metric.keys or key == metric.weighted_key or key.removesuffix("_std") in metric.keys:
            kinds = set(metric.needs)
            break
    return {name: config.get(name) for kind in sorted(kinds & set(MODEL_SETTINGS)) for name in MODEL_SETTINGS[kind]}


def _columns(system: SystemResults) -> set[str]:
    return {k for r in system.surveys.values() for k, v in r.items() if k not in NON_METRIC_KEYS and is_number(v)}


def _joins(merged: SystemResults, run: SystemResults) -> bool:
    """Whether ``run`` completes ``merged``: every column both hold was computed under the same settings (else
    the two are alternatives, e.g. two embedding models, and stay two rows). Equal settings with different
    values are a conflict: refused."""
    shared = _columns(merged) & _columns(run)
    if any(_key_settings(part.config, key) != _key_settings(run.config, key)
           for key in shared for part in merged.files if key in _columns(part)):
        return False
    for key in sorted(shared):
        for sid in sorted(set(merged.surveys) & set(run.surveys), key=survey_sort_key):
            mine, theirs = merged.surveys[sid].get(key), run.surveys[sid].get(key)
            if is_number(mine) and is_number(theirs) and not math.isclose(mine, theirs, rel_tol=1e-9, abs_tol=1e-12):
                source = next(p for p in merged.files if is_number(p.surveys.get(sid, {}).get(key)))
                raise ReportError(
                    f"{source.path} and {run.path} both hold {key} for system {merged.name!r} under the same settings, "
                    f"with different values (survey {sid}: {mine} vs {theirs}); report one of them")
    return True


def _combine(merged: SystemResults, run: SystemResults) -> SystemResults:
    """``merged`` with ``run``'s columns, surveys, failures and averaging notes added (``merged`` wins ties)."""
    from surge_dataset.evaluation import registry
    from surge_dataset.evaluation.config import MODEL_SETTINGS

    parts = [*merged.files, run]
    config = dict(merged.config)
    for name, value in run.config.items():
        if config.get(name) is None:
            config[name] = value
    known = list(registry())
    metrics = {m for p in parts for m in p.config.get("metrics") or []}
    config["metrics"] = sorted(metrics, key=lambda m: (known.index(m) if m in known else len(known), m))
    for kind, names in MODEL_SETTINGS.items():  # a model's settings from the run whose metrics used that model
        user = next((p for p in parts if any(kind in registry()[m].needs for m in p.config.get("metrics") or []
                                             if m in registry())), None)
        if user is not None:
            config.update({name: user.config[name] for name in names if name in user.config})
    surveys: dict[str, dict[str, Any]] = {}
    for part in parts:
        for sid, record in part.surveys.items():
            into = surveys.setdefault(sid, {})
            for key, value in record.items():
                if key == "counts":
                    into["counts"] = {**value, **into.get("counts", {})}
                elif key == "diagnostics":
                    seen = {json.dumps(d, sort_keys=True) for d in into.get("diagnostics", [])}
                    into["diagnostics"] = into.get("diagnostics", []) + [
                        d for d in value if json.dumps(d, sort_keys=True) not in seen]
                elif into.get(key) is None:
                    into[key] = value
    failures = list({json.dumps(f, sort_keys=True): f for p in parts for f in p.failures}.values())
    averaging: dict[str, Any] = {}
    for part in parts:
        for name, value in part.averaging.items():
            if isinstance(value, list):
                averaging[name] = list({json.dumps(v, sort_keys=True): v for v in [*averaging.get(name, []), *value]}.values())
            elif isinstance(value, dict):
                averaging[name] = {**value, **averaging.get(name, {})}
            else:
                averaging.setdefault(name, value)
    fingerprints = None if merged.fingerprints is None or run.fingerprints is None else \
        {**run.fingerprints, **merged.fingerprints}
    return SystemResults(name=_joined_name(parts), path=merged.path, sha256=merged.sha256, config=config,
                         surveys=dict(sorted(surveys.items(), key=lambda item: survey_sort_key(item[0]))),
                         failures=failures, averaging=averaging, fingerprints=fingerprints,
                         join_notes=[*merged.join_notes, *run.join_notes], parts=parts)


def _joined_name(parts: Sequence[SystemResults]) -> str:
    """The row of runs of one system is named after the system, not after whichever file sorts first (a folder
    lists ``mysystem-judged.json`` before ``mysystem.json``): the objective run's name (the first run without a
    judge; a run's name is already its ``NAME=``, else its ``config.system``, else its file stem), else the stem
    the files' names share, else the first file's name."""
    objective = next((p for p in parts if not p.config.get("judge")), None)
    if objective is not None:
        return objective.name
    common = os.path.commonprefix([p.name for p in parts]).rstrip("-_. ")
    return common or parts[0].name


def same_data(first: SystemResults, second: SystemResults) -> bool:
    """Whether two runs used the same shared settings and data window (an unrecorded window is not a known one)."""
    from surge_dataset.evaluation.config import SHARED_SETTINGS

    missing = object()
    return all(first.config.get(name, missing) == second.config.get(name, missing)
               for name in (*SHARED_SETTINGS, "data_window"))


def _content(merged: SystemResults, run: SystemResults) -> str | None:
    """None when ``run`` scored the same survey files as ``merged`` (their survey fingerprints agree, or neither
    records any: the folder's name is all there is); else why the two are two rows."""
    from surge_dataset.evaluation.fingerprints import fingerprint_difference

    first = merged.files[0].path.name
    if merged.fingerprints is None and run.fingerprints is None:
        return None
    if merged.fingerprints is None or run.fingerprints is None:
        older = first if merged.fingerprints is None else run.path.name
        return (f"{first} and {run.path.name}: {older} records no survey fingerprints (written before they were "
                "recorded), so what it scored cannot be checked: two rows")
    why = fingerprint_difference(merged.fingerprints, run.fingerprints)
    return None if why is None else f"{first} and {run.path.name} score different survey files ({why}): two rows"


def merge_runs(systems: Sequence[SystemResults]) -> list[SystemResults]:
    """Results files of one system under the same settings, as one system: each column from the run that has it.

    Two files are runs of one system when they record the same ``config.system`` or, without one, the same
    passage folder (``config.passages``), scored the same survey files (their survey fingerprints,
    ``results["fingerprints"]["surveys"]``, agree on every survey both hold: :mod:`~surge_dataset.evaluation.fingerprints`),
    and used the same :data:`~surge_dataset.evaluation.config.SHARED_SETTINGS` (protocol, aggregate, dataset,
    filters) and the same data window (``config.data_window``, a fresh split's dates; a file that does not record one
    is not merged with a file that does). A file without fingerprints (written before they were recorded) is never
    joined with one that has them; two files without are joined by their folder's name alone, unchecked (the note
    says so). Files of one name or folder that are not joined for their content get a note (``join_notes``, printed
    by :func:`merged_notes`). A run joins another when every column both hold was computed under the same model
    settings (so ``surge evaluate --metrics sqs,cqs --judge ...`` completes an objective run of the same surveys);
    runs whose shared columns used different models are alternatives and stay apart. The same column with
    different values under the same settings raises :class:`ReportError`. The merged system is named after the system
    (:func:`_joined_name`: the objective run's name, its ``config.system`` when it records one) and keeps the first file's path;
    ``parts`` lists every file. Files without a recorded system or passage folder are never merged.
    """
    from dataclasses import replace

    merged: list[SystemResults] = []
    for run in systems:
        identity = _identity(run)
        notes: list[str] = []
        for k, other in enumerate(merged):
            if identity is None or _identity(other) != identity or not same_data(other, run):
                continue
            why = _content(other, run)
            if why is not None:
                notes.append(why)
                continue
            if _joins(other, run):
                merged[k] = _combine(other, run)
                break
        else:
            merged.append(replace(run, join_notes=[*run.join_notes, *notes]) if notes else run)
    return merged


def merged_notes(systems: Sequence[SystemResults]) -> list[str]:
    """One line per system made of several results files (:func:`merge_runs`): which files, and why one row (by
    the same survey files, or by the folder's name alone for files that record no fingerprints); and one per file
    of the same name or folder that was not joined, and why."""
    notes = []
    for s in systems:
        if s.parts:
            same = "config.system" if s.config.get("system") else "passage folder"
            why = f"same {same}, settings and survey files" if s.fingerprints is not None else \
                f"same {same} and settings; joined by {'name' if same == 'config.system' else 'folder name'} " \
                "alone, unchecked: no survey fingerprints recorded"
            notes.append(f"{s.name}: {' and '.join(p.path.name for p in s.parts)} are one system ({why}): one row, "
                         "each column from the file that has it")
        notes += [f"{s.name}: {note}" for note in s.join_notes]
    return notes
