"""The paper's dense retriever (protocol §6): one shared encoder, last layer's first-token vector, dot product.

Encoding the 1.09M-paper corpus is the expensive step, so :func:`encode_corpus`

* cuts the corpus into fixed shards of ``shard_size`` papers in corpus order; inside a shard, papers are
  encoded longest-first in padded batches (length sorting cuts padding, and an out-of-memory batch
  shows up at once rather than after an hour);
* runs in fp16 on a GPU, fp32 on CPU;
* splits the shards over processes (shard ``i`` goes to process ``i mod world size``) when launched
  with several (``accelerate launch`` / ``torchrun``; ``accelerate.PartialState`` tells us which);
* writes each shard's embeddings as soon as it is done (``shards/emb-00007.npy`` beside its doc ids,
  renamed into place), and an ``encoding.json`` manifest of what is being encoded, so a crashed or
  killed run, started again with the same arguments, skips every finished shard;
* then builds a FAISS index: exact inner product (``IndexFlatIP``) by default, IVF or HNSW as options;
  for those, the recall against exact search is measured at build time and written to the manifest.

Documents are ``title + " " + abstract`` (:func:`~surge_dataset.retrieval.common.document_text`), the
same text the trainer uses. A model folder may carry ``surge_retriever.json`` (written by
``training/train_retriever.py``) with its maximum query/document lengths.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from ..io import atomic_path, atomic_write_json
from .common import (
    DOC_DAYS,
    DOC_IDS,
    MANIFEST,
    Hit,
    allowed_mask,
    batch_texts,
    group_by_cutoff,
    iter_corpus,
    read_manifest,
    to_days,
    write_manifest,
)

logger = logging.getLogger(__name__)

RETRIEVER_CONFIG = "surge_retriever.json"
ENCODING_MANIFEST = "encoding.json"
SHARDS_DIR = "shards"
FAISS_FILE = "index.faiss"
DEFAULT_MAX_QUERY_LENGTH = 64
DEFAULT_MAX_DOC_LENGTH = 256
FAISS_KINDS = ("flat", "ivf", "hnsw")


# --------------------------------------------------------------------------------------------------
# The encoder
# --------------------------------------------------------------------------------------------------


def transformer_dir(model_path: str | Path) -> Path:
    """The folder holding the Hugging Face checkpoint: the path itself, or a sentence-transformers
    model's ``Transformer`` module folder (read from ``modules.json``)."""
    path = Path(model_path)
    modules = path / "modules.json"
    if modules.is_file():
        for module in json.loads(modules.read_text(encoding="utf-8")):
            if str(module.get("type", "")).endswith("Transformer"):
                return path / module.get("path", "")
    return path


def retriever_config(model_path: str | Path) -> dict[str, Any]:
    """``surge_retriever.json`` of a model folder, or {} (a plain Hugging Face checkpoint)."""
    for folder in (Path(model_path), transformer_dir(model_path)):
        file = folder / RETRIEVER_CONFIG
        if file.is_file():
            return json.loads(file.read_text(encoding="utf-8"))
    return {}


def model_fingerprint(model_path: str | Path) -> str:
    """Cheap identity of a checkpoint (config + weight file names, sizes, first and last MiB)."""
    folder = transformer_dir(model_path)
    digest = hashlib.sha256()
    for file in sorted(folder.iterdir()) if folder.is_dir() else []:
        if file.name == "config.json":
            digest.update(file.read_bytes())
        elif file.suffix in (".safetensors", ".bin", ".pt"):
            size = file.stat().st_size
            digest.update(f"{file.name}:{size}".encode())
            with open(file, "rb") as handle:
                digest.update(handle.read(1 << 20))
                handle.seek(max(0, size - (1 << 20)))
                digest.update(handle.read(1 << 20))
    return digest.hexdigest()[:16]


def _quiet_transformers() -> None:
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()


class DenseEncoder:
    """Shared-weight dual encoder: ``[CLS] text [SEP]`` -> last hidden state of the first token."""

    def __init__(
        self,
        model_path: str | Path,
        *,
        device: str | Any | None = None,
        fp16: bool | None = None,
        max_query_length: int | None = None,
        max_doc_length: int | None = None,
    ):
        import torch
        from transformers import AutoModel, AutoTokenizer

        _quiet_transformers()
        folder = transformer_dir(model_path)
        config = retriever_config(model_path)
        self.model_path = str(model_path)
        self.max_query_length = int(max_query_length or config.get("max_query_length", DEFAULT_MAX_QUERY_LENGTH))
        self.max_doc_length = int(max_doc_length or config.get("max_doc_length", DEFAULT_MAX_DOC_LENGTH))
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.fp16 = (self.device.type == "cuda") if fp16 is None else bool(fp16)
        self.tokenizer = AutoTokenizer.from_pretrained(str(folder))
        try:  # the pooler is never used; not loading it keeps DDP and memory clean
            model = AutoModel.from_pretrained(str(folder), add_pooling_layer=False)
        except TypeError:
            model = AutoModel.from_pretrained(str(folder))
        model.eval().to(self.device)
        if self.fp16:
            model.half()
        self.model = model
        self.dim = int(model.config.hidden_size)
        model_max = getattr(self.tokenizer, "model_max_length", None) or 512
        if model_max < 100_000:
            self.max_query_length = min(self.max_query_length, model_max)
            self.max_doc_length = min(self.max_doc_length, model_max)

    def encode(
        self, texts: Sequence[str], *, max_length: int, batch_size: int = 64,
        on_batch: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """float32 embeddings, rows in input order; batches are formed longest-first.

        ``on_batch(rows)`` is called after each forward pass (progress bars).
        """
        import torch

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encoded = self.tokenizer(list(texts), truncation=True, max_length=max_length, add_special_tokens=True)
        ids = encoded["input_ids"]
        order = np.argsort([-len(x) for x in ids], kind="stable")
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                width = max(len(ids[r]) for r in rows)
                input_ids = torch.full((len(rows), width), pad, dtype=torch.long)
                mask = torch.zeros((len(rows), width), dtype=torch.long)
                for j, r in enumerate(rows):
                    input_ids[j, : len(ids[r])] = torch.tensor(ids[r], dtype=torch.long)
                    mask[j, : len(ids[r])] = 1
                hidden = self.model(
                    input_ids=input_ids.to(self.device), attention_mask=mask.to(self.device)
                ).last_hidden_state
                out[rows] = hidden[:, 0].float().cpu().numpy()
                if on_batch is not None:
                    on_batch(len(rows))
        return out

    def encode_queries(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        return self.encode(texts, max_length=self.max_query_length, batch_size=batch_size)

    def encode_documents(
        self, texts: Sequence[str], batch_size: int = 64, on_batch: Callable[[int], None] | None = None
    ) -> np.ndarray:
        return self.encode(texts, max_length=self.max_doc_length, batch_size=batch_size, on_batch=on_batch)


# --------------------------------------------------------------------------------------------------
# Corpus encoding, sharded and resumable
# --------------------------------------------------------------------------------------------------


@dataclass
class EncodeReport:
    """What one process did: the shards it encoded now and the finished ones it skipped."""

    encoded: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    manifest: dict[str, Any] = field(default_factory=dict)


def _corpus_shards(data: Any, shard_size: int) -> Iterator[tuple[int, pa.Table]]:
    """Fixed-size shards of (doc_id, title, abstract, date, year) in corpus order, whatever the Parquet files."""
    pending: list[pa.RecordBatch] = []
    held = 0
    index = 0
    columns = ["doc_id", "title", "abstract", "date", "year"]
    for batch in iter_corpus(data, columns, batch_size=min(shard_size, 65536)):
        pending.append(batch)
        held += batch.num_rows
        while held >= shard_size:
            table = pa.Table.from_batches(pending)
            yield index, table.slice(0, shard_size)
            rest = table.slice(shard_size)
            pending = rest.to_batches()
            held = rest.num_rows
            index += 1
    if held:
        yield index, pa.Table.from_batches(pending)


def _papers_of_process(data: Any, shard_size: int, process: int, processes: int) -> int | None:
    """Papers in the shards process ``process`` of ``processes`` encodes (shard i goes to i mod processes)."""
    try:
        total = len(data.corpus)
    except (AttributeError, TypeError, FileNotFoundError):
        return None
    n_shards = -(-total // shard_size)
    return sum(min(shard_size, total - i * shard_size) for i in range(process, n_shards, processes))


def _shard_paths(out: Path, index: int) -> tuple[Path, Path]:
    return out / SHARDS_DIR / f"emb-{index:05d}.npy", out / SHARDS_DIR / f"ids-{index:05d}.npy"


def _shard_done(out: Path, index: int, rows: int) -> bool:
    emb, ids = _shard_paths(out, index)
    if not (emb.is_file() and ids.is_file()):
        return False
    try:
        return np.load(emb, mmap_mode="r").shape[0] == rows and np.load(ids, mmap_mode="r").shape[0] == rows
    except (ValueError, OSError):  # a torn file (cannot happen with rename, but never trust a crash)
        return False


def _save_npy(path: Path, array: np.ndarray) -> None:
    with atomic_path(path, suffix=".npy") as tmp:
        with open(tmp, "wb") as handle:
            np.save(handle, array)
            handle.flush()
            os.fsync(handle.fileno())


def encode_corpus(
    model_path: str | Path,
    data: Any,
    out: str | Path,
    *,
    batch_size: int = 128,
    shard_size: int = 50_000,
    max_length: int | None = None,
    fp16: bool | None = None,
    faiss_index: str = "flat",
    nlist: int | None = None,
    nprobe: int = 32,
    hnsw_m: int = 32,
    ef_search: int = 256,
    overwrite: bool = False,
    on_shard: Callable[[int], None] | None = None,
    progress: Callable[[str], None] | None = None,
    on_papers: Callable[[int, int | None], None] | None = None,
) -> EncodeReport:
    """Encode the corpus of ``data`` with ``model_path`` into ``out`` and build the FAISS index.

    Resumable: rerun with the same arguments after a crash and finished shards are skipped.
    ``on_shard(i)`` is called after shard ``i`` is safely on disk (progress reporting, tests);
    ``on_papers(done, total)`` after every batch: papers of this process encoded or reused so far, of
    the papers its shards hold (``None`` when the corpus size is unknown).
    """
    import torch
    from accelerate import PartialState

    if faiss_index not in FAISS_KINDS:
        raise ValueError(f"faiss_index must be one of {FAISS_KINDS}, got {faiss_index!r}")
    say = progress or logger.info
    # cpu=True without CUDA: otherwise a `--multi_gpu` launch on CPUs would give N independent
    # single-process states that all believe they are the main process.
    state = PartialState(cpu=not torch.cuda.is_available())
    out = Path(out)
    spec = {
        "model": str(Path(model_path).resolve()),
        "model_fingerprint": model_fingerprint(model_path),
        "data_fingerprint": getattr(data, "fingerprint", ""),
        "shard_size": int(shard_size),
        "max_length": max_length,
        "text": "title + ' ' + abstract",
    }
    encoding_file = out / ENCODING_MANIFEST
    if overwrite and state.is_main_process and out.exists():
        shutil.rmtree(out)
    state.wait_for_everyone()
    if encoding_file.is_file():
        previous = json.loads(encoding_file.read_text(encoding="utf-8"))
        if previous != spec:
            changed = sorted(k for k in spec if previous.get(k) != spec[k])
            raise FileExistsError(
                f"{out} holds embeddings of a different run (differs in: {', '.join(changed)}); "
                "pass --overwrite or choose another --out"
            )
    elif out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} exists and is not an encoding folder; pass --overwrite or another --out")
    state.wait_for_everyone()
    if state.is_main_process:
        (out / SHARDS_DIR).mkdir(parents=True, exist_ok=True)
        atomic_write_json(encoding_file, spec)
    state.wait_for_everyone()

    encoder = DenseEncoder(model_path, device=state.device, fp16=fp16, max_doc_length=max_length)
    report = EncodeReport()
    mine = _papers_of_process(data, shard_size, state.process_index, state.num_processes)
    papers_done = 0

    def advance(rows: int) -> None:
        nonlocal papers_done
        papers_done += rows
        if on_papers is not None:
            on_papers(papers_done, mine)

    start = time.perf_counter()
    n_shards = 0
    for index, table in _corpus_shards(data, shard_size):
        n_shards = index + 1
        if index % state.num_processes != state.process_index:
            continue
        if _shard_done(out, index, table.num_rows):
            report.skipped.append(index)
            advance(table.num_rows)
            continue
        texts = batch_texts(table)
        embeddings = encoder.encode_documents(texts, batch_size=batch_size, on_batch=advance)
        emb_path, ids_path = _shard_paths(out, index)
        _save_npy(ids_path, table.column("doc_id").to_numpy().astype(np.int64))
        _save_npy(emb_path, embeddings)  # last: its presence marks the shard finished
        report.encoded.append(index)
        say(f"dense: shard {index} ({table.num_rows:,} papers) encoded by process {state.process_index}")
        if on_shard is not None:
            on_shard(index)
    state.wait_for_everyone()
    if state.is_main_process:
        manifest = _build_faiss(
            out, data, n_shards, encoder.dim, spec, faiss_index=faiss_index, nlist=nlist, nprobe=nprobe,
            hnsw_m=hnsw_m, ef_search=ef_search,
            extra={
                "max_query_length": encoder.max_query_length,
                "max_doc_length": encoder.max_doc_length,
                "encode_seconds": round(time.perf_counter() - start, 3),
                "num_processes": state.num_processes,
                "fp16": encoder.fp16,
            },
        )
        say(f"dense: {manifest['n_docs']:,} papers, FAISS {faiss_index} index -> {out}")
    state.wait_for_everyone()
    report.manifest = read_manifest(out)
    return report


def _load_shards(out: Path, n_shards: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    for index in range(n_shards):
        emb, ids = _shard_paths(out, index)
        if not (emb.is_file() and ids.is_file()):
            raise FileNotFoundError(f"{out}: shard {index} is missing; rerun the same command to finish it")
        yield np.load(emb), np.load(ids)


def _exact_topk(out: Path, n_shards: int, queries: np.ndarray, k: int) -> np.ndarray:
    """Exact top-k corpus rows for a few queries, shard by shard (no full copy of the embeddings)."""
    best_scores = np.full((len(queries), 0), -np.inf, dtype=np.float32)
    best_rows = np.zeros((len(queries), 0), dtype=np.int64)
    offset = 0
    for emb, _ in _load_shards(out, n_shards):
        scores = queries @ emb.T
        rows = np.broadcast_to(np.arange(offset, offset + len(emb)), scores.shape)
        all_scores = np.concatenate([best_scores, scores], axis=1)
        all_rows = np.concatenate([best_rows, rows], axis=1)
        keep = np.argsort(-all_scores, axis=1, kind="stable")[:, :k]
        best_scores = np.take_along_axis(all_scores, keep, axis=1)
        best_rows = np.take_along_axis(all_rows, keep, axis=1)
        offset += len(emb)
    return best_rows


def _build_faiss(
    out: Path,
    data: Any,
    n_shards: int,
    dim: int,
    spec: dict[str, Any],
    *,
    faiss_index: str,
    nlist: int | None,
    nprobe: int,
    hnsw_m: int,
    ef_search: int,
    extra: dict[str, Any],
) -> dict[str, Any]:
    import faiss

    start = time.perf_counter()
    ids = np.concatenate([np.load(_shard_paths(out, i)[1]) for i in range(n_shards)]) if n_shards else np.zeros(0, np.int64)
    n_docs = len(ids)
    params: dict[str, Any] = {}
    if faiss_index == "flat":
        index = faiss.IndexFlatIP(dim)
    elif faiss_index == "ivf":
        nlist = int(nlist or max(1, min(int(4 * np.sqrt(n_docs)), n_docs // 39)))
        index = faiss.IndexIVFFlat(faiss.IndexFlatIP(dim), dim, nlist, faiss.METRIC_INNER_PRODUCT)
        rng = np.random.default_rng(0)
        sample_rows = np.sort(rng.choice(n_docs, size=min(n_docs, 256 * nlist), replace=False))
        train, offset = [], 0
        for emb, _ in _load_shards(out, n_shards):
            local = sample_rows[(sample_rows >= offset) & (sample_rows < offset + len(emb))] - offset
            train.append(emb[local])
            offset += len(emb)
        index.train(np.ascontiguousarray(np.concatenate(train)))
        params = {"nlist": nlist, "nprobe": int(nprobe)}
    else:
        index = faiss.IndexHNSWFlat(dim, int(hnsw_m), faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = 200
        params = {"M": int(hnsw_m), "efConstruction": 200, "efSearch": int(ef_search)}
    for emb, _ in _load_shards(out, n_shards):
        index.add(np.ascontiguousarray(emb, dtype=np.float32))

    manifest: dict[str, Any] = {
        "kind": "dense",
        "faiss": faiss_index,
        "faiss_params": params,
        "dim": dim,
        "n_docs": n_docs,
        "n_shards": n_shards,
        "pooling": "cls",
        "similarity": "dot",
        **spec,
        **extra,
    }
    if faiss_index != "flat" and n_docs:
        # The recall cost of an approximate index: overlap of its top-k with exact search's top-k.
        k = min(100, n_docs)
        rng = np.random.default_rng(1)
        picks = np.sort(rng.choice(n_docs, size=min(100, n_docs), replace=False))
        queries, offset = [], 0
        for emb, _ in _load_shards(out, n_shards):
            local = picks[(picks >= offset) & (picks < offset + len(emb))] - offset
            queries.append(emb[local])
            offset += len(emb)
        query_matrix = np.ascontiguousarray(np.concatenate(queries))
        exact = _exact_topk(out, n_shards, query_matrix, k)
        _, approx = index.search(query_matrix, k, params=_search_params(faiss_index, params, k, None))
        overlap = [len(set(a) & set(e)) / k for a, e in zip(approx.tolist(), exact.tolist(), strict=True)]
        manifest[f"recall_vs_exact@{k}"] = round(float(np.mean(overlap)), 4)

    with atomic_path(out / FAISS_FILE, suffix=".faiss") as tmp:
        faiss.write_index(index, str(tmp))
    np.save(out / DOC_IDS, ids)
    days = []
    for batch in iter_corpus(data, ["date", "year"]):
        days.append(to_days(batch.column("date").to_pylist(), batch.column("year").to_pylist()))
    np.save(out / DOC_DAYS, np.concatenate(days) if days else np.zeros(0, np.int32))
    manifest["index_seconds"] = round(time.perf_counter() - start, 3)
    write_manifest(out, manifest)  # written last: its presence means the index is complete
    return manifest


def _search_params(kind: str, params: dict[str, Any], k: int, selector: Any) -> Any:
    import faiss

    kwargs: dict[str, Any] = {} if selector is None else {"sel": selector}
    if kind == "ivf":
        return faiss.SearchParametersIVF(nprobe=int(params.get("nprobe", 32)), **kwargs)
    if kind == "hnsw":
        return faiss.SearchParametersHNSW(efSearch=max(int(params.get("efSearch", 256)), k), **kwargs)
    return faiss.SearchParameters(**kwargs) if kwargs else None


def flat_vectors(index: Any) -> np.ndarray:
    """The vectors of a FAISS flat index as a numpy view (no copy; memory-mapped when the index is)."""
    import faiss

    return faiss.rev_swig_ptr(index.get_xb(), index.ntotal * index.d).reshape(index.ntotal, index.d)


def exact_topk(queries: np.ndarray, vectors: np.ndarray, k: int, mask: np.ndarray | None = None,
               block: int = 262_144) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-``k`` inner products, blockwise (torch matmul + topk); rows not in ``mask`` excluded.

    Large blocks (a [queries x block] float32 score buffer: 215 MB for 205 queries) because each
    ``topk`` call has a fixed cost; 4 blocks cover the 1.09M-paper corpus.

    Returns (scores, rows) shaped [n_queries, k]; where fewer than ``k`` rows are allowed the tail
    holds row -1 (FAISS' convention).
    """
    import torch

    q = torch.from_numpy(np.ascontiguousarray(queries, dtype=np.float32))
    best_scores = torch.empty((len(queries), 0))
    best_rows = torch.empty((len(queries), 0), dtype=torch.long)
    for start in range(0, len(vectors), block):
        scores = q @ torch.from_numpy(np.ascontiguousarray(vectors[start : start + block])).T
        if mask is not None:
            allowed = torch.from_numpy(np.ascontiguousarray(mask[start : start + block]))
            scores.masked_fill_(~allowed, float("-inf"))
        top_scores, top_rows = scores.topk(min(k, scores.shape[1]), dim=1)
        merged_scores = torch.cat([best_scores, top_scores], dim=1)
        merged_rows = torch.cat([best_rows, top_rows + start], dim=1)
        best_scores, position = merged_scores.topk(min(k, merged_scores.shape[1]), dim=1)
        best_rows = merged_rows.gather(1, position)
    rows = best_rows.numpy().copy()
    rows[~torch.isfinite(best_scores).numpy()] = -1
    return best_scores.numpy(), rows


class DenseIndex:
    """A built dense index: FAISS + doc ids + dates, and the encoder for queries (loaded on first use)."""

    def __init__(self, index_dir: Path, index: Any, doc_ids: np.ndarray, doc_days: np.ndarray,
                 manifest: dict[str, Any], *, model: str | None = None, device: str | None = None,
                 fp16: bool | None = None, batch_size: int = 64):
        self.index_dir = index_dir
        self.index = index
        self.doc_ids = doc_ids
        self.doc_days = doc_days
        self.manifest = manifest
        self.model_path = model or manifest["model"]
        self.device = device
        self.fp16 = fp16
        self.batch_size = batch_size
        self._encoder: DenseEncoder | None = None

    @classmethod
    def load(cls, index_dir: str | Path, **kwargs: Any) -> DenseIndex:
        import faiss

        index_dir = Path(index_dir)
        manifest = read_manifest(index_dir)
        if manifest.get("kind") != "dense":
            raise ValueError(f"{index_dir} is a {manifest.get('kind')} index, not dense")
        if not (index_dir / MANIFEST).is_file() or not (index_dir / FAISS_FILE).is_file():
            raise FileNotFoundError(f"{index_dir}: incomplete dense index")
        try:  # flat indexes can be memory-mapped; others are read into memory
            index = faiss.read_index(str(index_dir / FAISS_FILE), faiss.IO_FLAG_MMAP)
        except RuntimeError:
            index = faiss.read_index(str(index_dir / FAISS_FILE))
        return cls(
            index_dir, index, np.load(index_dir / DOC_IDS), np.load(index_dir / DOC_DAYS), manifest, **kwargs
        )

    @property
    def encoder(self) -> DenseEncoder:
        if self._encoder is None:
            self._encoder = DenseEncoder(
                self.model_path, device=self.device, fp16=self.fp16,
                max_query_length=self.manifest.get("max_query_length"),
            )
        return self._encoder

    def search_vectors(
        self, vectors: np.ndarray, k: int, cutoff_days: Sequence[int | None] | None = None,
        *, engine: str = "auto",
    ) -> list[list[Hit]]:
        """Top-``k`` per query vector; a date cutoff restricts the search to the allowed rows.

        ``engine="auto"`` searches a flat index with :func:`exact_topk` over the FAISS index's own
        vectors (same exact result; measured ~3x faster than ``IndexFlatIP.search`` for a few hundred
        queries at k = 1000 on 2 CPU cores), and IVF/HNSW indexes with FAISS (an ID selector applies
        the cutoff). ``engine="faiss"`` always uses FAISS.
        """
        import faiss

        k_eff = min(k, self.index.ntotal)
        results: list[list[Hit]] = [[] for _ in range(len(vectors))]
        kind = self.manifest.get("faiss", "flat")
        params = self.manifest.get("faiss_params", {})
        for day, positions in group_by_cutoff(cutoff_days, len(vectors)).items():
            mask = allowed_mask(self.doc_days, day)
            query = np.ascontiguousarray(vectors[positions], dtype=np.float32)
            if kind == "flat" and engine == "auto":
                scores, rows = exact_topk(query, flat_vectors(self.index), k_eff, mask)
            else:
                bitmap = selector = None
                if mask is not None:
                    bitmap = np.packbits(mask.astype(np.uint8), bitorder="little")
                    selector = faiss.IDSelectorBitmap(len(mask), faiss.swig_ptr(bitmap))
                scores, rows = self.index.search(query, k_eff, params=_search_params(kind, params, k_eff, selector))
                del bitmap  # kept alive until the search above returned
            for j, i in enumerate(positions):
                results[i] = [
                    Hit(int(self.doc_ids[r]), float(s)) for r, s in zip(rows[j], scores[j], strict=True) if r >= 0
                ]
        return results

    def search(
        self, queries: Sequence[str], k: int, cutoff_days: Sequence[int | None] | None = None
    ) -> list[list[Hit]]:
        vectors = self.encoder.encode_queries(list(queries), batch_size=self.batch_size)
        return self.search_vectors(vectors, k, cutoff_days)
