"""The reusable parts of ``training/train_retriever.py`` (the paper's dense retriever, protocol.md §6):
training pairs from the train split, random corpus negatives, the batches of an epoch, the encoder's
forward pass and loss, and the held-out Recall@k.

Everything here is a plain function of its inputs (a seed, an epoch, a pair index), so a resumed or
re-launched run sees exactly the same batches and negatives. ``training/train_retriever.py`` keeps the
``accelerate`` loop; :mod:`.train_config` holds its settings and :mod:`.training_run` its logging and
checkpoints. What leaves nothing to train on is a :class:`TrainingDataError` (a ``SurgeError``: the script
prints it as one line and exits 2), never a ``SystemExit``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from surge_dataset.core.errors import SurgeError
from surge_dataset.retrieval.encoder import load_backbone
from surge_dataset.retrieval.index_base import document_text

# --------------------------------------------------------------------------------------------------
# Data: training pairs, held-out surveys, the corpus
# --------------------------------------------------------------------------------------------------


@dataclass
class Pairs:
    """(query text, positive doc id) pairs, with each query's full relevant set for masking."""

    texts: list[str]
    positives: np.ndarray  # doc id per pair
    relevant: list[frozenset[int]]  # per pair: every paper relevant to its query


class TrainingDataError(SurgeError, ValueError):
    """The data or settings leave nothing to train on (no cited surveys, no negatives, no full step)."""


def split_surveys(data: Any, holdout_fraction: float, seed: int) -> tuple[set[int], set[int]]:
    """Train-split surveys with citations -> (training ids, held-out ids), by a seeded shuffle."""
    ids = sorted(s.survey_id for s in data.surveys("train") if s.all_cites)
    if not ids:
        raise TrainingDataError("the train split has no survey with citations: nothing to train on")
    n_hold = 0 if holdout_fraction <= 0 or len(ids) < 2 else max(1, round(holdout_fraction * len(ids)))
    order = np.random.default_rng(seed).permutation(len(ids))
    held = {ids[i] for i in order[:n_hold]}
    return set(ids) - held, held


def build_queries(data: Any, survey_ids: set[int], kinds: list[str]) -> list[tuple[str, frozenset[int]]]:
    """(query text, relevant doc ids) for the given train surveys: titles and/or questions."""
    out: list[tuple[str, frozenset[int]]] = []
    if "titles" in kinds:
        out += [(s.survey_title, frozenset(s.all_cites)) for s in data.surveys("train") if s.survey_id in survey_ids]
    if "questions" in kinds:
        out += [
            (q.prefix_titles_query or "", frozenset(q.cites))
            for q in data.queries("train")
            if q.survey_id in survey_ids and q.cites and q.prefix_titles_query
        ]
    return [(text, rel) for text, rel in out if rel]


def build_pairs(queries: list[tuple[str, frozenset[int]]], known: np.ndarray) -> Pairs:
    """One pair per (query, cited paper present in the corpus)."""
    texts, positives, relevant = [], [], []
    known_set = set(known.tolist())
    for text, rel in queries:
        for doc in sorted(rel):
            if doc in known_set:
                texts.append(text)
                positives.append(doc)
                relevant.append(rel)
    return Pairs(texts, np.asarray(positives, dtype=np.int64), relevant)


class CorpusTexts:
    """Paper text by doc id from the dataset's memory-mapped corpus index (shared by all processes)."""

    def __init__(self, data: Any):
        self.corpus = data.corpus
        ids = [b.column("doc_id").to_numpy() for b in data.iter_corpus_batches(["doc_id"])]
        self.doc_ids = np.concatenate(ids).astype(np.int64)

    def texts(self, doc_ids: Any) -> list[str]:
        papers = self.corpus.get([int(d) for d in doc_ids])
        return ["" if p is None else document_text(p.title, p.abstract) for p in papers]


def draw_negatives(doc_ids: np.ndarray, relevant: frozenset[int], n: int, rng: np.random.Generator) -> list[int]:
    """``n`` random corpus papers not relevant to the query (uniform, with replacement across queries)."""
    out: list[int] = []
    while len(out) < n:
        for doc in doc_ids[rng.integers(0, len(doc_ids), size=n - len(out))].tolist():
            if doc not in relevant:
                out.append(doc)
        if len(relevant) >= len(doc_ids):
            raise TrainingDataError("every corpus paper is relevant to a query: no negatives can be drawn")
    return out


def epoch_batches(n_pairs: int, batch_size: int, world: int, seed: int, epoch: int) -> np.ndarray:
    """The epoch's pair indices as [steps, world, batch]: a seeded shuffle, incomplete tail dropped."""
    per_step = batch_size * world
    steps = n_pairs // per_step
    if steps == 0:
        raise TrainingDataError(
            f"{n_pairs} training pairs cannot fill one step of {batch_size} x {world} processes; "
            "lower --batch-size"
        )
    order = np.random.default_rng([seed, epoch]).permutation(n_pairs)[: steps * per_step]
    return order.reshape(steps, world, batch_size)


# --------------------------------------------------------------------------------------------------
# Model pieces
# --------------------------------------------------------------------------------------------------


def load_encoder(name_or_path: str) -> tuple[Any, Any]:
    """(tokenizer, model) to train: the encoder without its pooler, so every parameter gets a gradient (DDP)."""
    from transformers import AutoTokenizer

    from surge_dataset.models.base import load_model

    return load_model(lambda: (AutoTokenizer.from_pretrained(name_or_path), load_backbone(name_or_path)),
                      str(name_or_path), ["retriever training"], "--model")


def tokenize(tokenizer: Any, texts: list[str], max_length: int, device: Any) -> dict[str, Any]:
    batch = tokenizer(texts, truncation=True, max_length=max_length, padding=True, return_tensors="pt")
    return {k: v.to(device) for k, v in batch.items() if k in ("input_ids", "attention_mask")}


def cls_vectors(model: Any, batch: dict[str, Any]) -> Any:
    return model(**batch).last_hidden_state[:, 0]


def contrastive_loss(q: Any, d: Any, n_candidates: int, relevant: list[frozenset[int]], doc_ids: list[int],
                     in_batch: bool) -> Any:
    """Softmax cross-entropy: each query against its own positive (index 0) and negatives.

    With ``in_batch``, every paper of the batch is a candidate, except those relevant to the query
    other than its own positive (they would be false negatives).
    """
    import torch
    import torch.nn.functional as F

    batch = q.shape[0]
    if not in_batch:
        scores = torch.einsum("bh,bkh->bk", q, d.view(batch, n_candidates, -1))
        target = torch.zeros(batch, dtype=torch.long, device=q.device)
        return F.cross_entropy(scores.float(), target)
    scores = (q @ d.T).float()
    target = torch.arange(batch, device=q.device) * n_candidates
    mask = torch.zeros_like(scores, dtype=torch.bool)
    for i in range(batch):
        for j, doc in enumerate(doc_ids):
            if j != i * n_candidates and doc in relevant[i]:
                mask[i, j] = True
    return F.cross_entropy(scores.masked_fill(mask, float("-inf")), target)


def evaluate_recall(accelerator: Any, model: Any, tokenizer: Any, config: Any,
                    queries: list[tuple[str, frozenset[int]]], pool: np.ndarray, corpus: CorpusTexts) -> dict[str, float]:
    """Recall@k of held-out queries over ``pool`` (papers encoded across processes, then gathered).

    ``config`` needs ``eval_batch_size``, ``max_query_length``, ``max_doc_length`` and ``eval_ks``."""
    import torch

    if not queries:
        return {}
    net = accelerator.unwrap_model(model)
    net.eval()
    world, rank = accelerator.num_processes, accelerator.process_index
    per_rank = math.ceil(len(pool) / world)
    mine = pool[rank * per_rank : (rank + 1) * per_rank]
    mine = np.concatenate([mine, np.repeat(pool[-1:], per_rank - len(mine))])  # equal sizes for gather
    vectors = []
    with torch.no_grad(), accelerator.autocast():
        for start in range(0, len(mine), config.eval_batch_size):
            ids = mine[start : start + config.eval_batch_size]
            batch = tokenize(tokenizer, corpus.texts(ids), config.max_doc_length, accelerator.device)
            vectors.append(cls_vectors(net, batch).float())
        docs = accelerator.gather(torch.cat(vectors)).cpu().numpy()[: len(pool)]
        qv = []
        texts = [t for t, _ in queries]
        for start in range(0, len(texts), config.eval_batch_size):
            batch = tokenize(tokenizer, texts[start : start + config.eval_batch_size], config.max_query_length,
                             accelerator.device)
            qv.append(cls_vectors(net, batch).float().cpu().numpy())
    net.train()
    scores = np.concatenate(qv) @ docs.T
    ranking = np.argsort(-scores, axis=1, kind="stable")
    out: dict[str, float] = {}
    for k in config.eval_ks:
        top = pool[ranking[:, :k]]
        recalls = [len(set(top[i].tolist()) & rel) / len(rel) for i, (_, rel) in enumerate(queries)]
        out[f"recall@{k}"] = float(np.mean(recalls))
    return out
