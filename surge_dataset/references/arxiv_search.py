"""arXiv (https://arxiv.org): papers whose title matches the reference's, read with ``feedparser``.

Request (the query API of https://info.arxiv.org/help/api/user-manual.html, written here):
``GET {base}/api/query?search_query=ti:"<title>"&id_list=&sortBy=relevance&sortOrder=descending&start=0
&max_results=5``; the title keeps letters, digits and spaces only (arXiv's query syntax reads the rest). The
parameters come in the order the ``arxiv`` package sends them, so answers cached by earlier versions still match.

Answer: an Atom feed, read with ``feedparser`` (:func:`parse_feed`) in both formats arXiv has served, the one with
``<link rel="self">`` and namespaced ``opensearch:`` totals on each element (before 2025) and the one without
(``<id>https://arxiv.org/api/...``); no match = a feed without ``<entry>``. A refused request is a feed whose one
entry is an error (``<id>https://arxiv.org/api/errors#...``, "incorrect id format for abc"), mostly with HTTP 400:
:class:`~.base.AnswerError`. arXiv asks for one request every three seconds: the default rate limit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlencode

from surge_dataset.core.http import Request
from surge_dataset.core.vocabulary import ARXIV
from surge_dataset.references.base import AnswerError, Candidate, clean_query
from surge_dataset.references.registry import bib_service

__all__ = ["SERVICE", "ArxivEntry", "ArxivFeed", "ArxivService", "api_request", "parse_feed", "split_version"]

MAX_RESULTS = 5
#: ``sortBy`` / ``sortOrder`` values of the API.
RELEVANCE, SUBMITTED_DATE, DESCENDING, ASCENDING = "relevance", "submittedDate", "descending", "ascending"
_UNSAFE = re.compile(r"[^\w\s]+")
_VERSION = re.compile(r"v(\d+)$")
_ABS = re.compile(r"arxiv\.org/abs/(.+)$")
_ERROR_ID = "arxiv.org/api/errors"


def split_version(arxiv_id: str) -> tuple[str, str]:
    """``("2401.00001", "v2")`` from ``"2401.00001v2"``; ``(id, "")`` for an id without a version."""
    match = _VERSION.search(arxiv_id)
    return (arxiv_id[: match.start()], match.group(0)) if match else (arxiv_id, "")


def api_request(base_url: str, *, query: str = "", ids: Sequence[str] = (), start: int = 0, size: int = MAX_RESULTS,
                sort_by: str = RELEVANCE, sort_order: str = DESCENDING) -> Request:
    """One page of the query API on ``base_url``: ``query`` (``search_query``) and/or ``ids`` (``id_list``)."""
    params = {"search_query": query, "id_list": ",".join(ids), "sortBy": sort_by, "sortOrder": sort_order,
              "start": str(start), "max_results": str(size)}
    return Request(f"{base_url.rstrip('/')}/api/query", urlencode(params))


@dataclass(frozen=True)
class ArxivEntry:
    """One ``<entry>`` of an answer, as the fresh pipeline and the resolver read it."""

    short_id: str  # "2401.00001v2", "quant-ph/0201082v1"
    title: str  # white space collapsed
    summary: str
    authors: tuple[str, ...]
    published: datetime | None  # UTC
    primary_category: str
    categories: tuple[str, ...] = ()
    doi: str | None = None
    pdf_url: str | None = None

    @property
    def source_url(self) -> str | None:
        """The e-print's address: the pdf link with ``/pdf/`` replaced by ``/src/`` (arXiv's layout)."""
        return self.pdf_url.replace("/pdf/", "/src/") if self.pdf_url else None


@dataclass(frozen=True)
class ArxivFeed:
    """An answer: ``opensearch:totalResults`` and the entries."""

    total_results: int
    entries: list[ArxivEntry] = field(default_factory=list)


def _published(entry: Any) -> datetime | None:
    parsed = entry.get("published_parsed")
    return datetime(*parsed[:6], tzinfo=timezone.utc) if parsed else None


def _entry(entry: Any) -> ArxivEntry:
    match = _ABS.search(str(entry.get("id") or ""))
    if match is None:
        raise AnswerError(f"an arXiv entry without an abs/ id: {str(entry.get('id'))[:80]!r}")
    links = entry.get("links") or []
    pdf = next((link.get("href") for link in links if link.get("title") == "pdf"), None)
    categories = tuple(tag.get("term") for tag in entry.get("tags") or [] if tag.get("term"))
    primary = (entry.get("arxiv_primary_category") or {}).get("term") or (categories[:1] or ("",))[0]
    return ArxivEntry(short_id=match.group(1), title=" ".join(str(entry.get("title") or "").split()),
                      summary=" ".join(str(entry.get("summary") or "").split()),
                      authors=tuple(a.get("name", "") for a in entry.get("authors") or [] if a.get("name")),
                      published=_published(entry), primary_category=primary, categories=categories,
                      doi=entry.get("arxiv_doi") or None, pdf_url=pdf)


def parse_feed(body: bytes) -> ArxivFeed:
    """The API's Atom answer (either format, module docstring); :class:`AnswerError` when it is no feed or an error
    feed."""
    import feedparser

    feed = feedparser.parse(body)
    if not str(feed.get("version") or "").startswith("atom"):
        reason = feed.get("bozo_exception") or "no Atom feed"
        raise AnswerError(f"not an arXiv Atom feed ({str(reason)[:120]})")
    errors = [e for e in feed.entries if _ERROR_ID in str(e.get("id") or "")]
    if errors:
        raise AnswerError(f"arXiv refused the request: {' '.join(str(errors[0].get('summary') or '').split())[:160]}")
    try:
        total = int(feed.feed.get("opensearch_totalresults") or len(feed.entries))
    except (TypeError, ValueError):
        total = len(feed.entries)
    return ArxivFeed(total, [_entry(entry) for entry in feed.entries])


@bib_service
class ArxivService:
    name = ARXIV
    default_base_url = "https://export.arxiv.org"
    default_rate = 1 / 3  # arXiv's terms of use: no more than one request every three seconds,
    one_connection = True  # ... and a single connection at a time
    package = "feedparser"

    def request(self, title: str, base_url: str, environ: Mapping[str, str]) -> Request:
        words = " ".join(_UNSAFE.sub(" ", clean_query(title)).split())
        return api_request(base_url, query=f'ti:"{words}"')

    def parse(self, status: int, body: bytes) -> list[Candidate]:
        if status != 200:
            raise AnswerError(f"HTTP {status}")
        found = []
        for entry in parse_feed(body).entries:
            short = split_version(entry.short_id)[0]
            published = entry.published
            found.append(Candidate.from_service(entry.title, id=short, doi=entry.doi, arxiv_id=short,
                                                year=published.year if published else None,
                                                date=published.date().isoformat() if published else None))
        return found


SERVICE = ArxivService()
