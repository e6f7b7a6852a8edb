"""surge_dataset.core.stats, the one statistics module: its numbers are scipy's (exactly where scipy's are exact), a
pair's test does not depend on the other pairs, and nothing depends on a system's name."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import bootstrap, kendalltau, permutation_test, spearmanr

from surge_dataset.core.stats import (
    bootstrap_ci,
    bootstrap_interval,
    paired_test,
    paired_tests,
    rank_correlations,
)


def _scipy_p(d: np.ndarray, resamples: int, seed: int = 0) -> float:
    return float(permutation_test((d,), lambda u, axis: np.mean(u, axis=axis), permutation_type="samples",
                                  vectorized=True, n_resamples=resamples, rng=np.random.default_rng(seed)).pvalue)


@pytest.mark.parametrize("n", [2, 5, 9, 13])
def test_the_exact_permutation_test_is_scipys(n):
    rng = np.random.default_rng(n)
    for _ in range(5):
        a, b = rng.uniform(0, 1, n), rng.uniform(0, 1, n)
        assert paired_test(a, b, resamples=10_000)["p_value"] == pytest.approx(_scipy_p(a - b, 10_000), abs=1e-12)


def test_the_monte_carlo_test_and_interval_agree_with_scipy_within_their_error():
    rng = np.random.default_rng(1)
    for _ in range(3):
        d = rng.normal(0.02, 0.1, 41)  # 2**41 > resamples: random sign flips
        ours = paired_test(d, np.zeros(41), resamples=20_000)
        assert abs(ours["p_value"] - _scipy_p(d, 20_000)) < 0.02  # two MC estimates, SE about 0.005 each
        interval = bootstrap((d,), np.mean, n_resamples=20_000, method="percentile", rng=np.random.default_rng(0))
        assert ours["ci_low"] == pytest.approx(interval.confidence_interval.low, abs=0.006)
        assert ours["ci_high"] == pytest.approx(interval.confidence_interval.high, abs=0.006)


def test_a_pair_gets_the_same_numbers_alone_or_with_others():
    rng = np.random.default_rng(2)
    diffs = rng.normal(0.0, 0.2, (6, 30))
    together = paired_tests(diffs, resamples=2_000, seed=5)
    for k in range(6):  # up to the last bit a matrix product may round differently
        assert paired_tests(diffs[k:k + 1], resamples=2_000, seed=5)[0] == pytest.approx(together[k], rel=1e-12)
    assert paired_test(diffs[3], np.zeros(30), resamples=2_000, seed=5) == pytest.approx(together[3], rel=1e-12)
    same = paired_test(diffs[0], diffs[0], resamples=2_000)
    assert (same["delta"], same["p_value"], same["ci_low"], same["ci_high"]) == (0.0, 1.0, 0.0, 0.0)


def test_the_mean_interval_is_scipys_bootstrap():
    values = np.random.default_rng(3).normal(0.5, 0.1, 25)
    ours = bootstrap_ci(values, resamples=5_000, seed=4)
    theirs = bootstrap((values,), np.mean, n_resamples=5_000, method="percentile", vectorized=True, axis=-1,
                       rng=np.random.default_rng(4)).confidence_interval
    assert (ours.ci_low, ours.ci_high) == pytest.approx((theirs.low, theirs.high), abs=1e-12)
    assert bootstrap_ci(list(values), resamples=5_000, seed=4) == ours  # a seed, not a name: reproducible


def test_rank_correlations_are_scipys_and_undefined_draws_are_left_out():
    rng = np.random.default_rng(5)
    for _ in range(50):
        x, y = rng.integers(0, 4, 7).astype(float), rng.integers(0, 4, 7).astype(float)
        found = rank_correlations(x, y)
        if found is not None:
            assert found == pytest.approx((kendalltau(x, y).statistic, spearmanr(x, y).statistic), abs=1e-12)
    assert rank_correlations([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]) is None  # one side all ties
    # a statistic undefined on some resamples: those draws are left out, the rest give the interval
    (interval,) = bootstrap_interval(lambda counts: np.nan if counts[0] == 0 else float(counts[0]), 4, resamples=400)
    assert interval[0] >= 1.0
