"""ALCE and STORM's heading metrics over plain Python batches: what their ``evaluate`` modules call.

Same contract as ``scoring/batch.py`` (one entry per survey, the mean plus per-survey values, models by
name or injected), kept in its own module so each metric family stays in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .alce import (
    STAGES,
    JudgeEntailment,
    NLIEntailment,
    alce_citation_scores,
    alce_sentences,
    alce_stage_pairs,
)
from .batch import _check_lengths, _encoder, _judge, _mean
from .heading_recall import heading_entity_recall, heading_soft_recall, storm_headings

__all__ = ["batch_alce", "batch_heading_entity_recall", "batch_heading_soft_recall"]


def batch_alce(
    predictions: Sequence[str],
    *,
    data: str,
    protocol: str = "official",
    backend: str = "nli",
    nli_model: str = "cross-encoder/nli-deberta-v3-base",
    nli: Any = None,
    judge: Any = None,
    device: str | None = None,
    batch_size: int = 32,
    cache_dir: Any = None,
    **judge_options: Any,
) -> dict[str, Any]:
    """predictions: generated surveys as Markdown; ``data`` (a built SurGE dataset) resolves their references.

    ``backend``: ``nli`` (the cross-encoder ``nli_model``, loaded only when some sentence has citations
    with text) or ``judge`` (``judge=`` spec or object, the LLM as NLI).
    """
    from ..data.dataset import SurgeData
    from ..evaluation import PrefetchedNLI, resolve_citations
    from ..survey import parse_survey

    if backend not in ("nli", "judge"):
        raise ValueError(f"backend must be 'nli' or 'judge', not {backend!r}")
    corpus = SurgeData.open(data).corpus
    inputs = []
    for markdown in predictions:
        parsed = parse_survey(markdown, protocol=protocol)
        references, papers, _ = resolve_citations(parsed, corpus)
        inputs.append((alce_sentences(parsed), references, papers))

    class _Lazy:
        """Loads the cross-encoder on the first pair, so surveys without usable citations need no model."""

        def __init__(self) -> None:
            self.model: Any = None

        def logits(self, pairs: Sequence[tuple[str, str]]) -> Any:
            if self.model is None:
                from ..models.nli import NLIScorer

                self.model = nli if nli is not None else NLIScorer(
                    nli_model, device=device, batch_size=batch_size, cache_dir=cache_dir, needed_for=("alce",),
                    flag="nli_model=")
            return self.model.logits(pairs)

    if backend == "judge":
        entailment: Any = JudgeEntailment(_judge(judge, device=device, cache_dir=cache_dir, **judge_options))
    else:
        entailment = NLIEntailment(PrefetchedNLI(_Lazy()))
    for stage in STAGES:
        entailment.entails([pair for s, refs, papers in inputs for pair in alce_stage_pairs(stage, s, refs, papers, entailment)])
    per = []
    for sentences, references, papers in inputs:
        result = alce_citation_scores(sentences, references, papers, entailment)
        per.append({"alce_citation_recall": result.recall, "alce_citation_precision": result.precision,
                    "sentences": result.sentences, "citations": result.citations,
                    "overcited": result.overcited, "unusable": result.unusable, "undecided": result.undecided})
    out: dict[str, Any] = {k: _mean([v[k] for v in per]) for k in ("alce_citation_recall", "alce_citation_precision")}
    out["per_survey"] = per
    return out


def batch_heading_soft_recall(
    predictions: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    *,
    embedding_model: str = "BAAI/bge-large-en-v1.5",
    encoder: Any = None,
    device: str | None = None,
    batch_size: int = 64,
    cache_dir: Any = None,
) -> dict[str, Any]:
    """predictions / references: generated / GT headings per survey (STORM's cut and de-duplication applied)."""
    _check_lengths(predictions, references)
    encoder = _encoder(encoder, embedding_model, device, batch_size, cache_dir, "heading_soft_recall")
    values = [heading_soft_recall(storm_headings(r), storm_headings(p), encoder)
              for p, r in zip(predictions, references, strict=True)]
    return {"heading_soft_recall": _mean(values), "per_survey": values}


def batch_heading_entity_recall(
    predictions: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    *,
    ner_model: str = "dslim/bert-base-NER",
    ner: Any = None,
    device: str | None = None,
    batch_size: int = 32,
) -> dict[str, Any]:
    """predictions / references: generated / GT headings per survey; entities by the NER model."""
    _check_lengths(predictions, references)
    if ner is None:
        from ..models.ner import NERExtractor

        ner = NERExtractor(ner_model, device=device, batch_size=batch_size, flag="ner_model=")
    values = [heading_entity_recall(storm_headings(r), storm_headings(p), ner)[0]
              for p, r in zip(predictions, references, strict=True)]
    return {"heading_entity_recall": _mean(values), "per_survey": values}
