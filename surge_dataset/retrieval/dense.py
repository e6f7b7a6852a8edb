"""The paper's dense retriever (protocol §6): one shared encoder, last layer's first-token vector, dot product.

Three modules, one job each; this one gathers their names (``from surge_dataset.retrieval.dense import
encode_corpus, DenseIndex`` keeps working):

* :mod:`.encoder`     -- :class:`DenseEncoder`, the model folder's ``surge_retriever.json``;
* :mod:`.encoding`    -- :func:`encode_corpus`: the corpus encoded in fixed shards, fp16 on a GPU, split
  over processes, resumable after a crash (:mod:`.shards` holds the on-disk shard files);
* :mod:`.faiss_index` -- the FAISS index built from the shards (exact inner product by default, IVF or
  HNSW with their recall against exact search measured at build time) and :class:`DenseIndex`, its
  searcher (exact blockwise search over a flat index's own vectors).

Documents are ``title + " " + abstract`` (:func:`~surge_dataset.retrieval.index_base.document_text`), the
same text the trainer uses.
"""

from __future__ import annotations

from surge_dataset.retrieval.encoder import (
    DEFAULT_MAX_DOC_LENGTH,
    DEFAULT_MAX_QUERY_LENGTH,
    RETRIEVER_CONFIG,
    DenseEncoder,
    load_backbone,
    model_fingerprint,
    retriever_config,
    transformer_dir,
)
from surge_dataset.retrieval.encoding import ENCODING_MANIFEST, EncodeReport, encode_corpus
from surge_dataset.retrieval.faiss_index import (
    FAISS_FILE,
    FAISS_KINDS,
    DenseIndex,
    build_faiss,
    exact_topk,
    flat_vectors,
)
from surge_dataset.retrieval.shards import SHARDS_DIR

__all__ = [
    "DEFAULT_MAX_DOC_LENGTH",
    "DEFAULT_MAX_QUERY_LENGTH",
    "ENCODING_MANIFEST",
    "FAISS_FILE",
    "FAISS_KINDS",
    "RETRIEVER_CONFIG",
    "SHARDS_DIR",
    "DenseEncoder",
    "DenseIndex",
    "EncodeReport",
    "build_faiss",
    "encode_corpus",
    "exact_topk",
    "flat_vectors",
    "load_backbone",
    "model_fingerprint",
    "retriever_config",
    "transformer_dir",
]
