"""The one base class of every ``evaluate`` module in ``metrics/``: a declaration over the metric registry.

A module file only names its metric::

    import evaluate  # noqa: F401
    from surge_dataset.evaluation import evaluate_module

    class SoftHeadingRecall(evaluate_module.SurgeMetricModule):
        metric_name = "shr"

Its ``compute`` takes the same raw inputs as every other module (generated Markdown and the GT survey)
and runs :func:`surge_dataset.evaluation.compute`, the engine of ``surge evaluate``. This file imports
``evaluate``; nothing else in the package does (``evaluate`` costs seconds to import), so import it only
from an ``evaluate`` module.
"""

from __future__ import annotations

from typing import Any

import datasets
import evaluate

from surge_dataset.core.metadata import CODEBASE_URL, PAPER_URL, SURGE_BIBTEX
from surge_dataset.evaluation import compute, get_metric
from surge_dataset.evaluation.compute import inputs_description

__all__ = ["INPUTS_DESCRIPTION", "SurgeMetricModule"]

#: Every module's inputs description, read off the settings declarations.
INPUTS_DESCRIPTION = inputs_description()


class SurgeMetricModule(evaluate.Metric):
    """An ``evaluate`` module for the registered metric ``metric_name`` (set by the subclass)."""

    metric_name: str = ""

    def _info(self) -> evaluate.MetricInfo:
        metric = get_metric(self.metric_name)
        return evaluate.MetricInfo(
            description=f"SurGE metric '{metric.name}' ({', '.join(metric.keys)}): {metric.description}.",
            citation=SURGE_BIBTEX,
            inputs_description=INPUTS_DESCRIPTION,
            features=[
                datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("int64")}),
                datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            ],
            homepage=PAPER_URL,
            codebase_urls=[CODEBASE_URL],
        )

    def _compute(self, predictions: list[str], references: list[Any], **kwargs: Any) -> dict[str, Any]:
        try:
            return compute(self.metric_name, predictions, references, **kwargs)
        except TypeError as exc:
            if "unexpected keyword argument" in str(exc):
                raise TypeError(f"{self.metric_name}: {exc}; see the module's inputs description") from None
            raise
