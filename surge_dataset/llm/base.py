"""What every LLM backend shares: backend specs, generation settings, results, errors and counters."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Protocol, runtime_checkable

import numpy as np

from surge_dataset.core.errors import SurgeError
from surge_dataset.core.registries import Registry
from surge_dataset.core.vocabulary import GGUF, HF, OPENAI, closest_hint

__all__ = [
    "LLM_BACKENDS",
    "BackendSpec",
    "ChatBackend",
    "Completion",
    "Conversation",
    "GenerationSettings",
    "LLMConfigurationError",
    "LLMError",
    "LLMStats",
    "as_conversation",
    "as_messages",
    "backend_kind",
    "llm_backend",
]
__all__ += ["GGUF", "HF", "OPENAI"]  # the built-in backend kinds, named in surge_dataset.core.vocabulary

#: Backend kind (the ``openai`` of ``openai:gpt-4o``) -> its factory ``(spec, **options) -> ChatBackend``: the
#: built-ins of ``llm/backends.py``, registered with :func:`llm_backend`, and other packages' by the entry-point
#: group ``surge.llm_backends`` (a live mapping; ``--llm`` / ``--judge`` specs and their errors read it).
LLM_BACKENDS = Registry("LLM backend", "surge.llm_backends", builtin_modules=("surge_dataset.llm.backends",),
                        pick="LLM_BACKENDS.register({name!r}, load({target!r}), replace=True)")

#: ``@llm_backend("name")`` on a factory ``(spec: BackendSpec, **options) -> ChatBackend`` makes ``name:<model>``
#: a spec. The factory takes the options it knows (``base_url``, ``concurrency``, ``device``, ...) and ``**_``.
#: Its ``usage`` attribute (``"openai:<model>"``), when set, is what error messages show.
llm_backend = LLM_BACKENDS.register


def spec_usage() -> str:
    """``openai:<model>, hf:<model id or folder> or gguf:<file>``, read off the registered backends."""
    shown = [getattr(LLM_BACKENDS.load(name), "usage", f"{name}:<model>") for name in LLM_BACKENDS]
    return " or ".join([", ".join(shown[:-1]), shown[-1]] if len(shown) > 1 else shown)


def backend_kind(spec: str) -> str | None:
    """The backend of ``openai:gpt-4o``-style spec text (``None`` when it names none), without validating the rest."""
    kind = str(spec).partition(":")[0].strip().lower()
    return kind if kind in LLM_BACKENDS else None


#: A chat conversation in hashable form: ((role, content), ...). Hashable so it can key memos.
Conversation = tuple[tuple[str, str], ...]


class LLMError(SurgeError, RuntimeError):
    """An LLM could not be used at all (not: one request failed; that is recorded, not raised)."""


class LLMConfigurationError(LLMError):
    """Wrong key, unknown model, bad spec: retrying cannot help and every request would fail alike."""


@dataclass(frozen=True)
class BackendSpec:
    """``<backend>:<model>`` (the ``--judge`` syntax): ``openai:<model>``, ``hf:<model id or folder>``,
    ``gguf:<file>`` or a backend of :data:`LLM_BACKENDS`."""

    kind: str
    model: str

    @classmethod
    def parse(cls, text: str) -> BackendSpec:
        kind, sep, model = str(text).partition(":")
        kind = kind.strip().lower()
        if not sep or kind not in LLM_BACKENDS or not model.strip():
            unknown = f" (unknown backend {kind!r}: {closest_hint(kind, LLM_BACKENDS)})" if sep and kind else ""
            raise LLMConfigurationError(f"invalid LLM spec {text!r}: expected {spec_usage()}{unknown}")
        return cls(kind, model.strip())

    def __str__(self) -> str:
        return f"{self.kind}:{self.model}"


@dataclass(frozen=True)
class GenerationSettings:
    """Decoding settings; part of every cache key. Greedy (temperature 0) by default, for reproducibility."""

    max_new_tokens: int = 16
    temperature: float = 0.0
    #: Which draw this is when the same conversation is asked again (re-asking after an unreadable
    #: answer, the released evaluator's retry): a distinct cache entry per draw. 0 keeps old keys.
    sample: int = 0
    #: Which repeat of a deliberately repeated question this is (``--judge-repeats``): a distinct cache
    #: entry per repeat, independent of ``sample``. 0 keeps old keys.
    repeat: int = 0

    def as_key(self) -> dict[str, float | int]:
        key = asdict(self)
        for name in ("sample", "repeat"):
            if not key[name]:
                key.pop(name)
        return key


@dataclass(frozen=True)
class Completion:
    """One answer: ``text`` (possibly empty) or ``error`` when every transport attempt failed."""

    text: str | None
    error: str | None = None
    cached: bool = False
    attempts: int = 1
    #: Token counts the backend reported (a server's OpenAI-compatible ``usage``, a local model's own
    #: counts); None when it reported none.
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


def as_conversation(messages: Sequence[dict[str, str]] | Conversation) -> Conversation:
    """Chat messages (OpenAI dicts or pairs) -> the hashable :data:`Conversation` form."""
    out = []
    for message in messages:
        if isinstance(message, dict):
            out.append((str(message["role"]), str(message["content"])))
        else:
            role, content = message
            out.append((str(role), str(content)))
    return tuple(out)


def as_messages(conversation: Conversation) -> list[dict[str, str]]:
    return [{"role": role, "content": content} for role, content in conversation]


@dataclass
class LLMStats:
    """What the LLM layer did, summed over calls; reported in results and by the benchmark."""

    requested: int = 0
    cache_hits: int = 0
    sent: int = 0  # transport attempts (a retried request counts once per attempt)
    retries: int = 0
    failed: int = 0  # requests that failed after every retry
    #: Tokens of the answers that came with reported usage (a server's ``usage``, a local model's own
    #: counts), and how many answers that was.
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usage_reported: int = 0
    #: Answers that came back without usage: their tokens are estimated (characters / 4), kept apart.
    estimated_prompt_tokens: int = 0
    estimated_completion_tokens: int = 0
    usage_estimated: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **counts: int) -> None:
        with self._lock:
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + value)

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self) if not f.name.startswith("_")}


@runtime_checkable
class ChatBackend(Protocol):
    """A model that answers chat conversations. Backends do no caching: :class:`~.client.LLM` does."""

    spec: BackendSpec

    def identity(self) -> str:
        """Whatever pins the answers besides the prompt (model, exact weights): part of the cache key."""
        ...

    def generate(
        self,
        conversations: Sequence[Conversation],
        settings: GenerationSettings,
        on_done: Callable[[int, Completion], None],
        stats: LLMStats,
    ) -> None:
        """Answer every conversation; call ``on_done(index, completion)`` as each one finishes."""
        ...


class DistributionBackend(Protocol):
    """A local model that can also read its next-token distribution (probability-weighted scores)."""

    def next_token_probabilities(self, conversations: Sequence[Conversation], choices: Sequence[str]) -> np.ndarray:
        """``[len(conversations), len(choices) + 1]``: the probability of each choice as the first answer
        token, then the total probability mass those choices had (a confidence diagnostic)."""
        ...
