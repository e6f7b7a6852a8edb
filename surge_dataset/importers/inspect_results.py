"""An Inspect log's scores -> a results file of ``surge evaluate``'s shape, which ``surge report`` reads.

The scorers of ``surge/survey`` already hold, per sample, the per-survey values ``surge evaluate`` would
write for the same Markdown (one dict of result keys per metric scorer, the counts and diagnostics in the
score's metadata), so nothing is scored again: :func:`inspect_results` gathers them into
``{"config", "surveys", "average", "average_counts", "failures", "excluded"}`` (``average`` by the runner's
own rule) and records where they came from: the log, the task, the evaluated model (``config.system``,
the report's name for it), the grader, the prompts version and the Inspect version.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import InputFileError
from surge_dataset.core.io import atomic_write_json
from surge_dataset.evaluation.config import EvaluationConfig
from surge_dataset.evaluation.prepare import package_versions
from surge_dataset.evaluation.runner import average
from surge_dataset.importers.inspect_logs import inspect_log_files, log_provenance, surge_samples

__all__ = ["inspect_results", "write_inspect_results"]


def _merge(record: dict[str, Any], score: Any) -> str | None:
    """Add one scorer's values, counts and diagnostics to a survey's record; returns its grader, if any."""
    if isinstance(score.value, dict):
        record.update(score.value)
    meta = score.metadata or {}
    record["counts"].update(meta.get("counts") or {})
    seen = {json.dumps(d, sort_keys=True, default=str) for d in record["diagnostics"]}
    for diagnostic in meta.get("diagnostics") or []:
        if json.dumps(diagnostic, sort_keys=True, default=str) not in seen:
            record["diagnostics"].append(diagnostic)
    grader = meta.get("grader")
    return grader.get("model") if isinstance(grader, dict) else None


def inspect_results(log: str | Path, passages: str | Path | None = None) -> dict[str, Any]:
    """The results of one ``surge/survey`` log (a file; a folder must hold exactly one log). ``passages``: the
    folder ``surge import --format inspect`` wrote the log's surveys to (``config.passages``, where the
    leaderboard looks for them); None when there is none."""
    files = inspect_log_files(Path(log))
    if len(files) != 1:
        raise InputFileError(f"{log}: {len(files)} log files; give one Inspect log of surge/survey")
    path = files[0]
    surveys: dict[str, dict[str, Any]] = {}
    failures: list[dict[str, Any]] = []
    graders: set[str] = set()
    info: dict[str, Any] | None = None
    for header, sample, problem in surge_samples(path):
        if header is None:
            raise InputFileError(f"{path}: {problem}")
        info = info or log_provenance(header)
        if problem is not None:
            if sample is not None and sample.error is not None and sample.epoch == 1:
                failures.append({"survey_id": sample.metadata.get("survey_id"), "path": f"{path}#{sample.id}",
                                 "error": problem})
            continue
        record: dict[str, Any] = {"counts": {}, "diagnostics": []}
        for score in (sample.scores or {}).values():
            grader = _merge(record, score)
            if grader:
                graders.add(grader)
        surveys[str(sample.metadata["survey_id"])] = record
    if info is None:
        raise InputFileError(f"{path}: no samples")
    surge = info["surge"]
    settings = dict(surge.get("config") or {})
    if not settings:
        raise InputFileError(f"{path}: not a surge/survey log (no SurGE settings in the task metadata)")
    config = EvaluationConfig(metrics=list(settings["metrics"]), protocol=settings["protocol"],
                              aggregate=settings["aggregate"])
    if graders:
        from surge_dataset.llm.prompts import PROMPTS_VERSION

        settings["judge"] = ", ".join(f"inspect:{g}" for g in sorted(graders))
        settings["prompts_version"] = PROMPTS_VERSION
    ordered = dict(sorted(surveys.items(), key=lambda item: int(item[0])))
    means, counted = average(ordered, config, len({f["survey_id"] for f in failures}))
    return {
        "config": {
            **settings,
            "system": info["model"],
            "data": surge.get("data"),
            "data_fingerprint": surge.get("data_fingerprint"),
            "passages": str(passages) if passages is not None else None,
            "versions": {**package_versions(), "inspect_ai": info["inspect_ai"]},
            "inspect": {k: info[k] for k in ("task", "model", "model_roles", "prompts_version", "inspect_ai",
                                             "surge_bench", "eval_id", "created", "status")}
                       | {"log": str(path), "split": surge.get("split"), "run": surge.get("run"),
                          "top_k": surge.get("top_k")},
        },
        "surveys": ordered,
        "average": means,
        "average_counts": counted,
        "failures": failures,
        "excluded": [],
    }


def write_inspect_results(log: str | Path, out: str | Path, passages: str | Path | None = None) -> dict[str, Any]:
    """Write :func:`inspect_results` of ``log`` to ``out`` (atomically) and return it."""
    results = inspect_results(log, passages)
    atomic_write_json(Path(out), results)
    return results
