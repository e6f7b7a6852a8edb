"""The statistics of surge-bench, in one place: ``surge report``, the leaderboard, ``surge judge-agreement``,
``surge meta-eval`` and ``surge arena`` all call these, so the same results give the same numbers everywhere.

Surveys are the unit of sampling. A mean's confidence interval is a percentile bootstrap over surveys
(``scipy.stats.bootstrap``); a paired comparison is a two-sided sign-flip permutation test of the per-survey
differences (``scipy.stats.permutation_test``'s test and p-value conventions, computed for many pairs at once:
:func:`paired_tests`; exact when 2**n <= resamples, so it stays valid with the handful of surveys of a sample,
where a bootstrap p-value is too optimistic) with a percentile bootstrap interval of the mean difference; rank
correlations are ``scipy.stats.kendalltau`` (tau-b) and ``spearmanr``. A statistic that
is undefined on some resamples (a correlation of a resample whose systems all tie, a Bradley-Terry rating of a
system absent from a resample) goes through :func:`bootstrap_interval`, which leaves those resamples out
(scipy's would make the whole interval NaN); its interval is the same percentile rule.

Seeds: every statistic draws from a fresh ``numpy.random.default_rng(seed)``. Nothing about a system (its name,
its place in the input, the other systems) enters the draws, so two systems with identical values get identical
intervals, and adding a system changes no other number.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

__all__ = [
    "CI_LEVEL",
    "MetricSummary",
    "Scored",
    "bootstrap_ci",
    "bootstrap_interval",
    "compare_pairs",
    "ks_two_sample",
    "one_way_anova",
    "paired_test",
    "paired_tests",
    "percentile_interval",
    "rank_correlations",
    "summarise",
]

CI_LEVEL = 0.95


@dataclass
class MetricSummary:
    """Mean over surveys with its bootstrap interval; ``n`` surveys where the metric is defined."""

    mean: float | None
    ci_low: float | None
    ci_high: float | None
    n: int


class Scored(Protocol):
    """What :func:`summarise` and :func:`compare_pairs` need of a system (``report.SystemResults`` is one)."""

    name: str

    @property
    def survey_ids(self) -> list[str]: ...

    def values(self, metric: str) -> dict[str, float]: ...


def _rng_kwargs(function: Callable[..., Any], rng: np.random.Generator) -> dict[str, Any]:
    """scipy >= 1.15 takes ``rng``; older releases ``random_state``."""
    key = "rng" if "rng" in inspect.signature(function).parameters else "random_state"
    return {key: rng}


def percentile_interval(samples: Any, level: float = CI_LEVEL) -> tuple[float | None, float | None]:
    """The central ``level`` percentile interval of resampled statistics, NaN draws left out (None if none)."""
    array = np.asarray(samples, dtype=np.float64)
    array = array[~np.isnan(array)]
    if array.size == 0:
        return None, None
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(array, [tail, 100 - tail])
    return float(low), float(high)


def _mean_interval(values: np.ndarray, *, resamples: int, rng: np.random.Generator,
                   level: float) -> tuple[float, float]:
    from scipy.stats import bootstrap

    result = bootstrap((values,), np.mean, n_resamples=resamples, confidence_level=level, method="percentile",
                       vectorized=True, axis=-1, batch=max(1, 4_000_000 // values.size),
                       **_rng_kwargs(bootstrap, rng))
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def bootstrap_ci(values: Sequence[float], *, resamples: int = 10_000, seed: int = 0,
                 level: float = CI_LEVEL) -> MetricSummary:
    """Mean and percentile bootstrap interval over surveys (one survey, or equal values: a zero-width interval)."""
    array = np.asarray(values, dtype=np.float64)
    if array.size == 0:
        return MetricSummary(None, None, None, 0)
    mean = float(array.mean())
    if array.size == 1 or np.all(array == array[0]):
        return MetricSummary(mean, mean, mean, int(array.size))
    low, high = _mean_interval(array, resamples=resamples, rng=np.random.default_rng(seed), level=level)
    return MetricSummary(mean, low, high, int(array.size))


def _signs(n: int, resamples: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """Sign-flip matrix of the permutation test: every one of the 2**n (exact) when that is at most ``resamples``,
    else ``resamples`` random ones; and whether the test is exact."""
    if n < 62 and 2**n <= resamples:
        codes = np.arange(2**n, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)[None, :]
        return np.where(codes & 1, -1.0, 1.0), True
    return np.where(rng.random((resamples, n)) < 0.5, -1.0, 1.0), False


def paired_tests(diffs: Any, *, resamples: int = 10_000, seed: int = 0,
                 level: float = CI_LEVEL) -> list[dict[str, Any]]:
    """:func:`paired_test` for many pairs over the same surveys at once: ``diffs`` holds one row of per-survey
    differences a - b per pair. Every row gets what it gets alone (the draws depend on the seed, the number of
    surveys and ``resamples`` only, and are made once for all rows; the matrix products may round the last bit
    differently), at the cost of two matrix products for all rows.

    The p-value is scipy's two-sided permutation test of the mean difference (``scipy.stats.permutation_test``
    with ``permutation_type="samples"``, which flips the sign of each difference; its p-value conventions: exact
    over all 2**n flips when 2**n <= resamples, else the observed value counted among the ``resamples`` draws),
    computed here because scipy's generic resampler costs about half a second a pair at 205 surveys and a
    leaderboard has hundreds of pairs (``tests/test_stats.py`` checks it against scipy's); the interval is the
    percentile bootstrap of the mean difference.
    """
    matrix = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    rows, n = matrix.shape
    if n == 0:
        return [{"delta": None, "p_value": None, "ci_low": None, "ci_high": None, "n": 0} for _ in range(rows)]
    rng = np.random.default_rng(seed)
    observed = matrix.mean(axis=1)
    signs, exact = _signs(n, resamples, rng)
    drawn = rng.integers(0, n, (resamples, n)) + np.arange(resamples)[:, None] * n  # surveys of each resample
    counts = np.bincount(drawn.ravel(), minlength=resamples * n).reshape(resamples, n).astype(np.float64)
    null, boot = signs @ matrix.T / n, counts @ matrix.T / n  # draws x pairs: two products for all pairs
    adjustment = 0 if exact else 1
    gamma = np.abs(np.finfo(np.float64).eps * 100 * observed)  # scipy's tolerance for ties with the observed mean
    less = (np.count_nonzero(null <= observed + gamma, axis=0) + adjustment) / (len(signs) + adjustment)
    greater = (np.count_nonzero(null >= observed - gamma, axis=0) + adjustment) / (len(signs) + adjustment)
    p_values = np.clip(2 * np.minimum(less, greater), 0.0, 1.0)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(boot, [tail, 100 - tail], axis=0)
    out = []
    for k in range(rows):
        row = matrix[k]
        if np.all(row == 0):  # identical systems: no evidence at all
            out.append({"delta": 0.0, "p_value": 1.0, "ci_low": 0.0, "ci_high": 0.0, "n": n})
            continue
        constant = n == 1 or np.all(row == row[0])
        delta = float(observed[k])
        out.append({"delta": delta, "p_value": float(p_values[k]), "ci_low": delta if constant else float(low[k]),
                    "ci_high": delta if constant else float(high[k]), "n": n})
    return out


def paired_test(a: Sequence[float], b: Sequence[float], *, resamples: int = 10_000, seed: int = 0,
                level: float = CI_LEVEL) -> dict[str, Any]:
    """Paired comparison of a and b (same surveys, same order): delta = mean(a - b), the two-sided sign-flip
    permutation test's p-value, and the percentile bootstrap interval of delta (:func:`paired_tests`)."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.size} vs {y.size}")
    return paired_tests((x - y)[None, :], resamples=resamples, seed=seed, level=level)[0]


def bootstrap_interval(statistic: Callable[[np.ndarray], Any], units: int, *, resamples: int, seed: int = 0,
                       level: float = CI_LEVEL) -> list[tuple[float | None, float | None]]:
    """Percentile intervals of a (vector-valued) ``statistic`` of resampled units.

    ``statistic(counts)`` gets how often each of the ``units`` (surveys) was drawn in one resample (a
    weights vector, so a statistic over weighted units needs no copy) and returns one value or a sequence
    of values, NaN (or None) where undefined on that resample; undefined draws are left out of that value's
    interval.
    """
    if units < 1 or resamples < 1:
        return []
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(resamples):
        counts = np.bincount(rng.integers(0, units, units), minlength=units)
        value = statistic(counts)
        draws.append([np.nan if v is None else v for v in np.atleast_1d(np.asarray(value, dtype=object))])
    matrix = np.asarray(draws, dtype=np.float64)
    return [percentile_interval(matrix[:, k], level) for k in range(matrix.shape[1])]


def rank_correlations(x: Sequence[float], y: Sequence[float]) -> tuple[float, float] | None:
    """Kendall's tau-b and Spearman's rho of two paired samples (NaN pairs left out); None when undefined
    (fewer than two pairs, or one side all ties)."""
    from scipy.stats import kendalltau, spearmanr

    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b = a[keep], b[keep]
    if a.size < 2 or np.all(a == a[0]) or np.all(b == b[0]):
        return None
    tau, rho = kendalltau(a, b).statistic, spearmanr(a, b).statistic
    if not (math.isfinite(tau) and math.isfinite(rho)):
        return None
    return float(tau), float(rho)


def summarise(systems: Iterable[Scored], metrics: Sequence[str], *, seed: int = 0,
              resamples: int = 10_000) -> dict[str, dict[str, MetricSummary]]:
    """system name -> metric -> mean and 95 % bootstrap CI over the surveys where the metric is defined."""
    return {s.name: {m: bootstrap_ci(list(s.values(m).values()), resamples=resamples, seed=seed) for m in metrics}
            for s in systems}


def compare_pairs(systems: Sequence[Scored], metrics: Sequence[str], *, seed: int = 0,
                  resamples: int = 10_000) -> list[dict[str, Any]]:
    """Every metric x every pair (a before b in the order given): :func:`paired_test` over the surveys where
    both have the metric, as ``{"metric", "a", "b", "delta", "p_value", "ci_low", "ci_high", "n"}``. The pairs
    of a metric that share their surveys are tested in one :func:`paired_tests` call: the same numbers, faster."""
    rows = []
    for metric in metrics:
        values: Mapping[str, dict[str, float]] = {s.name: s.values(metric) for s in systems}
        by_surveys: dict[tuple[str, ...], list[tuple[int, int]]] = {}
        for i, a in enumerate(systems):
            for j in range(i + 1, len(systems)):
                va, vb = values[a.name], values[systems[j].name]
                common = tuple(sid for sid in a.survey_ids if sid in va and sid in vb)
                by_surveys.setdefault(common, []).append((i, j))
        tests: dict[tuple[int, int], dict[str, Any]] = {}
        for common, pairs in by_surveys.items():
            diffs = np.array([[values[systems[i].name][s] - values[systems[j].name][s] for s in common]
                              for i, j in pairs], dtype=np.float64).reshape(len(pairs), len(common))
            tests.update(zip(pairs, paired_tests(diffs, resamples=resamples, seed=seed), strict=True))
        rows += [{"metric": metric, "a": systems[i].name, "b": systems[j].name, **tests[i, j]}
                 for i in range(len(systems)) for j in range(i + 1, len(systems))]
    return rows


def ks_two_sample(a: Sequence[float], b: Sequence[float]) -> dict[str, Any]:
    """Two-sample Kolmogorov-Smirnov test (``scipy.stats.ks_2samp``, two-sided, scipy's exact/asymptotic choice):
    ``{"statistic", "p_value", "n_a", "n_b"}``; statistic and p-value None when either sample is empty. NaN values
    are left out. No draws: nothing here is seeded."""
    from scipy.stats import ks_2samp

    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    x, y = x[~np.isnan(x)], y[~np.isnan(y)]
    if x.size == 0 or y.size == 0:
        return {"statistic": None, "p_value": None, "n_a": int(x.size), "n_b": int(y.size)}
    result = ks_2samp(x, y)
    return {"statistic": float(result.statistic), "p_value": float(result.pvalue), "n_a": int(x.size),
            "n_b": int(y.size)}


def one_way_anova(groups: Mapping[str, Sequence[float]]) -> dict[str, Any]:
    """One-way ANOVA (``scipy.stats.f_oneway``) of values grouped by a label (a discipline):
    ``{"f", "p_value", "groups": {label: {"n", "mean"}}}``. NaN values are left out, and so is a group left with
    none; F and p are None with fewer than two groups, or when every group has a single value or no spread at all
    (scipy's F is undefined there)."""
    from scipy.stats import f_oneway

    kept = {}
    for label, values in groups.items():
        array = np.asarray(values, dtype=np.float64)
        array = array[~np.isnan(array)]
        if array.size:
            kept[label] = array
    summary = {label: {"n": int(v.size), "mean": float(v.mean())} for label, v in kept.items()}
    total = sum(v.size for v in kept.values())
    within = sum(float(((v - v.mean()) ** 2).sum()) for v in kept.values())
    if len(kept) < 2 or total <= len(kept) or within == 0.0:
        return {"f": None, "p_value": None, "groups": summary}
    result = f_oneway(*kept.values())
    return {"f": float(result.statistic), "p_value": float(result.pvalue), "groups": summary}
