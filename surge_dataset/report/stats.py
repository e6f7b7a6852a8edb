"""Statistics over surveys: percentile bootstrap intervals of means, paired permutation tests.

Surveys are the unit of sampling, so confidence intervals are percentile bootstraps of the mean over
surveys. Significance is a two-sided *paired permutation test* (sign flips of the per-survey
differences, ``scipy.stats.permutation_test``; exact when 2**n <= resamples, so it stays valid with the
handful of surveys of a sample, where a bootstrap p-value is too optimistic); the interval of the
difference (``ci_low``/``ci_high``) is a paired bootstrap. Every random draw is seeded from (seed,
metric, system names), so adding a system does not change the other numbers.
"""

from __future__ import annotations

import inspect
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .constants import CI_LEVEL
from .results import SystemResults, check_same_surveys


@dataclass
class MetricSummary:
    """Mean over surveys with its bootstrap interval; ``n`` surveys where the metric is defined."""

    mean: float | None
    ci_low: float | None
    ci_high: float | None
    n: int


def _rng(seed: int, *parts: str) -> np.random.Generator:
    """A generator seeded by (seed, names): stable whatever other systems or metrics are in the report."""
    return np.random.default_rng([seed, *(zlib.crc32(p.encode()) for p in parts)])


def _bootstrap_means(values: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``resamples`` resamples with replacement (chunked so memory stays small for many surveys)."""
    n = len(values)
    means = np.empty(resamples)
    step = max(1, 4_000_000 // n)
    for start in range(0, resamples, step):
        size = min(step, resamples - start)
        means[start:start + size] = values[rng.integers(0, n, size=(size, n))].mean(axis=1)
    return means


def _percentiles(samples: np.ndarray, level: float) -> tuple[float, float]:
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail])
    return float(low), float(high)


def bootstrap_ci(
    values: Sequence[float], *, resamples: int = 10_000, seed: int = 0, level: float = CI_LEVEL,
    rng: np.random.Generator | None = None,
) -> MetricSummary:
    """Mean and percentile bootstrap interval over surveys (a single survey gives a zero-width interval)."""
    array = np.asarray(values, dtype=float)
    if array.size == 0:
        return MetricSummary(None, None, None, 0)
    mean = float(array.mean())
    if array.size == 1 or np.all(array == array[0]):
        return MetricSummary(mean, mean, mean, int(array.size))
    low, high = _percentiles(_bootstrap_means(array, resamples, rng or np.random.default_rng(seed)), level)
    return MetricSummary(mean, low, high, int(array.size))


def _permutation_kwargs(rng: np.random.Generator) -> dict[str, Any]:
    """scipy >= 1.15 takes ``rng``; older releases ``random_state``."""
    from scipy.stats import permutation_test

    key = "rng" if "rng" in inspect.signature(permutation_test).parameters else "random_state"
    return {key: rng}


def paired_test(
    a: Sequence[float], b: Sequence[float], *, resamples: int = 10_000, seed: int = 0, level: float = CI_LEVEL,
    rng: np.random.Generator | None = None,
) -> dict[str, Any]:
    """Paired comparison of a and b (same surveys, same order): delta = mean(a - b), p-value, delta's CI."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.size} vs {y.size}")
    if x.size == 0:
        return {"delta": None, "p_value": None, "ci_low": None, "ci_high": None, "n": 0}
    diff = x - y
    delta = float(diff.mean())
    if np.all(diff == 0):  # identical systems: no evidence at all; skip the resampling
        return {"delta": 0.0, "p_value": 1.0, "ci_low": 0.0, "ci_high": 0.0, "n": int(x.size)}
    rng = rng or np.random.default_rng(seed)
    from scipy.stats import permutation_test

    result = permutation_test(
        (x, y), lambda u, v, axis: np.mean(u - v, axis=axis), permutation_type="samples",
        vectorized=True, n_resamples=resamples, alternative="two-sided", **_permutation_kwargs(rng),
    )
    low, high = _percentiles(_bootstrap_means(diff, resamples, rng), level) if x.size > 1 else (delta, delta)
    return {"delta": delta, "p_value": float(min(1.0, result.pvalue)), "ci_low": low, "ci_high": high, "n": int(x.size)}


def summarise(
    systems: Sequence[SystemResults], metrics: Sequence[str], *, seed: int = 0, resamples: int = 10_000,
) -> dict[str, dict[str, MetricSummary]]:
    """system name -> metric -> mean and 95 % bootstrap CI over its surveys."""
    return {
        s.name: {m: bootstrap_ci(list(s.values(m).values()), resamples=resamples, rng=_rng(seed, "ci", m, s.name))
                 for m in metrics}
        for s in systems
    }


def significance(
    systems: Sequence[SystemResults], metrics: Sequence[str], *, seed: int = 0, resamples: int = 10_000,
) -> list[dict[str, Any]]:
    """Every metric x every pair (a before b in input order): paired over surveys where both are defined."""
    check_same_surveys(systems)
    rows = []
    for metric in metrics:
        for i, a in enumerate(systems):
            for b in systems[i + 1:]:
                va, vb = a.values(metric), b.values(metric)
                common = [sid for sid in a.survey_ids if sid in va and sid in vb]
                test = paired_test([va[s] for s in common], [vb[s] for s in common], resamples=resamples,
                                   rng=_rng(seed, "pair", metric, a.name, b.name))
                rows.append({"metric": metric, "a": a.name, "b": b.name, **test})
    return rows
