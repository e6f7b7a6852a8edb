"""SurGE's soft heading recall (SHR): how much of the GT heading set the generated headings cover.

Not STORM's ``heading_soft_recall`` (``heading_soft_recall.py``): same soft-cardinality formula, but SHR's GT
side is only the headings of sections with content, and neither side is de-duplicated.
"""

from __future__ import annotations

from surge_dataset.core.records import gt_content_sections
from surge_dataset.evaluation.metric import Metric, MetricOutput, Requests, register
from surge_dataset.scoring.shr import soft_heading_recall


def _gt_headings(survey):
    return [title for title, _ in gt_content_sections(survey.gt)]


@register
class SHR(Metric):
    name = "shr"
    keys = ("shr",)
    value_range = (0.0, 1.0)
    clipped = False  # raw cosines: values slightly above 1 occur, as in the released evaluator
    needs = frozenset({"encoder"})
    groups = ("all",)
    released_zero = True
    order = 30
    description = (
        "Soft heading recall: how much of the ground-truth survey's heading set (sections with at least 100 "
        "characters of content) the generated headings cover, by soft cardinality over embedding similarities "
        "(SurGE SHR)"
    )

    def requests(self, survey, config):
        return Requests(texts=[*_gt_headings(survey), *survey.parsed.heading_titles()])

    def score(self, survey, models, config):
        value = soft_heading_recall(_gt_headings(survey), survey.parsed.heading_titles(), models.encoder,
                                    protocol=config.protocol)
        return MetricOutput({"shr": value})
