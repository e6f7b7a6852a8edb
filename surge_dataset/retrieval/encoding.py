"""Encoding the corpus for the dense index, sharded and resumable (the expensive step: 1.09M papers).

:func:`encode_corpus`

* cuts the corpus into fixed shards of ``shard_size`` papers in corpus order; inside a shard, papers are
  encoded longest-first in padded batches (length sorting cuts padding, and an out-of-memory batch
  shows up at once rather than after an hour);
* runs in fp16 on a GPU, fp32 on CPU;
* splits the shards over processes (shard ``i`` goes to process ``i mod world size``) when launched
  with several (``accelerate launch`` / ``torchrun``; ``accelerate.PartialState`` tells us which);
* writes each shard's embeddings as soon as it is done (:mod:`.shards`), and an ``encoding.json``
  manifest of what is being encoded, so a crashed or killed run, started again with the same
  arguments, skips every finished shard;
* then builds the FAISS index (:func:`~.faiss_index.build_faiss`).
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from surge_dataset.core.errors import OutputFolderError, SettingError
from surge_dataset.core.io import atomic_write_json
from surge_dataset.core.output_folder import check_output_folder
from surge_dataset.core.vocabulary import check_choice
from surge_dataset.models.base import load_model
from surge_dataset.retrieval.encoder import DenseEncoder, model_fingerprint
from surge_dataset.retrieval.faiss_index import FAISS_KINDS, build_faiss
from surge_dataset.retrieval.index_base import batch_texts, iter_corpus, read_manifest
from surge_dataset.retrieval.shards import SHARDS_DIR, save_npy, shard_done, shard_paths

logger = logging.getLogger(__name__)

ENCODING_MANIFEST = "encoding.json"


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

    check_choice("faiss_index", faiss_index, FAISS_KINDS)
    say = progress or logger.info
    # cpu=True without CUDA: otherwise a `--multi_gpu` launch on CPUs would give N independent
    # single-process states that all believe they are the main process.
    state = PartialState(cpu=not torch.cuda.is_available())
    out = Path(out)
    spec = _encoding_spec(model_path, data, shard_size, max_length)
    _claim_output_folder(out, model_path, data, spec, overwrite, state)

    encoder = load_model(lambda: DenseEncoder(model_path, device=state.device, fp16=fp16, max_doc_length=max_length),
                         str(model_path), ["the dense index"], "--model")
    report = EncodeReport()
    mine = _papers_of_process(data, shard_size, state.process_index, state.num_processes)
    papers_done = 0

    def advance(rows: int) -> None:
        nonlocal papers_done
        papers_done += rows
        if on_papers is not None:
            on_papers(papers_done, mine)

    start = time.perf_counter()
    n_shards = _encode_shards(encoder, data, out, shard_size, batch_size, state, report, advance, say, on_shard)
    state.wait_for_everyone()
    if state.is_main_process:
        _index_shards(out, data, n_shards, encoder, spec, state, time.perf_counter() - start, say,
                      faiss_index=faiss_index, nlist=nlist, nprobe=nprobe, hnsw_m=hnsw_m, ef_search=ef_search)
    state.wait_for_everyone()
    report.manifest = read_manifest(out)
    return report


def _encoding_spec(model_path: str | Path, data: Any, shard_size: int, max_length: int | None) -> dict[str, Any]:
    """What the embeddings depend on, written to ``encoding.json``: a rerun resumes only when it is the same."""
    return {
        "model": str(Path(model_path).resolve()),
        "model_fingerprint": model_fingerprint(model_path),
        "data_fingerprint": getattr(data, "fingerprint", ""),
        "shard_size": int(shard_size),
        "max_length": max_length,
        "text": "title + ' ' + abstract",
    }


def _claim_output_folder(out: Path, model_path: str | Path, data: Any, spec: dict[str, Any], overwrite: bool,
                         state: Any) -> None:
    """Make ``out`` this run's encoding folder: refused when it is another run's or not ours, emptied with
    ``overwrite``, resumed when ``encoding.json`` matches ``spec``; every process checks, the main one writes."""
    encoding_file = out / ENCODING_MANIFEST
    # Every process checks (a refusal must stop them all): never someone else's folder, the dataset
    # itself or another kind of output; only an index of ours is discarded with --overwrite.
    ours = check_output_folder(out, "index", inputs=[("--data", getattr(data, "path", None))],
                               overwrite=overwrite, adds_to_existing=True)
    if not Path(model_path).is_dir():  # before --overwrite discards anything and encoding.json names it
        raise SettingError(f"--model {model_path}: no such folder; pass a retriever checkpoint "
                           "(training/train_retriever.py output) or a Hugging Face model folder")
    if overwrite and ours and state.is_main_process:
        shutil.rmtree(out)
    state.wait_for_everyone()
    if encoding_file.is_file():
        previous = json.loads(encoding_file.read_text(encoding="utf-8"))
        if previous != spec:
            changed = sorted(k for k in spec if previous.get(k) != spec[k])
            raise OutputFolderError(
                f"{out} holds embeddings of a different run (differs in: {', '.join(changed)}); "
                "pass --overwrite or choose another --out"
            )
    elif out.exists() and any(out.iterdir()):
        raise OutputFolderError(f"{out} exists and is not an encoding folder; pass --overwrite or another --out")
    state.wait_for_everyone()
    if state.is_main_process:
        (out / SHARDS_DIR).mkdir(parents=True, exist_ok=True)
        atomic_write_json(encoding_file, spec)
    state.wait_for_everyone()


def _encode_shards(encoder: DenseEncoder, data: Any, out: Path, shard_size: int, batch_size: int, state: Any,
                   report: EncodeReport, advance: Callable[[int], None], say: Callable[[str], None],
                   on_shard: Callable[[int], None] | None) -> int:
    """Encode this process's shards (shard i goes to process i mod N), skipping finished ones; the shard count."""
    n_shards = 0
    for index, table in _corpus_shards(data, shard_size):
        n_shards = index + 1
        if index % state.num_processes != state.process_index:
            continue
        if shard_done(out, index, table.num_rows):
            report.skipped.append(index)
            advance(table.num_rows)
            continue
        texts = batch_texts(table)
        embeddings = encoder.encode_documents(texts, batch_size=batch_size, on_batch=advance)
        emb_path, ids_path = shard_paths(out, index)
        save_npy(ids_path, table.column("doc_id").to_numpy().astype(np.int64))
        save_npy(emb_path, embeddings)  # last: its presence marks the shard finished
        report.encoded.append(index)
        say(f"dense: shard {index} ({table.num_rows:,} papers) encoded by process {state.process_index}")
        if on_shard is not None:
            on_shard(index)
    return n_shards


def _index_shards(out: Path, data: Any, n_shards: int, encoder: DenseEncoder, spec: dict[str, Any], state: Any,
                  seconds: float, say: Callable[[str], None], **faiss_options: Any) -> None:
    """The FAISS index over every process's shards (the main process, once all are written)."""
    manifest = build_faiss(
        out, data, n_shards, encoder.dim, spec, **faiss_options,
        extra={
            "max_query_length": encoder.max_query_length,
            "max_doc_length": encoder.max_doc_length,
            "encode_seconds": round(seconds, 3),
            "num_processes": state.num_processes,
            "fp16": encoder.fp16,
        },
    )
    say(f"dense: {manifest['n_docs']:,} papers, FAISS {faiss_options['faiss_index']} index -> {out}")
