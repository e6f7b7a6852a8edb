"""The corpus as the chain's first source: exact titles (already resolved by ``evaluation/prepare.py``, the
rule every metric uses), then the nearest corpus title for those that did not resolve.

The fuzzy step reads every corpus title once (``index/papers.arrow``, memory-mapped: titles only) into a
:class:`~.match.TitleIndex`, and only when some title is not already in the answer cache; a rerun answers
from the cache without opening it. Other metrics keep the exact rule: only ``reference_existence`` uses this.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from surge_dataset.core.vocabulary import CORPUS
from surge_dataset.references.base import Candidate
from surge_dataset.references.match import TitleIndex

__all__ = ["CorpusTitles"]


class CorpusTitles:
    """Nearest corpus title (and its doc id) for a title, by :func:`~.match.match_score`."""

    name = CORPUS

    def __init__(self, corpus: Any) -> None:
        self.corpus = corpus
        self._papers = Path(corpus.index_dir) / "papers.arrow"
        self._index: TitleIndex | None = None
        self._doc_ids: list[int] = []

    @property
    def identity(self) -> str:
        """Which corpus answered (its folder and the file's size and time): part of the cache key."""
        stat = self._papers.stat()
        return f"{self._papers.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"

    def _build(self) -> TitleIndex:
        import pyarrow as pa

        with pa.memory_map(str(self._papers)) as source:
            table = pa.ipc.open_file(source).read_all().select(["doc_id", "title"])
            self._doc_ids = table.column("doc_id").to_pylist()
            titles = table.column("title").to_pylist()
        return TitleIndex(titles, exact=False)  # exact titles resolved already (Corpus.resolve)

    def search(self, title: str, floor: float) -> list[Candidate]:
        """The nearest corpus paper (``id`` = its doc id) if it scores at least ``floor`` (the threshold: on a
        1M-title corpus a lower floor would let far more titles through the prefilter)."""
        if self._index is None:
            self._index = self._build()
        near = self._index.nearest(title, floor)
        if near is None:
            return []
        return [Candidate(title=near.title, id=str(self._doc_ids[near.position]))]
