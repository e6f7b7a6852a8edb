"""Recall@k (Table 3's columns), nDCG@10 and MRR of a run, computed with ``ranx``.

Conventions (those of ``ranx`` and ``trec_eval``): a query of the qrels missing from the run scores 0
(it is not dropped); run queries absent from the qrels are ignored; recall@k = |relevant in top k| /
|relevant|; MRR is over the whole ranking. Means are over the qrels' queries.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

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


def evaluate_run(
    run: Mapping[str, Mapping[str, float]] | str | Path,
    qrels: Mapping[str, Mapping[str, int]],
) -> dict[str, Any]:
    """``{metric: mean for metric in METRICS, "per_query": {qid: {metric: value}}}``.

    ``run`` is ``{qid: {doc_id: score}}`` or a TREC run file; ``qrels`` is ``{qid: {doc_id: rel}}``.
    """
    from ranx import Qrels, Run, evaluate

    if isinstance(run, (str, Path)):
        from .runs import read_trec_run

        run = read_trec_run(run)
    qrels = {str(q): {str(d): int(r) for d, r in docs.items()} for q, docs in qrels.items() if docs}
    if not qrels:
        raise ValueError("the qrels hold no query with a relevant paper: nothing to evaluate")
    # ranx wants every qrels query in the run: an empty result list for a missing one scores 0.
    run = {str(q): {str(d): float(s) for d, s in docs.items()} for q, docs in run.items() if str(q) in qrels}
    for qid in qrels:
        run.setdefault(qid, {})
    per_metric = evaluate(
        Qrels.from_dict(qrels), Run.from_dict(run), list(METRICS), return_mean=False, make_comparable=True
    )
    qids = list(Qrels.from_dict(qrels).keys())
    result: dict[str, Any] = {m: float(per_metric[m].mean()) for m in METRICS}
    result["per_query"] = {
        qid: {m: float(per_metric[m][i]) for m in METRICS} for i, qid in enumerate(qids)
    }
    return result
