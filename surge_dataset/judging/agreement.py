"""How much a ranking moves when the judge changes: agreement between two scorings of the same systems.

A *run* is one judge's results for a set of systems: ``surge evaluate`` results files, one per system (a
folder of them, a comma list, or a single file), optionally named ``NAME=``. For each metric key both runs
hold, on the (system, survey) units both scored:

``kendall_tau``, ``spearman_rho``  between the two system rankings (systems ordered by their mean over the
                 paired surveys; tau-b and rho, :func:`surge_dataset.core.stats.rank_correlations`), each with a 95 %
                 percentile bootstrap interval over surveys (surveys drawn again with replacement, the system
                 means recomputed: :func:`surge_dataset.core.stats.bootstrap_interval`);
``krippendorff_alpha``  per-survey agreement of the values, interval scale (``krippendorff``);
``mean_abs_diff``  mean absolute difference of the per-survey values;
``rank_changes``  the systems whose rank (1 = best, ties share the better rank) differs between the runs.

Against human rankings (``surge meta-eval``) the same figures compare, survey by survey, the human ranks with
the ranks the metric gives the same systems (both as within-survey ranks, so the scales match): the system
ranking is then by mean rank, alpha and the mean absolute difference are over within-survey ranks.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from surge_dataset.core.stats import bootstrap_interval, rank_correlations
from surge_dataset.core.vocabulary import parse_list, split_name
from surge_dataset.judging import JudgingError, need

__all__ = ["JudgeRun", "compare", "human_agreement", "judge_agreement", "load_run", "shared_metrics"]

#: system -> survey id -> value, for one metric
Values = Mapping[str, Mapping[str, float]]


@dataclass
class JudgeRun:
    """One judge's scoring of some systems: system -> survey id -> result key -> value, and where it came from."""

    name: str
    systems: dict[str, dict[str, dict[str, float]]]
    configs: dict[str, dict[str, Any]] = field(default_factory=dict)
    paths: dict[str, Path] = field(default_factory=dict)

    def values(self, key: str) -> dict[str, dict[str, float]]:
        return {s: {sid: r[key] for sid, r in per.items() if key in r} for s, per in self.systems.items()}


def load_run(spec: str | Path) -> JudgeRun:
    """``[NAME=]PATH[,PATH...]``: results files, or folders of them (their ``*.json``), one system each (the one
    results loader, :func:`surge_dataset.evaluation.results.load_results`)."""
    from surge_dataset.evaluation.results import load_results

    name, rest = split_name(spec)
    parts = [Path(part) for part in parse_list(rest)]
    paths = [path for part in parts for path in (sorted(part.glob("*.json")) if part.is_dir() else [part])]
    if not paths:
        raise JudgingError(f"{spec}: no results file (give files or a folder holding one results file per system)")
    loaded = load_results(paths)
    return JudgeRun(name or (parts[0].name if parts[0].is_dir() else parts[0].stem), {s.name: s.scores() for s in loaded},
                    {s.name: s.config for s in loaded}, {s.name: s.path for s in loaded})


def shared_metrics(runs: Sequence[JudgeRun], requested: Sequence[str] | None = None) -> list[str]:
    """Keys with a value in every run (judge noise ``<key>_std`` left out), or the ``requested`` ones."""
    if requested:
        return list(requested)
    keys = [{k for per in run.systems.values() for r in per.values() for k in r} for run in runs]
    common = set.intersection(*keys) if keys else set()
    return sorted(k for k in common if not (k.endswith("_std") and k[:-4] in common))


def _matrices(a: Values, b: Values) -> tuple[list[str], list[str], np.ndarray, np.ndarray]:
    """Systems, surveys and the two [system, survey] value matrices on the paired units (NaN elsewhere)."""
    systems = sorted(set(a) & set(b))
    surveys = sorted({sid for s in systems for sid in set(a[s]) & set(b[s])}, key=lambda x: (len(x), x))
    va, vb = np.full((len(systems), len(surveys)), np.nan), np.full((len(systems), len(surveys)), np.nan)
    for i, s in enumerate(systems):
        for j, sid in enumerate(surveys):
            if sid in a[s] and sid in b[s]:
                va[i, j], vb[i, j] = a[s][sid], b[s][sid]
    keep = ~np.all(np.isnan(va), axis=1)
    return [s for s, k in zip(systems, keep, strict=True) if k], surveys, va[keep], vb[keep]


def _means(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    mask = ~np.isnan(values)
    total = (np.where(mask, values, 0.0) * weights).sum(axis=1)
    count = (mask * weights).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / count, np.nan)


def _ranks(means: np.ndarray, higher_is_better: bool = True) -> list[int]:
    from scipy.stats import rankdata

    return [int(r) for r in rankdata(-means if higher_is_better else means, method="min")]


def _alpha(va: np.ndarray, vb: np.ndarray) -> float | None:
    """Krippendorff's alpha (interval) of the paired units; None when undefined or without the ``judging`` extra
    (``surge judge-agreement`` asks for it up front, ``surge meta-eval`` notes its absence)."""
    if importlib.util.find_spec("krippendorff") is None:
        return None
    krippendorff = need("krippendorff")
    paired = ~(np.isnan(va) | np.isnan(vb))
    data = np.vstack([va[paired], vb[paired]])
    if data.shape[1] < 2 or np.all(data == data[0, 0]):
        return None
    value = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")  # type: ignore[attr-defined]
    return float(value) if np.isfinite(value) else None


def compare(a: Values, b: Values, *, seed: int = 0, resamples: int = 1000, level: float = 0.95,
            higher_is_better: bool = True) -> dict[str, Any]:
    """The agreement figures of the module docstring between two scorings of one metric (``higher_is_better``: the
    metric's direction, which only the ranks of ``rank_changes`` read: correlations do not depend on it)."""
    systems, surveys, va, vb = _matrices(a, b)
    out: dict[str, Any] = {"systems": len(systems), "units": int(np.sum(~np.isnan(va))), "kendall_tau": None,
                           "spearman_rho": None, "tau_ci": [None, None], "rho_ci": [None, None],
                           "krippendorff_alpha": None, "mean_abs_diff": None, "rank_changes": []}
    if not systems:
        return out
    ones = np.ones(len(surveys))
    ma, mb = _means(va, ones), _means(vb, ones)
    full = rank_correlations(ma, mb)
    if full is not None:
        out["kendall_tau"], out["spearman_rho"] = full

        def resampled(weights: np.ndarray) -> tuple[float, float]:  # the system means of the drawn surveys
            return rank_correlations(_means(va, weights), _means(vb, weights)) or (np.nan, np.nan)

        intervals = bootstrap_interval(resampled, len(surveys), resamples=resamples, seed=seed, level=level)
        out["tau_ci"], out["rho_ci"] = (list(interval) for interval in intervals)
    out["krippendorff_alpha"] = _alpha(va, vb)
    out["mean_abs_diff"] = float(np.nanmean(np.abs(va - vb)))
    rank_a, rank_b = _ranks(ma, higher_is_better), _ranks(mb, higher_is_better)
    out["rank_changes"] = [{"system": s, "rank_a": ra, "rank_b": rb}
                           for s, ra, rb in zip(systems, rank_a, rank_b, strict=True) if ra != rb]
    return out


def judge_agreement(runs: Sequence[JudgeRun], metrics: Sequence[str] | None = None, *, seed: int = 0,
                    resamples: int = 1000) -> list[dict[str, Any]]:
    """Every two runs (in the order given): {"a", "b", "metrics": {key: :func:`compare`}}."""
    if len(runs) < 2:
        raise JudgingError("judge agreement needs at least two runs (two judges, or two repeats of one)")
    chosen = shared_metrics(runs, metrics)
    if not chosen:
        raise JudgingError("the runs share no metric key: score the same metrics with each judge")
    from surge_dataset.evaluation.catalogue import higher_is_better

    return [{"a": a.name, "b": b.name,
             "metrics": {k: compare(a.values(k), b.values(k), seed=seed, resamples=resamples,
                                    higher_is_better=higher_is_better(k)) for k in chosen}}
            for i, a in enumerate(runs) for b in runs[i + 1:]]


def _within_survey_ranks(values: Mapping[str, Mapping[int, float]], higher_is_better: bool) -> dict[str, dict[str, float]]:
    """system -> survey -> minus its rank among the systems of that survey (so that higher is better)."""
    from scipy.stats import rankdata

    by_survey: dict[int, dict[str, float]] = {}
    for system, per in values.items():
        for sid, v in per.items():
            by_survey.setdefault(sid, {})[system] = v
    out: dict[str, dict[str, float]] = {}
    for sid, per in by_survey.items():
        if len(per) < 2:
            continue
        names = sorted(per)
        scores = np.array([per[n] for n in names], dtype=np.float64)
        ranks = rankdata(-scores if higher_is_better else scores, method="average")
        for name, rank in zip(names, ranks, strict=True):
            out.setdefault(name, {})[str(sid)] = -float(rank)
    return out


def human_agreement(human: Mapping[int, Mapping[str, float]], systems: Mapping[str, Mapping[int, Mapping[str, float]]],
                    metrics: Sequence[str], *, gt_system: str = "GT", seed: int = 0,
                    resamples: int = 1000) -> dict[str, dict[str, Any]]:
    """{metric: {"with_gt": compare, "without_gt": compare}} of the human ranks against the metric's ranks (the
    metric ranked in its declared direction: the lowest ``quiz_unanswered`` first)."""
    from surge_dataset.evaluation.catalogue import higher_is_better

    out: dict[str, dict[str, Any]] = {}
    for metric in metrics:
        entry = {}
        for variant, include_gt in (("with_gt", True), ("without_gt", False)):
            ranked: dict[str, dict[int, float]] = {}
            scored: dict[str, dict[int, float]] = {}
            for sid, ranks in human.items():
                for system, rank in ranks.items():
                    value = systems.get(system, {}).get(sid, {}).get(metric)
                    if value is not None and (include_gt or system != gt_system):
                        ranked.setdefault(system, {})[sid] = rank
                        scored.setdefault(system, {})[sid] = value
            entry[variant] = compare(_within_survey_ranks(ranked, higher_is_better=False),
                                     _within_survey_ranks(scored, higher_is_better=higher_is_better(metric)),
                                     seed=seed, resamples=resamples)
        out[metric] = entry
    return out
