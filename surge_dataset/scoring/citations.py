"""Citation recall and citation accuracy (Doc-, Sec-, Sent-Acc), under both protocols, as pure functions.

No file I/O and no model loading here: the caller passes the parsed survey, the resolution of its
reference list, the ground truth and an NLI backend (anything with ``logits(pairs)`` returning
canonical (contradiction, entailment, neutral) columns). The two protocols differ exactly as
protocol.md §4 lists; both live side by side so the difference is visible in one screen of code.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from surge_dataset.core.interfaces import NLIBackend, Pair
from surge_dataset.core.records import Paper
from surge_dataset.core.vocabulary import OFFICIAL, PAPER, PROTOCOLS

CONTRADICTION, ENTAILMENT, NEUTRAL = 0, 1, 2  # canonical logit columns (surge_dataset.models.nli)
#: Citation accuracy's levels: document (Doc-Acc), section (Sec-Acc), sentence (Sent-Acc).
LEVELS = ("doc", "sec", "sent")


# ------------------------------------------------------------------------------------------ templates


def premise(paper: Paper, *, quote_abstract: bool = False, missing_abstract: str = "") -> str:
    """The cited paper as NLI premise (protocol.md §4).

    The released evaluator quotes the abstract at document level only
    (``Abstract: '<A>'``); section and sentence level, and the paper's text, leave it unquoted.
    ``missing_abstract`` stands for a null abstract: the released code formats it as ``None``.
    """
    abstract = paper.abstract if paper.abstract is not None else missing_abstract
    if quote_abstract:
        abstract = f"'{abstract}'"
    return f"There is a paper. Title: '{paper.title}'. Abstract: {abstract}"


def doc_hypothesis(paper: Paper, survey_title: str) -> str:
    return f"The paper titled '{paper.title}' with the given abstract could be cited in the paper: '{survey_title}'."


def section_hypothesis(paper: Paper, heading: str) -> str:
    return f"The paper titled '{paper.title}' with the given abstract is relevant to the section: '{heading}'."


def sentence_hypothesis(paper: Paper, sentence: str) -> str:
    return f"The paper titled '{paper.title}' with the given abstract could be cited in the sentence: '{sentence}'."


def nli_pair(level: str, paper: Paper, context: str, protocol: str) -> Pair:
    """The (first, second) text pair fed to the cross-encoder for one scored item.

    Document level is (premise, hypothesis) in both protocols; at section and sentence level the
    released evaluator feeds (hypothesis, premise), and it quotes the abstract at document level only --
    both reproduced under ``official``.
    """
    hypothesis = {"doc": doc_hypothesis, "sec": section_hypothesis, "sent": sentence_hypothesis}[level](paper, context)
    if protocol == OFFICIAL:
        if level == "doc":
            return premise(paper, quote_abstract=True, missing_abstract="None"), hypothesis
        return hypothesis, premise(paper, missing_abstract="None")
    return premise(paper), hypothesis


def nli_item_score(logits: Sequence[float], protocol: str) -> float:
    """1 if entailment is the top label, 0.5 for neutral, else 0.

    ``official``: the released evaluator's strict comparisons -- a label tied for the top is not the
    top (entailment equal to neutral scores 0), and neutral earns 0.5 only when the entailment logit
    also exceeds the contradiction logit. ``paper``: the arg-max label; neutral always earns 0.5.
    """
    if protocol == OFFICIAL:
        c, e, n = logits[CONTRADICTION], logits[ENTAILMENT], logits[NEUTRAL]
        if e > c and e > n:
            return 1.0
        return 0.5 if n > c and n > e and e > c else 0.0
    top = int(np.argmax(logits))
    if top == ENTAILMENT:
        return 1.0
    if top == NEUTRAL:
        if protocol == PAPER or logits[ENTAILMENT] > logits[CONTRADICTION]:
            return 0.5
    return 0.0


def softmax(logits: Sequence[float]) -> list[float]:
    values = np.asarray(logits, dtype=np.float64)
    exp = np.exp(values - values.max())
    return (exp / exp.sum()).round(6).tolist()


# ------------------------------------------------------------------------------------------ recall


def citation_recall(
    resolved_doc_ids: Iterable[int | None], gt_cites: Sequence[int], *, protocol: str = "official"
) -> float | None:
    """|GT all_cites ∩ resolved doc ids| / |GT all_cites|; None when the GT cites nothing (undefined).

    ``paper`` counts distinct papers. ``official`` counts the entries of ``all_cites`` as the released
    evaluator does: a doc id listed twice in ``all_cites`` is two hits (or two misses) out of its length.
    """
    resolved = {d for d in resolved_doc_ids if d is not None}
    if protocol == OFFICIAL:
        return sum(1 for d in gt_cites if d in resolved) / len(gt_cites) if gt_cites else None
    gt = set(gt_cites)
    if not gt:
        return None
    return len(gt & resolved) / len(gt)


# ------------------------------------------------------------------------------------------ accuracy


@dataclass(frozen=True)
class CitationInstance:
    """One citation occurrence: the reference number, its section heading and its sentence."""

    number: int
    heading: str
    sentence: str


@dataclass
class AccuracyResult:
    doc_acc: float | None
    sec_acc: float | None
    sent_acc: float | None
    n_doc_items: int
    n_citations: int
    details: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class _Item:
    kind: str  # "reference" (doc-level item under official) or "citation"
    number: int
    heading: str | None
    sentence: str | None


def _mean(scores: list[float]) -> float | None:
    return float(np.mean(scores)) if scores else None


def accuracy_pairs(
    references: Mapping[int, int | None],
    citations: Sequence[CitationInstance],
    papers: Mapping[int, Paper],
    gt_title: str,
    gt_cites: Iterable[int],
    protocol: str,
    levels: Collection[str] = LEVELS,
) -> list[Pair]:
    """Every NLI pair :func:`citation_accuracy` will ask for (so a run can score them all in one batch)."""
    plan = _plan(references, citations, papers, gt_title, set(gt_cites), protocol, levels)
    return [pair for _, _, pair in plan if pair]


def _paper(references: Mapping[int, int | None], papers: Mapping[int, Paper], number: int) -> Paper | None:
    doc_id = references.get(number)
    return papers.get(doc_id) if doc_id is not None else None


def _plan(references, citations, papers, gt_title, gt_cites, protocol, levels=LEVELS):
    """(level, item, pair-or-None) for every scored item of ``levels``; None pair = scored without the model."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; expected one of {PROTOCOLS}")
    unknown = set(levels) - set(LEVELS)
    if unknown:
        raise ValueError(f"unknown citation accuracy level(s) {sorted(unknown)}; expected some of {LEVELS}")
    plan: list[tuple[str, _Item, Pair | None]] = []
    citation_items = [_Item("citation", c.number, c.heading, c.sentence) for c in citations]
    # document level: over the reference-list entries (released evaluator) or over citation instances
    doc_items = [_Item("reference", n, None, None) for n in references] if protocol == OFFICIAL else citation_items
    for item in doc_items if "doc" in levels else ():
        paper = _paper(references, papers, item.number)
        needs_model = paper is not None and references[item.number] not in gt_cites
        plan.append(("doc", item, nli_pair("doc", paper, gt_title, protocol) if needs_model else None))
    for item in citation_items:
        paper = _paper(references, papers, item.number)
        for level, context in (("sec", item.heading), ("sent", item.sentence)):
            if level in levels:
                plan.append((level, item, nli_pair(level, paper, context, protocol) if paper else None))
    return plan


def citation_accuracy(
    references: Mapping[int, int | None],
    citations: Sequence[CitationInstance],
    papers: Mapping[int, Paper],
    gt_title: str,
    gt_cites: Iterable[int],
    nli: NLIBackend,
    *,
    protocol: str = "official",
    with_details: bool = False,
    levels: Collection[str] = LEVELS,
) -> AccuracyResult:
    """Doc-Acc, Sec-Acc and Sent-Acc of one generated survey.

    ``references`` maps each reference-list number to its resolved doc id (None = not in the corpus);
    ``citations`` are the citation instances in document order; ``papers`` holds the resolved papers.
    Unresolved references and citations of numbers absent from the list score 0 at every level; a
    reference in the GT ``all_cites`` gets document score 1 without the model. Means over no items
    are None. ``levels``: the levels to score (the others come back None).
    """
    gt_cites = set(gt_cites)
    plan = _plan(references, citations, papers, gt_title, gt_cites, protocol, levels)
    pairs = [pair for _, _, pair in plan if pair]
    logits = np.asarray(nli.logits(pairs)) if pairs else np.zeros((0, 3))
    scores: dict[str, list[float]] = {"doc": [], "sec": [], "sent": []}
    rows: dict[int, dict[str, Any]] = {}  # one details record per reference entry / citation instance
    cursor = 0
    for level, item, pair in plan:
        doc_id = references.get(item.number)
        if pair is not None:
            row = logits[cursor]
            cursor += 1
            score, probs = nli_item_score(row, protocol), softmax(row)
            why = "nli"
        else:
            probs = None
            if item.number not in references:
                score, why = 0.0, "reference number missing from the reference list"
            elif doc_id is None:
                score, why = 0.0, "title not found in the corpus (not_in_corpus)"
            elif level == "doc" and doc_id in gt_cites:
                score, why = 1.0, "in the ground truth's all_cites"
            else:
                score, why = 0.0, "resolved paper missing from the corpus lookup"
        scores[level].append(score)
        if with_details:
            record = rows.setdefault(
                id(item),
                {"kind": item.kind, "number": item.number, "heading": item.heading, "sentence": item.sentence,
                 "doc_id": doc_id},
            )
            record[f"{level}_score"] = score
            record[f"{level}_why"] = why
            if probs is not None:
                record[f"{level}_probs"] = dict(zip(("contradiction", "entailment", "neutral"), probs, strict=True))
    return AccuracyResult(
        doc_acc=_mean(scores["doc"]),
        sec_acc=_mean(scores["sec"]),
        sent_acc=_mean(scores["sent"]),
        n_doc_items=len(scores["doc"]),
        n_citations=len(citations),
        details=list(rows.values()),
    )
