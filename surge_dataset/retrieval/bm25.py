"""BM25 over the corpus (title + abstract) with ``bm25s``, persisted and memory-mapped.

Text processing, stated once (the corpus and the queries go through the same :class:`Tokenizer`):
lower-casing; tokens = maximal runs of two or more word characters (letters, digits, ``_``: the
``bm25s``/scikit-learn pattern ``(?u)\\b\\w\\w+\\b``); English stop-words removed (``bm25s``' built-in
33-word English list, the Lucene/Elasticsearch ``_english_`` set); then the Snowball English
("Porter2") stemmer from PyStemmer. Scoring is ``bm25s``' default Lucene variant, k1 = 1.5, b = 0.75.

Why not ``bm25s.tokenize`` + ``bm25s.BM25().index(tokens)``: both walk every word of the 1.09M-paper
corpus in Python and need every document's token list in memory at once. We tokenise whole Arrow
batches with pyarrow's vectorised string kernels (lower-case, regex split, dictionary-encode), stem
each distinct word once, keep each batch's (doc, term, tf) triples as numpy arrays, and assemble the
same CSC score matrix with numpy. The result is a regular ``bm25s`` index (``BM25.save``, reopened
with ``BM25.load(mmap=True)``) whose vocabulary and scores equal ``bm25s``' own tokenizer + indexing;
a test checks that on the sample corpus. (Lower-casing is Arrow's simple case mapping: on a few
exotic characters, e.g. a dotted capital I, it differs from Python's ``str.lower``.)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from surge_dataset.core.output_folder import check_output_folder, replacing_output_folder
from surge_dataset.data.validate import SurgeDataError
from surge_dataset.retrieval.index_base import (
    DOC_DAYS,
    DOC_IDS,
    Hit,
    IndexKindError,
    allowed_mask,
    batch_texts,
    group_by_cutoff,
    iter_corpus,
    read_manifest,
    to_days,
    write_manifest,
)
from surge_dataset.retrieval.registry import register_index

logger = logging.getLogger(__name__)

BM25S_DIR = "bm25s"
K1 = 1.5
B = 0.75
NUMBA_MIN_WORK = 50_000_000  # queries x papers above which the numba scorer pays for its compilation
EMPTY = ""  # bm25s' token for a document without any token (it keeps such documents scoreable)
_NON_WORD = r"[^\pL\pN_]+"  # RE2: the complement of Python's Unicode \w (letters, digits, underscore)
TEXT_PROCESSING = {
    "fields": "title + ' ' + abstract",
    "lowercase": True,
    "token_pattern": r"(?u)\b\w\w+\b",
    "stopwords": "bm25s English list (33 words, Lucene _english_)",
    "stemmer": "Snowball English (Porter2), PyStemmer",
    "method": "lucene",
}


class Tokenizer:
    """Vectorised word splitting + per-distinct-word stemming; ids are assigned in order of first use.

    ``vocab`` maps stems to term ids (``""`` is id 0, as in ``bm25s``). With ``update=False`` unknown
    stems are dropped (queries).
    """

    def __init__(self, vocab: dict[str, int] | None = None):
        import Stemmer
        from bm25s.stopwords import STOPWORDS_EN

        self.vocab: dict[str, int] = dict(vocab) if vocab is not None else {EMPTY: 0}
        self.stopwords = frozenset(STOPWORDS_EN)
        self._stemmer = Stemmer.Stemmer("english")
        self._word_ids: dict[str, int] = {}  # word -> term id, -1 for stop-words (and unknown, frozen vocab)

    def _ids_of(self, words: list[str], update: bool) -> np.ndarray:
        unseen = [w for w in words if w not in self._word_ids]
        content = [w for w in unseen if w not in self.stopwords]
        for word in unseen:
            if word in self.stopwords:
                self._word_ids[word] = -1
        for word, stem in zip(content, self._stemmer.stemWords(content), strict=True):
            term = self.vocab.get(stem)
            if term is None and update:
                term = self.vocab[stem] = len(self.vocab)
            if term is not None or not update:
                self._word_ids[word] = -1 if term is None else term
        return np.fromiter((self._word_ids[w] for w in words), dtype=np.int64, count=len(words))

    def tokenize(self, texts: Sequence[str | None] | pa.Array, *, update: bool) -> tuple[np.ndarray, np.ndarray]:
        """(term ids of all texts concatenated, number of ids per text); documents never come back empty
        when ``update`` (they get the ``""`` term, as in ``bm25s``)."""
        array = texts if isinstance(texts, pa.Array) else pa.array(list(texts), pa.string())
        n = len(array)
        parts = pc.split_pattern_regex(pc.utf8_lower(pc.fill_null(array, "")), pattern=_NON_WORD)
        words = parts.flatten()
        doc_of = np.repeat(np.arange(n, dtype=np.int64), pc.list_value_length(parts).to_numpy(zero_copy_only=False))
        keep = pc.greater_equal(pc.utf8_length(words), 2)
        words = words.filter(keep)
        doc_of = doc_of[keep.to_numpy(zero_copy_only=False)]
        encoded = pc.dictionary_encode(words)
        if isinstance(encoded, pa.ChunkedArray):
            encoded = encoded.combine_chunks()
        distinct = self._ids_of(encoded.dictionary.to_pylist(), update)
        ids = distinct[encoded.indices.to_numpy(zero_copy_only=False)] if len(words) else np.zeros(0, np.int64)
        found = ids >= 0
        ids, doc_of = ids[found], doc_of[found]
        lengths = np.bincount(doc_of, minlength=n).astype(np.int64)
        if update and (lengths == 0).any():  # empty documents: one "" token each, like bm25s
            empty_docs = np.flatnonzero(lengths == 0)
            order = np.argsort(np.concatenate([doc_of, empty_docs]), kind="stable")
            ids = np.concatenate([ids, np.full(len(empty_docs), self.vocab[EMPTY], np.int64)])[order]
            lengths[empty_docs] = 1
        return ids, lengths


def _lucene_scores(tf: np.ndarray, docs: np.ndarray, terms: np.ndarray, doc_len: np.ndarray, df: np.ndarray,
                   k1: float, b: float) -> np.ndarray:
    """Lucene BM25 weight of each (doc, term): ln(1 + (N - df + .5)/(df + .5)) * tf / (tf + k1(1 - b + b dl/avgdl)).

    Per-term and per-document factors are computed once, then gathered, in float32 and in place (the
    1.09M-paper corpus has ~10^8 pairs).
    """
    n_docs = len(doc_len)
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)
    norm = (k1 * (1.0 - b + b * doc_len / doc_len.mean())).astype(np.float32)
    scores = norm[docs]
    scores += tf
    np.divide(tf, scores, out=scores)
    scores *= idf[terms]
    return scores


def build_bm25_index(
    data: Any,
    out: str | Path,
    *,
    k1: float = K1,
    b: float = B,
    batch_size: int = 50_000,
    overwrite: bool = False,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Index the corpus of ``data`` (a :class:`SurgeData`) into the folder ``out``; returns the manifest.

    The folder is written atomically: a failed build leaves no half-written index behind.
    """
    data_inputs = [("--data", getattr(data, "path", None))]
    check_output_folder(out, "index", inputs=data_inputs, overwrite=overwrite)  # before hours of indexing
    import bm25s

    say = progress or logger.info
    start = time.perf_counter()
    tokenizer = Tokenizer()
    docs_parts: list[np.ndarray] = []
    terms_parts: list[np.ndarray] = []
    tf_parts: list[np.ndarray] = []
    len_parts: list[np.ndarray] = []
    id_parts: list[np.ndarray] = []
    day_parts: list[np.ndarray] = []
    n_docs = 0
    for batch in iter_corpus(data, ["doc_id", "title", "abstract", "date", "year"], batch_size):
        terms, lengths = tokenizer.tokenize(batch_texts(batch), update=True)
        local_doc = np.repeat(np.arange(batch.num_rows, dtype=np.int64), lengths)
        keys, counts = np.unique((local_doc << 32) | terms, return_counts=True)
        docs_parts.append(((keys >> 32) + n_docs).astype(np.int32))
        terms_parts.append((keys & 0xFFFFFFFF).astype(np.int32))
        tf_parts.append(counts.astype(np.float32))
        len_parts.append(lengths.astype(np.int32))
        id_parts.append(batch.column("doc_id").to_numpy().astype(np.int64))
        day_parts.append(to_days(batch.column("date").to_pylist(), batch.column("year").to_pylist()))
        n_docs += batch.num_rows
        say(f"bm25: tokenised {n_docs:,} papers, {len(tokenizer.vocab):,} terms")
    if n_docs == 0:
        raise SurgeDataError(getattr(data, "path", "the dataset"), "the corpus holds no paper: nothing to index")

    vocab = tokenizer.vocab  # stem -> term id, "" included (bm25s' empty-document token)
    n_terms = len(vocab)
    docs = np.concatenate(docs_parts)
    del docs_parts
    terms = np.concatenate(terms_parts)
    del terms_parts
    tf = np.concatenate(tf_parts)
    del tf_parts
    doc_len = np.concatenate(len_parts)
    df = np.bincount(terms, minlength=n_terms).astype(np.float64)
    avg_len = float(doc_len.astype(np.float64).mean())
    scores = _lucene_scores(tf, docs, terms, doc_len.astype(np.float64), df, k1, b)
    del tf
    order = np.argsort(terms, kind="stable")  # CSC: columns are terms, rows (docs) ascending inside
    data_arr = scores[order]
    del scores
    indices = docs[order]
    del docs, order
    indptr = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(np.bincount(terms, minlength=n_terms), out=indptr[1:])
    del terms

    retriever = bm25s.BM25(k1=k1, b=b, method="lucene")
    retriever.scores = {"data": data_arr, "indices": indices, "indptr": indptr, "num_docs": n_docs}
    retriever.vocab_dict = vocab
    retriever.unique_token_ids_set = set(vocab.values())
    retriever.nonoccurrence_array = None
    manifest = {
        "kind": "bm25",
        "library": f"bm25s {bm25s.__version__}",
        "n_docs": n_docs,
        "n_terms": n_terms,
        "nnz": int(indptr[-1]),
        "k1": k1,
        "b": b,
        "avg_doc_len": avg_len,
        "text_processing": TEXT_PROCESSING,
        "data_fingerprint": getattr(data, "fingerprint", ""),
        "build_seconds": None,
    }
    with replacing_output_folder(out, "index", "surge index bm25", inputs=data_inputs, overwrite=overwrite) as tmp:
        retriever.save(str(tmp / BM25S_DIR), show_progress=False)
        np.save(tmp / DOC_IDS, np.concatenate(id_parts))
        np.save(tmp / DOC_DAYS, np.concatenate(day_parts))
        manifest["build_seconds"] = round(time.perf_counter() - start, 3)
        write_manifest(tmp, manifest)
    say(f"bm25: {n_docs:,} papers indexed in {manifest['build_seconds']:.1f} s -> {out}")
    return manifest


@register_index("bm25")
class BM25Index:
    """A saved BM25 index, memory-mapped: opening it reads only the vocabulary and the manifest."""

    def __init__(self, retriever: Any, doc_ids: np.ndarray, doc_days: np.ndarray, manifest: dict[str, Any],
                 *, backend: str = "auto"):
        if backend not in ("auto", "numpy", "numba"):
            raise ValueError(f"backend must be auto, numpy or numba, got {backend!r}")
        self.backend = backend
        self.retriever = retriever
        self.doc_ids = doc_ids
        self.doc_days = doc_days
        self.manifest = manifest
        self.tokenizer = Tokenizer(retriever.vocab_dict)

    @classmethod
    def load(cls, index_dir: str | Path, *, backend: str = "auto") -> BM25Index:
        import bm25s

        index_dir = Path(index_dir)
        manifest = read_manifest(index_dir)
        if manifest.get("kind") != "bm25":
            raise IndexKindError(f"{index_dir} is a {manifest.get('kind')} index, not bm25")
        retriever = bm25s.BM25.load(str(index_dir / BM25S_DIR), mmap=True, show_progress=False)
        return cls(
            retriever,
            np.load(index_dir / DOC_IDS, mmap_mode="r"),
            np.load(index_dir / DOC_DAYS, mmap_mode="r"),
            manifest,
            backend=backend,
        )

    def query_ids(self, queries: Sequence[str]) -> list[list[int]]:
        """Term ids of each query (unknown terms dropped; an all-unknown query scores every paper 0)."""
        ids, lengths = self.tokenizer.tokenize(list(queries), update=False)
        empty = self.retriever.vocab_dict.get(EMPTY)
        out = [chunk.tolist() for chunk in np.split(ids, np.cumsum(lengths)[:-1])] if len(lengths) else []
        return [q if q else ([] if empty is None else [empty]) for q in out]

    def _backend(self, n_queries: int, n_docs: int) -> str:
        """bm25s' numba scorer is ~30x faster per query on the full corpus but costs ~15 s of JIT
        compilation per process: worth it only for large jobs (``backend="auto"``)."""
        import bm25s

        if self.backend != "auto":
            return self.backend
        large = n_queries * n_docs >= NUMBA_MIN_WORK
        return "numba" if large and bm25s.NUMBA_AVAILABLE else "numpy"

    def search(
        self, queries: Sequence[str], k: int, cutoff_days: Sequence[int | None] | None = None
    ) -> list[list[Hit]]:
        """Top-``k`` papers per query; with ``cutoff_days`` a query sees only papers not dated after its day."""
        n_docs = int(self.retriever.scores["num_docs"])
        k_eff = min(k, n_docs)
        token_ids = self.query_ids(queries)
        self.retriever.backend = self._backend(len(queries), n_docs)
        results: list[list[Hit]] = [[] for _ in queries]
        for day, positions in group_by_cutoff(cutoff_days, len(queries)).items():
            mask = allowed_mask(self.doc_days, day)
            weight = None if mask is None else mask.astype(np.float32)
            docs, scores = self.retriever.retrieve(
                [token_ids[i] for i in positions], k=k_eff, show_progress=False, weight_mask=weight
            )
            for row, i in enumerate(positions):
                hits = []
                for doc, score in zip(docs[row], scores[row], strict=True):
                    if mask is not None and not mask[doc]:
                        continue  # a masked paper only fills up a query whose matches ran out
                    hits.append(Hit(int(self.doc_ids[doc]), float(score)))
                results[i] = hits
        return results
