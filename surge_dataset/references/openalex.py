"""OpenAlex (https://openalex.org), read with ``pyalex``: the works whose title matches the reference's.

Request (the URL ``pyalex`` builds for ``Works().search_filter(title=<words>).select([...])``, on the base URL):
``GET {base}/works?filter=title.search:<words>&select=id,doi,title,display_name,publication_year,publication_date,ids&per-page=5``,
plus ``mailto=<e-mail>`` for OpenAlex's polite pool ($SURGE_OPENALEX_EMAIL, else $SURGE_BIB_EMAIL) and, with
$SURGE_OPENALEX_API_KEY (or $OPENALEX_API_KEY), ``Authorization: Bearer <key>`` as ``pyalex`` sends it.

``<words>`` is the title with every character of the filter syntax replaced by a space (:func:`filter_words`:
letters, digits and spaces are kept): a comma separates two filters (``%2C`` too: the live API answers HTTP 403
"Invalid query parameters error." for ``title.search:Hello, John``, ropensci/openalexR#254), ``|`` is OR, ``!``
negates, ``:`` separates a filter's name from its value, ``<``/``>`` compare; ``title.search`` matches words, so
nothing is lost. A query the API still refuses (HTTP 400 or 403, or a 200 whose body is an ``error``) is a
:class:`~.base.QueryRejected`: the chain asks again in the other form the API has, full-text ``search=<words>``
(:meth:`OpenAlex.fallback`, title and abstract), and takes a second refusal as "nothing found this way".

Answer: ``{"meta": {...}, "results": [{"id": "https://openalex.org/W...", "doi": "https://doi.org/...",
"title": ..., "publication_year": 2017, "publication_date": "2017-06-12", "ids": {...}}]}``; no match = an
empty ``results``. Titles are plain text by :func:`~.markup.plain_title` (OpenAlex copies Crossref's markup).

One work by its DOI (:func:`doi_request`, for ``surge import``'s link entries): ``GET {base}/works/https://doi.org/<DOI>``
(the DOI URL-quoted, ``/`` included, as the work's id), the same ``select`` and credentials; the answer is the work
itself, and an unknown DOI is HTTP 404 (:func:`parse_work`: None).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, quote_plus, urlsplit

from surge_dataset.core.vocabulary import OPENALEX
from surge_dataset.references.base import (
    AnswerError,
    Candidate,
    QueryRejected,
    Request,
    arxiv_id_of,
    clean_query,
    env_value,
    year_of,
)
from surge_dataset.references.registry import bib_service

__all__ = ["OpenAlex", "SERVICE", "doi_request", "filter_words", "parse_work", "title_search", "works_list",
           "works_request"]

FIELDS = ["id", "doi", "title", "display_name", "publication_year", "publication_date", "ids"]
PER_PAGE = 5
#: Statuses with which OpenAlex refuses the query itself ("Invalid query parameters error.").
REJECTED = frozenset({400, 403})
_NOT_A_WORD = re.compile(r"[^\w\s]+|_+")


def filter_words(title: str) -> str:
    """``title`` as a filter value the live API accepts: only letters, digits and single spaces (module docstring)."""
    return " ".join(_NOT_A_WORD.sub(" ", clean_query(title)).split())


def _short(value: Any, prefix: str) -> str | None:
    text = str(value or "").strip()
    return text[len(prefix):] if text.lower().startswith(prefix) else (text or None)


def works_request(works: Any, base_url: str, environ: Mapping[str, str], per_page: int) -> Request:
    """The GET for a ``pyalex.Works`` query on ``base_url`` (pyalex builds it on api.openalex.org): ``per_page``
    results, the polite pool's ``mailto`` and the API key from the environment."""
    built = urlsplit(works.url)
    return _polite(f"{base_url.rstrip('/')}/{built.path.lstrip('/')}", f"{built.query}&per-page={per_page}", environ)


def _polite(url: str, query: str, environ: Mapping[str, str]) -> Request:
    """The GET of ``url?query`` in OpenAlex's polite pool (``mailto``) with the API key, both from the environment."""
    email = env_value(environ, "SURGE_OPENALEX_EMAIL", "SURGE_BIB_EMAIL")
    if email:
        query += f"&mailto={quote_plus(email)}"
    key = env_value(environ, "SURGE_OPENALEX_API_KEY", "OPENALEX_API_KEY")
    return Request(url, query, {"Authorization": f"Bearer {key}"} if key else {})


def title_search(title: str, fields: list[str], base_url: str, environ: Mapping[str, str], per_page: int,
                 *, full_text: bool = False) -> Request:
    """The works whose title has ``title``'s words (``filter=title.search:``), or, with ``full_text``, OpenAlex's
    full-text ``search=`` (the form for a query the filter refuses)."""
    from pyalex import Works

    words = filter_words(title)
    works = Works().search(words) if full_text else Works().search_filter(title=words)
    return works_request(works.select(fields), base_url, environ, per_page)


def doi_request(doi: str, base_url: str, environ: Mapping[str, str]) -> Request:
    """The GET for the one work whose DOI is ``doi`` (module docstring): the path pyalex builds for
    ``Works()["https://doi.org/<DOI>"]``, written here since pyalex would send it at once."""
    return _polite(f"{base_url.rstrip('/')}/works/https://doi.org/{quote(doi.strip(), safe=':')}",
                   f"select={','.join(FIELDS)}", environ)


def parse_work(status: int, body: bytes) -> Candidate | None:
    """The work of a by-DOI answer; None for HTTP 404 (OpenAlex knows no work with that DOI); :class:`AnswerError`
    for another status or an answer that is no work."""
    if status == 404:
        return None
    if status != 200:
        raise AnswerError(f"HTTP {status}")
    try:
        work = json.loads(body)
    except ValueError:
        work = None
    if not isinstance(work, dict) or not (work.get("title") or work.get("display_name")):
        raise AnswerError("not an OpenAlex work")
    return _candidate(work)


def works_list(status: int, body: bytes) -> list[dict[str, Any]]:
    """The works of an OpenAlex answer; :class:`QueryRejected` when the API refused the query (400/403, or an
    ``error`` body), :class:`AnswerError` for another status or an answer that is no list."""
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if status in REJECTED or (isinstance(data, dict) and "error" in data and "results" not in data):
        message = data.get("message") or data.get("error") if isinstance(data, dict) else None
        raise QueryRejected(f"HTTP {status}: query refused ({str(message or 'no message')[:160]})")
    if status != 200:
        raise AnswerError(f"HTTP {status}")
    try:
        results = data["results"]  # type: ignore[index]
    except (KeyError, TypeError) as exc:
        raise AnswerError(f"not an OpenAlex works list ({type(exc).__name__})") from None
    return [work for work in results or [] if isinstance(work, dict)]


@bib_service
class OpenAlex:
    name = OPENALEX
    default_base_url = "https://api.openalex.org"
    default_rate = 10.0  # the polite pool's 10 requests per second
    package = "pyalex"

    def request(self, title: str, base_url: str, environ: Mapping[str, str]) -> Request:
        return title_search(title, FIELDS, base_url, environ, PER_PAGE)

    def fallback(self, title: str, base_url: str, environ: Mapping[str, str]) -> Request:
        """The full-text search, for a title the filter form could not ask (module docstring)."""
        return title_search(title, FIELDS, base_url, environ, PER_PAGE, full_text=True)

    def parse(self, status: int, body: bytes) -> list[Candidate]:
        return [_candidate(work) for work in works_list(status, body)]


def _candidate(work: Mapping[str, Any]) -> Candidate:
    doi = _short(work.get("doi"), "https://doi.org/")
    return Candidate.from_service(
        str(work.get("title") or work.get("display_name") or ""),
        id=_short(work.get("id"), "https://openalex.org/"), doi=doi, arxiv_id=arxiv_id_of(doi),
        year=year_of(work.get("publication_year") or work.get("publication_date")),
        date=work.get("publication_date") or None)


SERVICE = OpenAlex()
