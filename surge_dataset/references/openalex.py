"""OpenAlex (https://openalex.org), read with ``pyalex``: the works whose title matches the reference's.

Request (the URL ``pyalex`` builds for ``Works().search_filter(title=...).select([...])``, on the base URL):
``GET {base}/works?filter=title.search:<title>&select=id,doi,title,display_name,publication_year,publication_date,ids&per-page=5``,
plus ``mailto=<e-mail>`` for OpenAlex's polite pool ($SURGE_OPENALEX_EMAIL, else $SURGE_BIB_EMAIL) and, with
$SURGE_OPENALEX_API_KEY (or $OPENALEX_API_KEY), ``Authorization: Bearer <key>`` as ``pyalex`` sends it.
Answer: ``{"meta": {...}, "results": [{"id": "https://openalex.org/W...", "doi": "https://doi.org/...",
"title": ..., "publication_year": 2017, "publication_date": "2017-06-12", "ids": {...}}]}``; no match = an
empty ``results``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote_plus, urlsplit

from ..vocabulary import OPENALEX
from .base import AnswerError, Candidate, Request, arxiv_id_of, clean_query, env_value, year_of

__all__ = ["OpenAlex", "SERVICE", "works_list", "works_request"]

FIELDS = ["id", "doi", "title", "display_name", "publication_year", "publication_date", "ids"]
PER_PAGE = 5


def _short(value: Any, prefix: str) -> str | None:
    text = str(value or "").strip()
    return text[len(prefix):] if text.lower().startswith(prefix) else (text or None)


def works_request(works: Any, base_url: str, environ: Mapping[str, str], per_page: int) -> Request:
    """The GET for a ``pyalex.Works`` query on ``base_url`` (pyalex builds it on api.openalex.org): ``per_page``
    results, the polite pool's ``mailto`` and the API key from the environment."""
    built = urlsplit(works.url)
    query = f"{built.query}&per-page={per_page}"
    email = env_value(environ, "SURGE_OPENALEX_EMAIL", "SURGE_BIB_EMAIL")
    if email:
        query += f"&mailto={quote_plus(email)}"
    key = env_value(environ, "SURGE_OPENALEX_API_KEY", "OPENALEX_API_KEY")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return Request(f"{base_url.rstrip('/')}/{built.path.lstrip('/')}", query, headers)


def works_list(status: int, body: bytes) -> list[dict[str, Any]]:
    """The works of an OpenAlex answer; :class:`AnswerError` for another status or an answer that is no list."""
    if status != 200:
        raise AnswerError(f"HTTP {status}")
    try:
        results = json.loads(body)["results"]
    except (ValueError, KeyError, TypeError) as exc:
        raise AnswerError(f"not an OpenAlex works list ({type(exc).__name__})") from None
    return [work for work in results or [] if isinstance(work, dict)]


class OpenAlex:
    name = OPENALEX
    default_base_url = "https://api.openalex.org"
    default_rate = 10.0  # the polite pool's 10 requests per second
    package = "pyalex"

    def request(self, title: str, base_url: str, environ: Mapping[str, str]) -> Request:
        from pyalex import Works

        return works_request(Works().search_filter(title=clean_query(title)).select(FIELDS), base_url, environ,
                             PER_PAGE)

    def parse(self, status: int, body: bytes) -> list[Candidate]:
        found = []
        for work in works_list(status, body):
            doi = _short(work.get("doi"), "https://doi.org/")
            found.append(Candidate(
                title=str(work.get("title") or work.get("display_name") or ""),
                id=_short(work.get("id"), "https://openalex.org/"), doi=doi, arxiv_id=arxiv_id_of(doi),
                year=year_of(work.get("publication_year") or work.get("publication_date")),
                date=work.get("publication_date") or None))
        return found


SERVICE = OpenAlex()
