"""Key point recall (SurveyGen): an LLM extracts the GT's key points, then checks each in the survey."""

from __future__ import annotations

from surge_dataset.evaluation.metric import Metric, Requests, register
from surge_dataset.evaluation.metrics._judged import judged_output, repeated_scores, repeats, with_repeat
from surge_dataset.scoring import judges
from surge_dataset.scoring.injection import injection_diagnostics

#: A stand-in key point for ``--dry-run`` (the real ones are only known once the extraction is answered).
ESTIMATED_POINT = "One key point of the survey, stated as one sentence of about twenty words, as the judge lists them."


def _extraction(survey):
    return judges.kpr_extract_request(survey.gt.survey_title, judges.gt_text(survey.gt))


@register
class KPR(Metric):
    name = "kpr"
    keys = ("kpr",)
    value_range = (0.0, 1.0)
    needs = frozenset({"judge"})
    groups = ("surveygen",)
    judged = True
    order = 110
    description = (
        "Share of the human survey's key points (extracted by an LLM) that an LLM finds in the generated "
        "survey (SurveyGen KPR)"
    )

    def prefetch(self, surveys, models, config):
        """Two rounds for the whole run: every extraction (each repeat), then every check of its points."""
        asked = [(repeat, survey) for repeat in repeats(config) for survey in surveys]
        extractions = models.judge.run([with_repeat([_extraction(s)], r)[0] for r, s in asked])
        checks = Requests()
        for (repeat, survey), extraction in zip(asked, extractions, strict=True):
            if extraction.points:
                checks.judge += with_repeat(judges.kpr_check_requests(
                    extraction.points, judges.generated_text(survey.parsed)), repeat)
        models.prefetch(checks)

    def estimate_requests(self, surveys, config):
        """Extractions exactly; checks as if each extraction listed the maximum number of points."""
        asked = []
        for repeat in repeats(config):
            for survey in surveys:
                asked += with_repeat([_extraction(survey)], repeat)
                if judges.generated_text(survey.parsed).strip():
                    points = [f"{ESTIMATED_POINT} ({i})" for i in range(1, judges.KPR_MAX_POINTS + 1)]  # distinct
                    asked += with_repeat(judges.kpr_check_requests(points, judges.generated_text(survey.parsed)), repeat)
        return asked, (f"kpr: its checks depend on the key points the judge extracts first; counted as the maximum, "
                       f"{judges.KPR_MAX_POINTS} points of about {len(ESTIMATED_POINT)} characters per survey")

    def score(self, survey, models, config):
        gt, parsed = survey.gt, survey.parsed
        scores = repeated_scores(models.judge, config, lambda judge: judges.key_point_recall(
            gt.survey_title, judges.gt_text(gt), judges.generated_text(parsed), judge))
        output = judged_output(self, scores, config)
        quoted = judges.generated_text(parsed)[:judges.KPR_MAX_SURVEY_CHARS]  # what the checks quote
        output.diagnostics += injection_diagnostics(self.name, [quoted])
        return output
