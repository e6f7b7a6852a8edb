"""Soft heading recall (SHR): how much of the ground truth's heading set the generated headings cover.

Soft cardinality S(A) = sum_i 1 / sum_j sim(A_i, A_j) with cosine similarities of heading embeddings;
SHR = (S(H_GT) + S(H_P) - S(H_GT ∪ H_P)) / S(H_GT) (protocol.md §4). Like the released evaluator we do
not clip: raw cosines make values slightly above 1 possible.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from surge_dataset.core.interfaces import TextEncoder
from surge_dataset.core.vocabulary import OFFICIAL

MAX_HEADING_CHARS = 512


def cut_headings(headings: Sequence[str]) -> list[str]:
    """Headings cut to :data:`MAX_HEADING_CHARS` characters, as the released ``get_title_list`` cuts them."""
    return [h[:MAX_HEADING_CHARS] for h in headings]


def soft_cardinality(embeddings: np.ndarray) -> float:
    """S(A) for row-normalised embeddings (cosine similarity = dot product); a zero row sum adds 0."""
    if len(embeddings) == 0:
        return 0.0
    sums = (embeddings @ embeddings.T).sum(axis=1)
    nonzero = sums != 0
    return float(np.sum(1.0 / sums[nonzero]))


def _normalised(vectors: np.ndarray) -> np.ndarray:
    """Unit rows in float64 (models.embed.l2_normalise is float32; SHR sums many reciprocals)."""
    vectors = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


def soft_heading_recall(
    gt_headings: Sequence[str], generated_headings: Sequence[str], encoder: TextEncoder, *, protocol: str = "official"
) -> float | None:
    """SHR of one survey; 0 without generated headings, None when S(H_GT) is 0 (undefined).

    Generated headings are cut to 512 characters; ``paper`` cuts the GT headings too, ``official``
    leaves them whole as the released evaluator does.
    """
    gt = list(gt_headings) if protocol == OFFICIAL else cut_headings(gt_headings)
    generated = cut_headings(generated_headings)
    if not gt:
        return None
    if not generated:
        return 0.0
    union = list(dict.fromkeys([*gt, *generated]))  # de-duplicated by exact string, order kept
    vectors = _normalised(encoder.encode(union))
    position = {text: i for i, text in enumerate(union)}
    gt_vectors = vectors[[position[h] for h in gt]]
    generated_vectors = vectors[[position[h] for h in generated]]
    s_gt = soft_cardinality(gt_vectors)
    if s_gt == 0:
        return None
    return (s_gt + soft_cardinality(generated_vectors) - soft_cardinality(vectors)) / s_gt
