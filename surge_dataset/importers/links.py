"""Reference entries given as a link, an arXiv id or a DOI -> a title to resolve to the corpus by.

Deep-research reports cite web pages: an entry may be nothing but a URL (``[[3]](https://arxiv.org/abs/...)``
with no list, a list line ``[https://...](https://...)``). Such an entry (its title is a URL, a DOI or an arXiv id,
or empty) gets a title, in this order:

1. **by id**: an arXiv id (``arxiv.org/abs|pdf|html/<id>``, ``arXiv:<id>``) is asked from the arXiv API by
   ``id_list`` (up to :data:`ID_BATCH` ids a request; :mod:`surge_dataset.references.arxiv_search`); a DOI
   (``doi.org/10.x/y``, ``10.x/y``) from Crossref (``query.bibliographic=<DOI>``, the work whose DOI is that very
   DOI; :mod:`surge_dataset.references.crossref`). The services the reference-existence chain asks, with their
   rate limits and retries (:class:`~surge_dataset.core.http.Transport`); every answer, a miss included, is kept
   in ``<cache>/references.sqlite`` (a rerun asks nothing);
2. **by title**: else the text the entry has besides its address (a link's text, the line's words);
3. **as a URL**: else the address stays the entry's title (it resolves to no corpus paper, and the report says so).

``lookup=False`` (``surge import --no-lookup``) or ``SURGE_OFFLINE=1``: nothing is asked; ids stay addresses.
A failed look-up (retries spent, the service down) leaves the address too, and is reported, not cached.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from surge_dataset.core.cache import CacheDir, JsonStore, make_key
from surge_dataset.core.http import LookupFailed, Transport, user_agent
from surge_dataset.core.vocabulary import ARXIV, CROSSREF
from surge_dataset.importers.records import RefEntry
from surge_dataset.references.base import AnswerError
from surge_dataset.references.chain import CACHE_NAME, is_offline, web_service

__all__ = ["BY_ID", "BY_TITLE", "ID_BATCH", "AS_URL", "LinkOptions", "LinkResolver", "entry_ids", "is_address"]

ID_BATCH = 100
BY_ID, BY_TITLE, AS_URL = "id", "title", "url"
_CACHE_VERSION = "import-links/v1"
ARXIV_ID_RE = re.compile(
    r"(?:arxiv\.org/(?:abs|pdf|html)/|\barxiv:\s*)((?:[a-z][a-z.-]*/\d{7})|\d{4}\.\d{4,5})(?:v\d+)?", re.I)
DOI_RE = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>\]\[)(]+(?:\([^\s()]*\)[^\s\"<>\]\[)(]*)*)")
_URL_RE = re.compile(r"(?:https?://|www\.)\S+|<https?://\S+>", re.I)
_LINK_RE = re.compile(r"\[([^\[\]]*)\]\(([^()\s]*)\)")


def entry_ids(entry: RefEntry) -> tuple[str | None, str | None]:
    """(arXiv id without version, DOI) an entry names, in its title or its raw line."""
    text = f"{entry.title} {entry.raw}"
    arxiv = ARXIV_ID_RE.search(text)
    doi = DOI_RE.search(text)
    return (arxiv.group(1) if arxiv else None,
            doi.group(1).rstrip(".,;:").removesuffix(".pdf") if doi and not arxiv else None)


def is_address(title: str) -> bool:
    """Whether a title is no title but an address: empty, a URL, a DOI or an arXiv id alone."""
    text = _LINK_RE.sub(lambda m: m.group(1), title).strip().strip("<>")
    rest = ARXIV_ID_RE.sub("", DOI_RE.sub("", _URL_RE.sub("", text)))
    return not re.search(r"[^\W\d_]{2,}", rest)


def _words_besides_address(entry: RefEntry) -> str:
    """The entry's text without its addresses (a link keeps its text when that is no address)."""
    text = _LINK_RE.sub(lambda m: "" if is_address(m.group(1)) else m.group(1), entry.raw)
    text = _URL_RE.sub("", text)
    text = re.sub(r"^\s*(?:[-*+]\s+)?(?:\[\^?\d+\]|\d+[.)])\s*:?", "", text)
    return " ".join(text.split()).strip(" .,;:-")


@dataclass(frozen=True)
class LinkOptions:
    """How link entries get their titles: whether to ask at all, where (base URLs, for tests), the cache."""

    lookup: bool = True
    base_urls: Mapping[str, str] = field(default_factory=dict)
    cache_dir: CacheDir = None
    timeout: float = 30.0
    max_retries: int = 3
    rate_limits: Mapping[str, float] = field(default_factory=dict)


class LinkResolver:
    """Titles for link entries (module docstring); :attr:`failures` holds what could not be asked."""

    def __init__(self, options: LinkOptions | None = None, environ: Mapping[str, str] | None = None) -> None:
        self.options = options or LinkOptions()
        self.asks = self.options.lookup and not is_offline(environ)
        self.cache = JsonStore(self.options.cache_dir, name=CACHE_NAME)
        self.failures: list[str] = []
        self._transports: dict[str, Transport] = {}

    def why_not(self) -> str:
        return "--no-lookup" if not self.options.lookup else "SURGE_OFFLINE is set"

    def titles(self, entries: Mapping[str, RefEntry]) -> dict[str, tuple[str, str]]:
        """``{key: entry}`` -> ``{key: (title, how)}`` for every entry whose title is an address (module docstring)."""
        todo = {key: entry for key, entry in entries.items() if is_address(entry.title)}
        ids = {key: entry_ids(entry) for key, entry in todo.items()}
        found: dict[str, str] = {}
        if self.asks:
            found.update(self._arxiv({key: a for key, (a, _) in ids.items() if a}))
            found.update(self._crossref({key: d for key, (a, d) in ids.items() if d and not a}))
        out: dict[str, tuple[str, str]] = {}
        for key, entry in todo.items():
            words = _words_besides_address(entry)
            if found.get(key):
                out[key] = (found[key], BY_ID)
            elif words and not is_address(words):
                out[key] = (words, BY_TITLE)
            else:
                out[key] = (entry.title.strip() or entry.raw.strip(), AS_URL)
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

    def _cached(self, source: str, values: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
        """(cache key of each value, title of each value already answered: '' for a known miss)."""
        keys = {value: make_key(_CACHE_VERSION, source, self._base(source), value) for value in values.values()}
        stored = self.cache.get_many(keys.values())
        return keys, {value: stored[k]["title"] for value, k in keys.items() if k in stored}

    def _arxiv(self, wanted: Mapping[str, str]) -> dict[str, str]:
        from surge_dataset.references.arxiv_search import api_request, parse_feed, split_version

        if not wanted:
            return {}
        keys, known = self._cached(ARXIV, wanted)
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
        return {key: known.get(value, "") for key, value in wanted.items()}

    def _crossref(self, wanted: Mapping[str, str]) -> dict[str, str]:
        if not wanted:
            return {}
        service = web_service(CROSSREF)
        keys, known = self._cached(CROSSREF, wanted)
        for doi in sorted(set(wanted.values()) - set(known)):
            try:
                answer: Any = service.parse(*self._transport(CROSSREF).get(service.request(doi, self._base(CROSSREF), {})))
            except (LookupFailed, AnswerError) as exc:
                self.failures.append(f"DOI {doi}: {exc}")
                continue
            known[doi] = next((c.title for c in answer if (c.doi or "").lower() == doi.lower()), "")
            self.cache.put_many({keys[doi]: {"title": known[doi]}})
        return {key: known.get(value, "") for key, value in wanted.items()}
