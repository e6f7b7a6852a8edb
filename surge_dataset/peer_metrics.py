"""Metrics of peer benchmarks inside ``surge evaluate``: ALCE citation recall/precision and STORM's
heading soft recall and heading entity recall.

The metrics themselves are pure functions in ``scoring/alce.py`` and ``scoring/heading_recall.py``; this
module is the glue ``evaluation.py`` calls (what to prefetch for a whole run, how to fill one survey's
result), kept apart so the evaluator only gains a few hook calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .models.ner import DEFAULT_NER_MODEL
from .records import Survey
from .scoring.alce import (
    STAGES,
    JudgeEntailment,
    NLIEntailment,
    alce_citation_scores,
    alce_sentences,
    alce_stage_pairs,
)
from .scoring.heading_recall import heading_entity_recall, heading_soft_recall, storm_headings
from .survey import GeneratedSurvey

if TYPE_CHECKING:
    from .evaluation import EvaluationConfig, PreparedSurvey

__all__ = [
    "ALCE_BACKENDS",
    "DEFAULT_NER_MODEL",
    "PEER_CONFIG_DEFAULTS",
    "PEER_METRIC_KEYS",
    "gt_headings",
    "generated_headings",
    "needs_judge",
    "needs_ner",
    "needs_nli",
    "peer_encoder_texts",
    "prefetch_peer",
    "score_peer",
]

#: metric group -> result keys (merged into ``evaluation.METRIC_KEYS``).
PEER_METRIC_KEYS: dict[str, tuple[str, ...]] = {
    "alce": ("alce_citation_recall", "alce_citation_precision"),
    "heading_soft_recall": ("heading_soft_recall",),
    "heading_entity_recall": ("heading_entity_recall",),
}
#: Config fields added with these metrics and the filters, at their defaults: left out of the journal key
#: when unchanged, so journals written before they existed keep their key.
PEER_CONFIG_DEFAULTS: dict[str, object] = {"alce_backend": "nli", "ner_model": DEFAULT_NER_MODEL,
                                           "min_cites": 0, "exclude_empty": False}
#: What decides entailment for ALCE: the NLI cross-encoder (``--nli-model``) or the LLM judge (``--judge``).
ALCE_BACKENDS = ("nli", "judge")


def needs_nli(config: EvaluationConfig) -> bool:
    return "alce" in config.metrics and config.alce_backend == "nli"


def needs_judge(config: EvaluationConfig) -> bool:
    return "alce" in config.metrics and config.alce_backend == "judge"


def needs_ner(config: EvaluationConfig) -> bool:
    return "heading_entity_recall" in config.metrics


def gt_headings(gt: Survey) -> list[str]:
    """Every heading of the human survey, content or not (STORM's ground truth), cut as STORM does."""
    return storm_headings([node.title for node in gt.tree().walk() if node.depth > 0])


def generated_headings(parsed: GeneratedSurvey) -> list[str]:
    """The generated headings (the protocol's skip rule applied) up to the references heading."""
    return storm_headings(parsed.heading_titles())


def peer_encoder_texts(prepared: PreparedSurvey, config: EvaluationConfig) -> list[str]:
    """Texts the heading soft recall will embed (prefetched with the other embedding metrics)."""
    if "heading_soft_recall" not in config.metrics:
        return []
    return [*gt_headings(prepared.gt), *generated_headings(prepared.parsed)]


def _entailment(config: EvaluationConfig, nli: Any, judge: Any) -> NLIEntailment | JudgeEntailment:
    if config.alce_backend not in ALCE_BACKENDS:
        raise ValueError(f"alce_backend must be one of {ALCE_BACKENDS}, not {config.alce_backend!r}")
    if config.alce_backend == "judge":
        if judge is None:
            raise ValueError("ALCE with alce_backend='judge' needs an LLM judge (--judge)")
        return JudgeEntailment(judge)
    if nli is None:
        raise ValueError("ALCE with alce_backend='nli' needs an NLI model")
    return NLIEntailment(nli)


def prefetch_peer(prepared: Sequence[PreparedSurvey], config: EvaluationConfig, *, nli: Any = None,
                  judge: Any = None, ner: Any = None) -> None:
    """Ask every model question of the run in as few batches as the stages allow.

    ALCE: one batch per stage (joint premises, then single citations, then leave-one-out), all surveys
    together; the backends memoise, so scoring afterwards only reads. NER: every heading at once.
    """
    if "alce" in config.metrics and prepared:
        entailment = _entailment(config, nli, judge)
        inputs = [(alce_sentences(p.parsed), p.references, p.papers) for p in prepared]
        for stage in STAGES:
            entailment.entails([pair for s, refs, papers in inputs
                                for pair in alce_stage_pairs(stage, s, refs, papers, entailment)])
    if needs_ner(config) and prepared:
        ner.entities([h for p in prepared for h in (*gt_headings(p.gt), *generated_headings(p.parsed))])


def score_peer(
    prepared: PreparedSurvey,
    config: EvaluationConfig,
    result: dict[str, Any],
    diagnostics: list[dict[str, Any]],
    details: list[dict[str, Any]],
    *,
    nli: Any = None,
    judge: Any = None,
    encoder: Any = None,
    ner: Any = None,
    with_details: bool = False,
) -> dict[str, int]:
    """Fill ``result`` with the requested peer metrics of one survey; returns counts for ``counts``."""
    counts: dict[str, int] = {}
    if "alce" in config.metrics:
        scores = alce_citation_scores(alce_sentences(prepared.parsed), prepared.references, prepared.papers,
                                      _entailment(config, nli, judge), with_details=with_details)
        result["alce_citation_recall"] = scores.recall
        result["alce_citation_precision"] = scores.precision
        counts.update(alce_sentences=scores.sentences, alce_supported=scores.supported,
                      alce_citations=scores.citations, alce_correct=scores.correct,
                      alce_overcited=scores.overcited, alce_unusable=scores.unusable,
                      alce_undecided=scores.undecided)
        if scores.failed:  # a journal record with *_failed is scored again on a rerun
            counts["alce_failed"] = scores.failed
        if scores.recall is None and not scores.undecided:
            diagnostics.append({"code": "no_alce_sentences", "line": None,
                                "message": "no sentence in the survey's text: ALCE citation recall/precision undefined"})
        if scores.undecided:
            diagnostics.append({"code": "alce_undecided", "line": None,
                                "message": f"ALCE: {scores.undecided} sentence(s)/citation(s) without a judge decision "
                                           "were left out"})
        details.extend(scores.details)
    if "heading_soft_recall" in config.metrics:
        result["heading_soft_recall"] = heading_soft_recall(gt_headings(prepared.gt), generated_headings(prepared.parsed), encoder)
    if "heading_entity_recall" in config.metrics:
        value, n = heading_entity_recall(gt_headings(prepared.gt), generated_headings(prepared.parsed), ner)
        result["heading_entity_recall"] = value
        counts["gt_heading_entities"] = n
        if value is None:
            diagnostics.append({"code": "gt_without_heading_entities", "line": None,
                                "message": "the NER model finds no entity in the GT headings: heading entity recall undefined"})
    return counts
