"""The one HTTP transport of the bibliographic services and `surge data fresh`: at most one request in flight when a
host asks for it (arXiv's terms: one connection at a time) and a cap on how much of an answer is read."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler

import pytest

from surge_dataset.core.http import LookupFailed, Request, Transport
from tests.support.local_server import LocalHTTPServer


class SlowServer(LocalHTTPServer):
    """Answers ``/slow`` after 0.2 s (counting requests in flight at once) and ``/big`` with 3,000 bytes."""

    def __init__(self) -> None:
        super().__init__()
        self.in_flight = self.most_in_flight = self.requests = 0
        self._lock = threading.Lock()

    def start(self) -> SlowServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                with server._lock:
                    server.requests += 1
                    server.in_flight += 1
                    server.most_in_flight = max(server.most_in_flight, server.in_flight)
                if self.path.startswith("/slow"):
                    time.sleep(0.2)
                body = b"x" * (3000 if self.path.startswith("/big") else 2)
                with server._lock:
                    server.in_flight -= 1
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        return self._serve(Handler, "slow-server")


def _four_at_once(transport: Transport, url: str) -> list[tuple[int, bytes]]:
    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(lambda i: transport.get(Request(f"{url}/slow/{i}", "")), range(4)))


@pytest.mark.parametrize("one_at_a_time", [True, False])
def test_one_at_a_time_keeps_a_single_request_in_flight(one_at_a_time: bool) -> None:
    with SlowServer() as server:
        transport = Transport("host", rate=float("inf"), timeout=10, max_retries=0, one_at_a_time=one_at_a_time)
        answers = _four_at_once(transport, server.address)
    assert answers == [(200, b"xx")] * 4
    assert transport.stats.requests == 4
    assert server.most_in_flight == 1 if one_at_a_time else server.most_in_flight > 1  # 4 threads overlap


def test_an_answer_over_max_bytes_is_a_failed_look_up_asked_once() -> None:
    with SlowServer() as server:
        capped = Transport("host", rate=float("inf"), timeout=10, max_retries=3, max_bytes=1000)
        with pytest.raises(LookupFailed, match="over 1,000 bytes"):
            capped.get(Request(f"{server.address}/big", ""))
        assert server.requests == 1 and capped.stats.failures == 1  # not retried: it would be as long
        roomy = Transport("host", rate=float("inf"), timeout=10, max_retries=0, max_bytes=3000)
        assert roomy.get(Request(f"{server.address}/big", "")) == (200, b"x" * 3000)
