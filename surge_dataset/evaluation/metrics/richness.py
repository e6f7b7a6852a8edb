"""Non-textual richness (SurveyBench): tables, figures, display equations and code blocks of the generated survey,
absolute and per 1,000 words; no model (counting rules: :mod:`surge_dataset.scoring.richness`)."""

from __future__ import annotations

import math

from surge_dataset.evaluation.metric import Metric, MetricOutput, diagnostic, register
from surge_dataset.scoring import judges
from surge_dataset.scoring.richness import count_richness

KINDS = ("tables", "figures", "equations", "code_blocks")


@register
class Richness(Metric):
    name = "richness"
    keys = ("richness", *(f"richness_{kind}" for kind in KINDS), *(f"richness_{kind}_per_1k" for kind in KINDS))
    order = 140
    value_range = (0.0, math.inf)  # counts and rates per 1,000 words: no upper bound
    description = (
        "Tables and figures per 1,000 words of the generated survey (SurveyBench's non-textual richness, per "
        "words), with its tables, figures, display equations and code blocks counted, absolute and per 1,000 words"
    )

    def score(self, survey, models, config):
        counted = count_richness(survey.text or judges.generated_text(survey.parsed))
        if not counted.words:
            return MetricOutput(dict.fromkeys(self.keys), counts={"richness_words": 0}, diagnostics=[diagnostic(
                "no_words", "richness: the survey has no words outside its reference list: nothing to measure")])
        values: dict[str, float | None] = {"richness": counted.per_1k_words(counted.tables + counted.figures)}
        for kind in KINDS:
            values[f"richness_{kind}"] = float(getattr(counted, kind))
            values[f"richness_{kind}_per_1k"] = counted.per_1k_words(getattr(counted, kind))
        return MetricOutput(values, counts={"richness_words": counted.words})
