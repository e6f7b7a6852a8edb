"""ROUGE-1/2/L and BLEU of the generated sections against the GT sections (reference only)."""

from __future__ import annotations

from surge_dataset.core.records import CONTENT_MIN_CHARS, gt_content_sections
from surge_dataset.evaluation.metric import Metric, MetricOutput, register
from surge_dataset.scoring.rouge_bleu import rouge_bleu


@register
class RougeBleu(Metric):
    name = "rouge_bleu"
    keys = ("rouge1", "rouge2", "rougeL", "bleu")
    value_range = (0.0, 1.0)
    key_ranges = {"bleu": (0.0, 100.0)}  # sacreBLEU's scale, as published
    groups = ("all",)
    released_zero = True
    order = 40
    description = (
        "Best ROUGE-1/2/L F-measure of each generated section against any ground-truth section, and its "
        "sentence BLEU against all of them, averaged over the generated sections (SurGE reference-based "
        "metrics)"
    )

    def score(self, survey, models, config):
        generated = [n.content for n in survey.parsed.content_sections(CONTENT_MIN_CHARS)]
        values = rouge_bleu(generated, [content for _, content in gt_content_sections(survey.gt)])
        return MetricOutput({key: values[key] for key in self.keys})
