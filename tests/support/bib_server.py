"""A local stand-in for the four bibliographic APIs on 127.0.0.1, for tests and benchmarks (stdlib only).

One server answers every service under its own path prefix (``http://127.0.0.1:PORT/openalex``, ``/s2``,
``/arxiv``, ``/crossref``: pass :meth:`BibServer.base_url_options` as ``bib_base_url``), in each API's
documented shape, at the paths the client libraries call:

* OpenAlex ``GET /works?filter=title.search:<t>&select=...`` -> ``{"meta": {...}, "results": [work, ...]}``;
* Semantic Scholar ``GET /graph/v1/paper/search/match?query=<t>&fields=...`` -> ``{"data": [paper]}``, or 404
  ``{"error": "Title match not found"}``;
* arXiv ``GET /api/query?search_query=ti:"<t>"&...`` -> an Atom feed (``opensearch:`` totals, ``arxiv:`` ids);
* Crossref ``GET /works?query.bibliographic=<t>&rows=...`` -> ``{"status": "ok", "message": {"items": [...]}}``.

A request missing the parameter its API needs gets a 400, so a client calling the wrong shape fails loudly.
Each service "knows" the papers it is given and returns those whose title is similar to the query (a search
engine's near misses included: up to 5, best first; Semantic Scholar's match endpoint only its best one).
Failures are scripted per (service, title): a list of :class:`Failure` answered before the real one, or a
service that always fails. Every request is recorded, so a test counts what reached the server.
"""

from __future__ import annotations

import json
import threading
import time
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit
from xml.sax.saxutils import escape

from surge_dataset.core.normalise import normalise_title
from surge_dataset.core.vocabulary import ARXIV, CROSSREF, OPENALEX, SEMANTIC_SCHOLAR
from surge_dataset.references.match import match_score
from tests.support.local_server import LocalHTTPServer, QuietHandler, send_answer

__all__ = ["BibServer", "Failure", "KnownPaper", "PREFIXES", "RecordedRequest", "ServicesServer"]

#: Path prefix of each service on the server.
PREFIXES = {OPENALEX: "/openalex", SEMANTIC_SCHOLAR: "/s2", ARXIV: "/arxiv", CROSSREF: "/crossref"}
#: Lowest similarity a fake search still returns (near misses), and Semantic Scholar's match floor.
SEARCH_FLOOR, MATCH_FLOOR = 60.0, 80.0


@dataclass(frozen=True)
class KnownPaper:
    """A paper a fake service knows."""

    title: str
    year: int
    doi: str | None = None
    arxiv_id: str | None = None
    id: str | None = None
    cited_by_count: int | None = None  # OpenAlex ``cited_by_count`` / Semantic Scholar ``citationCount``


@dataclass(frozen=True)
class Failure:
    """An error answer: a status and, for 429/503, a ``Retry-After`` header value as sent."""

    status: int
    retry_after: str | None = None


@dataclass
class RecordedRequest:
    service: str
    path: str
    query: str  # the title searched
    params: dict[str, list[str]]
    headers: dict[str, str]
    status: int
    at: float = field(default_factory=time.monotonic)


def _query_of(service: str, path: str, params: dict[str, list[str]]) -> str | None:
    """The searched title as each API carries it, or None when the request is not the API's shape."""
    first = {k: v[0] for k, v in params.items() if v}
    if service == OPENALEX and path == "/works" and first.get("filter", "").startswith("title.search:"):
        return first["filter"][len("title.search:"):] if "title" in first.get("select", "") else None
    if service == OPENALEX and path == "/works" and first.get("filter", "").startswith("doi:"):
        return first["filter"]  # a lookup by DOI (``doi:A|B``, pyalex's filter_or): citation counts
    if service == SEMANTIC_SCHOLAR and path == "/graph/v1/paper/search/match" and first.get("query"):
        return first["query"] if "title" in first.get("fields", "") else None
    if service == SEMANTIC_SCHOLAR and path.startswith("/graph/v1/paper/") and path.count("/") == 4:
        return path.rsplit("/", 1)[1]  # a paper by id (``arXiv:2506.01234``, ``DOI:...``): citation counts
    if service == ARXIV and path == "/api/query" and first.get("search_query", "").startswith("ti:"):
        return first["search_query"][3:].strip('"')
    if service == CROSSREF and path == "/works" and first.get("query.bibliographic"):
        return first["query.bibliographic"]
    return None


def _openalex(papers: list[KnownPaper]) -> dict[str, Any]:
    results = [{"id": f"https://openalex.org/{p.id or 'W' + str(1000 + i)}", "doi": f"https://doi.org/{p.doi}" if p.doi else None,
                "title": p.title, "display_name": p.title, "publication_year": p.year,
                "publication_date": f"{p.year}-01-15", "cited_by_count": p.cited_by_count or 0, "ids": {"openalex": f"https://openalex.org/{p.id or 'W' + str(1000 + i)}"}}
               for i, p in enumerate(papers)]
    return {"meta": {"count": len(results), "db_response_time_ms": 1, "page": 1, "per_page": 5}, "results": results}


def _s2(paper: KnownPaper, score: float) -> dict[str, Any]:
    external = {k: v for k, v in (("DOI", paper.doi), ("ArXiv", paper.arxiv_id)) if v}
    return {"data": [{"paperId": paper.id or f"s2{zlib.crc32(paper.title.encode()):08x}", "title": paper.title,
                      "matchScore": round(score * 2, 2), "year": paper.year, "externalIds": external,
                      "publicationDate": f"{paper.year}-03-01"}]}


def _arxiv(papers: list[KnownPaper], query: str) -> bytes:
    entries = []
    for i, p in enumerate(papers):
        short = p.arxiv_id or f"{p.year % 100:02d}01.{10000 + i:05d}"
        doi = f"<arxiv:doi>{escape(p.doi)}</arxiv:doi>" if p.doi else ""
        entries.append(f"""  <entry>
    <id>http://arxiv.org/abs/{short}v2</id>
    <updated>{p.year}-06-01T00:00:00Z</updated>
    <published>{p.year}-05-01T12:00:00Z</published>
    <title>{escape(p.title)}</title>
    <summary>A paper.</summary>
    <author><name>A. Author</name></author>
    {doi}
    <link href="http://arxiv.org/abs/{short}v2" rel="alternate" type="text/html"/>
    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
  </entry>""")
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <link href="http://arxiv.org/api/query" rel="self" type="application/atom+xml"/>
  <title type="html">ArXiv Query: search_query=ti:"{escape(query)}"</title>
  <id>http://arxiv.org/api/fake</id>
  <updated>2025-01-01T00:00:00-05:00</updated>
  <opensearch:totalResults>{len(papers)}</opensearch:totalResults>
  <opensearch:startIndex>0</opensearch:startIndex>
  <opensearch:itemsPerPage>5</opensearch:itemsPerPage>
{chr(10).join(entries)}
</feed>
""".encode()


def _crossref(papers: list[KnownPaper], query: str) -> dict[str, Any]:
    items = [{"DOI": p.doi or f"10.5555/fake.{i}", "title": [p.title], "type": "journal-article",
              "issued": {"date-parts": [[p.year, 7, 1]]}, "score": 50.0 - i} for i, p in enumerate(papers)]
    return {"status": "ok", "message-type": "work-list", "message-version": "1.0.0",
            "message": {"facets": {}, "total-results": len(items), "items": items, "items-per-page": 5,
                        "query": {"start-index": 0, "search-terms": query}}}


class ServicesServer(LocalHTTPServer):
    """A server answering the four bibliographic services under their path prefixes (:data:`PREFIXES`)."""

    def base_url(self, service: str) -> str:
        return f"{self.address}{PREFIXES[service]}"

    def base_url_options(self) -> list[str]:
        """``bib_base_url`` / ``--bib-base-url`` values pointing every service here."""
        return [f"{service}={self.base_url(service)}" for service in PREFIXES]

    @staticmethod
    def route(raw_path: str) -> tuple[str | None, str, dict[str, list[str]]]:
        """A request path -> (the service of its prefix or None, the path after the prefix, the query parameters)."""
        url = urlsplit(raw_path)
        prefix = "/" + url.path.lstrip("/").split("/", 1)[0]
        service = next((s for s, p in PREFIXES.items() if p == prefix), None)
        return service, url.path[len(prefix):] or "/", parse_qs(url.query, keep_blank_values=True)


NO_SERVICE = (404, b'{"error": "no such service"}', {"Content-Type": "application/json"})


class BibServer(ServicesServer):
    """``with BibServer({"openalex": [KnownPaper(...)]}) as server: compute(..., bib_base_url=server.base_url_options())``."""

    def __init__(self, papers: Mapping[str, Iterable[KnownPaper]] | None = None,
                 failures: Mapping[tuple[str, str], Iterable[Failure]] | None = None, *,
                 always_fail: Mapping[str, Failure] | None = None, latency: float = 0.0) -> None:
        self.papers = {service: list((papers or {}).get(service, ())) for service in PREFIXES}
        self._failures = {(s, normalise_title(t)): list(f) for (s, t), f in (failures or {}).items()}
        self.always_fail = dict(always_fail or {})
        self.latency = latency
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        super().__init__()

    # -- what tests read ------------------------------------------------------------------------------

    def count(self, service: str | None = None, title: str | None = None) -> int:
        """Requests that reached the server (of one service, for one title)."""
        with self._lock:
            return sum(1 for r in self.requests if (service is None or r.service == service)
                       and (title is None or normalise_title(r.query) == normalise_title(title)))

    # -- answering --------------------------------------------------------------------------------------

    def _search(self, service: str, query: str) -> list[tuple[KnownPaper, float]]:
        scored = [(p, match_score(query, p.title)) for p in self.papers[service]]
        return sorted([(p, s) for p, s in scored if s >= SEARCH_FLOOR], key=lambda ps: -ps[1])[:5]

    def answer(self, service: str, path: str, params: dict[str, list[str]]) -> tuple[int, bytes, dict[str, str]]:
        json_type = {"Content-Type": "application/json"}
        query = _query_of(service, path, params)
        if query is None:
            return 400, json.dumps({"error": f"not a {service} title search: {path}"}).encode(), json_type
        with self._lock:
            scripted = self._failures.get((service, normalise_title(query)))
            failure = scripted.pop(0) if scripted else self.always_fail.get(service)
        if failure is not None:
            headers = {**json_type, **({"Retry-After": failure.retry_after} if failure.retry_after else {})}
            return failure.status, json.dumps({"error": "scripted", "message": f"scripted {failure.status}"}).encode(), headers
        if query.startswith("doi:") or (service == SEMANTIC_SCHOLAR and not path.endswith("/match")):
            return self._by_id(service, query)
        found = self._search(service, query)
        if service == OPENALEX:
            return 200, json.dumps(_openalex([p for p, _ in found])).encode(), json_type
        if service == SEMANTIC_SCHOLAR:
            if not found or found[0][1] < MATCH_FLOOR:
                return 404, json.dumps({"error": "Title match not found"}).encode(), json_type
            return 200, json.dumps(_s2(*found[0])).encode(), json_type
        if service == ARXIV:
            return 200, _arxiv([p for p, _ in found], query), {"Content-Type": "application/atom+xml; charset=utf-8"}
        return 200, json.dumps(_crossref([p for p, _ in found], query)).encode(), json_type

    def _by_id(self, service: str, query: str) -> tuple[int, bytes, dict[str, str]]:
        """OpenAlex ``filter=doi:A|B`` (the works with those DOIs) or Semantic Scholar ``/paper/<id>``."""
        json_type = {"Content-Type": "application/json"}
        if service == OPENALEX:
            wanted = {d.lower().removeprefix("https://doi.org/") for d in query[len("doi:"):].split("|")}
            return 200, json.dumps(_openalex([p for p in self.papers[service] if (p.doi or "").lower() in wanted]
                                             )).encode(), json_type
        kind, _, value = query.partition(":")
        for p in self.papers[service]:
            if (kind == "arXiv" and p.arxiv_id == value) or (kind == "DOI" and (p.doi or "").lower() == value.lower()):
                return 200, json.dumps({"paperId": p.id or f"s2{zlib.crc32(p.title.encode()):08x}", "title": p.title,
                                        "citationCount": p.cited_by_count or 0}).encode(), json_type
        return 404, json.dumps({"error": f"Paper with id {query} not found"}).encode(), json_type

    def start(self) -> BibServer:
        owner = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802 - stdlib naming
                service, path, params = owner.route(self.path)
                if service is None:
                    status, body, headers = NO_SERVICE
                else:
                    if owner.latency:
                        time.sleep(owner.latency)
                    status, body, headers = owner.answer(service, path, params)
                    query = _query_of(service, path, params) or ""
                    with owner._lock:
                        owner.requests.append(RecordedRequest(service, urlsplit(self.path).path, query, params,
                                                              dict(self.headers.items()), status))
                send_answer(self, status, body, headers)

        return self._serve(Handler, "bib-server")

