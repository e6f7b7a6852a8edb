"""A scripted chat model in process: a :class:`~surge_dataset.llm.base.ChatBackend` for your own tests and examples.

It is no language model and opens no socket: each conversation it is asked gets the next answer of a script,
then whatever ``responder(messages)`` says (default ``"3"``). Wrap it like any backend, so the judge, the
answer cache, the follow-up tries and the counters all run as they do with a real model::

    model = ScriptedChat(["4"])
    judge = Judge(LLM(model, cache_dir=False))
    compute("sqs", [survey], [0], data="surge", judge=judge)
    model.requests  # the messages of every conversation asked, in order

A step ``None`` is a request that failed in transport (the answer is missing, as after a server's last
retry). Answers report a usage whose counts are whitespace-separated words (prompt: every message's content;
completion: the answer), so a test can work the token counts out by hand. To test an HTTP client against a
server, the repository's tests use a local OpenAI-compatible server instead (``tests/support/``, not shipped).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from surge_dataset.core.vocabulary import OPENAI
from surge_dataset.llm.base import (
    BackendSpec,
    Completion,
    Conversation,
    GenerationSettings,
    LLMStats,
    as_messages,
)

__all__ = ["Messages", "Responder", "ScriptedChat", "word_usage"]

Messages = list[dict[str, str]]
#: What a responder answers: the text, or ``None`` for a request that failed in transport.
Responder = Callable[[Messages], str | None]


def word_usage(messages: Sequence[dict[str, Any]], text: str) -> dict[str, int]:
    """Token counts as the scripted model reports them: whitespace-separated words of the prompt and answer."""
    prompt = sum(len(str(m.get("content", "")).split()) for m in messages)
    completion = len(text.split())
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


class ScriptedChat:
    """Answers each conversation with the next step of ``script``, then with ``responder(messages)``.

    ``model`` names it in the backend spec (``openai:<model>``: it behaves like a hosted chat model, without
    next-token probabilities) and in its cache identity, so give scripts that answer differently different
    names when they share an answer cache. ``usage=False`` reports no usage (the LLM layer then estimates it).
    """

    def __init__(self, script: Iterable[str | None] = (), responder: Responder | None = None, *,
                 model: str = "scripted", usage: bool = True) -> None:
        self.spec = BackendSpec(OPENAI, model)
        self.responder: Responder = responder or (lambda messages: "3")
        self.usage = usage
        self.requests: list[Messages] = []
        self._script = list(script)
        self._lock = threading.Lock()

    def identity(self) -> str:
        return f"scripted-chat/{self.spec.model}"

    def _next(self, messages: Messages) -> str | None:
        with self._lock:
            self.requests.append(messages)
            if self._script:
                return self._script.pop(0)
        return self.responder(messages)

    def generate(self, conversations: Sequence[Conversation], settings: GenerationSettings,
                 on_done: Callable[[int, Completion], None], stats: LLMStats) -> None:
        """Answer every conversation in order (``settings`` are ignored: a script has no temperature)."""
        for index, conversation in enumerate(conversations):
            messages = as_messages(conversation)
            text = self._next(messages)
            stats.add(sent=1)
            if text is None:
                stats.add(failed=1)
                on_done(index, Completion(None, error="scripted: no answer"))
            elif self.usage:
                counts = word_usage(messages, text)
                on_done(index, Completion(text, prompt_tokens=counts["prompt_tokens"],
                                          completion_tokens=counts["completion_tokens"]))
            else:
                on_done(index, Completion(text))

    def __repr__(self) -> str:
        return f"ScriptedChat({self.spec.model!r}, {len(self._script)} scripted answers left)"
