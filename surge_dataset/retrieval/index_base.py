"""The base every index kind builds on (BM25, dense, FAISS): document text, paper dates, the index manifest, the
searcher interface, the hit and the one ranking order.

Both indexes keep, beside their own files, ``doc_ids.npy`` (index row -> corpus ``doc_id``) and
``doc_days.npy`` (each paper's earliest possible publication day), so ``--date-cutoff`` can drop papers
dated after a survey without reopening the corpus, and ``surge_index.json`` (what was built, from what).
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pyarrow as pa

from surge_dataset.core.errors import SurgeError
from surge_dataset.core.io import atomic_write_json
from surge_dataset.core.records import OFFICIAL_FILES

MANIFEST = "surge_index.json"
DOC_IDS = "doc_ids.npy"
DOC_DAYS = "doc_days.npy"
# A paper with no usable date is never dropped by the date cutoff (we cannot show it is from the future).
UNKNOWN_DAY = np.iinfo(np.int32).min
_EPOCH = _dt.date(1970, 1, 1)
_DATE = re.compile(r"^\s*(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?")


class IndexNotFoundError(SurgeError, FileNotFoundError):
    """``--index`` names no complete surge index (no ``surge_index.json``, a missing FAISS file or shard)."""


class IndexKindError(SurgeError, ValueError):
    """An index folder opened as another kind than its manifest says (``BM25Index.load`` on a dense index)."""


class MissingConfigError(SurgeError, FileNotFoundError):
    """A dataset built without the official file a step needs (``corpus.json`` for an index or an export,
    ``queries.json`` for ``--query-type questions``)."""


def require_config(data: Any, config: str, needed_for: str) -> None:
    """Raise :class:`MissingConfigError` unless ``data`` (a :class:`SurgeData`) holds ``config``.

    Objects without a ``configs`` list (duck-typed stand-ins) are taken at their word.
    """
    configs = getattr(data, "configs", None)
    if configs is None or config in configs:
        return
    raise MissingConfigError(
        f"{getattr(data, 'path', data)}: this dataset has no '{config}' config ({OFFICIAL_FILES.get(config, config)} "
        f"was absent when it was built) and {needed_for} needs it; rebuild the dataset with that file"
    )


def document_text(title: str | None, abstract: str | None) -> str:
    """The text a retriever sees for a paper: title, a space, abstract (protocol §6 allows the title too).

    One function for BM25, dense indexing and retriever training, so a model is always trained on
    exactly the text it later indexes.
    """
    return " ".join(part.strip() for part in (title or "", abstract or "") if part and part.strip())


def to_day(date: str | None, year: str | int | None = None) -> int:
    """Days since 1970-01-01 of the EARLIEST day a date string can mean, or UNKNOWN_DAY.

    ``2021-03-04T00:00:00`` -> that day; ``2021-03`` -> March 1st; ``2021`` (or only ``year``) -> Jan 1st.
    Taking the earliest day makes the cutoff conservative: a paper is dropped only when it is certainly
    dated after the survey.
    """
    for text in (date, None if year is None else str(year)):
        if not text:
            continue
        match = _DATE.match(str(text))
        if not match:
            continue
        y, m, d = int(match.group(1)), int(match.group(2) or 1), int(match.group(3) or 1)
        try:
            return (_dt.date(y, m, d) - _EPOCH).days
        except ValueError:  # e.g. month 13: fall back to the year alone
            try:
                return (_dt.date(y, 1, 1) - _EPOCH).days
            except ValueError:
                continue
    return int(UNKNOWN_DAY)


def to_days(dates: Sequence[str | None], years: Sequence[str | None] | None = None) -> np.ndarray:
    """Vectorised :func:`to_day` (cached per distinct string: a 1M-paper corpus has few distinct dates)."""
    years = years if years is not None else [None] * len(dates)
    cache: dict[tuple[str | None, str | None], int] = {}
    out = np.empty(len(dates), dtype=np.int32)
    for i, key in enumerate(zip(dates, years, strict=True)):
        value = cache.get(key)
        if value is None:
            value = cache[key] = to_day(*key)
        out[i] = value
    return out


def day_to_iso(day: int | None) -> str | None:
    if day is None or day == UNKNOWN_DAY:
        return None
    return (_EPOCH + _dt.timedelta(days=int(day))).isoformat()


def iter_corpus(data: Any, columns: Sequence[str], batch_size: int = 65536) -> Iterator[pa.RecordBatch]:
    """Corpus record batches in corpus order, from a :class:`SurgeData` (or anything with that method)."""
    require_config(data, "corpus", "indexing or exporting the corpus")
    yield from data.iter_corpus_batches(list(columns), batch_size=batch_size)


def batch_texts(batch: pa.RecordBatch) -> list[str]:
    titles = batch.column("title").to_pylist()
    abstracts = batch.column("abstract").to_pylist()
    return [document_text(t, a) for t, a in zip(titles, abstracts, strict=True)]


def write_manifest(index_dir: str | Path, manifest: dict[str, Any]) -> None:
    atomic_write_json(Path(index_dir) / MANIFEST, manifest)


def read_manifest(index_dir: str | Path) -> dict[str, Any]:
    path = Path(index_dir) / MANIFEST
    if not path.is_file():
        raise IndexNotFoundError(
            f"{index_dir}: not a surge index (no {MANIFEST}); build one with `surge index bm25|dense`"
        )
    return json.loads(path.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Hit:
    """One retrieved paper."""

    doc_id: int
    score: float


#: The one order of a ranking, everywhere (``retrieve``, the TREC writer, ``retrieval-eval``): trec_eval's and
#: pytrec_eval's, which ignore a run's rank column and sort by score, descending, then by doc id as a string,
#: descending. Any other rule moves a relevant paper across a cutoff whenever it shares a score with others.
TIE_RULE = "score descending, then doc id (as a string) descending: trec_eval's and pytrec_eval's order"


def ranked(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    """``(doc_id, score)`` pairs of one query in :data:`TIE_RULE`'s order (ids as strings)."""
    return sorted(((str(doc), float(score)) for doc, score in scores.items()), key=_order, reverse=True)


def ranked_hits(hits: Sequence[Hit]) -> list[Hit]:
    """Hits in :data:`TIE_RULE`'s order."""
    return sorted(hits, key=lambda h: (h.score, str(h.doc_id)), reverse=True)


def _order(pair: tuple[str, float]) -> tuple[float, str]:
    return pair[1], pair[0]


class Searcher(Protocol):
    """What ``surge retrieve`` needs from an index: top-k papers per query, optionally date-restricted."""

    doc_ids: np.ndarray
    doc_days: np.ndarray

    def search(
        self, queries: Sequence[str], k: int, cutoff_days: Sequence[int | None] | None = None
    ) -> list[list[Hit]]: ...


def group_by_cutoff(cutoff_days: Sequence[int | None] | None, n: int) -> dict[int | None, list[int]]:
    """Query positions grouped by their cutoff day (None: no cutoff), so each group is one masked search."""
    groups: dict[int | None, list[int]] = {}
    for i in range(n):
        day = None if cutoff_days is None else cutoff_days[i]
        if day is not None and day == UNKNOWN_DAY:
            day = None
        groups.setdefault(day, []).append(i)
    return groups


def allowed_mask(doc_days: np.ndarray, cutoff_day: int | None) -> np.ndarray | None:
    """Boolean mask of papers not dated after ``cutoff_day`` (unknown dates kept); None when no cutoff."""
    if cutoff_day is None:
        return None
    return np.asarray(doc_days) <= cutoff_day
