"""The one way surge-bench's test servers (the scripted OpenAI-compatible server, the bibliographic services,
arXiv, the replay of recorded answers) listen: a threaded HTTP server on 127.0.0.1, a free port, stopped cleanly;
subclasses give the handler."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

__all__ = ["LocalHTTPServer", "QuietHandler", "send_answer"]

S = TypeVar("S", bound="LocalHTTPServer")


class QuietHandler(BaseHTTPRequestHandler):
    """The base of the test servers' handlers: keep-alive HTTP/1.1 answered without delay, and no log lines (tests
    read the servers' recorded requests instead)."""

    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # Headers and body go out as two writes; without TCP_NODELAY, Nagle's algorithm and the client's delayed
        # ACK add ~40 ms to every keep-alive response (real servers disable it).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return


def send_answer(handler: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str]) -> None:
    """Status, headers (``Content-Length`` added) and body; a client that hung up is no error of the server's."""
    handler.send_response(status)
    for name, value in {**headers, "Content-Length": str(len(body))}.items():
        handler.send_header(name, value)
    handler.end_headers()
    try:
        handler.wfile.write(body)
    except (BrokenPipeError, ConnectionResetError):
        pass


class LocalHTTPServer:
    """Serve a handler class on 127.0.0.1 in a daemon thread; a context manager (``with Server() as s``)."""

    def __init__(self) -> None:
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> str:
        """``http://127.0.0.1:<port>`` of the running server."""
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def _serve(self: S, handler: type[BaseHTTPRequestHandler], name: str) -> S:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name=name, daemon=True)
        self._thread.start()
        return self

    def start(self: S) -> S:  # pragma: no cover - subclasses define their handler
        raise NotImplementedError

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self: S) -> S:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
