"""Named entities of short texts (headings), for STORM's heading entity recall.

STORM extracts entities with flair's English NER, a CoNLL-03 model (person, location, organisation,
miscellaneous). flair is a heavy extra dependency, so this wraps a transformers token-classification
model of the same label set instead (default ``dslim/bert-base-NER``, fine-tuned on CoNLL-03), with
sub-word pieces merged into whole entities (``aggregation_strategy="simple"``). Headings are few and
short: results are memoised per text for the run, not cached on disk.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from surge_dataset.core.defaults import DEFAULT_NER_MODEL
from surge_dataset.models.base import load_model, model_fingerprint, resolve_device

__all__ = ["DEFAULT_NER_MODEL", "NERExtractor"]


class NERExtractor:
    """``entities(texts)`` -> the entity strings of each text, in order (duplicates kept)."""

    def __init__(
        self,
        model_name_or_path: str = DEFAULT_NER_MODEL,
        device: str | None = None,
        batch_size: int = 32,
        *,
        needed_for: Sequence[str] = ("heading_entity_recall",),
        flag: str = "--ner-model",
    ) -> None:
        from transformers import pipeline

        model_name_or_path = str(model_name_or_path)
        self.device = resolve_device(device)

        def load() -> Any:
            return pipeline("token-classification", model=model_name_or_path, aggregation_strategy="simple",
                            device=self.device)

        self.pipe = load_model(load, model_name_or_path, needed_for, flag)
        self.batch_size = batch_size
        self.model_name_or_path = model_name_or_path
        self.fingerprint = model_fingerprint(model_name_or_path)
        self._memo: dict[str, list[str]] = {}

    def entities(self, texts: Sequence[str]) -> list[list[str]]:
        todo = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if todo:
            outputs = self.pipe(todo, batch_size=self.batch_size)
            for text, found in zip(todo, outputs, strict=True):
                self._memo[text] = [str(e["word"]).strip() for e in found if str(e["word"]).strip()]
        return [list(self._memo[t]) for t in texts]

    def __repr__(self) -> str:
        return f"NERExtractor({self.model_name_or_path!r}, device={self.device!r})"
