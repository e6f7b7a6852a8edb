"""Recall@k (Table 3's columns), nDCG@10 and MRR of a run, with ``ranx``'s definitions.

Conventions: run queries absent from the qrels are ignored; a paper is relevant when its judgement is >= 1;
recall@k = |relevant in top k| / |relevant|; nDCG@10 is Järvelin's (gain = the judgement, log2 discount), as in
``ranx`` and ``trec_eval``; MRR is over the whole ranking. A run is ranked by
:data:`~surge_dataset.retrieval.index_base.TIE_RULE` (``trec_eval``'s and ``pytrec_eval``'s order: score descending,
ties by doc id as a string, descending; the file's rank column and line order are ignored), so the numbers are
``pytrec_eval``'s on any run, ties included.

Two averages (:data:`AVERAGES`), both always reported (``means``): ``qrels`` (the default) is over every query of
the qrels, one missing from the run scoring 0, as ``ranx`` does and as the paper's Table 3 is read; ``run`` is over
the qrels queries the run has, as BEIR's evaluator and ``pytrec_eval`` average. They differ only when the run
lacks queries; compare with a BEIR table under ``run``.

Two engines compute the same numbers. ``numpy`` (default) needs no compilation: ``ranx`` JIT-compiles
its metrics with numba on first use (about 35 s on 2 cores, plus a raw-ANSI ``NumbaTypeSafetyWarning``),
which dominated a 41-query evaluation. ``ranx`` runs ``ranx`` itself (its numba warnings silenced); the
tests check both agree. ``ranx`` leaves the order of ties unspecified, so it is given each run already ranked
by the tie rule (the scores it sees are the ranks, reversed).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import SurgeError
from surge_dataset.core.vocabulary import check_choice
from surge_dataset.retrieval.index_base import ranked

ENGINES: tuple[str, ...] = ("numpy", "ranx")
#: How a run's per-query values are averaged: over the qrels' queries (missing ones 0) or the run's (BEIR's).
AVERAGES: tuple[str, ...] = ("qrels", "run")
AVERAGE_HELP = {
    "qrels": "over every query of the qrels, a query missing from the run counting 0 (ranx; the default)",
    "run": "over the qrels queries present in the run (BEIR's evaluator, pytrec_eval)",
}
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
    average: str = "qrels",
) -> dict[str, Any]:
    """``{metric: mean for metric in METRICS, "average": average, "means": {"qrels": {...}, "run": {...}},
    "n_queries": ..., "n_run_queries": ..., "per_query": {qid: {metric: value}}}``.

    ``run`` is ``{qid: {doc_id: score}}`` or a TREC run file; ``qrels`` is ``{qid: {doc_id: rel}}``;
    ``engine`` is ``numpy`` (no compile step) or ``ranx``; ``average`` (:data:`AVERAGES`) chooses which of the two
    means is at the top level (``per_query`` keeps every qrels query, missing ones at 0; a ``run`` mean over no
    query is None).
    """
    check_choice("engine", engine, ENGINES)
    check_choice("average", average, AVERAGES)
    if isinstance(run, (str, Path)):
        from surge_dataset.retrieval.runs import read_trec_run

        run = read_trec_run(run)
    qrels = {str(q): {str(d): int(r) for d, r in docs.items()} for q, docs in qrels.items() if docs}
    if not qrels:
        raise EmptyQrelsError("the qrels hold no query with a relevant paper: nothing to evaluate (an empty qrels "
                              "file, or --min-cites / --exclude-empty kept no query)")
    run = {str(q): {str(d): float(s) for d, s in docs.items()} for q, docs in run.items() if str(q) in qrels}
    per_query = _per_query_ranx(run, qrels) if engine == "ranx" else _per_query_numpy(run, qrels)
    present = [q for q in per_query if run.get(q)]
    means = {"qrels": _mean(per_query, list(per_query)), "run": _mean(per_query, present)}
    return {**means[average], "average": average, "means": means, "n_queries": len(per_query),
            "n_run_queries": len(present), "per_query": per_query}


def _mean(per_query: Mapping[str, Mapping[str, float]], qids: list[str]) -> dict[str, float | None]:
    return {m: float(sum(per_query[q][m] for q in qids) / len(qids)) if qids else None for m in METRICS}


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
        ranking = [doc for doc, _ in ranked(docs)]
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

        # ranx wants every qrels query in the run: an empty result list for a missing one scores 0. Its order of
        # ties is its own, so it gets the tie rule's ranking as scores (first = highest).
        full = {qid: {doc: float(len(pairs) - i) for i, (doc, _) in enumerate(pairs)}
                for qid, pairs in ((qid, ranked(run.get(qid, {}))) for qid in qrels)}
        per_metric = evaluate(
            Qrels.from_dict(dict(qrels)), Run.from_dict(full), list(METRICS), return_mean=False, make_comparable=True
        )
        qids = list(Qrels.from_dict(dict(qrels)).keys())
    return {qid: {m: float(per_metric[m][i]) for m in METRICS} for i, qid in enumerate(qids)}
