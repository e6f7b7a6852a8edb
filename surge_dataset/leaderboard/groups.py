"""Setting groups and the statistics of the leaderboard.

Systems are ranked together only when every setting that changes the numbers is the same: the protocol,
the aggregation, the data fingerprint, the survey filters and, where a selected metric uses them, the NLI
model, the embedding model, the NER model and the judge. Each distinct combination is a *group*; results
from another protocol or data fingerprint land in their own group, with a warning, and the app never
shows two groups in one table without saying so.

Means and 95 % CIs are ``surge report``'s (:func:`~surge_dataset.report.stats.summarise`: same seeds, same
numbers). Paired significance is its method too -- a two-sided sign-flip permutation test of the per-survey
differences and a paired bootstrap interval of the mean difference -- run for every pair of a group, over
the surveys both systems have. With few surveys (2**n <= resamples) it is ``surge report``'s exact test;
otherwise every pair of a metric shares one set of draws (:func:`paired_tests`: scipy's generic test costs
~1 s a pair, and 10 systems x 9 metrics are 405 pairs), so the Monte Carlo p-values and intervals differ
from ``surge report``'s in the last digits only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..report.constants import CI_LEVEL
from ..report.results import SystemResults
from ..report.stats import _rng, paired_test

#: Settings every group shares, then the ones that count only when a selected metric needs the model kind.
ALWAYS = ("protocol", "aggregate", "data_fingerprint", "min_cites", "exclude_empty")
BY_NEED = {"nli": ("nli_model", "dtype"), "encoder": ("embedding_model", "embedding_dtype"),
           "ner": ("ner_model",), "judge": ("judge", "judge_style", "judge_settings")}
#: The filters of the app's Table page: column of systems.parquet -> label.
FILTERS = {"protocol": "Protocol", "judge": "Judge", "nli_model": "NLI model", "embedding_model": "Embedding model",
           "data_fingerprint": "Data fingerprint"}
NOT_USED = "—"


def _needs(config: dict[str, Any]) -> set[str]:
    from ..evaluation import registry

    metrics = config.get("metrics")
    known = registry()
    if not isinstance(metrics, list) or not all(isinstance(m, str) and m in known for m in metrics):
        return set(BY_NEED)  # an unknown or foreign metric list: every setting counts
    return {kind for m in metrics for kind in known[m].needs}


def settings(config: dict[str, Any]) -> dict[str, str]:
    """The settings that change this system's numbers (``—`` where no selected metric uses them)."""
    needs = _needs(config)
    out = {}
    for key in ALWAYS:
        out[key] = _text(config.get(key))
    for kind, keys in BY_NEED.items():
        for key in keys:
            out[key] = _text(config.get(key)) if kind in needs else NOT_USED
    return out


def _text(value: Any) -> str:
    if value is None:
        return "unknown"
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else str(value)


@dataclass
class Group:
    label: str
    settings: dict[str, str]
    systems: list[str]


def group_systems(systems: Sequence[SystemResults]) -> tuple[list[Group], list[str]]:
    """Groups (largest first, then input order) and a warning for every system outside the largest one."""
    by_key: dict[str, Group] = {}
    for s in systems:
        values = settings(s.config)
        key = json.dumps(values, sort_keys=True)
        by_key.setdefault(key, Group("", values, [])).systems.append(s.name)
    groups = sorted(by_key.values(), key=lambda g: -len(g.systems))
    for i, group in enumerate(groups, 1):
        group.label = f"G{i}"
    warnings = []
    main = groups[0] if groups else None
    for group in groups[1:]:
        differ = [k for k, v in group.settings.items() if main and v != main.settings[k]]
        theirs = "; ".join(f"{k}={group.settings[k]}" for k in differ)
        ours = "; ".join(f"{k}={main.settings[k]}" for k in differ)
        warnings.append(f"{', '.join(group.systems)}: evaluated with {theirs} (the others, {main.label}: {ours}); "
                        f"shown in its own group {group.label}, never ranked with {main.label}")
    return groups, warnings


def paired_tests(diffs: np.ndarray, *, resamples: int, rng: np.random.Generator,
                 level: float = CI_LEVEL) -> list[dict[str, Any]]:
    """``surge report``'s paired test for many pairs over the same surveys at once.

    ``diffs``: surveys x pairs, the per-survey differences a - b. One sign-flip matrix and one bootstrap
    count matrix serve every pair (two matrix products), so a group of 10 systems (45 pairs) costs what one
    pair costs; each pair's test is the usual two-sided permutation test and percentile bootstrap.
    """
    n, _ = diffs.shape
    bits = np.unpackbits(np.frombuffer(rng.bytes((resamples * n + 7) // 8), dtype=np.uint8))[: resamples * n]
    d32 = diffs.astype(np.float32)
    null = (2 * (bits.reshape(resamples, n).astype(np.float32) @ d32) - d32.sum(axis=0)) / n
    draws = rng.integers(0, n, size=(resamples, n)) + np.arange(resamples)[:, None] * n
    counts = np.bincount(draws.ravel(), minlength=resamples * n).reshape(resamples, n).astype(np.float32)
    boot = counts @ d32 / n
    observed = diffs.mean(axis=0)
    eps = 1e-5 * np.maximum(1.0, np.abs(observed))  # float32 sums: a tie with the observed mean is extreme
    greater = (np.count_nonzero(null >= observed - eps, axis=0) + 1) / (resamples + 1)
    less = (np.count_nonzero(null <= observed + eps, axis=0) + 1) / (resamples + 1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(boot, [tail, 100 - tail], axis=0)
    return [{"delta": float(observed[k]), "p_value": float(min(1.0, 2 * min(greater[k], less[k]))),
             "ci_low": float(low[k]), "ci_high": float(high[k]), "n": int(n)} for k in range(diffs.shape[1])]


def pairwise(
    systems: Sequence[SystemResults], groups: Sequence[Group], metrics: Sequence[str], *, seed: int, resamples: int,
) -> list[dict[str, Any]]:
    """Every metric x every pair of systems within a group, over the surveys where both have the metric.

    Draws are seeded from (seed, metric, the surveys compared), so adding a system changes no other number;
    with few surveys (2**n <= resamples) each pair gets ``surge report``'s exact test.
    """
    by_name = {s.name: s for s in systems}
    rows = []
    for group in groups:
        members = [by_name[n] for n in group.systems]
        for metric in metrics:
            values = [m.values(metric) for m in members]
            by_surveys: dict[tuple[str, ...], list[tuple[int, int]]] = {}
            for i in range(len(members)):
                for j in range(i + 1, len(members)):
                    common = tuple(sid for sid in members[i].survey_ids if sid in values[i] and sid in values[j])
                    by_surveys.setdefault(common, []).append((i, j))
            for common, pairs in by_surveys.items():
                if not common or 2 ** min(len(common), 62) <= resamples:
                    tests = [paired_test([values[i][s] for s in common], [values[j][s] for s in common],
                                         resamples=resamples, rng=_rng(seed, "pair", metric, members[i].name,
                                                                       members[j].name)) for i, j in pairs]
                else:
                    diffs = np.array([[values[i][s] - values[j][s] for i, j in pairs] for s in common])
                    tests = paired_tests(diffs, resamples=resamples, rng=_rng(seed, "pairs", metric, *common))
                rows += [{"group": group.label, "metric": metric, "a": members[i].name, "b": members[j].name, **test}
                         for (i, j), test in zip(pairs, tests, strict=True)]
    return rows


def survey_set_warnings(systems: Sequence[SystemResults], groups: Sequence[Group]) -> list[str]:
    by_name = {s.name: s for s in systems}
    out = []
    for group in groups:
        sets = {n: set(by_name[n].surveys) for n in group.systems}
        if len({frozenset(v) for v in sets.values()}) > 1:
            sizes = ", ".join(f"{n}: {len(v)}" for n, v in sets.items())
            out.append(f"group {group.label}: systems were evaluated on different survey sets ({sizes}); each mean is "
                       "over its own surveys and each paired test over the surveys both systems have")
    return out
