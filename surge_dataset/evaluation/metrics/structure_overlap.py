"""Structural overlap (SurveyGen): 2·|matched top-level sections| / (|S_H| + |S_G|) by embeddings."""

from __future__ import annotations

from surge_dataset.evaluation.metric import Metric, MetricOutput, Requests, register
from surge_dataset.scoring import surveygen_metrics as sg


@register
class StructureOverlap(Metric):
    name = "structure_overlap"
    keys = ("structure_overlap",)
    value_range = (0.0, 1.0)
    needs = frozenset({"encoder"})
    groups = ("surveygen",)
    order = 80
    version = 2  # 2: sections match above 0.8, not at 0.8 (the paper: "exceeding" the threshold)
    description = (
        "Share of top-level sections the generated and the human survey have in common, matched by embedding "
        "similarity above 0.8 with non-content sections removed (SurveyGen structural overlap)"
    )

    def requests(self, survey, config):
        return Requests(texts=[*sg.gt_top_level(survey.gt), *sg.generated_top_level(survey.parsed)])

    def score(self, survey, models, config):
        value = sg.structure_overlap(sg.gt_top_level(survey.gt), sg.generated_top_level(survey.parsed), models.encoder)
        return MetricOutput({"structure_overlap": value})
