"""A server on 127.0.0.1 that answers with scripted faults (stdlib only): each request gets the next
``(status, headers)`` of the script, then 200 once the script is used up. The 200 body is ``ok_body`` (a GET
client's bytes, or an OpenAI chat completion for ``POST .../chat/completions``); the faults carry no answer at all,
so nothing here stands in for a real service's answer. Every request is counted."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["FaultServer", "chat_completion"]

Fault = tuple[int, Mapping[str, str]]


def chat_completion(text: str) -> bytes:
    """The smallest chat completion the ``openai`` client reads (the answer of the request that got through)."""
    return json.dumps({"id": "fault-server", "object": "chat.completion", "created": 0, "model": "m",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                    "finish_reason": "stop"}]}).encode()


class FaultServer:
    """``with FaultServer([(429, {"Retry-After": "0"}), (503, {})]) as server: ... server.url``."""

    def __init__(self, script: Iterable[Fault] = (), *, always: Fault | None = None, ok_body: bytes = b"ok") -> None:
        self.script = list(script)
        self.always = always
        self.ok_body = ok_body
        self.requests = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    def _next(self) -> Fault | None:
        with self._lock:
            self.requests += 1
            if self.script:
                return self.script.pop(0)
            return self.always

    def __enter__(self) -> FaultServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                fault = owner._next()
                status, headers = fault if fault is not None else (200, {})
                body = owner.ok_body if fault is None else b'{"error": {"message": "scripted fault"}}'
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer  # noqa: N815 - http.server's names

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, args=(0.02,), name="fault-server", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"
