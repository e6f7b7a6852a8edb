"""Retrieval over the SurGE corpus: BM25 and the paper's dense retriever, TREC runs, Recall@k, exports.

Heavy libraries (bm25s, torch, faiss, ranx) are imported inside the functions that need them, so
importing this package is cheap. :func:`open_index` finds the searcher of an index folder in the index
registry (:mod:`.registry`: built-in kinds, :func:`register_index`, the ``surge.indexes`` entry points);
:func:`get_reranker` finds a re-ranker (``upr``, ``rankgpt``) in :mod:`.rerank`'s.

The paper's dense retriever (protocol §6: one shared encoder, last layer's first-token vector, dot product) is
three modules, one job each: :mod:`.encoder` (:class:`DenseEncoder`, the model folder's ``surge_retriever.json``),
:mod:`.encoding` (:func:`encode_corpus`: the corpus encoded in resumable shards, :mod:`.shards` on disk) and
:mod:`.faiss_index` (the FAISS index built from the shards and :class:`DenseIndex`, its searcher).
"""

from __future__ import annotations

from surge_dataset.retrieval.bm25 import BM25Index, build_bm25_index
from surge_dataset.retrieval.encoder import DenseEncoder
from surge_dataset.retrieval.encoding import encode_corpus
from surge_dataset.retrieval.evaluation import METRICS, evaluate_run
from surge_dataset.retrieval.export import export_retrieval
from surge_dataset.retrieval.faiss_index import DenseIndex
from surge_dataset.retrieval.index_base import Hit, document_text, to_day
from surge_dataset.retrieval.registry import (
    available_index_kinds,
    index_kinds,
    open_index,
    register_index,
    unregister_index,
)
from surge_dataset.retrieval.rerank import (
    Candidate,
    Ranked,
    Reranker,
    get_reranker,
    register_reranker,
    reranker_names,
    unregister_reranker,
)
from surge_dataset.retrieval.runs import (
    QUERY_TYPES,
    RetrievalQuery,
    load_qrels,
    load_queries,
    read_run_metadata,
    read_trec_qrels,
    read_trec_run,
    retrieve,
    run_retrieval,
    write_trec_qrels,
    write_trec_run,
)

__all__ = [
    "METRICS",
    "QUERY_TYPES",
    "BM25Index",
    "Candidate",
    "DenseEncoder",
    "DenseIndex",
    "Hit",
    "Ranked",
    "Reranker",
    "RetrievalQuery",
    "available_index_kinds",
    "build_bm25_index",
    "document_text",
    "encode_corpus",
    "evaluate_run",
    "export_retrieval",
    "get_reranker",
    "index_kinds",
    "load_qrels",
    "load_queries",
    "open_index",
    "read_run_metadata",
    "read_trec_qrels",
    "read_trec_run",
    "register_index",
    "register_reranker",
    "reranker_names",
    "retrieve",
    "run_retrieval",
    "to_day",
    "unregister_index",
    "unregister_reranker",
    "write_trec_qrels",
    "write_trec_run",
]

