"""Loading ``surge evaluate`` results and ``surge retrieval-eval`` outputs, and checking they can be compared.

A system is named by ``config.system`` (else its file stem); systems must share their survey ids
(:func:`check_same_surveys`) because every statistic of the report is paired over surveys.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..stats import compare_pairs
from ..vocabulary import RELEASED, parse_list
from .constants import (
    EXTRA_COLUMNS,
    NON_METRIC_KEYS,
    TABLE4_COLUMNS,
    ReportError,
    SurveySetMismatchError,
    _is_number,
    _survey_sort_key,
)


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()



@dataclass
class SystemResults:
    """One system's ``surge evaluate`` output, as the report needs it."""

    name: str
    path: Path
    sha256: str
    config: dict[str, Any]
    surveys: dict[str, dict[str, Any]]
    failures: list[dict[str, Any]] = field(default_factory=list)

    @property
    def survey_ids(self) -> list[str]:
        return sorted(self.surveys, key=_survey_sort_key)

    def values(self, metric: str) -> dict[str, float]:
        """survey id -> value, only where the metric is defined (the evaluator's mean leaves the rest out)."""
        return {
            sid: float(self.surveys[sid][metric])
            for sid in self.survey_ids if _is_number(self.surveys[sid].get(metric))
        }


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
                      if re.fullmatch(r"recall@\d+", k) and _is_number(v))


def _read_json(path: Path) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: not a JSON file ({exc})") from None


def is_retrieval_output(data: Any) -> bool:
    """``retrieval-eval`` outputs hold ``recall@k`` means and no ``surveys``."""
    return isinstance(data, dict) and "surveys" not in data and any(re.fullmatch(r"recall@\d+", k) for k in data)


def classify_inputs(paths: Iterable[str | Path]) -> tuple[list[Path], list[Path]]:
    """Split files into (evaluate results, retrieval-eval outputs) by their content, so a shell glob works."""
    results, retrieval = [], []
    for path in map(Path, paths):
        (retrieval if is_retrieval_output(_read_json(path)) else results).append(path)
    return results, retrieval


def _unique_names(entries: list[tuple[str | None, Path]]) -> list[str]:
    """Explicit names win; stems that collide (``a/results.json``, ``b/results.json``) get their folder."""
    first = [explicit or path.stem for explicit, path in entries]
    names = [name if explicit or first.count(name) == 1 else f"{path.parent.name}/{path.stem}"
             for name, (explicit, path) in zip(first, entries, strict=True)]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        clashing = [str(p) for (_, p), n in zip(entries, names, strict=True) if n in duplicates]
        raise ReportError(
            f"several inputs are named {', '.join(repr(d) for d in duplicates)} ({', '.join(clashing)}); "
            "rename the files or set config.system in them"
        )
    return names


def load_results(paths: Sequence[str | Path]) -> list[SystemResults]:
    """Read ``surge evaluate`` results files; a system is named by ``config.system``, else the file stem."""
    raw = []
    for path in map(Path, paths):
        data = _read_json(path)
        if is_retrieval_output(data):
            raise ReportError(f"{path} is a retrieval-eval output: pass it with --retrieval")
        if not isinstance(data, dict) or not isinstance(data.get("surveys"), dict):
            raise ReportError(f"{path}: not a `surge evaluate` results file (no 'surveys' object)")
        config = data.get("config") or {}
        raw.append((config.get("system") or None, path, data, config))
    names = _unique_names([(explicit, path) for explicit, path, _, _ in raw])
    return [
        SystemResults(name=name, path=path, sha256=file_sha256(path), config=config,
                      surveys={str(k): v for k, v in data["surveys"].items()}, failures=list(data.get("failures") or []))
        for name, (_, path, data, config) in zip(names, raw, strict=True)
    ]


def load_retrieval(paths: Sequence[str | Path]) -> list[RetrievalResults]:
    """Read ``retrieval-eval`` outputs; named by ``system`` / ``config.system``, else the file stem."""
    raw = []
    for path in map(Path, paths):
        data = _read_json(path)
        if not is_retrieval_output(data):
            raise ReportError(f"{path}: not a retrieval-eval output (no 'recall@k' keys)")
        explicit = data.get("system") or (data.get("config") or {}).get("system") or None
        raw.append((explicit, path, data))
    names = _unique_names([(explicit, path) for explicit, path, _ in raw])
    return [
        RetrievalResults(name=name, path=path, sha256=file_sha256(path),
                         means={k: float(v) for k, v in data.items() if _is_number(v)},
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
        only_ref = sorted(ref_ids - ids, key=_survey_sort_key)
        only_sys = sorted(ids - ref_ids, key=_survey_sort_key)
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
    (:func:`surge_dataset.stats.compare_pairs`); systems must share their survey ids (:func:`check_same_surveys`)."""
    check_same_surveys(systems)
    return compare_pairs(systems, metrics, seed=seed, resamples=resamples)


def comparability_warnings(systems: Sequence[SystemResults]) -> list[str]:
    """Settings that change the numbers and differ between systems (protocol, data, models)."""
    checks = {"protocol": None, "aggregate": None, "data_fingerprint": None, "min_cites": None, "exclude_empty": None,
              "nli_model": "citation_accuracy", "dtype": "citation_accuracy", "embedding_model": "shr",
              "embedding_dtype": "shr", "device": None, "judge_settings": None}
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
               if k not in NON_METRIC_KEYS and _is_number(v)}
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
    from ..evaluation import METRIC_KEYS

    chosen: list[str] = []
    for name in names:
        for key in METRIC_KEYS.get(name, (name,)):
            if key not in present:
                raise ReportError(f"metric {key!r} is in no results file (present: {', '.join(present) or 'none'})")
            if key not in chosen:
                chosen.append(key)
    return chosen
