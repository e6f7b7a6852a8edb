"""Evaluation: a registry of metrics, the run that scores a folder of surveys, and raw-input scoring.

* :mod:`.metric`   the :class:`Metric` interface and ``register``;
* :mod:`.catalogue`  ``registry()``, the one way to read the metrics, and ``get_metric``;
* :mod:`.metrics`  the built-in metrics, one module each;
* :mod:`.config`   :class:`EvaluationConfig` and ``--metrics`` parsing;
* :mod:`.prepare`  passage discovery, reading, parsing and citation resolution;
* :mod:`.models`   the run's models, prefetched once per kind;
* :mod:`.session`  :class:`EvaluationSession`: the one owner of a run (settings, run options, models, answers,
  bibliographic look-ups), built by every way of scoring;
* :mod:`.answers`  what a metric scores from: the answers to the model inputs it requested, nothing else;
* :mod:`.runner`   ``evaluate_run`` (``surge evaluate``): journal, results, aggregation;
* :mod:`.schema`   the one schema of a results file and of ``--details`` records (pydantic);
* :mod:`.fingerprints`  what a run scored, by content: each survey file's sha256 and the run's;
* :mod:`.results`  the one loader of a results file (``surge report``, the leaderboard, the judging commands);
* :mod:`.compute`  :func:`compute`: any metric on generated Markdown + GT records (what the
  ``evaluate`` modules call, and the plain-Python API).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from surge_dataset.core.records import gt_content_sections
from surge_dataset.evaluation.catalogue import get_metric, registry
from surge_dataset.evaluation.compute import (
    compute,  # eager: a lazy name equal to its module's would be shadowed by the module
)
from surge_dataset.evaluation.config import (
    AGGREGATIONS,
    DEFAULT_EMBEDDING_MODEL,
    DEFAULT_NLI_MODEL,
    DTYPES,
    PROTOCOLS,
    EvaluationConfig,
    default_metrics,
    parse_metrics,
    result_keys,
    skipped_without_judge,
)
from surge_dataset.evaluation.metric import Metric, MetricOutput, ModelSet, Requests, register, unregister
from surge_dataset.evaluation.run_options import RunOptions

if TYPE_CHECKING:
    from surge_dataset.evaluation.answers import Answers, UnrequestedInputError
    from surge_dataset.evaluation.fingerprints import survey_fingerprints
    from surge_dataset.evaluation.models import PrefetchedEncoder, PrefetchedNLI, judge_report
    from surge_dataset.evaluation.prepare import (
        PreparedSurvey,
        discover_passages,
        package_versions,
        prepare_survey,
        prepare_text,
        resolve_citations,
        survey_counts,
    )
    from surge_dataset.evaluation.runner import evaluate_run, journal_path, score_survey
    from surge_dataset.evaluation.session import EvaluationSession

#: Names imported on first use (``surge --help`` and the config-only commands need none of them): the
#: run, the raw-input API and the models pull in pyarrow, the corpus and the parsers.
_LAZY = {
    **dict.fromkeys(("PrefetchedEncoder", "PrefetchedNLI", "judge_report"), "models"),
    **dict.fromkeys(("PreparedSurvey", "discover_passages", "package_versions", "prepare_survey", "prepare_text",
                     "resolve_citations", "survey_counts"), "prepare"),
    **dict.fromkeys(("evaluate_run", "journal_path", "score_survey"), "runner"),
    "survey_fingerprints": "fingerprints",
    "EvaluationSession": "session",
    **dict.fromkeys(("Answers", "UnrequestedInputError"), "answers"),
}

__all__ = [
    "AGGREGATIONS",
    "DEFAULT_EMBEDDING_MODEL",
    "DEFAULT_NLI_MODEL",
    "DTYPES",
    "PROTOCOLS",
    "Answers",
    "EvaluationConfig",
    "EvaluationSession",
    "Metric",
    "MetricOutput",
    "ModelSet",
    "PreparedSurvey",
    "PrefetchedEncoder",
    "PrefetchedNLI",
    "Requests",
    "RunOptions",
    "compute",
    "default_metrics",
    "discover_passages",
    "evaluate_run",
    "get_metric",
    "gt_content_sections",
    "journal_path",
    "judge_report",
    "package_versions",
    "parse_metrics",
    "prepare_survey",
    "prepare_text",
    "register",
    "registry",
    "resolve_citations",
    "result_keys",
    "score_survey",
    "skipped_without_judge",
    "survey_counts",
    "survey_fingerprints",
    "UnrequestedInputError",
    "unregister",
]


def __getattr__(name: str) -> Any:
    """The lazy names (:data:`_LAZY`), imported on first use."""
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
