"""arXiv (https://arxiv.org), read with ``arxiv``: papers whose title matches the reference's.

Request (the URL ``arxiv.Client`` formats for ``arxiv.Search(query='ti:"<title>"', max_results=5)``, on the
base URL): ``GET {base}/api/query?search_query=ti:"<title>"&id_list=&sortBy=relevance&sortOrder=descending
&start=0&max_results=5``; the title keeps letters, digits and spaces only (arXiv's query syntax reads the
rest). Answer: an Atom feed read with the library's own parser; no match = a feed without ``<entry>``.
arXiv asks for one request every three seconds: the default rate limit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ..vocabulary import ARXIV
from .base import AnswerError, Candidate, Request, clean_query

__all__ = ["SERVICE", "ArxivService", "api_request", "parse_feed", "split_version"]

MAX_RESULTS = 5
_UNSAFE = re.compile(r"[^\w\s]+")
_VERSION = re.compile(r"v(\d+)$")


def split_version(arxiv_id: str) -> tuple[str, str]:
    """``("2401.00001", "v2")`` from ``"2401.00001v2"``; ``(id, "")`` for an id without a version."""
    match = _VERSION.search(arxiv_id)
    return (arxiv_id[: match.start()], match.group(0)) if match else (arxiv_id, "")


def api_request(base_url: str, search: Any, start: int, size: int) -> Request:
    """The API request ``arxiv.Client`` would send for ``search`` (an ``arxiv.Search``), on ``base_url``: the
    library formats the query, our transport sends it (rate limit, retries, cache, another host)."""
    import arxiv

    built = urlsplit(arxiv.Client(page_size=size)._format_url(search, start, size))
    return Request(f"{base_url.rstrip('/')}/{built.path.lstrip('/')}", built.query)


def parse_feed(body: bytes) -> Any:
    """The API's Atom answer read with the library's own parser (``.results``: ``arxiv.Result``s, ``.header``);
    :class:`AnswerError` when it is no feed."""
    from arxiv import _feed

    feed = _feed.parse(body)
    if feed.malformed:
        raise AnswerError(f"not an arXiv Atom feed ({feed.error})")
    return feed


class ArxivService:
    name = ARXIV
    default_base_url = "https://export.arxiv.org"
    default_rate = 1 / 3  # arXiv's terms of use: no more than one request every three seconds,
    one_connection = True  # ... and a single connection at a time
    package = "arxiv"

    def request(self, title: str, base_url: str, environ: Mapping[str, str]) -> Request:
        import arxiv

        words = " ".join(_UNSAFE.sub(" ", clean_query(title)).split())
        return api_request(base_url, arxiv.Search(query=f'ti:"{words}"', max_results=MAX_RESULTS), 0, MAX_RESULTS)

    def parse(self, status: int, body: bytes) -> list[Candidate]:
        if status != 200:
            raise AnswerError(f"HTTP {status}")
        found = []
        for result in parse_feed(body).results:
            short = split_version(result.get_short_id())[0]
            published = result.published
            found.append(Candidate(title=result.title, id=short, doi=result.doi or None, arxiv_id=short,
                                   year=published.year if published else None,
                                   date=published.date().isoformat() if published else None))
        return found


SERVICE = ArxivService()
