"""Title matching, pure: how close a title a source returned is to the reference's, and a fuzzy title index.

A source answers a title search with papers whose titles differ from the reference's in case, punctuation,
spacing or a word. :func:`match_score` says how close two titles are, 0-100: 100 when the corpus rule makes
them equal (letters a-z only, lower-cased: ``normalise_title``), else rapidfuzz's ``fuzz.ratio`` of the two
titles lower-cased with every run of non-alphanumerics collapsed to one space (so ``"title - a study"`` and
``"TITLE A STUDY"`` score 100 too). A reference *is* the found paper when the score reaches the threshold
(``bib_match_threshold``, 95 by default: SurveyGen's "textual similarity > 0.95").

:class:`TitleIndex` finds the nearest of many titles (the corpus, SurveyGen's references) without comparing
against all of them: titles are sorted by length and a query only scans the lengths that can reach the floor.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz.utils import default_process

from surge_dataset.core.normalise import normalise_title

__all__ = ["NEAR_FLOOR", "Nearest", "TitleIndex", "match_score", "process_title"]

#: The lowest score kept as "near" evidence (a near miss shown in ``--details``); below it a title is unrelated.
NEAR_FLOOR = 80.0

def process_title(title: str | None) -> str:
    """Lower case, every run of non-alphanumerics one space, stripped: what fuzzy scores compare."""
    return " ".join(default_process(title or "").split())  # default_process keeps runs of spaces: collapse


def match_score(query: str | None, found: str | None) -> float:
    """0-100: 100 when both normalise alike (the corpus rule), else ``fuzz.ratio`` of the processed titles."""
    from rapidfuzz import fuzz

    left, right = normalise_title(query), normalise_title(found)
    if not left or not right:
        return 0.0
    if left == right:
        return 100.0
    return round(float(fuzz.ratio(process_title(query), process_title(found))), 2)


@dataclass(frozen=True)
class Nearest:
    """The closest indexed title to a query: its position in the index's input order, title and score."""

    position: int
    title: str
    score: float


class TitleIndex:
    """The nearest of many titles by :func:`match_score`, comparing a query with few of them.

    Titles are sorted by length, and a query only looks at the lengths that can reach the floor. Within that
    band a character histogram rules most titles out: each insertion or deletion changes one count by one,
    so the L1 distance of two histograms is at most their indel distance, and ``fuzz.ratio`` = 100·(1 −
    indel / (len a + len b)) >= floor needs L1 <= (1 − floor/100)·(len a + len b). Only the titles that pass go
    to rapidfuzz (on a 1M-title corpus: a few milliseconds per query instead of a scan of the band).
    """

    def __init__(self, titles: Iterable[str | None], *, exact: bool = True) -> None:
        import numpy as np

        self._titles = [title or "" for title in titles]
        self._exact: dict[str, int] = {}
        if exact:
            for position, title in enumerate(self._titles):
                normalised = normalise_title(title)
                if normalised:
                    self._exact[normalised] = position  # the last duplicate wins, as in the corpus
        processed = [process_title(title) for title in self._titles]
        order = sorted((i for i, p in enumerate(processed) if p), key=lambda i: len(processed[i]))
        self._processed = [processed[i] for i in order]
        self._positions = order
        self._lengths = np.fromiter((len(p) for p in self._processed), dtype=np.int64, count=len(order))
        self._histograms = _histograms(self._processed)

    def __len__(self) -> int:
        return len(self._titles)

    def nearest(self, query: str, floor: float = NEAR_FLOOR) -> Nearest | None:
        """The indexed title closest to ``query`` if it scores at least ``floor``, else None."""
        import numpy as np
        from rapidfuzz import fuzz, process

        normalised = normalise_title(query)
        if normalised in self._exact:
            position = self._exact[normalised]
            return Nearest(position, self._titles[position], 100.0)
        processed = process_title(query)
        if not processed or not self._processed:
            return None
        floor = min(100.0, max(1.0, float(floor)))
        # fuzz.ratio = 200·matches / (len(a) + len(b)) >= floor needs len(b) within these bounds
        low = int(np.searchsorted(self._lengths, int(len(processed) * floor / (200 - floor)), side="left"))
        high = int(np.searchsorted(self._lengths, int(len(processed) * (200 - floor) / floor) + 1, side="right"))
        if low >= high:
            return None
        distance = np.abs(self._histograms[low:high] - _histograms([processed])[0]).sum(axis=1)
        allowed = (1 - floor / 100) * (len(processed) + self._lengths[low:high])
        survivors = np.nonzero(distance <= allowed + 1e-9)[0]
        if not len(survivors):
            return None
        best = process.extractOne(processed, [self._processed[low + i] for i in survivors], scorer=fuzz.ratio,
                                  processor=None, score_cutoff=floor)
        if best is None:
            return None
        position = self._positions[low + int(survivors[best[2]])]
        return Nearest(position, self._titles[position], round(float(best[1]), 2))


#: Histogram buckets: a-z, 0-9, the space, and one for every other character.
_BUCKETS = 38
_CHUNK = 65536


def _bucket_table():
    import numpy as np

    table = np.full(256, _BUCKETS - 1, dtype=np.int64)
    table[ord("a"):ord("z") + 1] = np.arange(26)
    table[ord("0"):ord("9") + 1] = np.arange(26, 36)
    table[ord(" ")] = 36
    return table


def _histograms(processed: Sequence[str]):
    """One row of character counts (int16) per processed title, built in one pass over their bytes.

    ``encode("ascii", "replace")`` turns each non-ASCII character into one ``?`` byte, so a character is a
    byte and the counts stay a lower bound of the edit distance.
    """
    import numpy as np

    out = np.zeros((len(processed), _BUCKETS), dtype=np.int16)
    table = _bucket_table()
    for start in range(0, len(processed), _CHUNK):  # in chunks: the flat index arrays stay small
        part = processed[start:start + _CHUNK]
        data = np.frombuffer("".join(part).encode("ascii", "replace"), dtype=np.uint8)
        lengths = np.fromiter((len(p) for p in part), dtype=np.int64, count=len(part))
        rows = np.repeat(np.arange(len(part), dtype=np.int64), lengths)
        counts = np.bincount(rows * _BUCKETS + table[data], minlength=len(part) * _BUCKETS)
        out[start:start + len(part)] = np.minimum(counts, np.iinfo(np.int16).max).reshape(len(part), _BUCKETS)
    return out
