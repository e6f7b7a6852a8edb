"""Content quality score (CQS): an LLM judge rates up to 20 sampled sections, 0-5, averaged."""

from __future__ import annotations

from surge_dataset.core.records import CONTENT_MIN_CHARS
from surge_dataset.evaluation.metric import Metric, Requests, register
from surge_dataset.evaluation.metrics._judged import all_repeats, judged_output, repeated_scores
from surge_dataset.scoring import judges
from surge_dataset.scoring.injection import injection_diagnostics


def _sections(survey):
    return [n.content for n in survey.parsed.content_sections(CONTENT_MIN_CHARS)]


@register
class ContentQuality(Metric):
    name = "cqs"
    keys = ("cqs",)
    value_range = (0.0, 5.0)
    needs = frozenset({"judge"})
    groups = ("all",)
    judged = True
    weighted_key = "cqs_weighted"
    order = 60
    description = (
        "LLM judge's mean 0-5 rating of the writing (fluency, logic, redundancy, clarity, errors) of up to 20 "
        "sampled sections of the generated survey (SurGE CQS)"
    )

    def requests(self, survey, config):
        return Requests(judge=all_repeats(judges.cqs_requests(_sections(survey), style=config.judge_style), config))

    def score(self, survey, models, config):
        scores = repeated_scores(models.judge, config, lambda judge: judges.content_quality(
            _sections(survey), judge, style=config.judge_style))
        output = judged_output(self, scores, config)
        output.diagnostics += injection_diagnostics(self.name, judges.cqs_sample(_sections(survey)))  # as quoted
        return output
