"""Bradley-Terry ratings from pairwise outcomes, with percentile bootstrap intervals over surveys
(:mod:`surge_dataset.core.stats`).

P(i beats j) = 1 / (1 + exp(theta_j - theta_i)). The strengths ``theta`` are the maximum-likelihood estimate
(``choix.ilsr_pairwise_dense``: iterative Luce spectral ranking on the matrix of win counts), centred to mean 0
over the systems that took part. A tie counts half a win each way. The plain estimate does not exist when a
system never loses (or never wins), so ``prior`` virtual ties are added to every pair of systems that met (a
symmetric, Laplace-style prior: with the default :data:`BT_PRIOR` one tie per pair, an undefeated system gets a
large finite rating and the others move little); ``prior=0`` gives the plain estimate. Ratings compare within
a connected set of systems (an arena's draw of pairs normally connects them all). Ratings are also given on
the Elo scale, ``1000 + 400 * theta / ln 10``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from surge_dataset.core.stats import bootstrap_interval
from surge_dataset.judging import need

__all__ = ["BT_PRIOR", "ELO_BASE", "bootstrap_ratings", "elo", "fit_bradley_terry"]

#: Virtual ties added to every pair of systems that met.
BT_PRIOR = 1.0
ELO_BASE = 1000.0

#: (first, second, outcome): outcome 1 = first won, 0 = second won, 0.5 = tie.
Outcome = tuple[int, int, float]


def elo(theta: float | None) -> float | None:
    return None if theta is None else ELO_BASE + 400.0 * theta / math.log(10)


def fit_bradley_terry(n_items: int, outcomes: Sequence[Outcome], *, prior: float = BT_PRIOR) -> list[float | None]:
    """Log-strengths (mean 0 over the items that took part) of ``n_items``; None for an item in no outcome."""
    wins = np.zeros((n_items, n_items))
    for first, second, outcome in outcomes:
        wins[first, second] += outcome
        wins[second, first] += 1.0 - outcome
    met = (wins + wins.T) > 0
    playing = np.flatnonzero(met.any(axis=1))
    if len(playing) < 2:
        return [0.0 if i in playing else None for i in range(n_items)]
    matrix = (wins + prior / 2 * met)[np.ix_(playing, playing)]
    choix = need("choix")
    params = np.asarray(choix.ilsr_pairwise_dense(matrix, alpha=0.0, max_iter=1000), dtype=np.float64)  # type: ignore[attr-defined]
    params -= params.mean()
    out: list[float | None] = [None] * n_items
    for k, item in enumerate(playing):
        out[int(item)] = float(params[k])
    return out


def bootstrap_ratings(
    n_items: int, by_survey: Mapping[int, Sequence[Outcome]], *, seed: int, resamples: int, prior: float = BT_PRIOR,
    level: float = 0.95,
) -> list[tuple[float | None, float | None]]:
    """Percentile interval of each item's rating when the surveys (topics) are drawn again with replacement
    (:func:`surge_dataset.core.stats.bootstrap_interval`: a resample where an item takes no part leaves it out)."""
    surveys = sorted(by_survey)
    if not surveys or resamples < 1:
        return [(None, None)] * n_items

    def ratings(counts: np.ndarray) -> list[float | None]:
        return fit_bradley_terry(n_items, [o for k, times in enumerate(counts) for _ in range(times)
                                           for o in by_survey[surveys[k]]], prior=prior)

    return bootstrap_interval(ratings, len(surveys), resamples=resamples, seed=seed, level=level)
