"""The per-survey drill-down: the worst surveys per metric and system, with the counts and diagnostics
that usually explain them, missing judge scores and the surveys the evaluator could not score."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from surge_dataset.evaluation.catalogue import higher_is_better
from surge_dataset.evaluation.results import survey_sort_key
from surge_dataset.report.constants import format_value, metric_label
from surge_dataset.report.results import SystemResults


def _diagnostic_codes(record: Mapping[str, Any]) -> str:
    counts: dict[str, int] = {}
    for d in record.get("diagnostics") or []:
        counts[str(d.get("code"))] = counts.get(str(d.get("code")), 0) + 1
    return ", ".join(f"{c} ×{n}" if n > 1 else c for c, n in counts.items()) or "–"


def _not_in_corpus(counts: Mapping[str, Any]) -> Any:
    """The reference entries the corpus lacks."""
    return counts.get("not_in_corpus", "–")


def drilldown_markdown(systems: Sequence[SystemResults], metrics: Sequence[str], *, worst: int = 3) -> str:
    """Worst surveys per metric and system, with the counts and diagnostics that usually explain them."""
    lines = ["# Per-survey drill-down", "",
             f"The {worst} lowest-scoring surveys per metric and system. *not in corpus*: reference entries that "
             "match no corpus paper (not all fabricated: `reference_existence` checks them elsewhere); *missing nos.*: citations of numbers absent from the reference list; "
             "*future*: references published after the survey.", ""]
    shown: dict[str, set[str]] = {s.name: set() for s in systems}
    for metric in metrics:
        higher = higher_is_better(metric)
        lines += [f"## {metric_label(metric)}", "",
                  "| System | Survey | Value | Refs (resolved) | Not in corpus | Missing nos. | Future | Diagnostics |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        undefined = []
        for s in systems:
            values = s.values(metric)
            sign = 1.0 if higher else -1.0  # the worst first: the lowest, or the highest of a lower-is-better key
            for sid, value in sorted(values.items(), key=lambda kv: (sign * kv[1], survey_sort_key(kv[0])))[:worst]:
                record = s.surveys[sid]
                c = record.get("counts") or {}
                shown[s.name].add(sid)
                lines.append(
                    f"| {s.name} | {sid} | {format_value(metric, value)} | {c.get('references', '–')} ({c.get('resolved', '–')}) | "
                    f"{_not_in_corpus(c)} | {c.get('citations_of_missing_numbers', '–')} | "
                    f"{c.get('future_citations', '–')} | {_diagnostic_codes(record)} |"
                )
            missing = [sid for sid in s.survey_ids if sid not in values]
            if missing:
                undefined.append(f"{s.name}: {', '.join(missing)}")
        lines.append("")
        if undefined:
            lines += [f"Undefined (left out of the mean) for surveys — {'; '.join(undefined)}.", ""]
    from surge_dataset.evaluation import registry  # the judged metrics, as registered (a plugin's too)

    judged = [m.name for m in registry().values() if m.judged and any(s.values(m.name) for s in systems)]
    if judged:
        lines += ["## Missing judge scores", ""]
        for m in judged:
            for s in systems:
                missing = [sid for sid in s.survey_ids if sid not in s.values(m)]
                lines.append(f"- {metric_label(m)}, {s.name}: " + (", ".join(missing) if missing else "none missing"))
        lines.append("")
    if any(s.failures for s in systems):
        lines += ["## Surveys the evaluator could not score", ""]
        lines += [f"- {s.name}: survey {f.get('survey_id')} ({f.get('path')}): {f.get('error')}"
                  for s in systems for f in s.failures]
        lines.append("")
    lines += ["## Diagnostics of the surveys listed", ""]
    for s in systems:
        lines += [f"### {s.name}", ""]
        for sid in sorted(shown[s.name], key=survey_sort_key):
            diagnostics = s.surveys[sid].get("diagnostics") or []
            lines.append(f"- survey {sid}:" + ("" if diagnostics else " no diagnostics"))
            for d in diagnostics:
                where = f"line {d['line']}: " if d.get("line") is not None else ""
                lines.append(f"  - {where}`{d.get('code')}` {d.get('message', '')}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
