"""Agreement between human annotators: Kendall's W for rankings, Cohen's or Fleiss' kappa for verdicts.

``kendalls_w``  the coefficient of concordance of m annotators ranking the same n candidates, with the
                correction for ties (Kendall & Babington Smith 1939; Siegel & Castellan 1988, 10.4):

                    W = 12 S / (m^2 (n^3 - n) - m sum_j T_j),   S = sum_i (R_i - m (n + 1) / 2)^2,

                R_i the sum of candidate i's ranks over the annotators (each annotator's ranks first re-ranked
                with ties averaged, ``scipy.stats.rankdata``), T_j = sum over annotator j's tie groups of
                t^3 - t. 1 = every annotator gave the same order, 0 = no agreement beyond chance.
``cohen_kappa`` two annotators' labels of the same items (``sklearn.metrics.cohen_kappa_score``).
``fleiss_kappa`` three or more annotators, every item labelled by all of them: an items x categories table of
                counts; ``statsmodels.stats.inter_rater.fleiss_kappa`` when statsmodels is installed, else the
                same formula here (Fleiss 1971): kappa = (P_bar - P_e) / (1 - P_e), P_i = (sum_j n_ij^2 - n) /
                (n (n - 1)), P_e = sum_j p_j^2.

Each returns ``None`` where the coefficient is undefined (one candidate, one label for everything).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence

import numpy as np

__all__ = ["cohen_kappa", "fleiss_kappa", "kendalls_w", "label_table"]


def kendalls_w(ranks: Sequence[Sequence[float]] | np.ndarray) -> float | None:
    """Kendall's W of an annotators x candidates matrix of ranks (ties allowed), corrected for ties."""
    from scipy.stats import rankdata

    matrix = np.asarray(ranks, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] < 2 or matrix.shape[1] < 2:
        return None
    m, n = matrix.shape
    reranked = np.vstack([rankdata(row, method="average") for row in matrix])
    totals = reranked.sum(axis=0)
    s = float(np.sum((totals - m * (n + 1) / 2) ** 2))
    ties = 0.0
    for row in reranked:
        _, counts = np.unique(row, return_counts=True)
        ties += float(np.sum(counts.astype(np.float64) ** 3 - counts))
    denominator = m**2 * (n**3 - n) - m * ties
    return None if denominator <= 0 else 12 * s / denominator


def cohen_kappa(first: Sequence[str], second: Sequence[str], labels: Sequence[str]) -> float | None:
    """Cohen's kappa of two annotators' labels of the same items, in the same order."""
    if len(first) != len(second):
        raise ValueError("Cohen's kappa needs both annotators' labels of the same items")
    if not first or len(set(first) | set(second)) < 2:
        return None  # one label for everything: chance agreement is 1 and kappa 0/0
    from sklearn.metrics import cohen_kappa_score

    value = float(cohen_kappa_score(list(first), list(second), labels=list(labels)))
    return value if np.isfinite(value) else None


def label_table(items: Sequence[Sequence[str]], labels: Sequence[str]) -> np.ndarray:
    """Items x categories counts: ``items[i]`` holds every annotator's label of item i."""
    index = {label: j for j, label in enumerate(labels)}
    table = np.zeros((len(items), len(labels)), dtype=np.int64)
    for i, given in enumerate(items):
        for label in given:
            table[i, index[label]] += 1
    return table


def fleiss_kappa(table: Sequence[Sequence[int]] | np.ndarray) -> float | None:
    """Fleiss' kappa of an items x categories table of counts (the same number of annotators on every item)."""
    counts = np.asarray(table, dtype=np.float64)
    if counts.ndim != 2 or counts.shape[0] == 0:
        return None
    raters = counts.sum(axis=1)
    if raters[0] < 2 or np.any(raters != raters[0]):
        raise ValueError("Fleiss' kappa needs the same number (two or more) of annotators on every item")
    p = counts.sum(axis=0) / counts.sum()
    chance = float(np.sum(p**2))
    if chance >= 1.0:
        return None  # every label the same: agreement is perfect but kappa 0/0
    if importlib.util.find_spec("statsmodels") is not None:
        from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

        return float(statsmodels_fleiss(counts, method="fleiss"))
    n = raters[0]
    per_item = (np.sum(counts**2, axis=1) - n) / (n * (n - 1))
    return float((per_item.mean() - chance) / (1 - chance))
