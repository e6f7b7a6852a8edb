"""STORM's outline metrics: heading soft recall and heading entity recall (Shao et al., 2024).

Both compare the *set* of generated headings with the set of human headings, as STORM's
``eval/metrics.py`` and ``eval/eval_outline_quality.py`` do:

* **heading soft recall** uses the same soft cardinality as SurGE's SHR (``scoring/shr.py``),
  S(A) = sum_i 1 / sum_j cos(A_i, A_j), recall = (S(G) + S(P) - S(G ∪ P)) / S(G). What differs from SHR:
  headings are de-duplicated sets on both sides (SHR keeps repeated headings in S(H_GT) and S(H_P)); the
  ground truth is *every* heading of the human survey (SHR takes only sections with >= 100 characters of
  content); the generated headings stop at the first References / External links / See also / Notes
  heading, matched as whole words (STORM's substring test would also stop at "User Preferences").
  STORM embeds with ``paraphrase-MiniLM-L6-v2``; ``surge evaluate`` uses its ``--embedding-model``.
* **heading entity recall** = |E(G) ∩ E(P)| / |E(G)|, with E the lower-cased named entities a NER model
  finds in the headings. STORM uses flair's English NER (CoNLL-03 types); the extractor is injected here
  (``surge_dataset.models.ner`` wraps a transformers token-classification model). STORM scores 1 when
  the human headings hold no entity; we return None (undefined, left out of means) instead, because
  scientific headings often hold none and a 1 would reward any output.

Pure functions: encoders and entity extractors are passed in.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from surge_dataset.core.interfaces import TextEncoder
from surge_dataset.scoring.shr import MAX_HEADING_CHARS, soft_cardinality

__all__ = [
    "EntityExtractor",
    "heading_entities",
    "heading_entity_recall",
    "heading_soft_recall",
    "storm_headings",
]

#: STORM's outline cut: the first heading naming one of these ends the outline.
STOP_HEADING_RE = re.compile(r"\b(?:references|external links|see also|notes)\b", re.I)


class EntityExtractor(Protocol):
    def entities(self, texts: Sequence[str]) -> list[list[str]]: ...


def storm_headings(headings: Sequence[str]) -> list[str]:
    """Headings up to the first References / External links / See also / Notes one, ``#`` and blanks
    stripped, de-duplicated in order (STORM compares sets)."""
    kept: list[str] = []
    for heading in headings:
        text = heading.strip().strip("#").strip()
        if STOP_HEADING_RE.search(text):
            break
        if text:
            kept.append(text[:MAX_HEADING_CHARS])
    return list(dict.fromkeys(kept))


def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


def heading_soft_recall(gt_headings: Sequence[str], generated_headings: Sequence[str], encoder: TextEncoder) -> float | None:
    """STORM's heading soft recall over de-duplicated heading sets; None without GT headings, 0 without
    generated ones. Inputs are used as given (apply :func:`storm_headings` first for STORM's cut)."""
    gt = list(dict.fromkeys(gt_headings))
    generated = list(dict.fromkeys(generated_headings))
    if not gt:
        return None
    if not generated:
        return 0.0
    union = list(dict.fromkeys([*gt, *generated]))
    vectors = _unit(encoder.encode(union))
    position = {text: i for i, text in enumerate(union)}
    s_gt = soft_cardinality(vectors[[position[h] for h in gt]])
    if s_gt == 0:  # e.g. zero vectors: no cardinality to divide by
        return None
    s_generated = soft_cardinality(vectors[[position[h] for h in generated]])
    return (s_gt + s_generated - soft_cardinality(vectors)) / s_gt


def heading_entities(headings: Sequence[str], extractor: EntityExtractor) -> set[str]:
    """The lower-cased, stripped entity strings found in the headings."""
    texts = [h for h in headings if h.strip()]
    found = extractor.entities(texts) if texts else []
    return {e.strip().lower() for entities in found for e in entities if e.strip()}


def heading_entity_recall(
    gt_headings: Sequence[str], generated_headings: Sequence[str], extractor: EntityExtractor
) -> tuple[float | None, int]:
    """(recall, number of GT entities): share of the GT headings' entities that the generated headings
    also name; None when the GT headings name no entity (STORM would say 1)."""
    gt = heading_entities(gt_headings, extractor)
    if not gt:
        return None, 0
    generated = heading_entities(generated_headings, extractor)
    return len(gt & generated) / len(gt), len(gt)
