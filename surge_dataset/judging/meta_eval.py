"""Meta-evaluation: how well each metric ranks systems the way humans do (SurGE paper, Table 2).

Input: a human ranking CSV and one ``surge evaluate`` results file per system.

Human ranking CSV (UTF-8, header required, extra columns ignored)::

    survey_id,system,rank
    0,AutoSurvey,1
    0,RAG-GPT,2
    0,GT,0

``rank`` 1 is best (ties allowed, any numbers: only their order counts). The row ``system=GT``
ranks the human-written survey itself; it is needed only for the "with GT" variant, which also needs
a results file for the GT scored as a system (``surge data render`` + ``surge evaluate``) named GT.

For every metric key and every survey, the systems that have both a human rank and a metric value are
ranked by the metric in its declared direction (:func:`surge_dataset.evaluation.catalogue.higher_is_better`:
``quiz_unanswered`` ranks the lowest value first) and compared with the human ranking by Kendall's tau (tau-b)
and Spearman's rho (``scipy.stats``); the coefficients are averaged over surveys. Surveys with fewer
than two such systems, or where either ranking is all ties (coefficient undefined), are left out and
counted. Both variants are reported: with the GT system in the list and without it, each with the direction
the metric was read in (``higher_is_better``), so that a positive coefficient always means agreement.

:func:`agreement_with_humans` adds the figures ``surge judge-agreement`` gives between two judges, here
between the human ranks and the metric's ranks of the same systems on each survey: Kendall's tau and
Spearman's rho between the two system rankings (by mean within-survey rank) with bootstrap CIs over surveys,
Krippendorff's alpha (interval) and the mean absolute difference of the within-survey ranks, and the systems
whose rank changes (:mod:`surge_dataset.judging.agreement`). The per-survey coefficients above (Table 2 of the
paper) are unchanged.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from surge_dataset.core.errors import InputFileError
from surge_dataset.core.io import reading_input
from surge_dataset.core.vocabulary import split_name

__all__ = ["GT_SYSTEM", "agreement_with_humans", "load_results", "meta_evaluate", "read_human_rankings"]

GT_SYSTEM = "GT"

Rankings = dict[int, dict[str, float]]  # survey id -> system -> human rank
SystemScores = dict[str, dict[int, dict[str, float]]]  # system -> survey id -> metric key -> value


def read_human_rankings(path: str | Path) -> Rankings:
    """The CSV described in the module docstring -> {survey_id: {system: rank}}."""
    rankings: Rankings = {}
    with reading_input(path), open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        needed = {"survey_id", "system", "rank"}
        if reader.fieldnames is None or not needed <= {f.strip() for f in reader.fieldnames}:
            raise InputFileError(f"{path}: the header must name the columns survey_id, system, rank (got {reader.fieldnames})")
        for line, row in enumerate(reader, start=2):
            row = {k.strip(): (v or "").strip() for k, v in row.items() if k}
            try:
                survey_id, rank = int(row["survey_id"]), float(row["rank"])
            except ValueError:
                raise InputFileError(f"{path}:{line}: survey_id must be an integer and rank a number, got {row}") from None
            system = row["system"]
            if not system:
                raise InputFileError(f"{path}:{line}: empty system name")
            if system in rankings.setdefault(survey_id, {}):
                raise InputFileError(f"{path}:{line}: survey {survey_id} ranks system {system!r} twice")
            rankings[survey_id][system] = rank
    return rankings


def load_results(specs: Iterable[str | Path]) -> SystemScores:
    """``NAME=results.json`` (or a path, named by its file stem) -> per-system, per-survey metric values (the one
    results loader, :func:`surge_dataset.evaluation.results.load_results`)."""
    from surge_dataset.evaluation import results as results_file

    named = [split_name(spec) for spec in specs]
    loaded = results_file.load_results([path for _, path in named],
                                       names=[name or Path(path).stem for name, path in named])
    return {s.name: {int(sid): values for sid, values in s.scores().items()} for s in loaded}


def _correlations(metric: Sequence[float], human_rank: Sequence[float], higher_is_better: bool = True
                  ) -> tuple[float, float] | None:
    """tau-b and rho of the metric's values and the human ranks (rank 1 = best: negated; a lower-is-better metric's
    values negated too, so that higher is better on both sides), :func:`surge_dataset.core.stats.rank_correlations`."""
    from surge_dataset.core.stats import rank_correlations

    values = np.asarray(metric, dtype=np.float64)
    return rank_correlations(values if higher_is_better else -values, -np.asarray(human_rank, dtype=np.float64))


def meta_evaluate(
    human: Rankings,
    systems: Mapping[str, Mapping[int, Mapping[str, float]]],
    metrics: Sequence[str] | None = None,
    *,
    gt_system: str = GT_SYSTEM,
) -> dict[str, Any]:
    """{metric: {"with_gt": {...}, "without_gt": {...}, "higher_is_better"}}, each variant ``{"kendall_tau",
    "spearman_rho", "surveys", "skipped"}`` (coefficients averaged over the surveys counted in ``surveys``; the
    metric ranked in its declared direction)."""
    from surge_dataset.evaluation.catalogue import higher_is_better

    if metrics is None:
        keys: set[str] = set()
        for per_survey in systems.values():
            for record in per_survey.values():
                keys.update(record)
        metrics = sorted(k for k in keys if not (k.endswith("_std") and k[:-4] in keys))  # judge noise: not a metric
    out: dict[str, Any] = {}
    for metric in metrics:
        direction = higher_is_better(metric)
        entry: dict[str, Any] = {}
        for variant, include_gt in (("with_gt", True), ("without_gt", False)):
            taus, rhos, skipped = [], [], 0
            for survey_id in sorted(human):
                pairs = [
                    (systems[s][survey_id][metric], rank)
                    for s, rank in human[survey_id].items()
                    if (include_gt or s != gt_system)
                    and s in systems and metric in systems[s].get(survey_id, {})
                ]
                if include_gt and metric not in systems.get(gt_system, {}).get(survey_id, {}):
                    pairs = []  # "with GT" needs the GT both ranked by humans and scored by the metric
                if include_gt and gt_system not in human[survey_id]:
                    pairs = []
                result = _correlations([p[0] for p in pairs], [p[1] for p in pairs], direction) if pairs else None
                if result is None:
                    skipped += 1
                    continue
                taus.append(result[0])
                rhos.append(result[1])
            entry[variant] = {
                "kendall_tau": float(np.mean(taus)) if taus else None,
                "spearman_rho": float(np.mean(rhos)) if rhos else None,
                "surveys": len(taus),
                "skipped": skipped,
            }
        entry["higher_is_better"] = direction
        out[metric] = entry
    return out


def agreement_with_humans(
    human: Rankings,
    systems: Mapping[str, Mapping[int, Mapping[str, float]]],
    metrics: Sequence[str],
    *,
    gt_system: str = GT_SYSTEM,
    seed: int = 0,
    resamples: int = 1000,
) -> dict[str, Any]:
    """{metric: {"with_gt": figures, "without_gt": figures}}: see the module docstring and
    :func:`surge_dataset.judging.agreement.compare` for the figures."""
    from surge_dataset.judging.agreement import human_agreement

    return human_agreement(human, systems, metrics, gt_system=gt_system, seed=seed, resamples=resamples)
