"""The fresh split's retrieval corpus (paper §3.3): cited papers, topic-related papers, a random sample.

In this order, each paper once:

1. **cited**: the arXiv metadata of every paper a kept survey cites (``id_list`` look-ups, 100 ids a request);
2. **topic**: per kept survey, up to ``--topic-papers`` papers from an arXiv search on the survey's topic (its
   title without the survey wording, :func:`surge_dataset.data.queries.survey_topic`: "A Survey on Graph Neural
   Networks for Recommendation" -> ``ti:"graph neural networks for recommendation" OR abs:"..."``) in the
   split's categories, submitted before the survey (a later paper could not have been cited), most relevant first;
3. **random**: with ``--random-sample N``, N papers of the categories submitted up to the window's end, to
   mitigate topic bias: pages of :data:`SAMPLE_PAGE` at random offsets of the date-sorted result list
   (``--seed``), :data:`SAMPLE_PER_PAGE` papers drawn from each, so the same seed draws the same papers.

A paper is the same paper when its arXiv id or its normalised title (:func:`surge_dataset.core.normalise.normalise_title`,
the evaluator's matching rule) is already in the corpus: it keeps its first doc id. With ``--base-corpus`` (a
folder holding ``corpus.json`` or a built dataset), the base's papers come first, unchanged, with their doc ids;
a cited paper the base already has (same normalised title) gets the base's doc id, so retrieval and the
evaluator's title matching stay comparable with SurGE, and new papers get doc ids after the base's largest.
Metadata only, as the paper does (arXiv metadata is CC0).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import InputFileError
from surge_dataset.core.normalise import normalise_title
from surge_dataset.fresh.candidates import ARXIV_FIRST_DAY, ArxivRecord, category_clause, submitted_between

__all__ = ["BaseCorpus", "CorpusBuilder", "SAMPLE_PAGE", "SAMPLE_PER_PAGE", "corpus_record", "sample_offsets",
           "topic_query"]

SAMPLE_PAGE = 100
SAMPLE_PER_PAGE = 50
CITED, TOPIC, RANDOM = "cited", "topic", "random"


def corpus_record(record: ArxivRecord, doc_id: int) -> dict[str, Any]:
    """One ``corpus.json`` object in the official key order (protocol.md §1)."""
    return {"Title": record.title, "Authors": list(record.authors), "Year": record.year, "Date": record.published,
            "Abstract": record.abstract, "Category": record.primary_category, "doc_id": doc_id}


class BaseCorpus:
    """The papers of ``--base-corpus``: a folder with ``corpus.json``, or a built dataset (read twice: once for
    its titles and largest doc id here, once when the output is written; never held whole in memory)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.titles: dict[str, int] = {}
        self.size = 0
        self.max_doc_id = -1
        if (self.path / "corpus.json").is_file():
            self.kind = "corpus.json"
        elif (self.path / "surge_meta.json").is_file():
            self.kind = "dataset"
        else:
            raise InputFileError(f"--base-corpus {self.path}: neither corpus.json nor a built dataset "
                                 "(surge_meta.json) is there")
        for record in self.records():
            doc_id = record.get("doc_id")
            if not isinstance(doc_id, int):
                raise InputFileError(f"--base-corpus {self.path}: a corpus record without an integer doc_id")
            self.size += 1
            self.max_doc_id = max(self.max_doc_id, doc_id)
            key = normalise_title(record.get("Title"))
            if key:
                self.titles[key] = doc_id  # the last duplicate wins, as in the evaluator's corpus

    def records(self) -> Iterator[dict[str, Any]]:
        """The base's corpus objects in file order, in the official schema."""
        if self.kind == "corpus.json":
            from surge_dataset.core.io import reading_input
            from surge_dataset.data.jsonstream import iter_json_array

            path = self.path / "corpus.json"
            with reading_input(path):
                for batch in iter_json_array(path):
                    yield from batch
            return
        from surge_dataset.data.dataset import SurgeData
        from surge_dataset.data.export import row_to_official

        for batch in SurgeData.open(self.path).iter_corpus_batches():
            for row in batch.to_pylist():
                yield row_to_official("corpus", row)


class CorpusBuilder:
    """Doc ids for papers, each paper once (module docstring); :attr:`new` holds the papers the base lacks."""

    def __init__(self, base: BaseCorpus | None = None) -> None:
        self.base = base
        self.next_id = base.max_doc_id + 1 if base is not None else 0
        self.by_title: dict[str, int] = dict(base.titles) if base is not None else {}
        self.by_arxiv: dict[str, int] = {}
        self.new: list[dict[str, Any]] = []
        self.added = {CITED: 0, TOPIC: 0, RANDOM: 0}
        self.in_base = {CITED: 0, TOPIC: 0, RANDOM: 0}
        self.duplicates = 0

    def add(self, record: ArxivRecord, origin: str) -> int:
        """The doc id of ``record``: an existing one when the corpus has the paper, else a new one."""
        key = normalise_title(record.title)
        known = self.by_arxiv.get(record.arxiv_id)
        if known is None and key:
            known = self.by_title.get(key)
        if known is not None:
            self.by_arxiv.setdefault(record.arxiv_id, known)
            if self.base is not None and known <= self.base.max_doc_id and key in self.base.titles:
                self.in_base[origin] += 1
            else:
                self.duplicates += 1
            return known
        doc_id = self.next_id
        self.next_id += 1
        self.by_arxiv[record.arxiv_id] = doc_id
        if key:
            self.by_title[key] = doc_id
        self.new.append(corpus_record(record, doc_id))
        self.added[origin] += 1
        return doc_id

    def records(self) -> Iterator[dict[str, Any]]:
        if self.base is not None:
            yield from self.base.records()
        yield from self.new

    def counts(self) -> dict[str, Any]:
        return {"base": self.base.size if self.base is not None else 0, "new": len(self.new),
                "new_by_origin": dict(self.added), "already_in_base": dict(self.in_base),
                "duplicates_merged": self.duplicates}


def topic_query(topic: str, categories: list[str], before: date) -> str | None:
    """The topic search of one survey (module docstring): papers submitted up to the day before ``before`` (the
    survey's submission day); None when the topic has no searchable word."""
    words = " ".join("".join(ch if ch.isalnum() else " " for ch in topic).split())
    if not words:
        return None
    window = submitted_between(ARXIV_FIRST_DAY, before - timedelta(days=1))
    return f'(ti:"{words}" OR abs:"{words}") AND {category_clause(categories)} AND {window}'


def sample_offsets(total: int, wanted: int, seed: int) -> list[tuple[int, list[int]]]:
    """``[(page start, [positions in the page]), ...]`` for a random sample of ``wanted`` of ``total`` results."""
    if total <= 0 or wanted <= 0:
        return []
    rng = random.Random(seed)
    pages = math.ceil(total / SAMPLE_PAGE)
    chosen = rng.sample(range(pages), min(pages, math.ceil(wanted / SAMPLE_PER_PAGE)))
    out = []
    for page in sorted(chosen):
        size = min(SAMPLE_PAGE, total - page * SAMPLE_PAGE)
        out.append((page * SAMPLE_PAGE, sorted(rng.sample(range(size), min(size, SAMPLE_PER_PAGE)))))
    return out
