"""HTTP for every service surge-bench asks, in one place: one retry policy, and the one GET client (a
per-service rate limit, a per-request timeout, counters) that the reference resolver and ``surge data fresh``
share; the OpenAI-compatible LLM backend applies the same policy to its own client (:mod:`surge_dataset.llm`).

The policy is pure (:func:`retryable`, :func:`retry_delay`, :func:`parse_retry_after`): a request is asked again on
a timeout, a network error, HTTP 408/409/425/429 and any 5xx but 501/505, at most ``max_retries`` times; the wait
before retry ``n`` is the server's ``Retry-After`` (delta-seconds or an HTTP date) when it sent one, and one longer
than ``max_wait`` gives the request up rather than sleeping through the run; without one, ``backoff * 2**(n-1)``
capped at ``max_wait`` (with ``jitter``: a uniform draw up to that, so concurrent workers do not retry in lockstep).

:class:`Transport` applies it with ``requests`` (one session per thread, so a modest thread pool can keep a few
requests in flight). A service that keeps failing is declared down after :data:`DOWN_AFTER` failed titles in a row:
the rest of the run asks it nothing (its titles are ``unchecked``), instead of waiting out every retry of every title.
"""

from __future__ import annotations

import contextlib
import email.utils
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from surge_dataset.core.metadata import CODEBASE_URL, SURGE_BENCH_VERSION
from surge_dataset.core.vocabulary import parse_assignments

__all__ = ["BACKOFF", "DOWN_AFTER", "MAX_WAIT", "AnswerTooLong", "LookupFailed", "RateLimiter", "Request", "ServiceStats",
           "Transport", "parse_base_urls", "parse_retry_after", "redact_url", "retry_after_header", "retry_delay",
           "retryable", "user_agent"]

#: Statuses worth asking again besides the 5xx: a timeout, a conflict (OpenAI: a lock timed out), too early, too
#: many requests.
RETRY_STATUSES = frozenset({408, 409, 425, 429})
#: Server errors that asking again cannot fix.
FINAL_SERVER_STATUSES = frozenset({501, 505})
#: The longest wait for one retry (a longer ``Retry-After`` gives the request up: the reference is unchecked).
MAX_WAIT = 120.0
#: The first backoff (seconds); doubled at each retry, up to :data:`MAX_WAIT`.
BACKOFF = 0.5
#: Failed titles in a row after which a service is taken for down for the rest of the run.
DOWN_AFTER = 5


@dataclass(frozen=True)
class Request:
    """One GET: the URL, its already-encoded query string, and headers (secrets only ever live here)."""

    url: str
    query: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def full_url(self) -> str:
        return f"{self.url}?{self.query}" if self.query else self.url


class LookupFailed(Exception):
    """A request given up: retries spent, a status that is no answer, or the service is down. ``unreachable``:
    no try got an answer from the host (no connection, no network), so the caller can say so and name the option
    that points the service elsewhere, rather than pass on a library's connection-pool text."""

    def __init__(self, message: str, *, unreachable: bool = False) -> None:
        super().__init__(message)
        self.unreachable = unreachable


class AnswerTooLong(LookupFailed):
    """An answer over the transport's ``max_bytes``: asking again would bring the same, so it is final."""


@dataclass
class ServiceStats:
    """What one service's lookups did in this run (for results["references"] and the benchmark)."""

    titles: int = 0  # distinct titles asked of this service (cache hits included)
    cache_hits: int = 0
    requests: int = 0  # first attempts sent
    retries: int = 0
    failures: int = 0  # titles given up (unchecked)
    rejected: int = 0  # titles whose query the service refused, asked again in its other form
    waited_s: float = 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in asdict(self).items()}


def parse_base_urls(items: Sequence[str] | Mapping[str, str] | None, option: str, services: Sequence[str], *,
                    shape: str = "SERVICE=URL") -> dict[str, str]:
    """``--bib-base-url`` (``surge evaluate``'s services, ``surge data fresh``'s hosts): ``{service: URL}``, each name
    one of ``services`` (the closest on a typo), a trailing ``/`` dropped (:func:`parse_assignments`)."""
    example = f", e.g. {services[0]}=http://127.0.0.1:8000" if services else ""
    urls = parse_assignments(items, option, shape=shape, hint=example, choices=services)
    return {name: url.rstrip("/") for name, url in urls.items()}


def redact_url(url: str | None) -> str | None:
    """A URL safe to record: any ``user:password@`` part is dropped."""
    if not url:
        return url
    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        parts = parts._replace(netloc=netloc)
    return urlunsplit(parts)


def user_agent(email: str | None = None) -> str:
    """How surge-bench names itself to a service: ``surge-bench/<version> (<code URL>; mailto:<email>)``."""
    return f"surge-bench/{SURGE_BENCH_VERSION} ({CODEBASE_URL}" + (f"; mailto:{email})" if email else ")")


def retryable(status: int) -> bool:
    """Whether an answer with this HTTP status is worth asking again (module docstring)."""
    return status in RETRY_STATUSES or (status >= 500 and status not in FINAL_SERVER_STATUSES)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date; None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def retry_after_header(headers: Any, now: float | None = None) -> float | None:
    """:func:`parse_retry_after` of a response's ``Retry-After`` header (any mapping with ``get``; None without)."""
    try:
        value = headers.get("Retry-After") if headers is not None else None
    except AttributeError:
        return None
    return parse_retry_after(value if isinstance(value, str) else None, now)


def retry_delay(attempt: int, max_retries: int, retry_after: float | None, *, backoff: float = BACKOFF,
                max_wait: float = MAX_WAIT, jitter: bool = False,
                draw: Callable[[float, float], float] = random.uniform) -> float | None:
    """Seconds to wait before retry number ``attempt`` (1 = the first retry), or None to give up.

    ``retry_after`` (the server's ``Retry-After``, in seconds) is honoured as given; one longer than
    ``max_wait`` gives the request up rather than sleeping through the run. Without it: ``backoff`` doubled
    at each retry, capped at ``max_wait``; with ``jitter``, ``draw(0, that)`` instead (full jitter).
    """
    if attempt > max_retries:
        return None
    if retry_after is not None:
        return retry_after if retry_after <= max_wait else None
    cap = min(max_wait, backoff * 2 ** (attempt - 1))
    return draw(0.0, cap) if jitter else cap


class RateLimiter:
    """At most ``rate`` request starts per second, across threads; :meth:`defer` pauses every thread (a 429)."""

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if rate <= 0:
            raise ValueError(f"a rate limit must be above 0 requests per second, not {rate}")
        self.interval = 1.0 / rate
        self._clock, self._sleep = clock, sleep
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> float:
        """Block until this caller may start a request; returns the seconds waited."""
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval
        delay = start - now
        if delay > 0:
            self._sleep(delay)
        return delay

    def defer(self, seconds: float) -> None:
        """No request starts before ``seconds`` from now (the server asked every client to slow down)."""
        with self._lock:
            self._next = max(self._next, self._clock() + seconds)


class Transport:
    """GET with the policy above for one service (thread-safe; counters in :attr:`stats`)."""

    def __init__(self, service: str, *, rate: float, timeout: float, max_retries: int, backoff: float = BACKOFF,
                 max_wait: float = MAX_WAIT, user_agent: str = "surge-bench", stats: ServiceStats | None = None,
                 sleep: Callable[[float], None] = time.sleep, one_at_a_time: bool = False,
                 max_bytes: int | None = None) -> None:
        """``one_at_a_time``: at most one request in flight, whatever the threads (arXiv's terms: one connection
        at a time, besides the pause between requests); ``max_bytes``: a longer answer is a failed look-up, read
        no further (a broken mirror cannot fill the memory)."""
        self.service = service
        self.max_bytes = max_bytes
        self._in_flight = threading.Lock() if one_at_a_time else contextlib.nullcontext()
        self.timeout, self.max_retries, self.backoff, self.max_wait = timeout, max_retries, backoff, max_wait
        self.user_agent = user_agent
        self.limiter = RateLimiter(rate, sleep=sleep)
        self.stats = stats if stats is not None else ServiceStats()
        self.down_reason: str | None = None
        self._sleep = sleep
        self._local = threading.local()
        self._lock = threading.Lock()
        self._failed_in_a_row = 0

    def _session(self):
        import requests

        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
        return session

    def count(self, field: str, amount: float = 1) -> None:
        """Add ``amount`` to one of :attr:`stats`' counters (thread-safe)."""
        with self._lock:
            setattr(self.stats, field, getattr(self.stats, field) + amount)

    def get(self, request: Request) -> tuple[int, bytes]:
        """The status and body of the first answer that is not worth retrying; :class:`LookupFailed` otherwise."""
        import requests

        if self.down_reason:
            self.count("failures")
            raise LookupFailed(f"not asked: {self.service} is down ({self.down_reason})")
        headers = {"User-Agent": self.user_agent, **request.headers}
        attempt = 0
        while True:
            self.count("waited_s", self.limiter.wait())
            self.count("retries" if attempt else "requests")
            retry_after = None
            try:
                with self._in_flight:
                    response = self._session().get(request.full_url, headers=headers, timeout=self.timeout,
                                                   stream=self.max_bytes is not None)
                    body = self._body(response)
            except requests.ConnectionError:  # the host, not the library's connection pool, is what a user can act on
                reason = f"cannot connect to {urlsplit(request.url).netloc}"
                unreachable = True
            except requests.Timeout:
                reason = f"no answer from {urlsplit(request.url).netloc} within {self.timeout:g} s"
                unreachable = True
            except requests.RequestException as exc:
                reason = " ".join(str(exc).split())[:160] or "the request failed"
                unreachable = False
            else:
                unreachable = False
                if not retryable(response.status_code):
                    self._settled(ok=True)
                    return response.status_code, body
                reason = f"HTTP {response.status_code}"
                retry_after = retry_after_header(response.headers)
            attempt += 1
            delay = retry_delay(attempt, self.max_retries, retry_after, backoff=self.backoff, max_wait=self.max_wait)
            if delay is None:
                tries = f"{attempt} {'try' if attempt == 1 else 'tries'}"
                why = f" (Retry-After {retry_after:g} s is over {self.max_wait:g} s)" if retry_after else ""
                self._settled(ok=False, reason=reason)
                raise LookupFailed(f"{reason} after {tries}{why}", unreachable=unreachable)
            if retry_after is not None:
                self.limiter.defer(delay)  # every thread of this service waits (counted when it does)
            else:
                self._sleep(delay)
                self.count("waited_s", delay)

    def _body(self, response: Any) -> bytes:
        """The answer's bytes; over :attr:`max_bytes`, :class:`LookupFailed` (not retried: it would be as long)."""
        if self.max_bytes is None:
            return response.content
        chunks, size = [], 0
        for chunk in response.iter_content(chunk_size=1 << 20):
            size += len(chunk)
            if size > self.max_bytes:
                response.close()
                self._settled(ok=False, reason="answer too long")
                raise AnswerTooLong(f"the answer is over {self.max_bytes:,} bytes: not read further")
            chunks.append(chunk)
        return b"".join(chunks)

    def _settled(self, *, ok: bool, reason: str = "") -> None:
        with self._lock:
            if ok:
                self._failed_in_a_row = 0
                return
            self.stats.failures += 1
            self._failed_in_a_row += 1
            if self._failed_in_a_row >= DOWN_AFTER and not self.down_reason:
                self.down_reason = f"{DOWN_AFTER} titles in a row failed, the last with {reason}"

    def record_failure(self, reason: str) -> None:
        """A title whose answer could not be read (counts toward :data:`DOWN_AFTER` like a failed request)."""
        self._settled(ok=False, reason=reason)
