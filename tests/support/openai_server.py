"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests and benchmarks (not shipped).

It speaks ``POST /v1/chat/completions`` and answers each request with the next step of a script:
a :class:`Reply` (text), an :class:`HttpError` (e.g. 429 or 500) or a :class:`Hang` (sleeps past the
client's timeout). When the script is used up, ``responder(messages)`` decides (default: reply "3").
Every request is recorded, so a test can count what reached the server. Answers carry an
OpenAI-style ``usage`` whose counts are whitespace-separated words (prompt: every message's content;
completion: the reply), so tests can compute them by hand; ``usage=False`` leaves ``usage`` out, as
some servers do.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from surge_dataset.testing.llm import word_usage  # the in-process ScriptedChat counts tokens the same way
from tests.support.local_server import LocalHTTPServer, QuietHandler, send_answer

__all__ = ["Hang", "HttpError", "Reply", "ScriptedOpenAIServer", "word_usage"]


@dataclass(frozen=True)
class Reply:
    text: str


@dataclass(frozen=True)
class HttpError:
    status: int
    retry_after: float | None = None


@dataclass(frozen=True)
class Hang:
    seconds: float


Step = Reply | HttpError | Hang


@dataclass
class RecordedRequest:
    messages: list[dict[str, str]]
    body: dict[str, Any]
    has_authorization: bool
    step: Step


class ScriptedOpenAIServer(LocalHTTPServer):
    """``with ScriptedOpenAIServer([Reply("4"), HttpError(500)]) as server: ... server.base_url``."""

    def __init__(
        self,
        script: Iterable[Step | str] = (),
        responder: Callable[[list[dict[str, str]]], Step | str] | None = None,
        *,
        latency: float = 0.0,
        usage: bool = True,
    ) -> None:
        self._script = [Reply(s) if isinstance(s, str) else s for s in script]
        self.responder = responder or (lambda messages: Reply("3"))
        self.latency = latency
        self.usage = usage
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        super().__init__()

    @property
    def base_url(self) -> str:
        return f"{self.address}/v1"

    def _next_step(self, messages: list[dict[str, str]]) -> Step:
        with self._lock:
            if self._script:
                return self._script.pop(0)
        step = self.responder(messages)
        return Reply(step) if isinstance(step, str) else step

    def start(self) -> ScriptedOpenAIServer:
        owner = self

        class Handler(QuietHandler):
            def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                send_answer(self, status, json.dumps(payload).encode(), {"Content-Type": "application/json",
                                                                          **(headers or {})})

            def do_POST(self) -> None:  # noqa: N802 - stdlib naming
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                messages = body.get("messages", [])
                step = owner._next_step(messages)
                with owner._lock:
                    owner.requests.append(RecordedRequest(messages, body, bool(self.headers.get("Authorization")), step))
                if owner.latency:
                    time.sleep(owner.latency)
                try:
                    if isinstance(step, Hang):
                        time.sleep(step.seconds)
                        self._send(200, _completion(body, "0", owner.usage))
                    elif isinstance(step, HttpError):
                        headers = {"Retry-After": f"{step.retry_after:g}"} if step.retry_after is not None else None
                        self._send(step.status, {"error": {"message": f"scripted HTTP {step.status}",
                                                           "type": "scripted", "code": step.status}}, headers)
                    else:
                        self._send(200, _completion(body, step.text, owner.usage))
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout): nothing to answer

        return self._serve(Handler, "scripted-openai")


def _completion(body: dict[str, Any], text: str, usage: bool = True) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "scripted"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
    }
    if usage:
        payload["usage"] = word_usage(body.get("messages", []), text)
    return payload
