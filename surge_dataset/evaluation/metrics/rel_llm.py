"""Rel_LLM (SurveyGen): an LLM judge rates the structural alignment with the GT outline, 1-5."""

from __future__ import annotations

from ...scoring import judges
from ..metric import Metric, Requests, register
from ._judged import judged_output


def _inputs(survey):
    return survey.gt.survey_title, judges.render_gt_outline(survey.gt), survey.parsed.heading_markdown()


@register
class RelLLM(Metric):
    name = "rel_llm"
    keys = ("rel_llm",)
    needs = frozenset({"judge"})
    groups = ("surveygen",)
    judged = True
    weighted_key = "rel_llm_weighted"
    order = 100
    description = "LLM judge's 1-5 rating of how well the generated outline aligns with the GT outline"

    def requests(self, survey, config):
        return Requests(judge=[judges.rel_llm_request(*_inputs(survey))])

    def score(self, survey, models, config):
        return judged_output(self, judges.rel_llm(*_inputs(survey), models.judge), config)
