"""SurveyGen citation precision/recall/F1: an `evaluate` module declared over surge_dataset's metric registry.

Inputs, outputs and the example: this folder's README.md; the computation: the registered metric
``citation_prf`` (surge_dataset/evaluation/metrics/), the same code `surge evaluate` runs.
"""

import evaluate  # noqa: F401 - evaluate reads a module's imports

from surge_dataset.evaluation import evaluate_module


class CitationPRF(evaluate_module.SurgeMetricModule):
    metric_name = "citation_prf"
