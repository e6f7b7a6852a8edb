"""One label per reference entry, from what the sources answered (pure: no I/O).

* ``in_corpus``  its title resolves to a corpus paper: exactly (the evaluator's rule) or, failing that, by the
  nearest corpus title scoring at least the threshold (evidence: the doc id);
* ``exists``     a source returned a paper whose title scores at least the threshold (evidence: the source,
  its id, DOI, arXiv id, year and the score);
* ``not_found``  every source asked answered, and none returned a close enough title (a near miss is kept as
  evidence); also an entry with no title to search, and, offline, every title the corpus lacks;
* ``unchecked``  some source failed (HTTP errors after the retries, a service down) and none found it: never
  counted as fabricated, left out of ``reference_existence``'s denominator.

Sources are asked in order and the first match settles the label, so a later source is asked only for the
titles still unresolved.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from surge_dataset.core.normalise import normalise_title
from surge_dataset.core.vocabulary import CORPUS, EXISTS, IN_CORPUS, NOT_FOUND, UNCHECKED, ReferenceLabel
from surge_dataset.references.base import Candidate, SourceAnswer
from surge_dataset.references.match import match_score

__all__ = ["Evidence", "best_candidate", "date_key", "label_reference", "published_after"]


@dataclass(frozen=True)
class Evidence:
    """A reference's label and why: the paper that settled it, or what was searched and what failed."""

    label: ReferenceLabel
    source: str | None = None  # corpus, surveygen, openalex, ...
    doc_id: int | None = None  # in_corpus
    id: str | None = None  # the source's own id (OpenAlex W..., S2 paperId, arXiv id, DOI)
    doi: str | None = None
    arxiv_id: str | None = None
    year: int | None = None
    date: str | None = None
    score: float | None = None
    matched_title: str | None = None  # the found paper's title as plain text (what was compared)
    matched_raw_title: str | None = None  # ... as the service sent it, when it held markup (for audit)
    method: str | None = None  # exact / fuzzy (corpus), title search (the others)
    searched: tuple[str, ...] = ()  # the sources that answered
    failed: tuple[str, ...] = ()  # "source: why" for each that did not
    near: dict[str, Any] | None = field(default=None)  # the closest title below the threshold, if any
    reason: str | None = None

    def as_record(self) -> dict[str, Any]:
        """The ``--details`` fields (empty ones dropped, tuples as lists)."""
        record = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()}
        return {k: v for k, v in record.items() if v not in (None, [], ())}


def best_candidate(title: str, candidates: Sequence[Candidate]) -> tuple[Candidate, float] | None:
    """The candidate whose title is closest to ``title``, with its score (ties: the source's order)."""
    best: tuple[Candidate, float] | None = None
    for candidate in candidates:
        score = match_score(title, candidate.title)
        if best is None or score > best[1]:
            best = (candidate, score)
    return best


def label_reference(title: str, exact_doc_id: int | None, answers: Sequence[SourceAnswer],
                    threshold: float) -> Evidence:
    """The label of one reference entry: its exact corpus doc id if any, else the first source's close match."""
    if exact_doc_id is not None:
        return Evidence(IN_CORPUS, source=CORPUS, doc_id=exact_doc_id, method="exact", score=100.0,
                        searched=(CORPUS,))
    if not normalise_title(title):
        return Evidence(NOT_FOUND, reason="no title to search (no letters a-z)")
    searched: list[str] = []
    failed: list[str] = []
    near: dict[str, Any] | None = None
    for answer in answers:
        if answer.error is not None:
            failed.append(f"{answer.source}: {answer.error}")
            continue
        searched.append(answer.source)
        best = best_candidate(title, answer.candidates)
        if best is None:
            continue
        candidate, score = best
        if score >= threshold:
            corpus = answer.source == CORPUS
            return Evidence(
                IN_CORPUS if corpus else EXISTS, source=answer.source,
                doc_id=int(candidate.id) if corpus and candidate.id is not None else None,
                id=None if corpus else candidate.id, doi=candidate.doi, arxiv_id=candidate.arxiv_id,
                year=candidate.year, date=candidate.date, score=score, matched_title=candidate.title,
                matched_raw_title=candidate.raw_title, method="fuzzy" if corpus else "title search",
                searched=tuple(searched), failed=tuple(failed))
        if near is None or score > near["score"]:
            near = {"source": answer.source, "title": candidate.title, "score": score,
                    **({"raw_title": candidate.raw_title} if candidate.raw_title else {})}
    if failed:
        return Evidence(UNCHECKED, searched=tuple(searched), failed=tuple(failed), near=near,
                        reason="a source failed and none found the title")
    return Evidence(NOT_FOUND, searched=tuple(searched), near=near,
                    reason="no source returned a close enough title" if searched else "no source was asked")


def date_key(value: Any) -> str | None:
    """``YYYY-MM-DD`` (or ``YYYY``) prefix of an ISO-like date or a year, for comparing dates of either precision."""
    if value is None:
        return None
    text = str(value).strip()
    if len(text) >= 10 and text[4] == "-" and text[7] == "-":
        return text[:10]
    return text[:4] if text[:4].isdigit() else None


def published_after(date: Any, year: Any, survey_date: Any, survey_year: Any = None) -> bool:
    """Whether a paper dated ``date`` (else ``year``) comes after the survey (compared at the coarser precision:
    a paper of 2021 is not after a survey of 2021-05-01)."""
    paper = date_key(date) or date_key(year)
    survey = date_key(survey_date) or date_key(survey_year)
    if not paper or not survey:
        return False
    width = min(len(paper), len(survey))
    return paper[:width] > survey[:width]
