"""Semantic Scholar (https://www.semanticscholar.org), read with ``semanticscholar``: its title match.

Request (what ``semanticscholar``'s ``search_paper(title, match_title=True)`` calls, on the base URL):
``GET {base}/graph/v1/paper/search/match?query=<title>&fields=title,year,externalIds,publicationDate``, with
``x-api-key: <key>`` when $SEMANTIC_SCHOLAR_API_KEY is set. Answer: ``{"data": [{"paperId": ..., "title": ...,
"matchScore": ..., "year": 2017, "externalIds": {"DOI": ..., "ArXiv": ...}, "publicationDate": "2017-06-12"}]}``;
no match = HTTP 404 ``{"error": "Title match not found"}`` (an answer: nothing found). Titles are plain text by
:func:`~.markup.plain_title`, as for every service.

Only the library's constants and its ``Paper`` record are used: its own client retries a 429 for a minute
whatever ``Retry-After`` says and reads a 502 or 503 as "nothing found", which would count a real paper as
fabricated, so the HTTP goes through :mod:`surge_dataset.core.http` like every other service.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from urllib.parse import urlencode

from surge_dataset.core.http import Request
from surge_dataset.core.vocabulary import SEMANTIC_SCHOLAR
from surge_dataset.references.base import AnswerError, Candidate, clean_query, env_value, year_of
from surge_dataset.references.registry import bib_service

__all__ = ["SERVICE", "SemanticScholarService"]

FIELDS = ["title", "year", "externalIds", "publicationDate"]


@bib_service
class SemanticScholarService:
    name = SEMANTIC_SCHOLAR
    default_base_url = "https://api.semanticscholar.org"
    default_rate = 1.0  # the rate an API key is granted; without one the shared pool is no faster
    package = "semanticscholar"

    def request(self, title: str, base_url: str, environ: Mapping[str, str]) -> Request:
        from semanticscholar.AsyncSemanticScholar import AsyncSemanticScholar

        query = urlencode({"query": clean_query(title), "fields": ",".join(FIELDS)})
        key = env_value(environ, "SEMANTIC_SCHOLAR_API_KEY")
        headers = {"x-api-key": key} if key else {}
        return Request(f"{base_url.rstrip('/')}{AsyncSemanticScholar.BASE_PATH_GRAPH}/paper/search/match", query,
                       headers)

    def parse(self, status: int, body: bytes) -> list[Candidate]:
        if status == 404:
            return []  # "Title match not found"
        if status != 200:
            raise AnswerError(f"HTTP {status}")
        from semanticscholar.Paper import Paper

        try:
            data = json.loads(body).get("data")
        except (ValueError, AttributeError) as exc:
            raise AnswerError(f"not a Semantic Scholar match ({type(exc).__name__})") from None
        found = []
        for item in data or []:
            if not isinstance(item, dict):
                continue
            paper = Paper(item)
            ids = paper.externalIds or {}
            date = item.get("publicationDate") or None
            found.append(Candidate.from_service(paper.title or "", id=paper.paperId, doi=ids.get("DOI"),
                                                arxiv_id=ids.get("ArXiv"), year=year_of(paper.year or date), date=date))
        return found


SERVICE = SemanticScholarService()
