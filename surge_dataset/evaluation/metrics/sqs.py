"""Structure quality score (SQS): an LLM judge rates the generated heading tree against the GT's, 0-5."""

from __future__ import annotations

from surge_dataset.evaluation.metric import Metric, Requests, register
from surge_dataset.evaluation.metrics._judged import all_repeats, judged_output, repeated_scores
from surge_dataset.scoring import judges
from surge_dataset.scoring.injection import injection_diagnostics


def _outlines(survey):
    return judges.render_gt_outline(survey.gt), survey.parsed.heading_markdown()


@register
class SQS(Metric):
    name = "sqs"
    keys = ("sqs",)
    value_range = (0.0, 5.0)
    needs = frozenset({"judge"})
    groups = ("all",)
    judged = True
    weighted_key = "sqs_weighted"
    order = 50
    description = (
        "LLM judge's 0-5 similarity of the generated survey's heading tree to the ground truth's (SurGE SQS)"
    )

    def requests(self, survey, config):
        return Requests(judge=all_repeats([judges.sqs_request(*_outlines(survey), style=config.judge_style)], config))

    def score(self, survey, models, config):
        scores = repeated_scores(models.judge, config, lambda judge: judges.structure_quality(
            *_outlines(survey), judge, style=config.judge_style))
        output = judged_output(self, scores, config)
        output.diagnostics += injection_diagnostics(self.name, [_outlines(survey)[1]])  # what the judge reads
        return output
