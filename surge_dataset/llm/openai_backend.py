"""``openai:<model>``: any server that speaks the OpenAI chat-completions API (OpenAI, vLLM, llama.cpp).

Requests run in a thread pool (``concurrency`` at a time). Each request has its own timeout and is
retried by surge-bench's one retry policy (:mod:`surge_dataset.core.http`: timeouts, connection errors, HTTP
408/409/425/429 and 5xx; exponential backoff with full jitter; a server's ``Retry-After`` honoured, one longer
than ``backoff_max`` gives the request up); the ``openai`` client's own retries are off, so the two never stack.
Errors that retrying cannot fix (HTTP 401/403/404: key or model) stop the run with one clear message; any other
failure is recorded for that request, never raised.

The API key is read from ``$SURGE_LLM_API_KEY`` or ``$OPENAI_API_KEY`` only (never a flag), and is
scrubbed from every message this module logs or records.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Any

from surge_dataset.core.http import redact_url, retry_after_header, retry_delay, retryable
from surge_dataset.llm.base import (
    BackendSpec,
    Completion,
    Conversation,
    GenerationSettings,
    LLMConfigurationError,
    LLMStats,
    as_messages,
)

__all__ = ["API_KEY_ENV_VARS", "OpenAIBackend"]

logger = logging.getLogger(__name__)

#: Where the key is read from, first match wins.
API_KEY_ENV_VARS: tuple[str, ...] = ("SURGE_LLM_API_KEY", "OPENAI_API_KEY")
_FATAL_STATUS = {401, 403, 404}


class OpenAIBackend:
    """Chat completions over HTTP with bounded retries, timeouts and a concurrency limit."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        concurrency: int = 8,
        timeout: float = 120.0,
        max_retries: int = 5,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        self.spec = BackendSpec("openai", model)
        self.model = model
        self.base_url = base_url
        self.concurrency = concurrency
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self._client: Any = None
        self._client_lock = threading.Lock()
        self._secret: str | None = None

    def identity(self) -> str:
        # The server address is left out on purpose: the same model behind another port or proxy gives
        # the same answers, and a rerun against a restarted local server must still hit the cache.
        return f"openai|{self.model}"

    # -- client -------------------------------------------------------------------------------------

    def _api_key(self) -> str:
        for name in API_KEY_ENV_VARS:
            value = os.environ.get(name)
            if value:
                return value
        if self.base_url or os.environ.get("OPENAI_BASE_URL"):
            return "EMPTY"  # local servers (vLLM, llama.cpp) accept any key
        raise LLMConfigurationError(
            f"openai:{self.model} needs an API key: set one of ${', $'.join(API_KEY_ENV_VARS)} "
            "(keys are never taken from the command line), or pass --base-url for a local server"
        )

    def client(self) -> Any:
        """The ``openai.OpenAI`` client, built on the first request (a fully cached rerun needs no key)."""
        with self._client_lock:
            if self._client is None:
                import openai

                key = self._api_key()
                self._secret = key if key != "EMPTY" else None
                # max_retries=0: retries are ours (bounded, counted, jittered, logged without secrets).
                self._client = openai.OpenAI(api_key=key, base_url=self.base_url, timeout=self.timeout, max_retries=0)
            return self._client

    def _redact(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text

    # -- requests -----------------------------------------------------------------------------------

    def _one(self, conversation: Conversation, settings: GenerationSettings, stats: LLMStats) -> Completion:
        import openai

        client = self.client()
        attempt = 0
        while True:
            retry_after: float | None = None
            stats.add(sent=1)
            try:
                response = client.chat.completions.create(
                    model=self.model,
                    messages=as_messages(conversation),
                    temperature=settings.temperature,
                    max_tokens=settings.max_new_tokens,
                )
                choice = response.choices[0] if response.choices else None
                text = (choice.message.content if choice is not None else None) or ""
                prompt_tokens, completion_tokens = _usage(response)
                return Completion(text=text, attempts=attempt + 1, prompt_tokens=prompt_tokens,
                                  completion_tokens=completion_tokens)
            except openai.APIStatusError as exc:
                status = exc.status_code
                error = self._redact(f"HTTP {status}: {_short(exc)}")
                if status in _FATAL_STATUS:
                    raise LLMConfigurationError(
                        f"the server at {redact_url(self.base_url) or 'api.openai.com'} refused openai:{self.model} "
                        f"({error}); check the model name and the key in ${' / $'.join(API_KEY_ENV_VARS)}"
                    ) from None
                if not retryable(status):
                    return Completion(text=None, error=error, attempts=attempt + 1)
                retry_after = retry_after_header(getattr(getattr(exc, "response", None), "headers", None))
            except openai.APITimeoutError:
                error = f"timed out after {self.timeout:g}s"
            except openai.APIConnectionError as exc:
                error = self._redact(f"connection error: {_short(exc)}")
            delay = retry_delay(attempt + 1, self.max_retries, retry_after, backoff=self.backoff_base,
                                max_wait=self.backoff_max, jitter=True)  # full jitter: workers not in lockstep
            if delay is None:
                why = f"; Retry-After {retry_after:g}s is over {self.backoff_max:g}s" if retry_after is not None \
                    and attempt < self.max_retries else ""
                stats.add(failed=1)
                logger.warning("LLM request failed after %d attempt(s) (%s%s); its answer is recorded as missing",
                               attempt + 1, error, why)
                return Completion(text=None, error=error, attempts=attempt + 1)
            attempt += 1
            stats.add(retries=1)
            logger.warning("LLM request failed (%s); retry %d/%d in %.2fs", error, attempt, self.max_retries, delay)
            time.sleep(delay)

    def generate(
        self,
        conversations: Sequence[Conversation],
        settings: GenerationSettings,
        on_done: Callable[[int, Completion], None],
        stats: LLMStats,
    ) -> None:
        if not conversations:
            return
        if self.concurrency == 1 or len(conversations) == 1:
            for index, conversation in enumerate(conversations):
                on_done(index, self._one(conversation, settings, stats))
            return
        with ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="surge-llm") as pool:

            def task(index: int, conversation: Conversation) -> None:
                on_done(index, self._one(conversation, settings, stats))

            futures = [pool.submit(task, i, c) for i, c in enumerate(conversations)]
            done, pending = wait(futures, return_when=FIRST_EXCEPTION)
            for future in done:
                if future.exception() is not None:
                    for other in pending:
                        other.cancel()
                    raise future.exception()  # type: ignore[misc]

    def continuation_logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[list[float]]:
        """Per (prompt, continuation): each continuation token's log-probability, when the server echoes prompt
        log-probabilities (completions API); else an ``LLMConfigurationError`` saying so (:mod:`.logprobs`)."""
        from surge_dataset.llm.logprobs import server_continuation_logprobs

        return server_continuation_logprobs(self, pairs)

    def __repr__(self) -> str:
        return f"OpenAIBackend({self.model!r}, base_url={redact_url(self.base_url)!r}, concurrency={self.concurrency})"


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


def _usage(response: Any) -> tuple[int | None, int | None]:
    """The server's ``usage`` (prompt_tokens, completion_tokens), (None, None) when it sent none."""
    usage = getattr(response, "usage", None)
    prompt, completion = getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None)
    if not isinstance(prompt, int) or isinstance(prompt, bool):
        return None, None
    return prompt, completion if isinstance(completion, int) and not isinstance(completion, bool) else 0
