"""A local stand-in for arXiv on 127.0.0.1: the query API and the e-print endpoint (tests and benchmarks).

* ``GET /api/query?search_query=...&id_list=...&start=...&max_results=...&sortBy=...&sortOrder=...`` answers an
  Atom feed in the shape of https://info.arxiv.org/help/api/user-manual.html (``opensearch:`` totals, one
  ``<entry>`` per paper with ``arxiv:primary_category``, ``category``, ``arxiv:doi`` and the ``alternate`` and
  ``pdf`` links); ``id_list`` answers the papers it knows among the ids (unknown ids are simply absent, as on
  arXiv; an id in :attr:`ArxivServer.refused` makes the request an HTTP 400, as an id format arXiv does not
  accept does). The ``pdf`` link points at this server, so ``ArxivEntry.source_url`` (the pdf link with
  ``/pdf/`` replaced by ``/src/``) names this server's e-print endpoint, as it names arxiv.org's for the real API.
* ``GET /src/<id>[vN]`` (or ``/e-print/<id>``) serves the paper's e-print bytes; 404 for a paper without source.

The query language is the manual's: ``field:term``, ``field:"a phrase"`` and ``submittedDate:[YYYYMMDDHHMM TO
YYYYMMDDHHMM]`` joined by ``AND``, ``OR``, ``ANDNOT`` and parentheses (left to right); fields ``ti``, ``abs``,
``au``, ``cat`` (``cs.*`` allowed), ``all``. Matching reads text the way arXiv's search engine roughly does:
lower-cased words, a plural ``s`` dropped, stop words ignored inside phrases; relevance ranks by the closeness of
the searched text to the title. Every request is recorded (:attr:`ArxivServer.requests`), so a test counts what
reached the server.
"""

from __future__ import annotations

import fnmatch
import functools
import re
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from urllib.parse import parse_qs, urlsplit
from xml.sax.saxutils import escape

from surge_dataset.references.arxiv_search import split_version
from tests.support.local_server import LocalHTTPServer, QuietHandler, send_answer

__all__ = ["API_PATH", "ArxivPaper", "ArxivRecordedRequest", "ArxivServer", "QuerySyntaxError", "matches"]

API_PATH = "/api/query"
SOURCE_PATHS = ("/src/", "/e-print/")
#: Lucene's English stop words (ignored inside a phrase, as arXiv's search engine does).
STOP_WORDS = frozenset("a an and are as at be but by for if in into is it no not of on or such that the their then "
                       "there these they this to was will with".split())
_WORD = re.compile(r"[a-z0-9]+")


class QuerySyntaxError(ValueError):
    """A ``search_query`` this server cannot read (answered with HTTP 400, as arXiv does)."""


@dataclass(frozen=True)
class ArxivPaper:
    """A paper the fake arXiv knows; ``source=None``: no e-print (``/src/`` answers 404)."""

    arxiv_id: str
    title: str
    published: str  # ISO date or datetime, UTC
    abstract: str = "An abstract."
    authors: tuple[str, ...] = ("A. Author",)
    categories: tuple[str, ...] = ("cs.CL",)  # the primary category first
    source: bytes | None = None
    version: int = 1
    doi: str | None = None

    @property
    def published_at(self) -> datetime:
        text = self.published if "T" in self.published else f"{self.published}T12:00:00"
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


@dataclass
class ArxivRecordedRequest:
    kind: str  # "api" or "src"
    path: str
    params: dict[str, list[str]]
    status: int
    at: float = field(default_factory=time.monotonic)


# -- the query language ---------------------------------------------------------------------------------

def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


@functools.lru_cache(maxsize=1 << 16)  # every search reads every paper's title: read each once
def _words(text: str, *, drop_stop: bool = False) -> tuple[str, ...]:
    return tuple(_stem(w) for w in _WORD.findall((text or "").lower()) if not (drop_stop and w in STOP_WORDS))


_TOKEN = re.compile(r'\s*(\(|\)|\bANDNOT\b|\bAND\b|\bOR\b|[A-Za-z]+:"[^"]*"|[A-Za-z]+:\[[^\]]*\]|[^\s()]+)')


def _tokenise(query: str) -> list[str]:
    tokens, position = [], 0
    query = query.strip()
    while position < len(query):
        match = _TOKEN.match(query, position)
        if match is None:
            raise QuerySyntaxError(f"cannot read {query[position:]!r}")
        tokens.append(match.group(1))
        position = match.end()
        while position < len(query) and query[position].isspace():
            position += 1
    return tokens


def _parse(tokens: list[str]) -> Any:
    """``[op, left, right]`` trees and ``("term", field, value)`` leaves, operators left to right."""
    position = 0

    def term() -> Any:
        nonlocal position
        if position >= len(tokens):
            raise QuerySyntaxError("query ends where a term was expected")
        token = tokens[position]
        position += 1
        if token == "(":
            node = expression()
            if position >= len(tokens) or tokens[position] != ")":
                raise QuerySyntaxError("unbalanced parenthesis")
            position += 1
            return node
        if token in (")", "AND", "OR", "ANDNOT"):
            raise QuerySyntaxError(f"unexpected {token!r}")
        name, sep, value = token.partition(":")
        if not sep:
            name, value = "all", token
        return ("term", name, value.strip('"') if not value.startswith("[") else value)

    def expression() -> Any:
        nonlocal position
        node = term()
        while position < len(tokens) and tokens[position] in ("AND", "OR", "ANDNOT"):
            operator = tokens[position]
            position += 1
            node = [operator, node, term()]
        return node

    tree = expression()
    if position != len(tokens):
        raise QuerySyntaxError(f"unexpected {tokens[position]!r}")
    return tree


def _contains(text: str, value: str) -> bool:
    wanted = _words(value, drop_stop=True)
    if not wanted:
        return False
    have = _words(text, drop_stop=True)
    if len(wanted) == 1:
        return wanted[0] in have
    return any(have[i:i + len(wanted)] == wanted for i in range(len(have) - len(wanted) + 1))


def _stamp(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y%m%d%H%M")


def _evaluate(node: Any, paper: ArxivPaper) -> bool:
    if isinstance(node, list):
        operator, left, right = node
        if operator == "AND":
            return _evaluate(left, paper) and _evaluate(right, paper)
        if operator == "OR":
            return _evaluate(left, paper) or _evaluate(right, paper)
        return _evaluate(left, paper) and not _evaluate(right, paper)
    _, name, value = node
    if name == "submittedDate":
        bounds = re.fullmatch(r"\[\s*(\d{8,14})\s+TO\s+(\d{8,14})\s*\]", value)
        if bounds is None:
            raise QuerySyntaxError(f"submittedDate needs [YYYYMMDDHHMM TO YYYYMMDDHHMM], not {value!r}")
        low, high = (b.ljust(12, "0")[:12] for b in bounds.groups())
        return low <= _stamp(paper.published_at) <= high
    if name == "cat":
        return any(fnmatch.fnmatchcase(c, value) for c in paper.categories)
    texts = {"ti": [paper.title], "abs": [paper.abstract], "au": list(paper.authors),
             "all": [paper.title, paper.abstract, *paper.authors]}.get(name)
    if texts is None:
        raise QuerySyntaxError(f"unknown field {name!r}")
    return any(_contains(text, value) for text in texts)


def _searched_text(node: Any) -> list[str]:
    if isinstance(node, list):
        return _searched_text(node[1]) + ([] if node[0] == "ANDNOT" else _searched_text(node[2]))
    return [node[2]] if node[1] in ("ti", "all") else []


def matches(query: str, paper: ArxivPaper) -> bool:
    """Whether ``paper`` answers the ``search_query`` ``query`` (QuerySyntaxError when it cannot be read)."""
    return _evaluate(_parse(_tokenise(query)), paper)


# -- the server -----------------------------------------------------------------------------------------

def _entry(paper: ArxivPaper, address: str) -> str:
    short = f"{paper.arxiv_id}v{paper.version}"
    published = paper.published_at.strftime("%Y-%m-%dT%H:%M:%SZ")
    authors = "".join(f"<author><name>{escape(name)}</name></author>" for name in paper.authors)
    doi = f"<arxiv:doi>{escape(paper.doi)}</arxiv:doi>" if paper.doi else ""
    categories = "".join(f'<category term="{escape(c)}" scheme="http://arxiv.org/schemas/atom"/>'
                         for c in paper.categories)
    return f"""  <entry>
    <id>http://arxiv.org/abs/{short}</id>
    <updated>{published}</updated>
    <published>{published}</published>
    <title>{escape(paper.title)}</title>
    <summary>{escape(paper.abstract)}</summary>
    {authors}
    {doi}
    <link href="{address}/abs/{short}" rel="alternate" type="text/html"/>
    <link title="pdf" href="{address}/pdf/{short}" rel="related" type="application/pdf"/>
    <arxiv:primary_category term="{escape(paper.categories[0])}" scheme="http://arxiv.org/schemas/atom"/>
    {categories}
  </entry>"""


def _feed(entries: list[str], total: int, start: int, per_page: int, query: str) -> bytes:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <link href="http://arxiv.org/api/query" rel="self" type="application/atom+xml"/>
  <title type="html">ArXiv Query: {escape(query)}</title>
  <id>http://arxiv.org/api/local</id>
  <updated>2025-01-01T00:00:00-05:00</updated>
  <opensearch:totalResults>{total}</opensearch:totalResults>
  <opensearch:startIndex>{start}</opensearch:startIndex>
  <opensearch:itemsPerPage>{per_page}</opensearch:itemsPerPage>
{chr(10).join(entries)}
</feed>
""".encode()


class ArxivServer(LocalHTTPServer):
    """``with ArxivServer([ArxivPaper(...)]) as server: ... --bib-base-url arxiv=<server.address>``."""

    def __init__(self, papers: Iterable[ArxivPaper] = (), *, latency: float = 0.0) -> None:
        self.papers = list(papers)
        self.latency = latency
        self.unavailable: set[str] = set()  # ids whose e-print answers 503 (a server having a bad moment)
        #: ids an ``id_list`` refuses with HTTP 400, the whole request with them (arXiv's "incorrect id format")
        self.refused: set[str] = set()
        self.requests: list[ArxivRecordedRequest] = []
        self._lock = threading.Lock()
        super().__init__()

    def count(self, kind: str | None = None) -> int:
        """Requests that reached the server (``"api"`` or ``"src"`` only)."""
        with self._lock:
            return sum(1 for r in self.requests if kind is None or r.kind == kind)

    def query(self, params: dict[str, list[str]]) -> tuple[int, bytes]:
        first = {k: v[0] for k, v in params.items() if v}
        search = first.get("search_query", "")
        ids = [i.strip() for i in first.get("id_list", "").split(",") if i.strip()]
        refused = [i for i in ids if split_version(i)[0] in self.refused]
        if refused:
            return 400, _feed([f"  <entry><id>http://arxiv.org/api/errors#incorrect_id_format_for_{escape(refused[0])}"
                               "</id><title>Error</title><summary>incorrect id format for "
                               f"{escape(refused[0])}</summary></entry>"], 1, 0, 1, search)
        try:
            start, per_page = int(first.get("start", "0")), int(first.get("max_results", "10"))
            tree = _parse(_tokenise(search)) if search else None
            by_id = {p.arxiv_id: p for p in self.papers}
            pool = [by_id[split_version(i)[0]] for i in ids if split_version(i)[0] in by_id] if ids else self.papers
            found = [p for p in pool if tree is None or _evaluate(tree, p)]
        except (QuerySyntaxError, ValueError) as exc:
            return 400, _feed([f"  <entry><id>http://arxiv.org/api/errors</id><title>Error</title><summary>"
                               f"{escape(str(exc))}</summary></entry>"], 1, 0, 1, search)
        if not (search or ids):
            return 400, _feed([], 0, 0, 0, "empty query")
        sort_by, descending = first.get("sortBy", "relevance"), first.get("sortOrder", "descending") == "descending"
        if sort_by == "relevance" and not ids:
            from surge_dataset.references.match import match_score

            texts = _searched_text(tree) if tree is not None else []
            found.sort(key=lambda p: (max((match_score(t, p.title) for t in texts), default=0.0),
                                      p.published_at), reverse=True)
        elif sort_by in ("submittedDate", "lastUpdatedDate"):
            found.sort(key=lambda p: (p.published_at, p.arxiv_id), reverse=descending)
        page = found[start:start + per_page]
        return 200, _feed([_entry(p, self.address) for p in page], len(found), start, len(page), search)

    def source(self, path: str) -> tuple[int, bytes]:
        short = split_version(path.split("/", 2)[2])[0]
        if short in self.unavailable:
            return 503, b"Service unavailable, try again later."
        paper = next((p for p in self.papers if p.arxiv_id == short), None)
        if paper is None or paper.source is None:
            return 404, b"No source available for this paper."
        return 200, paper.source

    def start(self) -> ArxivServer:
        owner = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802 - stdlib naming
                url = urlsplit(self.path)
                params = parse_qs(url.query, keep_blank_values=True)
                if owner.latency:
                    time.sleep(owner.latency)
                if url.path == API_PATH:
                    kind, (status, body) = "api", owner.query(params)
                    content_type = "application/atom+xml; charset=utf-8"
                elif url.path.startswith(SOURCE_PATHS):
                    kind, (status, body) = "src", owner.source(url.path)
                    content_type = "application/gzip" if status == 200 else "text/plain"
                else:
                    kind, status, body, content_type = "other", 404, b"not found", "text/plain"
                with owner._lock:
                    owner.requests.append(ArxivRecordedRequest(kind, url.path, params, status))
                send_answer(self, status, body, {"Content-Type": content_type})

        return self._serve(Handler, "arxiv-server")
