"""HTTP for every web service, in one place: a per-service rate limit, bounded retries with backoff on 429,
5xx and network errors (``Retry-After`` honoured), a per-request timeout, and counters.

The policy is pure (:func:`retry_delay`, :func:`parse_retry_after`); :class:`Transport` applies it with
``requests`` (one session per thread, so a modest thread pool can keep a few requests in flight). A service
that keeps failing is declared down after :data:`DOWN_AFTER` failed titles in a row: the rest of the run asks
it nothing (its titles are ``unchecked``), instead of waiting out every retry of every title.
"""

from __future__ import annotations

import contextlib
import email.utils
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from surge_dataset.references.base import Request

__all__ = ["DOWN_AFTER", "AnswerTooLong", "LookupFailed", "RateLimiter", "ServiceStats", "Transport", "parse_retry_after",
           "retry_delay"]

#: Statuses worth asking again: too many requests, and server-side failures.
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
#: The longest wait for one retry (a longer ``Retry-After`` gives the request up: the reference is unchecked).
MAX_WAIT = 120.0
#: The first backoff (seconds); doubled at each retry, up to :data:`MAX_WAIT`.
BACKOFF = 0.5
#: Failed titles in a row after which a service is taken for down for the rest of the run.
DOWN_AFTER = 5


class LookupFailed(Exception):
    """A request given up: retries spent, a status that is no answer, or the service is down."""


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


def retry_delay(attempt: int, max_retries: int, retry_after: float | None, *, backoff: float = BACKOFF,
                max_wait: float = MAX_WAIT) -> float | None:
    """Seconds to wait before retry number ``attempt`` (1 = the first retry), or None to give up.

    ``retry_after`` (the server's ``Retry-After``, in seconds) is honoured as given; one longer than
    ``max_wait`` gives the request up rather than sleeping through the run. Without it: ``backoff`` doubled
    at each retry, capped at ``max_wait``.
    """
    if attempt > max_retries:
        return None
    if retry_after is not None:
        return retry_after if retry_after <= max_wait else None
    return min(max_wait, backoff * 2 ** (attempt - 1))


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
            except requests.RequestException as exc:
                reason = f"{type(exc).__name__}: {str(exc)[:160]}"
            else:
                if response.status_code not in RETRY_STATUSES:
                    self._settled(ok=True)
                    return response.status_code, body
                reason = f"HTTP {response.status_code}"
                retry_after = parse_retry_after(response.headers.get("Retry-After"))
            attempt += 1
            delay = retry_delay(attempt, self.max_retries, retry_after, backoff=self.backoff, max_wait=self.max_wait)
            if delay is None:
                tries = f"{attempt} {'try' if attempt == 1 else 'tries'}"
                why = f" (Retry-After {retry_after:g} s is over {self.max_wait:g} s)" if retry_after else ""
                self._settled(ok=False, reason=reason)
                raise LookupFailed(f"{reason} after {tries}{why}")
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
