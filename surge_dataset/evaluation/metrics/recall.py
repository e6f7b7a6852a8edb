"""Citation recall (SurGE comprehensiveness): the share of the GT survey's cited papers the survey cites."""

from __future__ import annotations

from surge_dataset.evaluation.metric import Metric, MetricOutput, diagnostic, register
from surge_dataset.scoring.citations import citation_recall


@register
class Recall(Metric):
    name = "recall"
    keys = ("recall",)
    value_range = (0.0, 1.0)
    needs = frozenset({"corpus"})
    groups = ("all",)
    released_zero = True
    order = 10
    description = (
        "Share of the ground-truth survey's cited papers (its all_cites) that the generated survey's "
        "reference list resolves to (SurGE comprehensiveness; official counts the all_cites entries, "
        "duplicates included)"
    )

    def score(self, survey, models, config):
        value = citation_recall(survey.references.values(), survey.gt.all_cites, protocol=config.protocol)
        notes = [] if value is not None else [
            diagnostic("gt_without_cites", "the ground truth's all_cites is empty: recall is undefined")]
        return MetricOutput({"recall": value}, diagnostics=notes)
