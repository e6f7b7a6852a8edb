"""What the LLM-judged metrics share: repeats (``--judge-repeats``) and turning ``JudgeScore``s into output.

With K repeats every judged question is asked K times as distinct samples (``JudgeRequest.repeat``);
the metric is computed once per repeat, its value is the mean over the repeats that gave one, and
``<key>_std`` is their *sample* standard deviation (ddof=1; None with fewer than two values).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from surge_dataset.evaluation.metric import Diagnostic, Metric, MetricOutput


def repeats(config: Any) -> list[int | None]:
    """The draws of each question: ``[None]`` (asked once, as without repeats) or ``[0, ..., K-1]``."""
    k = int(getattr(config, "judge_repeats", 1) or 1)
    return [None] if k <= 1 else list(range(k))


def with_repeat(requests: Sequence[Any], repeat: int | None) -> list[Any]:
    """``requests`` as draw ``repeat`` (None entries, questions not asked, stay None)."""
    if repeat is None:
        return list(requests)
    return [None if r is None else replace(r, repeat=repeat) for r in requests]


def all_repeats(requests: Sequence[Any], config: Any) -> list[Any]:
    """Every draw of every request, for the run's prefetch."""
    return [r for repeat in repeats(config) for r in with_repeat(requests, repeat)]


class RepeatJudge:
    """A judge that asks draw ``repeat`` of whatever it is asked (the scoring functions stay unchanged)."""

    def __init__(self, judge: Any, repeat: int) -> None:
        self.judge = judge
        self.repeat = repeat

    def run(self, requests: Sequence[Any]) -> list[Any]:
        return self.judge.run(with_repeat(requests, self.repeat))


def repeated_scores(judge: Any, config: Any, score: Callable[[Any], Any]) -> list[Any]:
    """``score(judge)`` once per repeat (once, with the plain judge, without repeats)."""
    return [score(judge if r is None else RepeatJudge(judge, r)) for r in repeats(config)]


def _mean(values: list[float]) -> float | None:
    return float(np.mean(values)) if values else None


def judged_output(metric: Metric, scores: Any, config: Any) -> MetricOutput:
    """Value (mean over repeats), ``<name>_std`` with repeats, weighted value (``--judge-weighted``),
    judge counts summed over repeats, and the diagnostics of every repeat (each once)."""
    scores = list(scores) if isinstance(scores, Sequence) else [scores]
    name = metric.name
    values_seen = [s.value for s in scores if s.value is not None]
    values: dict[str, float | None] = {name: _mean(values_seen)}
    if metric.weighted_key and config.judge_weighted:
        values[metric.weighted_key] = _mean([s.weighted for s in scores if s.weighted is not None])
    counts = {f"{name}_judged": sum(s.items for s in scores), f"{name}_missing": sum(s.missing for s in scores)}
    if len(scores) > 1:
        std_key = next(k for k in metric.extra_keys(config) if k.endswith("_std"))
        values[std_key] = float(np.std(values_seen, ddof=1)) if len(values_seen) > 1 else None
        counts[f"{name}_repeats"] = len(values_seen)
    failed = sum(s.failed for s in scores)
    if failed:  # transport failures: the survey is scored again on a rerun
        counts[f"{name}_failed"] = failed
    diagnostics: list[Diagnostic] = []
    for score in scores:
        diagnostics += [d for d in score.diagnostics if d not in diagnostics]
    return MetricOutput(values, counts=counts, diagnostics=diagnostics)
