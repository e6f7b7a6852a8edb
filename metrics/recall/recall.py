"""SurGE citation recall: an `evaluate` module declared over surge_dataset's metric registry.

Inputs, outputs and the example: this folder's README.md; the computation: the registered metric
``recall`` (surge_dataset/evaluation/metrics/), the same code `surge evaluate` runs.
"""

import evaluate  # noqa: F401 - evaluate reads a module's imports

from surge_dataset.evaluation import evaluate_module


class CitationRecall(evaluate_module.SurgeMetricModule):
    metric_name = "recall"
