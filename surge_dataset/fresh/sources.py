"""The network side of ``surge data fresh``: one polite transport per host, the on-disk caches, the e-prints.

Politeness: every request to one host (``export.arxiv.org``, ``arxiv.org``, ``api.openalex.org``...) goes
through one :class:`~surge_dataset.core.http.Transport` of that host, so ``--rate SECONDS`` is the pause
between two requests to a host whatever step sends them (candidate search, title resolution, metadata, sources);
retries, ``Retry-After`` and the "down after 5 failures in a row" rule are the reference resolver's.

Resumability: every answer is kept on disk before it is used. API answers (search pages, citation counts,
metadata) go to ``<cache>/fresh.sqlite`` (:class:`~surge_dataset.core.cache.JsonStore`), title look-ups to the
resolver's ``<cache>/references.sqlite``, and e-prints to ``<cache>/eprints/<id>v<N>`` (bytes, written
atomically); a paper without source leaves ``<id>v<N>.no-source`` (a 404 is an answer: delete the file to ask
again). Failures (timeouts, 5xx after the retries) are never cached, so a rerun asks again exactly those.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from surge_dataset.core.cache import make_key
from surge_dataset.core.errors import SettingError
from surge_dataset.core.http import (
    AnswerTooLong,
    LookupFailed,
    Request,
    ServiceStats,
    Transport,
    parse_base_urls,
)
from surge_dataset.core.io import atomic_path, atomic_write_json
from surge_dataset.core.vocabulary import FRESH_HOSTS

__all__ = ["CACHE_NAME", "EPRINT_FOLDER", "Eprint", "EprintStore", "HostPool", "cache_key", "host_urls",
           "source_url_for"]

CACHE_NAME = "fresh"
CACHE_VERSION = "fresh/v1"
EPRINT_FOLDER = "eprints"
NO_SOURCE_SUFFIX = ".no-source"
TOO_LARGE_SUFFIX = ".too-large"  #: an e-print over MAX_ANSWER_BYTES: not asked for again


def cache_key(*parts: str) -> str:
    """The key of one API answer in ``fresh.sqlite`` (versioned: a format change simply misses)."""
    return make_key(CACHE_VERSION, *parts)


def host_urls(items: list[str] | tuple[str, ...] | None) -> dict[str, str]:
    """``--bib-base-url HOST=URL`` of ``surge data fresh``: ``['arxiv=http://h', 'arxiv-src=http://h/src/{id}']`` ->
    ``{host: url}`` (the one ``--bib-base-url`` rule, :func:`surge_dataset.core.http.parse_base_urls`)."""
    return parse_base_urls(items, "--bib-base-url", FRESH_HOSTS, shape="HOST=URL")


def source_url_for(arxiv_id: str, version: str, api_link: str | None, override: str | None) -> str | None:
    """Where the e-print of ``arxiv_id`` + ``version`` is read: ``override`` (``{id}`` filled in, else
    ``<override>/src/<id><version>``), else the link the API returned (``ArxivEntry.source_url``: the pdf link with ``/pdf/`` -> ``/src/``)."""
    if override:
        full = f"{arxiv_id}{version}"
        return override.replace("{id}", full) if "{id}" in override else f"{override}/src/{full}"
    return api_link


#: The longest answer read from any host (an e-print is compressed; arXiv caps submissions at 50 MB).
MAX_ANSWER_BYTES = 100 * 1024 * 1024


class HostPool:
    """One :class:`Transport` per host (scheme + host + port), all with the same pause between requests."""

    def __init__(self, *, rate_seconds: float, timeout: float, max_retries: int, user_agent: str,
                 max_answer_bytes: int = MAX_ANSWER_BYTES) -> None:
        if rate_seconds < 0 or timeout <= 0 or max_retries < 0:
            raise SettingError(f"--rate must be at least 0 seconds, --timeout above 0 and --max-retries at least 0 "
                               f"(not {rate_seconds}, {timeout}, {max_retries})")
        self.rate = float("inf") if rate_seconds == 0 else 1.0 / rate_seconds
        self.timeout, self.max_retries, self.user_agent = timeout, max_retries, user_agent
        self.max_answer_bytes = max_answer_bytes
        self._hosts: dict[str, Transport] = {}
        self._lock = threading.Lock()  # download threads ask for a new host at once: one transport, one pause

    def transport(self, url: str) -> Transport:
        parts = urlsplit(url)
        host = f"{parts.scheme}://{parts.netloc}"
        with self._lock:
            if host not in self._hosts:
                # arXiv's terms: one connection at a time; an e-print or page over MAX_ANSWER_BYTES is refused
                self._hosts[host] = Transport(parts.netloc, rate=self.rate, timeout=self.timeout,
                                              max_retries=self.max_retries, user_agent=self.user_agent,
                                              one_at_a_time=True, max_bytes=self.max_answer_bytes)
            return self._hosts[host]

    def get(self, url: str, query: str = "", headers: Mapping[str, str] | None = None) -> tuple[int, bytes]:
        """GET through the host's transport (:class:`LookupFailed` when the retries are spent)."""
        return self.transport(url).get(Request(url, query, dict(headers or {})))

    def stats(self) -> dict[str, dict[str, Any]]:
        """Requests, retries, failures and waiting per host (for the manifest)."""
        return {t.service: {**t.stats.as_dict(), **({"down": t.down_reason} if t.down_reason else {})}
                for t in self._hosts.values()}

    def combined(self) -> ServiceStats:
        total = ServiceStats()
        for t in self._hosts.values():
            for name in ("requests", "retries", "failures"):
                setattr(total, name, getattr(total, name) + getattr(t.stats, name))
        return total


@dataclass(frozen=True)
class Eprint:
    """One download's outcome: ``data`` (the e-print bytes), or ``missing`` (HTTP 404: no source), or
    ``error`` (not fetched: retries spent, another status), or ``too_large`` (over :data:`MAX_ANSWER_BYTES`, for
    good); ``cached`` when it came from the disk."""

    arxiv_id: str
    url: str | None
    data: bytes | None = None
    missing: bool = False
    error: str | None = None
    cached: bool = False
    too_large: str | None = None


class EprintStore:
    """E-prints on disk under ``folder``, downloaded once (module docstring)."""

    def __init__(self, folder: str | os.PathLike[str], hosts: HostPool) -> None:
        self.folder = Path(folder)
        self.hosts = hosts
        self.downloaded = 0
        self.from_cache = 0
        self._lock = threading.Lock()  # the counters are updated from the download threads

    def _count(self, field: str) -> None:
        with self._lock:
            setattr(self, field, getattr(self, field) + 1)

    def _path(self, arxiv_id: str, version: str) -> Path:
        return self.folder / f"{arxiv_id.replace('/', '_')}{version}"

    def fetch(self, arxiv_id: str, version: str, url: str | None) -> Eprint:
        path = self._path(arxiv_id, version)
        marker = path.with_name(path.name + NO_SOURCE_SUFFIX)
        if path.is_file():
            self._count("from_cache")
            return Eprint(arxiv_id, url, data=path.read_bytes(), cached=True)
        if marker.is_file():
            self._count("from_cache")
            return Eprint(arxiv_id, url, missing=True, cached=True)
        too_large = path.with_name(path.name + TOO_LARGE_SUFFIX)
        if too_large.is_file():
            self._count("from_cache")
            return Eprint(arxiv_id, url, too_large=json.loads(too_large.read_text(encoding="utf-8"))["why"],
                          cached=True)
        if not url:
            return Eprint(arxiv_id, url, error="the API gave no link to the source (no pdf link in its entry)")
        try:
            status, body = self.hosts.get(url)
        except AnswerTooLong as exc:
            atomic_write_json(too_large, {"url": url, "why": str(exc)})
            return Eprint(arxiv_id, url, too_large=str(exc))
        except LookupFailed as exc:
            return Eprint(arxiv_id, url, error=str(exc))
        self._count("downloaded")
        if status == 404:
            atomic_write_json(marker, {"url": url, "status": status})
            return Eprint(arxiv_id, url, missing=True)
        if status != 200:
            return Eprint(arxiv_id, url, error=f"HTTP {status} from {url}")
        with atomic_path(path) as tmp:
            tmp.write_bytes(body)
        return Eprint(arxiv_id, url, data=body)

