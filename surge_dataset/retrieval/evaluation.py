"""Recall@k (Table 3's columns), nDCG@10 and MRR of a run, with ``ranx``'s definitions.

Conventions (those of ``ranx`` and ``trec_eval``): a query of the qrels missing from the run scores 0
(it is not dropped); run queries absent from the qrels are ignored; a paper is relevant when its
judgement is >= 1; recall@k = |relevant in top k| / |relevant|; nDCG@10 is ``ranx``'s (Järvelin's gain =
the judgement, log2 discount); MRR is over the whole ranking. Means are over
the qrels' queries.

Two engines compute the same numbers. ``numpy`` (default) needs no compilation: ``ranx`` JIT-compiles
its metrics with numba on first use (about 35 s on 2 cores, plus a raw-ANSI ``NumbaTypeSafetyWarning``),
which dominated a 41-query evaluation. ``ranx`` runs ``ranx`` itself (its numba warnings silenced); the
tests check both agree. Ties in score keep the run's order (``ranx`` leaves their order unspecified).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import SurgeError
from surge_dataset.core.vocabulary import check_choice

ENGINES: tuple[str, ...] = ("numpy", "ranx")
METRICS: tuple[str, ...] = (
    "recall@20", "recall@30", "recall@100", "recall@200", "recall@500", "recall@1000", "ndcg@10", "mrr",
)
# Published Table 3 (protocol.md §5), for side-by-side printing.
TABLE3: dict[str, dict[str, float]] = {
    "BM25 (paper)": {
        "recall@20": 0.0548, "recall@30": 0.0652, "recall@100": 0.1193,
        "recall@200": 0.1596, "recall@500": 0.2213, "recall@1000": 0.2715,
    },
    "Dense PR (paper)": {
        "recall@20": 0.1706, "recall@30": 0.2145, "recall@100": 0.3665,
        "recall@200": 0.4681, "recall@500": 0.6011, "recall@1000": 0.6805,
    },
}


class EmptyQrelsError(SurgeError, ValueError):
    """Qrels without any query that has a relevant paper (an empty qrels file, or a filter that kept none)."""


def evaluate_run(
    run: Mapping[str, Mapping[str, float]] | str | Path,
    qrels: Mapping[str, Mapping[str, int]],
    *,
    engine: str = "numpy",
) -> dict[str, Any]:
    """``{metric: mean for metric in METRICS, "per_query": {qid: {metric: value}}}``.

    ``run`` is ``{qid: {doc_id: score}}`` or a TREC run file; ``qrels`` is ``{qid: {doc_id: rel}}``;
    ``engine`` is ``numpy`` (no compile step) or ``ranx``.
    """
    check_choice("engine", engine, ENGINES)
    if isinstance(run, (str, Path)):
        from surge_dataset.retrieval.runs import read_trec_run

        run = read_trec_run(run)
    qrels = {str(q): {str(d): int(r) for d, r in docs.items()} for q, docs in qrels.items() if docs}
    if not qrels:
        raise EmptyQrelsError("the qrels hold no query with a relevant paper: nothing to evaluate (an empty qrels "
                              "file, or --min-cites / --exclude-empty kept no query)")
    run = {str(q): {str(d): float(s) for d, s in docs.items()} for q, docs in run.items() if str(q) in qrels}
    per_query = _per_query_ranx(run, qrels) if engine == "ranx" else _per_query_numpy(run, qrels)
    result: dict[str, Any] = {m: float(sum(v[m] for v in per_query.values()) / len(per_query)) for m in METRICS}
    result["per_query"] = per_query
    return result


def _cutoff(metric: str) -> int | None:
    return int(metric.split("@", 1)[1]) if "@" in metric else None


def _per_query_numpy(
    run: Mapping[str, Mapping[str, float]], qrels: Mapping[str, Mapping[str, int]]
) -> dict[str, dict[str, float]]:
    """The metrics of each qrels query (in ``ranx``'s order: sorted ids), in plain Python/numpy."""
    import numpy as np

    recall_ks = [(m, _cutoff(m)) for m in METRICS if m.startswith("recall@")]
    ndcg_k = _cutoff("ndcg@10") or 10
    discounts = 1.0 / np.log2(np.arange(2, ndcg_k + 2))
    out: dict[str, dict[str, float]] = {}
    for qid in sorted(qrels):
        relevant = {d: r for d, r in qrels[qid].items() if r >= 1}
        docs = run.get(qid, {})
        ranking = sorted(docs, key=lambda d: -docs[d])  # stable: ties keep the run's order
        gains = np.array([relevant.get(d, 0) for d in ranking], dtype=np.float64)
        hits = np.cumsum(gains > 0)
        scores: dict[str, float] = {}
        for metric, k in recall_ks:
            found = int(hits[min(k, len(hits)) - 1]) if len(hits) and k else 0
            scores[metric] = found / len(relevant) if relevant else 0.0
        top = gains[:ndcg_k]
        dcg = float(np.sum(top * discounts[: len(top)]))
        ideal = np.sort(np.array(list(relevant.values()), dtype=np.float64))[::-1][:ndcg_k]
        idcg = float(np.sum(ideal * discounts[: len(ideal)])) or 1.0
        scores["ndcg@10"] = dcg / idcg if relevant else 0.0
        first = int(np.argmax(gains > 0)) if np.any(gains > 0) else -1
        scores["mrr"] = 1.0 / (first + 1) if first >= 0 else 0.0
        out[qid] = {m: float(scores[m]) for m in METRICS}
    return out


def _per_query_ranx(
    run: Mapping[str, Mapping[str, float]], qrels: Mapping[str, Mapping[str, int]]
) -> dict[str, dict[str, float]]:
    """The same metrics computed by ``ranx`` (numba; compiles on first use in a fresh environment)."""
    with warnings.catch_warnings():
        from numba.core.errors import NumbaWarning

        warnings.filterwarnings("ignore", category=NumbaWarning)
        from ranx import Qrels, Run, evaluate

        # ranx wants every qrels query in the run: an empty result list for a missing one scores 0.
        full = {qid: dict(run.get(qid, {})) for qid in qrels}
        per_metric = evaluate(
            Qrels.from_dict(dict(qrels)), Run.from_dict(full), list(METRICS), return_mean=False, make_comparable=True
        )
        qids = list(Qrels.from_dict(dict(qrels)).keys())
    return {qid: {m: float(per_metric[m][i]) for m in METRICS} for i, qid in enumerate(qids)}
