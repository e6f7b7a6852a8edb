"""Resolution: reference titles to corpus papers (the evaluator's exact rule, then rapidfuzz), and peer
surveys to ground-truth surveys (a folder or file name that is a survey id, else title, exact then fuzzy)."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from surge_dataset.core.normalise import normalise_title
from surge_dataset.importers.records import DEFAULT_THRESHOLD, NEAR_MISS, PeerDocument

# ------------------------------------------------------------------------------------------ resolution


class TitleMatcher:
    """Reference title -> corpus doc id: the evaluator's exact rule first, then rapidfuzz.

    The fuzzy index (processed corpus titles sorted by length) is built on the first miss; a query only
    scans titles whose length allows ``fuzz.ratio >= cutoff``, and each distinct title is searched once.
    """

    def __init__(self, data: Any, threshold: float = DEFAULT_THRESHOLD) -> None:
        if not 0 < threshold <= 100:
            raise ValueError(f"threshold must be in (0, 100], got {threshold}")
        self.data = data
        self.corpus = data.corpus
        self.threshold = float(threshold)
        self._choices: list[str] | None = None
        self._titles: list[str] = []
        self._lengths: list[int] = []
        self._memo: dict[str, tuple[str, float] | None] = {}

    def _build(self) -> None:
        from rapidfuzz.utils import default_process

        rows: list[tuple[int, str, str]] = []
        for batch in self.data.iter_corpus_batches(columns=["title"]):
            for title in batch.column("title").to_pylist():
                processed = default_process(title or "")
                if processed:
                    rows.append((len(processed), processed, title))
        rows.sort(key=lambda r: r[0])
        self._lengths = [r[0] for r in rows]
        self._choices = [r[1] for r in rows]
        self._titles = [r[2] for r in rows]

    def nearest(self, title: str) -> tuple[str, float] | None:
        """The corpus title closest to ``title`` with its score, if it scores >= threshold - NEAR_MISS."""
        from rapidfuzz import fuzz, process
        from rapidfuzz.utils import default_process

        query = default_process(title or "")
        if not query:
            return None
        if query in self._memo:
            return self._memo[query]
        if self._choices is None:
            self._build()
        assert self._choices is not None
        cutoff = max(1.0, self.threshold - NEAR_MISS)
        low = bisect.bisect_left(self._lengths, int(len(query) * cutoff / (200 - cutoff)))
        high = bisect.bisect_right(self._lengths, int(len(query) * (200 - cutoff) / cutoff) + 1)
        best = process.extractOne(query, self._choices[low:high], scorer=fuzz.ratio, processor=None,
                                  score_cutoff=cutoff)
        found = None if best is None else (self._titles[low + best[2]], round(float(best[1]), 2))
        self._memo[query] = found
        return found

    def resolve(self, titles: Sequence[str]) -> list[dict[str, Any]]:
        """Per title: ``doc_id`` (or None), ``method`` (exact / fuzzy / None), ``corpus_title``, ``score``."""
        exact = self.corpus.resolve(list(titles)) if titles else []
        found = [d for d in exact if d is not None]
        spelled = {p.doc_id: p.title for p in self.corpus.get(found) if p is not None} if found else {}
        out = []
        for title, doc_id in zip(titles, exact, strict=True):
            if doc_id is not None:
                out.append({"doc_id": doc_id, "method": "exact", "corpus_title": spelled.get(doc_id, title),
                             "score": 100.0})
                continue
            near = self.nearest(title)
            if near is not None and near[1] >= self.threshold:
                doc_id = self.corpus.resolve([near[0]])[0]
                out.append({"doc_id": doc_id, "method": "fuzzy", "corpus_title": near[0], "score": near[1]})
            else:
                out.append({"doc_id": None, "method": None, "corpus_title": near[0] if near else None,
                            "score": near[1] if near else None})
        return out


# ------------------------------------------------------------------------------------------ the import


def survey_matcher(data: Any, threshold: float):
    from rapidfuzz import fuzz, process
    from rapidfuzz.utils import default_process

    surveys = data.surveys()
    exact: dict[str, int] = {}
    for s in surveys:
        exact.setdefault(normalise_title(s.survey_title), s.survey_id)
    processed = [default_process(s.survey_title) for s in surveys]

    def match(doc: PeerDocument) -> tuple[int | None, str]:
        for name in (doc.key, *doc.aliases):
            if name.isdecimal() and data.has_survey(int(name)):  # isdigit() takes '²', which int() refuses
                return int(name), f"name {name!r} is the survey id"
        names = [n for n in (doc.title, *(k.replace("_", " ").strip() for k in (doc.key, *doc.aliases))) if n]
        for name in names:
            if normalise_title(name) in exact:
                return exact[normalise_title(name)], f"title {name!r} (exact)"
        for name in names:
            best = process.extractOne(default_process(name), processed, scorer=fuzz.ratio, processor=None,
                                      score_cutoff=threshold)
            if best is not None:
                return surveys[best[2]].survey_id, f"title {name!r} (fuzzy {best[1]:.1f})"
        return None, (f"no survey id or ground-truth title matches {names}: name its folder or file by the "
                      "survey id (SOURCE/<survey_id>/...), or give it the ground-truth title")

    return match
