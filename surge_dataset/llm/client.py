"""The one LLM front end: a backend plus the on-disk answer cache, de-duplication and counters.

Cache key = hash of (backend identity = kind, model and exact weights; the conversation; the generation
settings). Only real answers are stored (an empty answer is a real answer; a transport failure is not),
each as soon as it arrives, so reruns and resumed runs send nothing that was answered before.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from surge_dataset.core.cache import CacheDir, JsonStore, make_key
from surge_dataset.llm.base import (
    LLM_BACKENDS,
    BackendSpec,
    ChatBackend,
    Completion,
    Conversation,
    GenerationSettings,
    LLMConfigurationError,
    LLMStats,
    as_conversation,
)
from surge_dataset.llm.usage import estimate_tokens

__all__ = ["LLM", "make_llm"]

_CACHE_VERSION = "llm-v1"


class LLM:
    """Cached, de-duplicated access to one chat backend (what judges and, later, baselines call)."""

    def __init__(self, backend: ChatBackend, cache_dir: CacheDir = None) -> None:
        self.backend = backend
        self.cache = JsonStore(cache_dir, "llm")
        self.stats = LLMStats()
        self._namespace: str | None = None
        self._lock = threading.Lock()

    @property
    def spec(self) -> BackendSpec:
        return self.backend.spec

    @property
    def supports_probabilities(self) -> bool:
        return hasattr(self.backend, "next_token_probabilities")

    @property
    def namespace(self) -> str:
        if self._namespace is None:
            self._namespace = f"{_CACHE_VERSION}|{self.backend.identity()}"
        return self._namespace

    def _key(self, kind: str, conversation: Conversation, extra: Any) -> str:
        return make_key(self.namespace, kind, json.dumps(conversation, ensure_ascii=False),
                        json.dumps(extra, sort_keys=True))

    @property
    def context_length(self) -> int | None:
        """Tokens the model reads at most (prompt + answer), when the backend can tell (local models)."""
        reader = getattr(self.backend, "context_length", None)
        return reader() if callable(reader) else None

    def generate(
        self,
        conversations: Sequence[Conversation | Sequence[dict[str, str]]],
        settings: GenerationSettings | None = None,
        *,
        on_answer: Callable[[int, Completion], None] | None = None,
        on_tokens: Callable[[int], None] | None = None,
    ) -> list[Completion]:
        """One completion per conversation, in input order; cached answers are not sent again.

        ``on_answer(index, completion)`` is called as each answer is known (cached ones first), from the
        backend's threads; ``on_tokens(n)`` as a local model decodes (live speed). Both feed progress bars.
        """
        settings = settings or GenerationSettings()
        convs = [as_conversation(c) for c in conversations]
        keys = [self._key("chat", c, settings.as_key()) for c in convs]
        by_key: dict[str, list[int]] = {}
        for index, key in enumerate(keys):
            by_key.setdefault(key, []).append(index)
        results: list[Completion | None] = [None] * len(convs)
        cached = self.cache.get_many(by_key)
        for key, value in cached.items():
            for index in by_key[key]:
                results[index] = Completion(text=value["text"], cached=True, attempts=0)
                if on_answer is not None:
                    on_answer(index, results[index])
        todo = [key for key in by_key if key not in cached]
        self.stats.add(requested=len(convs), cache_hits=len(convs) - sum(len(by_key[k]) for k in todo))

        def on_done(position: int, completion: Completion) -> None:
            key = todo[position]
            if completion.text is not None:
                self.cache.put_many({key: {"text": completion.text}})
                self._count_usage(convs[by_key[key][0]], completion)
            for index in by_key[key]:
                results[index] = completion
                if on_answer is not None:
                    on_answer(index, completion)

        if todo:
            extra = {"on_tokens": on_tokens} if on_tokens is not None and _takes(self.backend.generate, "on_tokens") else {}
            self.backend.generate([convs[by_key[k][0]] for k in todo], settings, on_done, self.stats, **extra)
        missing = [i for i, r in enumerate(results) if r is None]
        for index in missing:  # a backend that skipped an item: recorded as a failure, never a crash
            results[index] = Completion(text=None, error="the backend returned no answer")
            if on_answer is not None:
                on_answer(index, results[index])
        return results  # type: ignore[return-value]

    def _count_usage(self, conversation: Conversation, completion: Completion) -> None:
        """Reported tokens when the answer came with usage; else a characters / 4 estimate, counted apart."""
        if completion.prompt_tokens is not None:
            self.stats.add(prompt_tokens=completion.prompt_tokens, completion_tokens=completion.completion_tokens or 0,
                           usage_reported=1)
        else:
            prompt = estimate_tokens("\n".join(content for _, content in conversation))
            self.stats.add(estimated_prompt_tokens=prompt, estimated_completion_tokens=estimate_tokens(completion.text),
                           usage_estimated=1)

    def probabilities(
        self, conversations: Sequence[Conversation | Sequence[dict[str, str]]], choices: Sequence[str]
    ) -> np.ndarray:
        """``[n, len(choices) + 1]``: each choice's probability as the first answer token (renormalised
        over the choices), then the mass the choices had before renormalising. Local backends only."""
        if not self.supports_probabilities:
            raise LLMConfigurationError(
                f"{self.spec} cannot expose token probabilities; the probability-weighted score needs an "
                "hf: or gguf: judge"
            )
        convs = [as_conversation(c) for c in conversations]
        keys = [self._key("next-token", c, list(choices)) for c in convs]
        cached = self.cache.get_many(keys)
        todo = list(dict.fromkeys(k for k in keys if k not in cached))
        self.stats.add(requested=len(convs), cache_hits=sum(1 for k in keys if k in cached))
        if todo:
            first: dict[str, int] = {}
            for index, key in enumerate(keys):
                first.setdefault(key, index)
            self.stats.add(sent=len(todo))
            rows = self.backend.next_token_probabilities([convs[first[k]] for k in todo], list(choices))  # type: ignore[attr-defined]
            fresh = {k: [float(x) for x in row] for k, row in zip(todo, np.asarray(rows), strict=True)}
            self.cache.put_many(fresh)
            cached.update(fresh)
        if not convs:
            return np.zeros((0, len(choices) + 1))
        return np.asarray([cached[k] for k in keys], dtype=np.float64)

    @property
    def supports_logprobs(self) -> bool:
        """Whether the backend can read the log-probabilities of a given text (local models; some servers)."""
        return hasattr(self.backend, "continuation_logprobs")

    def continuation_logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[list[float]]:
        """Per (prompt, continuation): the log-probability of each continuation token given what precedes it.

        Cached like answers (keyed by the backend identity and the two texts); pairs asked twice are computed once.
        A backend that cannot read them (a chat-only server, a scripted model) is an ``LLMConfigurationError``.
        """
        if not self.supports_logprobs:
            raise LLMConfigurationError(
                f"{self.spec} cannot read token log-probabilities of a given text; this needs an hf: or gguf: model, "
                "or an openai: server whose completions endpoint echoes prompt log-probabilities (vLLM, llama.cpp)"
            )
        keys = [self._key("continuation-logprobs", ((prompt, continuation),), None) for prompt, continuation in pairs]
        cached = self.cache.get_many(keys)
        todo = list(dict.fromkeys(k for k in keys if k not in cached))
        self.stats.add(requested=len(keys), cache_hits=sum(1 for k in keys if k in cached))
        if todo:
            first = {}
            for index, key in enumerate(keys):
                first.setdefault(key, index)
            self.stats.add(sent=len(todo))
            rows = self.backend.continuation_logprobs([tuple(pairs[first[k]]) for k in todo])  # type: ignore[attr-defined]
            fresh = {k: [float(x) for x in row] for k, row in zip(todo, rows, strict=True)}
            self.cache.put_many(fresh)
            cached.update(fresh)
        return [list(cached[k]) for k in keys]

    def __repr__(self) -> str:
        return f"LLM({self.backend!r}, cache={self.cache!r})"


def _takes(function: Callable[..., Any], name: str) -> bool:
    """Whether ``function`` has a parameter ``name`` (third-party backends may not report tokens)."""
    import inspect

    try:
        return name in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def make_llm(
    spec: str | BackendSpec,
    *,
    base_url: str | None = None,
    concurrency: int = 8,
    timeout: float = 120.0,
    max_retries: int = 5,
    backoff_base: float = 1.0,
    device: str | None = None,
    dtype: str | None = None,
    batch_size: int = 8,
    cache_dir: CacheDir = None,
    threads: int | None = None,
) -> LLM:
    """``openai:gpt-4o`` / ``hf:Qwen/Qwen2.5-14B-Instruct`` / ``gguf:model.gguf`` (or a backend of another
    package, :data:`~.base.LLM_BACKENDS`) -> a cached :class:`LLM`.

    Nothing heavy happens here: the HTTP client and local weights are created on the first cache miss.
    ``threads`` (local models): torch CPU threads, see :class:`~surge_dataset.llm.local.TransformersBackend`.
    """
    parsed = spec if isinstance(spec, BackendSpec) else BackendSpec.parse(spec)
    factory = LLM_BACKENDS.load(parsed.kind, setting="LLM backend")
    backend: ChatBackend = factory(parsed, base_url=base_url, concurrency=concurrency, timeout=timeout,
                                   max_retries=max_retries, backoff_base=backoff_base, device=device, dtype=dtype,
                                   batch_size=batch_size, threads=threads)
    return LLM(backend, cache_dir)
