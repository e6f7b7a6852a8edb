"""Content quality score (CQS): an LLM judge rates sections 0-5, averaged: up to 20 sampled ones cut to 1,000
characters under ``--protocol official`` (the released evaluator), every one whole under ``paper`` (the paper's text)."""

from __future__ import annotations

from surge_dataset.core.records import CONTENT_MIN_CHARS
from surge_dataset.evaluation.metric import Metric, Requests, register
from surge_dataset.evaluation.metrics._judged import all_repeats, judged_output, repeated_scores
from surge_dataset.scoring import judges
from surge_dataset.scoring.injection import injection_diagnostics


def _sections(survey):
    return [n.content for n in survey.parsed.content_sections(CONTENT_MIN_CHARS)]


@register
class CQS(Metric):
    name = "cqs"
    keys = ("cqs",)
    value_range = (0.0, 5.0)
    needs = frozenset({"judge"})
    groups = ("all",)
    judged = True
    weighted_key = "cqs_weighted"
    order = 60
    description = (
        "LLM judge's mean 0-5 rating of the writing (fluency, logic, redundancy, clarity, errors) of the generated "
        "survey's sections: up to 20 sampled under the official protocol, every one under paper (SurGE CQS)"
    )

    def requests(self, survey, config):
        return Requests(judge=all_repeats(judges.cqs_requests(
            _sections(survey), style=config.judge_style, protocol=config.protocol), config))

    def score(self, survey, models, config):
        scores = repeated_scores(models.judge, config, lambda judge: judges.content_quality(
            _sections(survey), judge, style=config.judge_style, protocol=config.protocol))
        output = judged_output(self, scores, config)
        output.diagnostics += injection_diagnostics(  # what the judge reads, as quoted
            self.name, judges.cqs_texts(_sections(survey), config.protocol))
        return output
