"""What every source of the chain shares: the records a search returns, a web request, and the optional
libraries each web service is read with (the ``bib`` extra).

A web service is a module with one object that builds a request for a title (:meth:`WebService.request`)
and reads an answer (:meth:`WebService.parse`); both are pure, so the tests check them without a network,
and all HTTP (retries, rate limits) lives in :mod:`surge_dataset.core.http` and the caching in :mod:`.chain`, once for every service.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Protocol

from surge_dataset.core.errors import SurgeError
from surge_dataset.core.http import Request
from surge_dataset.references.markup import plain_title

__all__ = ["AnswerError", "Candidate", "MissingExtraError", "QueryRejected", "SourceAnswer", "WebService",
           "arxiv_id_of", "clean_query", "env_value", "fallback_request", "require", "year_of"]

#: Longest title sent to a service (a reference line that swallowed a whole paragraph is cut here).
MAX_QUERY_CHARS = 300
_EMPHASIS = re.compile(r"[*_`]+")
_ARXIV_DOI = re.compile(r"10\.48550/arxiv\.(.+)$", re.I)
_ARXIV_VERSION = re.compile(r"v\d+$")


class MissingExtraError(SurgeError, ImportError):
    """A bibliographic service whose client library is not installed: the message names the extra."""


class AnswerError(Exception):
    """A service's answer that is no answer (an HTTP status it does not use for "nothing found", bad JSON)."""


class QueryRejected(AnswerError):
    """The service refused the query itself (OpenAlex's HTTP 400/403 "Invalid query parameters"): asking the same
    way again brings the same answer, so the chain asks in the service's other form (its optional ``fallback``)
    and, when that is refused too, takes it as a definitive "nothing found this way" (never ``unchecked``)."""


@dataclass(frozen=True)
class Candidate:
    """One paper a source returned for a title search (``id``: the source's own id)."""

    title: str
    id: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    year: int | None = None
    date: str | None = None  # ISO YYYY-MM-DD when the source gives a day
    #: the title as the service sent it, when it held markup (``title`` is its plain text, :mod:`.markup`)
    raw_title: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Candidate:
        return cls(**{k: data.get(k) for k in ("title", "id", "doi", "arxiv_id", "year", "date", "raw_title")})

    @classmethod
    def from_service(cls, raw_title: str | None, **fields: Any) -> Candidate:
        """A candidate whose title is ``raw_title`` as plain text (the raw one kept when they differ)."""
        title = plain_title(raw_title)
        return cls(title=title, raw_title=raw_title if raw_title and raw_title != title else None, **fields)


@dataclass(frozen=True)
class SourceAnswer:
    """What one source said about one title: the papers it returned, or why it could not say (``error``)."""

    source: str
    candidates: tuple[Candidate, ...] = ()
    error: str | None = None
    cached: bool = False


class WebService(Protocol):
    """A bibliographic web API: pure request building and answer reading (module docstring)."""

    name: ClassVar[str]
    default_base_url: ClassVar[str]
    default_rate: ClassVar[float]  # requests per second when --bib-rate-limit does not say
    package: ClassVar[str | None]  # the import the service needs (in the ``bib`` extra); None: none

    def request(self, title: str, base_url: str, environ: Mapping[str, str]) -> Request: ...

    def parse(self, status: int, body: bytes) -> list[Candidate]: ...


def fallback_request(service: WebService, title: str, base_url: str, environ: Mapping[str, str]) -> Request | None:
    """The service's other form of a title search (``fallback``), for a query it refused; None when it has none."""
    fallback = getattr(service, "fallback", None)
    return fallback(title, base_url, environ) if fallback is not None else None


def require(service: str, package: str | None) -> None:
    """Raise :class:`MissingExtraError` naming the extra when ``package`` cannot be imported (nothing is imported;
    ``None``: a service of another package that needs no client library)."""
    if package is not None and importlib.util.find_spec(package) is None:
        raise MissingExtraError(
            f"the {service} source needs the {package!r} package: pip install 'surge-bench[bib]' "
            "(or drop it from --bib-services)")


def env_value(environ: Mapping[str, str], *names: str) -> str | None:
    """The first non-empty of the environment variables ``names``."""
    for name in names:
        value = (environ.get(name) or "").strip()
        if value:
            return value
    return None


def clean_query(title: str) -> str:
    """The title as sent: Markdown emphasis dropped, white space collapsed, trailing punctuation and length cut."""
    text = " ".join(_EMPHASIS.sub(" ", title or "").split()).strip(" .,;:")
    return text[:MAX_QUERY_CHARS].rstrip()


def arxiv_id_of(doi: str | None) -> str | None:
    """The arXiv id in an arXiv DataCite DOI (``10.48550/arXiv.1706.03762``), else None."""
    match = _ARXIV_DOI.search(doi or "")
    return _ARXIV_VERSION.sub("", match.group(1)) if match else None


def year_of(value: Any) -> int | None:
    """An int year from an int, ``"2019"`` or an ISO date; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    text = str(value or "").strip()
    return int(text[:4]) if len(text) >= 4 and text[:4].isdigit() else None
