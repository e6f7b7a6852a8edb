"""Rel_LLM (SurveyGen): an LLM judge rates the structural alignment with the GT outline, 1-5."""

from __future__ import annotations

from surge_dataset.evaluation.metric import Metric, Requests, register
from surge_dataset.evaluation.metrics._judged import all_repeats, judged_output, repeated_scores
from surge_dataset.scoring import judges
from surge_dataset.scoring.injection import injection_diagnostics


def _inputs(survey):
    return survey.gt.survey_title, judges.render_gt_outline(survey.gt), survey.parsed.heading_markdown()


@register
class RelLLM(Metric):
    name = "rel_llm"
    keys = ("rel_llm",)
    value_range = (1.0, 5.0)
    needs = frozenset({"judge"})
    groups = ("surveygen",)
    judged = True
    weighted_key = "rel_llm_weighted"
    order = 100
    description = (
        "LLM judge's 1-5 rating of how well the generated survey's outline aligns with the human-written one "
        "(SurveyGen Rel_LLM)"
    )

    def requests(self, survey, config):
        return Requests(judge=all_repeats([judges.rel_llm_request(*_inputs(survey))], config))

    def score(self, survey, models, config):
        scores = repeated_scores(models.judge, config, lambda judge: judges.rel_llm(*_inputs(survey), judge))
        output = judged_output(self, scores, config)
        output.diagnostics += injection_diagnostics(self.name, [_inputs(survey)[2]])  # the generated outline
        return output
