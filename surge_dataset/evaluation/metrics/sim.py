"""Survey similarity (SurveyGen's Sim): embedding similarity of the generated text to the GT text."""

from __future__ import annotations

from surge_dataset.evaluation.metric import Metric, MetricOutput, Requests, register
from surge_dataset.scoring import surveygen_metrics as sg


@register
class SIM(Metric):
    name = "sim"
    keys = ("sim",)
    value_range = (-1.0, 1.0)
    needs = frozenset({"encoder"})
    groups = ("surveygen",)
    order = 90
    description = (
        "Cosine similarity of the mean chunk embeddings of the generated and the human-written survey "
        "(SurveyGen Sim)"
    )

    def requests(self, survey, config):
        return Requests(texts=[*sg.gt_chunks(survey.gt), *sg.generated_chunks(survey.parsed)])

    def score(self, survey, models, config):
        value = sg.survey_similarity(sg.gt_chunks(survey.gt), sg.generated_chunks(survey.parsed), models.encoder)
        return MetricOutput({"sim": value})
