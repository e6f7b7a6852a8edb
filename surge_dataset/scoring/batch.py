"""Metric functions over plain Python batches: what the ``evaluate`` modules in ``metrics/`` call.

Each takes one list entry per survey (predictions, references) and returns the mean over surveys plus
the per-survey values, with the same keys as ``surge evaluate``. Models are passed by name or path
(or injected, for tests), so an ``evaluate`` module stays a thin declaration over this code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .citations import CitationInstance, accuracy_pairs, citation_accuracy, citation_recall
from .shr import soft_heading_recall


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return float(np.mean(present)) if present else None


def _check_lengths(predictions: Sequence[Any], references: Sequence[Any]) -> None:
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references: one of each per survey")


def batch_citation_recall(predictions: Sequence[Sequence[int | None]], references: Sequence[Sequence[int]]) -> dict[str, Any]:
    """predictions: resolved doc ids of each generated survey's references; references: GT ``all_cites``."""
    _check_lengths(predictions, references)
    values = [citation_recall(p, r) for p, r in zip(predictions, references, strict=True)]
    return {"recall": _mean(values), "per_survey": values}


def batch_shr(
    predictions: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    *,
    embedding_model: str = "BAAI/bge-large-en-v1.5",
    encoder: Any = None,
    device: str | None = None,
    batch_size: int = 64,
    cache_dir: Any = None,
) -> dict[str, Any]:
    """predictions: generated headings per survey; references: GT headings (sections with content)."""
    _check_lengths(predictions, references)
    if encoder is None:
        from ..models.embed import Embedder

        encoder = Embedder(embedding_model, device=device, batch_size=batch_size, cache_dir=cache_dir,
                           needed_for=("shr",), flag="embedding_model=")
    values = [soft_heading_recall(list(r), list(p), encoder) for p, r in zip(predictions, references, strict=True)]
    return {"shr": _mean(values), "per_survey": values}


def batch_rouge_bleu(predictions: Sequence[Sequence[str]], references: Sequence[Sequence[str]]) -> dict[str, Any]:
    """predictions: generated section texts (>= 100 chars) per survey; references: GT section texts."""
    from .rouge_bleu import rouge_bleu

    _check_lengths(predictions, references)
    per = [rouge_bleu(list(p), list(r)) for p, r in zip(predictions, references, strict=True)]
    out: dict[str, Any] = {k: _mean([v[k] for v in per]) for k in ("rouge1", "rouge2", "rougeL", "bleu")}
    out["per_survey"] = per
    return out


def batch_citation_accuracy(
    predictions: Sequence[str],
    references: Sequence[Mapping[str, Any]],
    *,
    data: str,
    protocol: str = "official",
    nli_model: str = "cross-encoder/nli-deberta-v3-base",
    nli: Any = None,
    device: str | None = None,
    batch_size: int = 32,
    cache_dir: Any = None,
) -> dict[str, Any]:
    """predictions: generated surveys as Markdown; references: ``{"survey_title", "all_cites"}`` of the GT.

    ``data`` is a built SurGE dataset (folder or Hub id) whose corpus resolves the reference titles.
    """
    from ..data.dataset import SurgeData
    from ..evaluation import PrefetchedNLI
    from ..survey import parse_survey

    _check_lengths(predictions, references)
    corpus = SurgeData.open(data).corpus
    prepared = []
    for markdown, gt in zip(predictions, references, strict=True):
        parsed = parse_survey(markdown, protocol=protocol)
        numbers = list(parsed.references)
        resolved = corpus.resolve([parsed.references[n].title for n in numbers])
        refs = dict(zip(numbers, resolved, strict=True))
        papers = {p.doc_id: p for p in corpus.get(sorted({d for d in resolved if d is not None})) if p}
        citations = [CitationInstance(c.number, c.node_title, c.sentence) for c in parsed.citations]
        prepared.append((refs, citations, papers, gt["survey_title"], gt["all_cites"]))
    pairs = [pair for args in prepared for pair in accuracy_pairs(*args, protocol)]
    if nli is None and pairs:  # the model is loaded only when some citation needs it
        from ..models.nli import NLIScorer

        nli = NLIScorer(nli_model, device=device, batch_size=batch_size, cache_dir=cache_dir,
                        needed_for=("citation_accuracy",), flag="nli_model=")
    if nli is not None:
        nli = PrefetchedNLI(nli)
        nli.prefetch(pairs)
    per = []
    for args in prepared:
        result = citation_accuracy(*args, nli, protocol=protocol)
        per.append({"doc_acc": result.doc_acc, "sec_acc": result.sec_acc, "sent_acc": result.sent_acc})
    out: dict[str, Any] = {k: _mean([v[k] for v in per]) for k in ("doc_acc", "sec_acc", "sent_acc")}
    out["per_survey"] = per
    return out
