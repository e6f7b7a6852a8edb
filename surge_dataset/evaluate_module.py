"""The one base class of every ``evaluate`` module in ``metrics/``: a declaration over the metric registry.

A module file only names its metric::

    import evaluate  # noqa: F401
    from surge_dataset import evaluate_module

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

from .evaluation import compute, get_metric
from .metadata import CODEBASE_URL, PAPER_URL, SURGE_BIBTEX

__all__ = ["INPUTS_DESCRIPTION", "SurgeMetricModule"]

INPUTS_DESCRIPTION = """
Args:
    predictions (list of str): generated surveys as Markdown (``#`` headings, ``[n]`` citations, a
        ``[n] <title>`` reference list): the files ``surge evaluate`` reads.
    references (list of int or str): the ground truth of each prediction: its ``survey_id`` (with
        ``data=``) or its ``surveys.json`` record as JSON text.
    data (str): a built SurGE dataset folder or Hub id; needed for survey ids and for the metrics that
        resolve reference titles against the corpus (recall, citation_accuracy, citation_prf, alce).
    protocol (str): "official" (default: the released evaluator's reading) or "paper".
    aggregate (str): "released" (default under official: undefined values count 0) or "defined".
    nli_model, embedding_model, ner_model (str): model names or local folders (defaults: the paper's).
    judge (str): an LLM judge for the judged metrics: "openai:<model>", "hf:<model>" or "gguf:<file>";
        base_url, judge_concurrency, judge_timeout, judge_max_tries, judge_weighted, judge_batch_size,
        judge_repeats (K draws per question: mean and <key>_std), judge_temperature.
    alce_backend (str): "nli" or "judge"; device, dtype, batch_size, cache_dir: how models run.
    Unknown keyword arguments are an error.
Returns:
    one mean per result key of the metric (over the surveys, under ``aggregate``), and per_survey
    (one dict of values per prediction), counts, diagnostics (one list per prediction), average_counts.
"""


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
