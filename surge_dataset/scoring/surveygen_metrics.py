"""SurveyGen's objective metrics (protocol.md §8): citation P/R/F1, structural overlap, survey similarity.

Choices the SurveyGen paper leaves open, fixed here and documented in docs/judges.md:

* ``citation_prf``: titles are compared after ``rapidfuzz.utils.default_process`` (lower case, only
  letters, digits and spaces) with every run of white space then reduced to one space
  (:func:`title_key`; ``default_process`` alone turns ``"title - a study"`` into ``"title   a study"``);
  a pair matches when ``fuzz.ratio`` > 95 (textual similarity > 0.95, the paper's "exceeds"). Both
  sides are sets (duplicates by processed title collapse) and matching is one-to-one, greedy by
  descending ratio, so |R_L ∩ R_H| is one number shared by precision and recall: two generated titles
  close to the same GT title count once.
* ``structure_overlap``: top-level sections only; non-content sections (funding, acknowledgements,
  author contributions, competing interests, supplementary material, plus references/bibliography,
  which generated surveys carry as a section and SurGE GT structures do not) are removed. A survey
  whose only remaining top-level heading has children (a title heading) is read one level down. Sections
  match one-to-one, greedily by descending cosine similarity, while it is > 0.8 (the paper, §3.2: "semantic
  similarity *exceeding* a predefined threshold", 0.8 in Appendix D.1; a similarity of exactly 0.8 does not
  match); S = 2·matches / (|S_H| + |S_G|).
* ``sim``: each survey becomes the normalised mean of its chunk embeddings (sections, heading plus
  text, split into pieces of at most 1,500 characters so no piece is silently truncated by the
  encoder); ``sim`` is the cosine of the two survey vectors.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from surge_dataset.core.interfaces import TextEncoder
from surge_dataset.core.records import Survey
from surge_dataset.survey import GeneratedSurvey, SurveyNode

__all__ = [
    "CITATION_MATCH_THRESHOLD",
    "SECTION_MATCH_THRESHOLD",
    "citation_prf",
    "generated_chunks",
    "generated_top_level",
    "generated_top_level_nodes",
    "greedy_matches",
    "gt_chunks",
    "gt_top_level",
    "is_non_content_section",
    "structure_overlap",
    "survey_similarity",
    "title_key",
]

CITATION_MATCH_THRESHOLD = 0.95
SECTION_MATCH_THRESHOLD = 0.8
SIM_CHUNK_CHARS = 1500

_NON_CONTENT_RE = re.compile(
    r"^(?:declarations? of )?(?:funding(?: information| sources?)?|acknowledge?ments?|"
    r"authors?'? contributions?|contributions? of (?:the )?authors?|competing interests?|"
    r"conflicts? of interests?|supplementary (?:materials?|information|data)|references?|bibliography)$"
)
_NUMBERING_RE = re.compile(r"^(?:(?:\d+(?:\.\d+)*|[ivxlc]+|[a-z])[.)]?\s+)", re.I)


def is_non_content_section(title: str) -> bool:
    """Funding, acknowledgements, ... references: sections that say nothing about the survey's topic."""
    text = re.sub(r"[*_#`]", "", title).strip().lower()
    text = _NUMBERING_RE.sub("", text)
    text = re.sub(r"[^a-z' ]+", " ", text)
    text = re.sub(r"\s+", " ", text).strip(" '")
    return bool(_NON_CONTENT_RE.match(text))


def greedy_matches(similarity: np.ndarray, threshold: float, *, strict: bool = False) -> list[tuple[int, int, float]]:
    """One-to-one pairs (row, column, value), highest value first, while value >= threshold (> if strict).

    Ties are broken by row, then column, so the result is deterministic.
    """
    sim = np.asarray(similarity, dtype=np.float64)
    if sim.size == 0:
        return []
    rows, cols = np.nonzero(sim > threshold if strict else sim >= threshold)
    order = sorted(zip(rows.tolist(), cols.tolist(), strict=True), key=lambda rc: (-sim[rc], rc[0], rc[1]))
    used_rows: set[int] = set()
    used_cols: set[int] = set()
    pairs = []
    for r, c in order:
        if r not in used_rows and c not in used_cols:
            used_rows.add(r)
            used_cols.add(c)
            pairs.append((r, c, float(sim[r, c])))
    return pairs


# ------------------------------------------------------------------------------------- citation P/R/F1


def title_key(title: str) -> str:
    """A title as ``citation_prf`` compares it: ``default_process``, then white-space runs made one space."""
    from rapidfuzz.utils import default_process

    return " ".join(default_process(title).split())


def citation_prf(generated_titles: Sequence[str], gt_titles: Sequence[str],
                 threshold: float = CITATION_MATCH_THRESHOLD) -> dict[str, float | int | None]:
    """Precision, recall, F1 of the generated reference titles against the GT's cited titles.

    No generated titles: all three 0. No GT titles: all None (undefined).
    """
    from rapidfuzz import fuzz, process

    generated = list(dict.fromkeys(t for t in map(title_key, generated_titles) if t))
    gt = list(dict.fromkeys(t for t in map(title_key, gt_titles) if t))
    if not gt:
        return {"precision": None, "recall": None, "f1": None, "matched": 0, "generated": len(generated), "gt": 0}
    matched = 0
    if generated:
        scores = process.cdist(generated, gt, scorer=fuzz.ratio, score_cutoff=threshold * 100, dtype=np.float32)
        matched = len(greedy_matches(scores / 100.0, threshold, strict=True))
    precision = matched / len(generated) if generated else 0.0
    recall = matched / len(gt)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "matched": matched,
            "generated": len(generated), "gt": len(gt)}


# ------------------------------------------------------------------------------------ structure overlap


def _top_level(titles_and_children: list[tuple[str, list[str]]]) -> list[str]:
    """Non-content sections removed; a lone remaining top-level heading with children is a title: go down."""
    kept = [(t, [c for c in kids if not is_non_content_section(c)]) for t, kids in titles_and_children
            if not is_non_content_section(t)]
    if len(kept) == 1 and kept[0][1]:
        return kept[0][1]
    return [t for t, _ in kept]


def gt_top_level(gt: Survey) -> list[str]:
    """Top-level section titles of a GT survey (non-content sections removed)."""
    tree = gt.tree()
    return _top_level([(c.title, [g.title for g in c.children]) for c in tree.children])


def generated_top_level_nodes(parsed: GeneratedSurvey) -> list[SurveyNode]:
    """The nodes of :func:`generated_top_level` (Rel_LLM per section reads their text too)."""
    kept = {id(n) for n in parsed.headings()}
    top = [c for c in parsed.root.children if id(c) in kept and not is_non_content_section(c.title)]
    if len(top) == 1:  # a lone heading with children is the survey's title: its children are the sections
        children = [g for g in top[0].children if id(g) in kept and not is_non_content_section(g.title)]
        if children:
            return children
    return top


def generated_top_level(parsed: GeneratedSurvey) -> list[str]:
    """Top-level headings of a generated survey, under its protocol's skip rules, non-content removed."""
    return [node.title for node in generated_top_level_nodes(parsed)]


def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


def structure_overlap(gt_sections: Sequence[str], generated_sections: Sequence[str], encoder: TextEncoder,
                      threshold: float = SECTION_MATCH_THRESHOLD) -> float | None:
    """S = 2·matches / (|S_H| + |S_G|), a pair matching when its cosine is > ``threshold``; None when both
    lists are empty, 0 when one is."""
    gt, generated = list(gt_sections), list(generated_sections)
    if not gt and not generated:
        return None
    if not gt or not generated:
        return 0.0
    vectors = _unit(encoder.encode(gt + generated))
    similarity = vectors[: len(gt)] @ vectors[len(gt) :].T
    matches = greedy_matches(similarity, threshold, strict=True)
    return 2 * len(matches) / (len(gt) + len(generated))


# ----------------------------------------------------------------------------------------------- sim


def _pieces(text: str, size: int = SIM_CHUNK_CHARS) -> list[str]:
    text = text.strip()
    return [text[i : i + size] for i in range(0, len(text), size)] if text else []


def gt_chunks(gt: Survey) -> list[str]:
    chunks = []
    for node in gt.tree().walk():
        if node.depth > 0 and is_non_content_section(node.title):
            continue
        title = node.title if node.depth > 0 else ""
        chunks += _pieces(f"{title}\n{node.content}")
    return chunks


def generated_chunks(parsed: GeneratedSurvey) -> list[str]:
    chunks = []
    for node in parsed.nodes():
        if node.level > 0 and is_non_content_section(node.title):
            continue
        title = node.title if node.level > 0 else ""
        chunks += _pieces(f"{title}\n{node.content}")
    return chunks


def survey_similarity(gt_chunk_texts: Sequence[str], generated_chunk_texts: Sequence[str], encoder: TextEncoder) -> float | None:
    """Cosine of the mean chunk embeddings; None without GT text, 0 without generated text."""
    if not gt_chunk_texts:
        return None
    if not generated_chunk_texts:
        return 0.0
    gt, generated = list(gt_chunk_texts), list(generated_chunk_texts)
    vectors = _unit(encoder.encode(gt + generated))
    a = _unit(vectors[: len(gt)].mean(axis=0))
    b = _unit(vectors[len(gt) :].mean(axis=0))
    return float(a @ b)
