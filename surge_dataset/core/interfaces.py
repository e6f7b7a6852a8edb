"""What scoring code asks of a model, declared once: a sentence encoder and an NLI cross-encoder.

The models themselves (``models/``), the prefetching wrappers of a run (``evaluation/models.py``), the test
doubles (``testing/``) and the pure metric functions (``scoring/``) all meet here, in the base layer every one of
them may import.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["NLIBackend", "Pair", "TextEncoder"]

#: An NLI input: (premise, hypothesis), or the (first, second) texts a cross-encoder reads.
Pair = tuple[str, str]


@runtime_checkable
class TextEncoder(Protocol):
    """Anything SHR and the SurveyGen similarity metrics can take in place of ``models.Embedder``.

    ``encode(texts)`` gives one row per text; rows are expected to be L2-normalised (so a dot product is a
    cosine similarity).
    """

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class NLIBackend(Protocol):
    """Anything scoring code can take in place of ``models.NLIScorer`` (e.g. a test fake with fixed logits).

    ``logits(pairs)`` gives one row per pair, its columns in the canonical order contradiction, entailment,
    neutral (``models.nli.CANONICAL_LABELS``).
    """

    def logits(self, pairs: Sequence[Pair]) -> np.ndarray: ...
