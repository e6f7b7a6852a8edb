"""``surge data surveygen-select``: SurveyGen's construction filters (its §2.2) on a user's own S2ORC-style
candidates, and the paper's evaluation subset (its §3.1).

The filters, in the paper's order, for candidate files in SurveyGen's layout (one survey each):

1. *is a survey* (optional): the paper asked three LLMs whether the title and abstract describe a survey-type
   article under three criteria and kept a candidate by majority vote; papers without an abstract were excluded
   at this step. Here each ``--judge`` is one voter (a :class:`~surge_dataset.llm.Judge`, a two-option choice);
   a candidate is kept when more than half of the judges say survey (a judge that gives no answer votes no).
2. *long enough*: at least ``min_references`` (30) references and ``min_sections`` (3) top-level sections. A
   top-level section is one without numbering or with a one-part number (``"3"``, ``"3."``); figure/table
   captions without text are not sections (the conversion's rules).

The evaluation subset: "120 highly cited surveys from SurveyGen, with 30 selected from each of four domains:
Biology, Medicine, Psychology, and Computer Science". We read it as the ``per_domain`` most cited kept surveys
(the survey's own ``metadata.citationCount``) of each domain, the domain being the first field of study
(``metadata.fieldsOfStudy``), ties broken by the S2 corpus id; the paper does not publish its list.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import InputFileError
from surge_dataset.core.io import reading_input
from surge_dataset.data.surveygen_meta import survey_indicators

PAPER_DOMAINS = ("Biology", "Medicine", "Psychology", "Computer Science")
_NUMBER = re.compile(r"^\s*(\d{1,2}(?:\.\d{1,2})*)\.?(?:\s+|$)")
_CAPTION = re.compile(r"^\s*(?:fig(?:ure)?|tab(?:le)?)\.?\s*[0-9ivx]+[a-z]?\s*[:.]?\s*$", re.IGNORECASE)

SURVEY_PROMPT = """Is this paper a survey-type article? Judge it by three criteria: (1) it explicitly declares a \
survey intent (e.g. "conducts a survey", "provides a survey"); (2) it focuses on surveying existing work rather \
than proposing new methods or experimental results; (3) it discusses the field's trends, challenges or future \
directions.

Title: {title}
Abstract: {abstract}

Answer with one letter: A (a survey) or B (not a survey)."""


def top_level_sections(sections: Sequence[dict[str, Any]]) -> int:
    count = 0
    for section in sections:
        title = str(section.get("title") or "")
        text = any(str(p.get("text") or "").strip() for p in section.get("paragraphs") or [] if isinstance(p, dict))
        if not text and _CAPTION.match(title):
            continue
        match = _NUMBER.match(title)
        count += match is None or "." not in match.group(1)
    return count


def _read(path: Path) -> dict[str, Any]:
    with reading_input(path):
        data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("sections"), list) or not isinstance(
            data.get("references"), list):
        raise InputFileError(f"{path}: not a SurveyGen survey file (an object with 'sections' and 'references')")
    return data


def survey_votes(candidates: Sequence[dict[str, Any]], judges: Sequence[Any]) -> list[list[bool]]:
    """Each judge's vote per candidate (``{"title", "abstract"}``): True when it picked A (a survey)."""
    from surge_dataset.llm.judge import JudgeRequest

    requests = [JudgeRequest.choice([{"role": "user", "content": SURVEY_PROMPT.format(**c)}], 2) for c in candidates]
    by_judge = [[outcome.value == 0 for outcome in judge.run(requests)] for judge in judges]
    return [list(votes) for votes in zip(*by_judge, strict=True)] if judges else [[] for _ in candidates]


def select_candidates(paths: Sequence[str | Path], *, min_references: int = 30, min_sections: int = 3,
                      judges: Sequence[Any] = (), evaluation_subset: bool = False,
                      per_domain: int = 30) -> list[dict[str, Any]]:
    """One decision per file, in input order: ``{"path", "title", "references", "top_sections", "discipline",
    "citation_count", "votes", "kept", "why"}`` (``why`` None for a kept file)."""
    decisions = []
    for path in map(Path, paths):
        data = _read(path)
        meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
        info = survey_indicators(data)
        decisions.append({"path": str(path), "title": str(meta.get("title") or ""),
                          "abstract": str(meta.get("abstract") or "").strip(), "references": len(data["references"]),
                          "top_sections": top_level_sections(data["sections"]), "discipline": info["discipline"],
                          "citation_count": info["citation_count"], "corpus_id": info["corpus_id"], "votes": None,
                          "kept": True, "why": None})
    if judges:
        asked = [d for d in decisions if d["abstract"]]
        for d in decisions:
            if not d["abstract"]:
                d.update(kept=False, why="no abstract: excluded from the survey vote")
        for d, votes in zip(asked, survey_votes(asked, judges), strict=True):
            d["votes"] = votes
            if sum(votes) * 2 <= len(votes):
                d.update(kept=False, why=f"not a survey by majority vote ({sum(votes)} of {len(votes)} said survey)")
    for d in decisions:
        if d["kept"] and d["references"] < min_references:
            d.update(kept=False, why=f"{d['references']} references (< {min_references})")
        elif d["kept"] and d["top_sections"] < min_sections:
            d.update(kept=False, why=f"{d['top_sections']} top-level sections (< {min_sections})")
    if evaluation_subset:
        _evaluation_subset(decisions, per_domain)
    for d in decisions:
        del d["abstract"]
    return decisions


def _evaluation_subset(decisions: list[dict[str, Any]], per_domain: int) -> None:
    """Keep the ``per_domain`` most cited kept surveys of each of the paper's four domains; drop the rest."""
    for domain in PAPER_DOMAINS:
        ranked = sorted((d for d in decisions if d["kept"] and d["discipline"] == domain),
                        key=lambda d: (-(d["citation_count"] if d["citation_count"] is not None else -1),
                                       d["corpus_id"] if d["corpus_id"] is not None else 0))
        for d in ranked[per_domain:]:
            d.update(kept=False, why=f"not among the {per_domain} most cited {domain} surveys")
    for d in decisions:
        if d["kept"] and d["discipline"] not in PAPER_DOMAINS:
            d.update(kept=False, why=f"domain {d['discipline']!r} is not one of the evaluation subset's four")
