"""STORM's heading entity recall: the share of named entities of the GT headings the survey's keep."""

from __future__ import annotations

from surge_dataset.evaluation.metric import Metric, MetricOutput, Requests, diagnostic, register
from surge_dataset.evaluation.metrics.heading_soft_recall import generated_headings, gt_headings
from surge_dataset.scoring.heading_recall import heading_entity_recall


@register
class HeadingEntityRecall(Metric):
    name = "heading_entity_recall"
    keys = ("heading_entity_recall",)
    value_range = (0.0, 1.0)
    needs = frozenset({"ner"})
    order = 140
    description = (
        "STORM's heading entity recall (Shao et al., 2024): share of the named entities in the human survey's "
        "headings that the generated headings also name (NER model)"
    )

    def requests(self, survey, config):
        return Requests(ner=[*gt_headings(survey.gt), *generated_headings(survey.parsed)])

    def score(self, survey, models, config):
        value, n = heading_entity_recall(gt_headings(survey.gt), generated_headings(survey.parsed), models.ner)
        notes = [] if value is not None else [diagnostic(
            "gt_without_heading_entities", "the NER model finds no entity in the GT headings: heading entity recall "
                                           "undefined")]
        return MetricOutput({"heading_entity_recall": value}, counts={"gt_heading_entities": n}, diagnostics=notes)
