"""The judge's own noise, for results evaluated with ``surge evaluate --judge-repeats K``.

A judged metric then records per survey the mean over K repeats and ``<key>_std``, the sample standard
deviation (ddof=1) of the K values. The report's *judge std* of a system and metric is the mean over
surveys of that per-survey std: how much one survey's score moves when the judge is asked again. (Not
the std of the system mean across repeats, which shrinks with the number of surveys and would need every
repeat's value stored.) Shown next to the tables, in ``judge_variance.md`` and ``report.json``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from surge_dataset.evaluation.results import is_number
from surge_dataset.report.constants import format_value, metric_label
from surge_dataset.report.results import SystemResults

__all__ = ["JUDGE_STD_METHOD", "judge_std", "judge_std_markdown", "judge_std_note"]

JUDGE_STD_METHOD = ("judge std: mean over surveys of each survey's sample standard deviation (ddof=1) of the "
                    "metric over the K judge repeats (--judge-repeats)")


def _repeats(system: SystemResults) -> int | None:
    settings = system.config.get("judge_settings") or {}
    value = settings.get("repeats", system.config.get("judge_repeats"))
    return int(value) if is_number(value) else None


def judge_std(systems: Sequence[SystemResults], metrics: Sequence[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """system -> metric -> {"std", "n" (surveys with a std), "repeats"}, for metrics with ``<metric>_std``."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for system in systems:
        for metric in metrics:
            stds = [float(r[f"{metric}_std"]) for r in system.surveys.values() if is_number(r.get(f"{metric}_std"))]
            if stds:
                out.setdefault(system.name, {})[metric] = {"std": float(np.mean(stds)), "n": len(stds),
                                                           "repeats": _repeats(system)}
    return out


def judge_std_note(stds: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> list[str]:
    """One line for the tables' notes (empty without repeats)."""
    if not stds:
        return []
    parts = ["; ".join(f"{name}: " + ", ".join(f"{metric_label(m)} {format_value(m, v['std'])}" for m, v in per.items())
                       for name, per in stds.items())]
    return [f"Judge std ({JUDGE_STD_METHOD}): {parts[0]}."]


def judge_std_markdown(stds: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    metrics = list(dict.fromkeys(m for per in stds.values() for m in per))
    lines = ["# Judge variance", "", JUDGE_STD_METHOD[0].upper() + JUDGE_STD_METHOD[1:] + ".", "",
             "| System | K | " + " | ".join(metric_label(m) for m in metrics) + " |",
             "| --- | ---: | " + " | ".join("---:" for _ in metrics) + " |"]
    for name, per in stds.items():
        repeats = next((v["repeats"] for v in per.values() if v["repeats"]), None)
        cells = [format_value(m, per[m]["std"]) if m in per else "–" for m in metrics]
        lines.append(f"| {name} | {repeats or '–'} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
