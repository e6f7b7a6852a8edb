"""Pairwise against the ground truth: the judge compares the generated survey with the human one, both orders.

Per survey (and per judge repeat) the two verdicts are reconciled (:mod:`surge_dataset.scoring.pairwise`):
win, tie or loss of the generated survey, an inconsistent pair counting as a tie. ``pairwise_gt`` is 1 / 0.5 /
0; the ``_win`` / ``_tie`` / ``_loss`` keys are 0/1 indicators whose means are the system's rates; and
``pairwise_gt_consistency`` (1 when both orders agreed) has the judge's position consistency as its mean.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from surge_dataset.evaluation.metric import Diagnostic, Metric, MetricOutput, diagnostic, register
from surge_dataset.evaluation.metrics._judged import repeats, with_repeat
from surge_dataset.scoring import judges, pairwise
from surge_dataset.scoring.injection import injection_diagnostics

KEYS = ("pairwise_gt", "pairwise_gt_win", "pairwise_gt_tie", "pairwise_gt_loss", "pairwise_gt_consistency")


def _inputs(survey: Any) -> tuple[str, str, str, list[dict[str, Any]]] | None:
    """(title, generated text, GT text) cut to fit, and the cut's diagnostics; None for an empty survey."""
    generated = judges.generated_text(survey.parsed)
    if not generated.strip():
        return None
    gt = judges.gt_text(survey.gt)
    (generated_cut, cut_a), (gt_cut, cut_b) = pairwise.fit_text(generated), pairwise.fit_text(gt)
    notes = [diagnostic("pairwise_truncated", f"pairwise_gt: the {what} survey ({len(full):,} characters) was cut "
                                              f"to {len(cut):,} to fit the judge, as CQS cuts a section")
             for what, full, cut, was in (("generated", generated, generated_cut, cut_a), ("GT", gt, gt_cut, cut_b))
             if was]
    return survey.gt.survey_title, generated_cut, gt_cut, notes


def _requests(survey: Any, repeat: int | None) -> list[Any]:
    inputs = _inputs(survey)
    return [] if inputs is None else with_repeat(pairwise.pair_requests(*inputs[:3]), repeat)


def _indicators(result: pairwise.PairResult) -> dict[str, float]:
    outcome = result.outcome
    return {"pairwise_gt": outcome, "pairwise_gt_win": float(outcome == 1.0), "pairwise_gt_tie": float(outcome == 0.5),
            "pairwise_gt_loss": float(outcome == 0.0), "pairwise_gt_consistency": float(bool(result.consistent))}


@register
class PairwiseGT(Metric):
    name = "pairwise_gt"
    keys = KEYS
    value_range = (0.0, 1.0)
    key_directions = {"pairwise_gt_loss": False}  # a loss rate: lower is better (ties have no direction to flip)
    needs = frozenset({"judge"})
    judged = True
    order = 120
    description = (
        "Win (1), tie (0.5) or loss (0) of the generated survey against the human-written one, judged by an LLM on "
        "structure and content in both orders (an inconsistent pair is a tie), with the judge's position consistency"
    )

    def extra_keys(self, config: Any) -> tuple[str, ...]:
        return ("pairwise_gt_std",) if config.judge_repeats > 1 else ()

    def prefetch(self, surveys, models, config):
        """Both orders of every survey (each repeat) in one round; hands each survey's reconciled results over."""
        asked = self.estimate_requests(surveys, config)[0]
        verdicts = dict(zip(asked, pairwise.ask_verdicts(models.judge, asked), strict=True))
        handed = {}
        for survey in surveys:
            results = []
            for repeat in repeats(config):
                requests = _requests(survey, repeat)
                if requests:
                    forward, backward = (verdicts[r] for r in requests)
                    results.append((repeat, pairwise.reconcile(forward, backward)))
            handed[survey.survey_id] = results
        return handed

    def estimate_requests(self, surveys, config):
        return [r for repeat in repeats(config) for survey in surveys for r in _requests(survey, repeat)], None

    def score(self, survey, models, config):
        inputs = _inputs(survey)
        if inputs is None:
            values: dict[str, float | None] = {**_indicators(pairwise.PairResult((None, None), 0.0, None)),
                                               "pairwise_gt_consistency": None}
            if config.judge_repeats > 1:
                values["pairwise_gt_std"] = None
            return MetricOutput(values, counts={"pairwise_gt_judged": 0, "pairwise_gt_missing": 0},
                                diagnostics=[diagnostic("empty_survey", "empty generated survey: pairwise_gt = 0 "
                                                        "(a loss), not asked")])
        return self._output(models.prefetched, inputs[3] + injection_diagnostics(self.name, [inputs[1]]), config)

    def _output(self, results: list[tuple[int | None, pairwise.PairResult]], notes: list[Diagnostic],
                config: Any) -> MetricOutput:
        defined = [_indicators(r) for _, r in results if r.outcome is not None]
        values: dict[str, float | None] = {k: float(np.mean([d[k] for d in defined])) if defined else None for k in KEYS}
        if config.judge_repeats > 1:
            outcomes = [d["pairwise_gt"] for d in defined]
            values["pairwise_gt_std"] = float(np.std(outcomes, ddof=1)) if len(outcomes) > 1 else None
        missing, failed = sum(r.missing for _, r in results), sum(r.failed for _, r in results)
        counts = {"pairwise_gt_judged": 2 * len(results), "pairwise_gt_missing": missing}
        if failed:  # transport failures: the survey is scored again on a rerun
            counts["pairwise_gt_failed"] = failed
        if missing:
            notes = [*notes, diagnostic("judge_missing", f"pairwise_gt: {missing} of {2 * len(results)} verdicts "
                                                         "missing: no result for the pair")]
        details = [{"kind": "pairwise_gt", "repeat": repeat, "verdicts": list(r.verdicts), "outcome": r.outcome,
                    "consistent": r.consistent} for repeat, r in results]
        return MetricOutput(values, counts=counts, diagnostics=notes, details=details)
