"""What a run found odd, by kind: one line per diagnostic code with the surveys it touched; and what its means
are over (surveys counted 0, topics without a survey, the mean over scored surveys).

The JSON results keep every diagnostic per survey; a terminal user needs to see, without opening it, that
survey 3 was an empty file or that survey 7 cites ``[99]`` with no such reference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from surge_dataset.core.vocabulary import RELEASED
from surge_dataset.evaluation.config import EvaluationConfig, result_keys, selected_metrics

__all__ = ["DiagnosticKind", "averaging_lines", "averaging_notes", "expected_topics", "released_zero_keys",
           "summarise_diagnostics"]


@dataclass(frozen=True)
class DiagnosticKind:
    """One diagnostic code of a run: the surveys it touched (in id order) and each one's first message
    (``messages[i]`` is ``survey_ids[i]``'s: counts in a message belong to its survey alone)."""

    code: str
    survey_ids: tuple[int, ...]
    messages: tuple[str, ...]

    @property
    def example(self) -> str:
        """The first survey's message."""
        return self.messages[0]

    def line(self, shown: int = 10, detailed: int = 3) -> str:
        """One line: the message once when every survey's is the same, else each survey's own message for up to
        ``detailed`` surveys, and none past that (a message names one survey's counts, never several)."""
        ids = ", ".join(str(i) for i in self.survey_ids[:shown]) + (", ..." if len(self.survey_ids) > shown else "")
        noun = "survey" if len(self.survey_ids) == 1 else "surveys"
        head = f"{self.code} in {len(self.survey_ids)} {noun} ({ids})"
        if len(set(self.messages)) == 1:
            return f"{head}: {self.example}"
        if len(self.survey_ids) > detailed:
            return f"{head}; each survey's detail is in its results record (diagnostics)"
        return f"{head}: " + "; ".join(f"survey {i}: {m}" for i, m in zip(self.survey_ids, self.messages, strict=True))


def summarise_diagnostics(surveys: Mapping[str, Mapping[str, Any]]) -> list[DiagnosticKind]:
    """Group the per-survey diagnostics of a results dict by code, most widespread first, keeping each survey's
    first message of the code."""
    touched: dict[str, dict[int, str]] = {}
    for survey_id in sorted(surveys, key=int):
        for entry in surveys[survey_id].get("diagnostics", []):
            code = str(entry.get("code", "unknown"))
            touched.setdefault(code, {}).setdefault(int(survey_id), str(entry.get("message", "")))
    kinds = [DiagnosticKind(code, tuple(first), tuple(first.values())) for code, first in touched.items()]
    return sorted(kinds, key=lambda k: (-len(k.survey_ids), k.code))


#: Why a survey's value counts 0 when the metric is undefined for it (``counted_zero``).
UNDEFINED_REASON = "undefined for this survey"
#: The split whose topics a run is expected to cover (every survey of a dataset without one).
EXPECTED_SPLIT = "test"


def expected_topics(data: Any) -> tuple[list[int], str]:
    """(survey ids, what they are) a run is expected to cover: the test split's, else every survey's."""
    if EXPECTED_SPLIT in data.splits("surveys"):
        return sorted(s.survey_id for s in data.surveys(EXPECTED_SPLIT)), EXPECTED_SPLIT
    return sorted(s.survey_id for s in data.surveys()), "dataset"


def averaging_notes(
    surveys: Mapping[str, Mapping[str, Any]], failures: Sequence[Mapping[str, Any]],
    excluded: Sequence[Mapping[str, Any]], config: EvaluationConfig, *, topics: Sequence[int], topics_name: str,
) -> dict[str, Any]:
    """What a run's means are over, so that an average never changes silently (``results["averaging"]``).

    ``counted_zero``: every survey that counts 0 in a mean under ``--aggregate released`` and why (a survey
    folder that could not be evaluated, or a value undefined for the survey: its ``undefined_scored_zero``
    diagnostic names the keys); ``topics_without_survey``: expected topics (:func:`expected_topics`) that have
    no generated survey, evaluated, failed or excluded by a filter (they are in no mean); ``average_scored``:
    each key's mean over the surveys that have a value of their own (no zero stands in for anything).
    """
    zero_keys = released_zero_keys(config)
    counted: list[dict[str, Any]] = []
    scored = {sid: dict(record) for sid, record in surveys.items()}
    for sid, record in surveys.items():
        for entry in record.get("diagnostics") or []:
            if entry.get("code") == "undefined_scored_zero" and entry.get("keys"):
                counted.append({"survey_id": int(sid), "keys": list(entry["keys"]), "reason": UNDEFINED_REASON})
                scored[sid].update(dict.fromkeys(entry["keys"]))
    failed = {int(f["survey_id"]): f for f in failures if f.get("survey_id") is not None}
    counted += [{"survey_id": sid, "keys": zero_keys, "reason": f"could not be evaluated: {failure['error']}"}
                for sid, failure in failed.items() if str(sid) not in surveys and zero_keys]
    seen = {int(s) for s in surveys} | set(failed) | {int(e["survey_id"]) for e in excluded}
    means, counts = average_results(scored, result_keys(config), "defined")
    return {
        "counted_zero": sorted(counted, key=lambda c: c["survey_id"]) if config.aggregate == RELEASED else [],
        "topics": topics_name,
        "topics_without_survey": [t for t in topics if t not in seen],
        "average_scored": means,
        "average_scored_counts": counts,
    }


def released_zero_keys(config: EvaluationConfig) -> list[str]:
    """The keys whose undefined values and failed survey folders count 0 under ``--aggregate released``."""
    return [k for m in selected_metrics(config) if m.released_zero for k in m.keys]


def average_results(
    surveys: dict[str, dict[str, Any]], keys: Sequence[str], aggregate: str = "defined", failed_folders: int = 0,
    zero_keys: set[str] | None = None,
) -> tuple[dict[str, float | None], dict[str, int]]:
    means, counted = {}, {}
    for key in keys:
        values = [r[key] for r in surveys.values() if r.get(key) is not None]
        if aggregate == RELEASED and (zero_keys is None or key in zero_keys):
            values += [0.0] * (len(surveys) - len(values) + failed_folders)
        means[key] = float(np.mean(values)) if values else None
        counted[key] = len(values)
    return means, counted


def averaging_lines(averaging: Mapping[str, Any], passages: Any = None, *, scored_mean: bool = False,
                    shown: int = 10) -> list[str]:
    """What a mean is over, in words (``results["averaging"]``): the surveys counted 0 and why, the expected
    topics without a survey and, with ``scored_mean``, the mean over scored surveys when it differs. Shared by
    ``surge evaluate`` (which shows the scored mean as a table row) and ``surge report``."""
    lines = []
    zero = averaging.get("counted_zero") or []
    if zero:
        listed = "; ".join(f"{c['survey_id']} ({', '.join(c['keys'])}: {c['reason']})" for c in zero[:shown])
        lines.append(f"the mean counts 0 for {len(zero)} survey{'s' if len(zero) > 1 else ''} (--aggregate released): "
                     f"{listed}{'; ...' if len(zero) > shown else ''}")
    missing = averaging.get("topics_without_survey") or []
    if missing:
        where = f" in {passages}" if passages else ""
        ids = ", ".join(map(str, missing[:shown])) + (", ..." if len(missing) > shown else "")
        lines.append(f"{len(missing)} {averaging.get('topics', 'test')} topic{'s have' if len(missing) > 1 else ' has'} "
                     f"no generated survey{where}: {ids} (not in the mean)")
    if scored_mean and zero:  # the keys a zero stood in for: their mean without those zeros
        means = averaging.get("average_scored") or {}
        keys = [k for k in means if any(k in c["keys"] for c in zero)]
        lines.append("the mean over the scored surveys only (no zero standing in): " + ", ".join(
            f"{key} {'–' if means[key] is None else f'{means[key]:.4f}'}" for key in keys))
    return lines
