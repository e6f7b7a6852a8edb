"""One retry policy (surge_dataset.core.http) for every HTTP client: the GET transport of the bibliographic
services and `surge data fresh`, and the OpenAI-compatible LLM backend ask again on the same statuses, read
``Retry-After`` the same way (seconds and HTTP dates), give up on the same too-long waits and stop after the same
number of retries; the ``openai`` client's own retries never stack with ours. Each caller is driven by the same
scripted faults of a server on 127.0.0.1."""

from __future__ import annotations

import email.utils
import time
from types import SimpleNamespace

import pytest

from surge_dataset.core.http import (
    LookupFailed,
    RateLimiter,
    Request,
    Transport,
    parse_retry_after,
    retry_delay,
    retryable,
)
from surge_dataset.llm.base import GenerationSettings, LLMStats
from surge_dataset.llm.openai_backend import OpenAIBackend
from tests.support.fault_server import FaultServer, chat_completion

RETRIED = (408, 409, 425, 429, 500, 502, 503, 504, 529)
FINAL = (400, 422, 501, 505)


def _http_date(seconds_from_now: float) -> str:
    return email.utils.formatdate(time.time() + seconds_from_now, usegmt=True)


class Clock:
    """A clock that moves only when slept on, so waits are counted, not waited."""

    def __init__(self) -> None:
        self.now = 0.0

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def _transport(server: FaultServer, max_retries: int) -> tuple[int, float]:
    """(status, seconds the transport waited) for one GET; -1 when it gave up."""
    clock = Clock()
    transport = Transport("host", rate=1e9, timeout=5, max_retries=max_retries, backoff=0.001, max_wait=60,
                          sleep=clock.sleep)
    transport.limiter = RateLimiter(1e9, clock=clock.time, sleep=clock.sleep)
    try:
        status, _ = transport.get(Request(f"{server.url}/x"))
    except LookupFailed:
        status = -1
    return status, clock.now


def _openai(server: FaultServer, max_retries: int, sleeps: list[float], monkeypatch) -> tuple[int, float]:
    import surge_dataset.llm.openai_backend as backend_module

    monkeypatch.setattr(backend_module, "time", SimpleNamespace(sleep=sleeps.append))
    backend = OpenAIBackend("m", base_url=f"{server.url}/v1", concurrency=1, timeout=5, max_retries=max_retries,
                            backoff_base=0.001, backoff_max=60)
    done = []
    backend.generate([(("user", "hi"),)], GenerationSettings(), lambda i, c: done.append(c), LLMStats())
    return (200 if done[0].text is not None else -1), sum(sleeps)


CALLERS = ["transport", "openai"]


def _ask(caller: str, server: FaultServer, max_retries: int, monkeypatch) -> tuple[int, float]:
    if caller == "transport":
        return _transport(server, max_retries)
    server.ok_body = chat_completion("3")
    return _openai(server, max_retries, [], monkeypatch)


def test_the_policy_itself():
    assert all(retryable(s) for s in RETRIED) and not any(retryable(s) for s in FINAL)
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412480 - 10) == pytest.approx(10.0)
    assert [retry_delay(a, 3, None, backoff=0.5) for a in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, None]
    assert retry_delay(2, 3, None, backoff=0.5, jitter=True, draw=lambda lo, hi: hi / 4) == 0.25  # uniform(0, 1.0)
    assert retry_delay(1, 3, 30.0, max_wait=60, jitter=True) == 30.0  # the server's wait, never jittered
    assert retry_delay(1, 3, 61.0, max_wait=60) is None


@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.parametrize("status", [*RETRIED, *FINAL])
def test_both_callers_retry_the_same_statuses(caller, status, monkeypatch):
    with FaultServer([(status, {})]) as server:
        outcome, _ = _ask(caller, server, 1, monkeypatch)
    assert server.requests == (2 if status in RETRIED else 1)
    if caller == "openai" or status in RETRIED:  # the transport hands a final status to its service to read
        assert outcome == (200 if status in RETRIED else -1)


@pytest.mark.parametrize("caller", CALLERS)
def test_both_callers_honour_retry_after_in_seconds_and_as_an_http_date(caller, monkeypatch):
    faults = [(429, {"Retry-After": "2"}), (503, {"Retry-After": _http_date(-60)})]  # a date past: no wait
    with FaultServer(faults) as server:
        outcome, waited = _ask(caller, server, 2, monkeypatch)
    assert (outcome, server.requests) == (200, 3) and waited == pytest.approx(2.0)


@pytest.mark.parametrize("caller", CALLERS)
def test_both_callers_give_up_when_retry_after_is_longer_than_they_wait(caller, monkeypatch):
    with FaultServer([(429, {"Retry-After": _http_date(3600)})]) as server:
        outcome, waited = _ask(caller, server, 3, monkeypatch)
    assert (outcome, server.requests) == (-1, 1) and waited == pytest.approx(0)


@pytest.mark.parametrize("caller", CALLERS)
def test_retries_are_bounded_and_the_openai_clients_own_do_not_stack(caller, monkeypatch):
    with FaultServer(always=(503, {})) as server:
        outcome, _ = _ask(caller, server, 2, monkeypatch)
    assert (outcome, server.requests) == (-1, 3)  # 1 + max_retries requests, not (1 + 2) x (1 + the client's 2)
