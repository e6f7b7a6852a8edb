"""Whole-survey ROUGE-L (SurveyGen): the generated survey's body against the whole human survey; no model."""

from __future__ import annotations

from surge_dataset.evaluation.metric import Metric, MetricOutput, diagnostic, register
from surge_dataset.scoring import judges
from surge_dataset.scoring.rouge_whole import strip_citation_markers, whole_rouge_l
from surge_dataset.survey.headings import ATX_HEADING_RE, is_references_label, is_references_title


def survey_body(markdown: str) -> str:
    """The generated survey before its reference list (cut at the last References heading or label), without its
    citation markers: the text SurveyGen compares with the human survey's sections."""
    lines = markdown.splitlines()
    cut = len(lines)
    for number, line in enumerate(lines):
        heading = ATX_HEADING_RE.match(line)
        if is_references_title(heading.group(2)) if heading else is_references_label(line):
            cut = number
    return strip_citation_markers("\n".join(lines[:cut]))


@register
class RougeWhole(Metric):
    name = "rouge_whole"
    keys = ("rougeL_whole",)
    value_range = (0.0, 1.0)
    groups = ("surveygen",)
    order = 95
    description = (
        "ROUGE-L F-measure (unstemmed) of the whole generated survey, before its reference list, against the whole "
        "human-written survey, headings and text (SurveyGen's R-L; SurGE's rougeL is per section)"
    )

    def score(self, survey, models, config):
        generated = survey_body(survey.text or judges.generated_text(survey.parsed))
        value = whole_rouge_l(generated, judges.gt_text(survey.gt))
        if value is None:
            return MetricOutput({"rougeL_whole": None}, diagnostics=[diagnostic(
                "no_words", "rouge_whole: the generated survey or the ground truth has no word to compare")])
        return MetricOutput({"rougeL_whole": value})
