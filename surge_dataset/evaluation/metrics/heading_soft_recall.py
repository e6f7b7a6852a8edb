"""STORM's heading soft recall: soft recall of every GT heading by the generated headings.

Not SurGE's ``shr`` (``shr.py``): the same soft-cardinality formula over other inputs — every heading of the
human survey (``shr``: only sections with content), both sides de-duplicated, the generated side cut at the
references heading.
"""

from __future__ import annotations

from surge_dataset.evaluation.metric import Metric, MetricOutput, Requests, register
from surge_dataset.scoring.heading_recall import heading_soft_recall, storm_headings


def gt_headings(gt) -> list[str]:
    """Every heading of the human survey, content or not (STORM's ground truth), cut as STORM does."""
    return storm_headings([node.title for node in gt.tree().walk() if node.depth > 0])


def generated_headings(parsed) -> list[str]:
    """The generated headings (the protocol's skip rule applied) up to the references heading."""
    return storm_headings(parsed.heading_titles())


@register
class HeadingSoftRecall(Metric):
    name = "heading_soft_recall"
    keys = ("heading_soft_recall",)
    value_range = (0.0, 1.0)
    clipped = False  # raw cosines, as SHR
    needs = frozenset({"encoder"})
    order = 130
    description = (
        "STORM's heading soft recall (Shao et al., 2024): soft-cardinality recall of every heading of the "
        "human survey by the generated headings (SHR takes only sections with content)"
    )

    def requests(self, survey, config):
        return Requests(texts=[*gt_headings(survey.gt), *generated_headings(survey.parsed)])

    def score(self, survey, models, config):
        value = heading_soft_recall(gt_headings(survey.gt), generated_headings(survey.parsed), models.encoder)
        return MetricOutput({"heading_soft_recall": value})
