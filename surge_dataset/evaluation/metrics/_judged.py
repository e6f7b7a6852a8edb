"""What the LLM-judged metrics share: turning a ``JudgeScore`` into a metric output."""

from __future__ import annotations

from ..metric import Metric, MetricOutput


def judged_output(metric: Metric, score, config) -> MetricOutput:
    """Value, weighted value (with ``--judge-weighted``), per-metric judge counts and diagnostics."""
    name = metric.name
    values = {name: score.value}
    if metric.weighted_key and config.judge_weighted:
        values[metric.weighted_key] = score.weighted
    counts = {f"{name}_judged": score.items, f"{name}_missing": score.missing}
    if score.failed:  # transport failures: the survey is scored again on a rerun
        counts[f"{name}_failed"] = score.failed
    return MetricOutput(values, counts=counts, diagnostics=list(score.diagnostics))
