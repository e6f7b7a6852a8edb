"""Reference entries given as a link, an arXiv id or a DOI -> a title to resolve to the corpus by.

Deep-research reports cite web pages: an entry may be nothing but a URL (``[[3]](https://arxiv.org/abs/...)``
with no list, a list line ``[https://...](https://...)``). Such an entry (its title is a URL, a DOI or an arXiv id,
or empty) gets a title, in this order:

1. **by id**: an arXiv id (``arxiv.org/abs|pdf|html/<id>``, ``arXiv:<id>``, and DataCite's arXiv DOIs
   ``10.48550/arXiv.<id>``, which Crossref does not hold) is asked from the arXiv API by ``id_list`` (up to
   :data:`ID_BATCH` ids a request; :mod:`surge_dataset.references.arxiv_search`); any other DOI (``doi.org/10.x/y``,
   ``10.x/y``) from Crossref (``query.bibliographic=<DOI>``, the work whose DOI is that very DOI;
   :mod:`surge_dataset.references.crossref`), and a DOI Crossref does not know (or could not be asked about) from
   OpenAlex by the DOI itself (``/works/https://doi.org/<DOI>``; :func:`surge_dataset.references.openalex.doi_request`);
2. **by title**: else the text the entry has besides its address (a link's text, the line's words);
3. **by page**: else, for an entry with no id, its ``http(s)`` address fetched (not a PDF): the landing page's
   ``citation_title``, ``dc.title`` / ``og:title``, else ``<title>`` without the site's name
   (:mod:`surge_dataset.importers.pages`); at most :attr:`LinkOptions.page_max_bytes` read, one request a second
   per host (:data:`PAGE_RATE`), redirects only to ``http(s)``;
4. **as a URL**: else the address stays the entry's title (it resolves to no corpus paper, and the report says so).

Every request goes through :class:`~surge_dataset.core.http.Transport` (the reference-existence services' rate
limits and retries, a page's host its own limit), and every answer, a miss included, is kept in
``<cache>/references.sqlite`` (a rerun asks nothing). :func:`link_counts` is the report's ``link_entries``: how many
entries each way (``id``, ``page``, ``title``, ``url``) and which service titled the ``id`` ones (``id_arxiv``,
``id_crossref``, ``id_openalex``).

``lookup=False`` (``surge import --no-lookup``) or ``SURGE_OFFLINE=1``: nothing is asked; ids stay addresses.
A failed look-up (retries spent, the service or page down, a page over the size cap) leaves the address too, and is
reported, not cached.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from surge_dataset.core.cache import CacheDir, JsonStore, make_key
from surge_dataset.core.http import DOWN_AFTER, LookupFailed, Request, Transport, user_agent
from surge_dataset.core.vocabulary import ARXIV, CROSSREF, OPENALEX
from surge_dataset.importers.pages import page_title, page_url
from surge_dataset.importers.records import RefEntry
from surge_dataset.references.base import AnswerError, arxiv_id_of
from surge_dataset.references.chain import CACHE_NAME, is_offline, web_service

__all__ = ["AS_URL", "BY_ID", "BY_PAGE", "BY_TITLE", "ID_BATCH", "LINK_KINDS", "PAGE", "PAGE_RATE", "LinkOptions",
           "LinkResolver", "entry_ids", "is_address", "link_counts"]

ID_BATCH = 100
#: How an entry got its title (the report's ``link_entries`` keys).
BY_ID, BY_PAGE, BY_TITLE, AS_URL = "id", "page", "title", "url"
LINK_KINDS = (BY_ID, BY_PAGE, BY_TITLE, AS_URL)
#: The id services, in the order asked; an entry titled by one says which (``titles()``' second value).
ID_SERVICES = (ARXIV, CROSSREF, OPENALEX)
#: The source name of landing pages (their answers' cache keys, their transports' names).
PAGE = "page"
#: Requests a second to one host of landing pages.
PAGE_RATE = 1.0
_CACHE_VERSION = "import-links/v1"
ARXIV_ID_RE = re.compile(
    r"(?:arxiv\.org/(?:abs|pdf|html)/|\barxiv:\s*)((?:[a-z][a-z.-]*/\d{7})|\d{4}\.\d{4,5})(?:v\d+)?", re.I)
DOI_RE = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>\]\[)(]+(?:\([^\s()]*\)[^\s\"<>\]\[)(]*)*)")
_URL_RE = re.compile(r"(?:https?://|www\.)\S+|<https?://\S+>", re.I)
_LINK_RE = re.compile(r"\[([^\[\]]*)\]\(([^()\s]*)\)")


def entry_ids(entry: RefEntry) -> tuple[str | None, str | None]:
    """(arXiv id without version, DOI) an entry names, in its title or its raw line; an arXiv DOI
    (``10.48550/arXiv.<id>``) is its arXiv id."""
    text = f"{entry.title} {entry.raw}"
    arxiv = ARXIV_ID_RE.search(text)
    found = DOI_RE.search(text)
    doi = found.group(1).rstrip(".,;:").removesuffix(".pdf") if found else None
    arxiv_id = arxiv.group(1) if arxiv else arxiv_id_of(doi)
    return arxiv_id, None if arxiv_id else doi


def link_counts(linked: Mapping[str, tuple[str, str]]) -> dict[str, int]:
    """``titles()``' answer -> the report's ``link_entries``: entries per way (:data:`LINK_KINDS`), and per id
    service (``id_<service>``) among the ``id`` ones."""
    hows = [how for _, how in linked.values()]
    counts = {kind: sum(1 for how in hows if _kind(how) == kind) for kind in LINK_KINDS}
    return {**counts, **{f"id_{name}": hows.count(name) for name in ID_SERVICES}}


def _kind(how: str) -> str:
    return BY_ID if how in ID_SERVICES else how


def is_address(title: str) -> bool:
    """Whether a title is no title but an address: empty, a URL, a DOI or an arXiv id alone."""
    text = _LINK_RE.sub(lambda m: m.group(1), title).strip().strip("<>")
    rest = ARXIV_ID_RE.sub("", DOI_RE.sub("", _URL_RE.sub("", text)))
    return not re.search(r"[^\W\d_]{2,}", rest)


def _words_besides_address(entry: RefEntry) -> str:
    """The entry's text without its addresses (a link keeps its text when that is no address)."""
    text = _LINK_RE.sub(lambda m: "" if is_address(m.group(1)) else m.group(1), entry.raw)
    text = _URL_RE.sub("", text)
    return " ".join(_unmarked(text).split()).strip(" .,;:-")


def _unmarked(raw: str) -> str:
    """A reference line without its list marker (``[3]``, ``- [3]``, ``3.``): written again, the line gets its new
    number, and ``[3] [3] https://...`` would be another line."""
    return re.sub(r"^\s*(?:[-*+]\s+)?(?:\[\^?\d+\]|\d+[.)])\s*:?", "", raw)


@dataclass(frozen=True)
class LinkOptions:
    """How link entries get their titles: whether to ask at all, where (base URLs, for tests), the cache, and how
    much of a landing page is read (a longer page is a failed look-up)."""

    lookup: bool = True
    base_urls: Mapping[str, str] = field(default_factory=dict)
    cache_dir: CacheDir = None
    timeout: float = 30.0
    max_retries: int = 3
    rate_limits: Mapping[str, float] = field(default_factory=dict)
    page_max_bytes: int = 5_000_000


class LinkResolver:
    """Titles for link entries (module docstring); :attr:`failures` holds what could not be asked."""

    def __init__(self, options: LinkOptions | None = None, environ: Mapping[str, str] | None = None) -> None:
        self.options = options or LinkOptions()
        self.environ = dict(os.environ if environ is None else environ)
        self.asks = self.options.lookup and not is_offline(self.environ)
        self.cache = JsonStore(self.options.cache_dir, name=CACHE_NAME)
        self.failures: list[str] = []
        self._transports: dict[str, Transport] = {}

    def why_not(self) -> str:
        return "--no-lookup" if not self.options.lookup else "SURGE_OFFLINE is set"

    def titles(self, entries: Mapping[str, RefEntry]) -> dict[str, tuple[str, str]]:
        """``{key: entry}`` -> ``{key: (title, how)}`` for every entry whose title is an address (module docstring);
        ``how``: the id service that titled it (:data:`ID_SERVICES`), or :data:`BY_PAGE`, :data:`BY_TITLE`,
        :data:`AS_URL` (:func:`link_counts` counts them)."""
        todo = {key: entry for key, entry in entries.items() if is_address(entry.title)}
        ids = {key: entry_ids(entry) for key, entry in todo.items()}
        found: dict[str, tuple[str, str]] = {}
        if self.asks:
            found.update(self._arxiv({key: a for key, (a, _) in ids.items() if a}))
            dois = {key: d for key, (a, d) in ids.items() if d and not a}
            found.update(self._by_doi(CROSSREF, dois))
            found.update(self._by_doi(OPENALEX, {key: d for key, d in dois.items() if key not in found}))
        out: dict[str, tuple[str, str]] = {}
        pages: dict[str, str] = {}
        for key, entry in todo.items():
            words = _words_besides_address(entry)
            if key in found:
                out[key] = found[key]
            elif words and not is_address(words):
                out[key] = (words, BY_TITLE)
            else:
                out[key] = (entry.title.strip() or _unmarked(entry.raw).strip() or entry.raw.strip(), AS_URL)
                url = None if any(ids[key]) else page_url(f"{entry.title} {entry.raw}")
                if url:
                    pages[key] = url
        if self.asks and pages:
            out.update({key: (title, BY_PAGE) for key, title in self._pages(pages).items() if title})
        return out

    # -- the services ----------------------------------------------------------------------------------------

    def _base(self, name: str) -> str:
        return self.options.base_urls.get(name) or web_service(name).default_base_url

    def _transport(self, name: str) -> Transport:
        if name not in self._transports:
            service = web_service(name)
            self._transports[name] = Transport(
                name, rate=self.options.rate_limits.get(name, service.default_rate), timeout=self.options.timeout,
                max_retries=self.options.max_retries, user_agent=user_agent(),
                one_at_a_time=getattr(service, "one_connection", False))
        return self._transports[name]

    def _cached(self, source: str, base: str, values: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
        """(cache key of each value, title of each value already answered: '' for a known miss)."""
        keys = {value: make_key(_CACHE_VERSION, source, base, value) for value in values.values()}
        stored = self.cache.get_many(keys.values())
        return keys, {value: stored[k]["title"] for value, k in keys.items() if k in stored}

    @staticmethod
    def _found(wanted: Mapping[str, str], known: Mapping[str, str], how: str) -> dict[str, tuple[str, str]]:
        return {key: (known[value], how) for key, value in wanted.items() if known.get(value)}

    def _arxiv(self, wanted: Mapping[str, str]) -> dict[str, tuple[str, str]]:
        from surge_dataset.references.arxiv_search import api_request, parse_feed, split_version

        if not wanted:
            return {}
        keys, known = self._cached(ARXIV, self._base(ARXIV), wanted)
        missing = sorted(set(wanted.values()) - set(known))
        for start in range(0, len(missing), ID_BATCH):
            batch = missing[start:start + ID_BATCH]
            try:
                status, body = self._transport(ARXIV).get(api_request(self._base(ARXIV), ids=batch, size=len(batch)))
                if status != 200:
                    raise AnswerError(f"HTTP {status}")
                titles = {split_version(e.short_id)[0]: e.title for e in parse_feed(body).entries}
            except (LookupFailed, AnswerError) as exc:
                self.failures.append(f"arXiv ids {', '.join(batch[:3])}{' ...' if len(batch) > 3 else ''}: {exc}")
                continue
            for arxiv_id in batch:
                known[arxiv_id] = titles.get(arxiv_id, "")
                self.cache.put_many({keys[arxiv_id]: {"title": known[arxiv_id]}})
        return self._found(wanted, known, ARXIV)

    def _by_doi(self, name: str, wanted: Mapping[str, str]) -> dict[str, tuple[str, str]]:
        """Crossref's work whose DOI is the entry's, or OpenAlex's work of that DOI."""
        from surge_dataset.references import openalex

        if not wanted:
            return {}
        keys, known = self._cached(name, self._base(name), wanted)
        for doi in sorted(set(wanted.values()) - set(known)):
            try:
                if name == OPENALEX:
                    request = openalex.doi_request(doi, self._base(name), self.environ)
                    work = openalex.parse_work(*self._transport(name).get(request))
                    known[doi] = work.title if work is not None else ""
                else:
                    service = web_service(name)
                    answer: Any = service.parse(*self._transport(name).get(service.request(doi, self._base(name), {})))
                    known[doi] = next((c.title for c in answer if (c.doi or "").lower() == doi.lower()), "")
            except (LookupFailed, AnswerError) as exc:
                self.failures.append(f"DOI {doi} ({name}): {exc}")
                continue
            self.cache.put_many({keys[doi]: {"title": known[doi]}})
        return self._found(wanted, known, name)

    def _pages(self, wanted: Mapping[str, str]) -> dict[str, str]:
        """Each landing page's title (module docstring): one transport a host, so each host has its own limit."""
        keys, known = self._cached(PAGE, "", wanted)
        unreachable = 0  # pages in a row whose host could not be reached: after DOWN_AFTER, the network is down
        for url in sorted(set(wanted.values()) - set(known)):
            if unreachable >= DOWN_AFTER:
                self.failures.append(f"page {url}: not asked ({DOWN_AFTER} pages in a row could not be reached)")
                continue
            host = urlsplit(url).netloc.lower()
            if f"{PAGE} {host}" not in self._transports:
                self._transports[f"{PAGE} {host}"] = Transport(
                    f"{PAGE} {host}", rate=self.options.rate_limits.get(PAGE, PAGE_RATE), timeout=self.options.timeout,
                    max_retries=self.options.max_retries, user_agent=user_agent(),
                    max_bytes=self.options.page_max_bytes)
            try:
                status, body = self._transports[f"{PAGE} {host}"].get(Request(url))
                if status != 200:
                    raise AnswerError(f"HTTP {status}")
            except (LookupFailed, AnswerError) as exc:
                self.failures.append(f"page {url}: {exc}")
                unreachable = unreachable + 1 if getattr(exc, "unreachable", False) else 0
                continue
            unreachable = 0
            known[url] = page_title(body, url=url)
            self.cache.put_many({keys[url]: {"title": known[url]}})
        return {key: known.get(url, "") for key, url in wanted.items()}
