"""Key point recall (SurveyGen): an LLM extracts the GT's key points, then checks each in the survey."""

from __future__ import annotations

from ...scoring import judges
from ..metric import Metric, Requests, register
from ._judged import judged_output


@register
class KeyPointRecall(Metric):
    name = "kpr"
    keys = ("kpr",)
    needs = frozenset({"judge"})
    groups = ("surveygen",)
    judged = True
    order = 110
    description = "share of the GT survey's key points (extracted by an LLM) the generated survey covers"

    def prefetch(self, surveys, models, config):
        """Two rounds for the whole run: every extraction, then every check of the extracted points."""
        extractions = models.judge.run([judges.kpr_extract_request(s.gt.survey_title, judges.gt_text(s.gt))
                                        for s in surveys])
        checks = Requests()
        for survey, extraction in zip(surveys, extractions, strict=True):
            if extraction.points:
                checks.judge += judges.kpr_check_requests(extraction.points, judges.generated_text(survey.parsed))
        models.prefetch(checks)

    def score(self, survey, models, config):
        gt, parsed = survey.gt, survey.parsed
        score = judges.key_point_recall(gt.survey_title, judges.gt_text(gt), judges.generated_text(parsed),
                                        models.judge)
        return judged_output(self, score, config)
