"""LLM plumbing for generators: token counts, stage progress, prompt fitting and the per-call record.

:class:`RecordingLLM` wraps the LLM a generator is given: same ``generate``, plus a record of every call
for the sidecar (tokens counted by :class:`TokenCounter`), :class:`StageProgress` events as answers
arrive, and prompts shortened to the model's context by a :class:`PromptFitter`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from surge_dataset.llm.usage import TokenCounter

__all__ = ["PromptFitter", "RecordingLLM", "StageProgress", "TokenCounter"]


@dataclass(frozen=True)
class StageProgress:
    """Where one survey's generation stands: its current stage, LLM calls answered of those asked, speed.

    ``total`` grows when a stage asks again (StepSurvey drafts subsections round after round);
    ``new_tokens`` counts generated (not cached) answer tokens, live while a local model decodes.
    """

    survey_id: int | None
    stage: str
    done: int
    total: int
    cached: int
    new_tokens: int
    seconds: float
    #: Seconds since the first token of the stage was decoded (local models; excludes loading the model).
    decoding_seconds: float | None = None

    @property
    def tokens_per_second(self) -> float | None:
        seconds = self.decoding_seconds or self.seconds
        return self.new_tokens / seconds if self.new_tokens and seconds > 0 else None


def _accepts(function: Callable[..., Any], name: str) -> bool:
    """Whether ``function`` takes a keyword ``name`` (user LLM wrappers may predate progress reporting)."""
    import inspect

    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return name in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


class PromptFitter:
    """Fits prompts into the model's context: shorter, then fewer, entries of the longest list in the prompt.

    A prompt that does not fit is not sent as is (a local model would run past its position embeddings,
    a server would refuse it): the block of papers or partial summaries it holds is shortened entry by
    entry (down to :attr:`MIN_ENTRY_CHARS` characters each, titles and labels first), then trailing
    entries are dropped. Each fit is recorded in the survey's sidecar (``prompt_fitting``); the first
    one of a run is reported once through ``on_warning``. ``context_length`` may be a callable, resolved
    on the first long prompt only (short prompts are never tokenised).
    """

    MIN_ENTRY_CHARS = 200
    #: Tokens kept free besides the answer budget (chat-template tokens the count may miss).
    MARGIN = 32
    #: Template fields holding a list of entries, preferred over any other field when shortening.
    LIST_FIELDS = ("papers", "summaries", "references")

    def __init__(
        self,
        counter: TokenCounter,
        context_length: int | Callable[[], int | None] | None,
        on_warning: Callable[[str], None] | None = None,
    ) -> None:
        self.counter = counter
        self._context = context_length
        self._resolved = not callable(context_length)
        self.on_warning = on_warning
        self.warned = False
        self._lock = threading.Lock()

    @property
    def context_length(self) -> int | None:
        with self._lock:
            if not self._resolved:
                try:
                    self._context = self._context()  # type: ignore[operator,misc]
                except Exception:  # noqa: BLE001 - unknown context: prompts are sent as they are
                    self._context = None
                self._resolved = True
            return self._context  # type: ignore[return-value]

    def budget(self, max_new_tokens: int) -> int | None:
        context = self.context_length
        if not context:
            return None
        return context - min(max_new_tokens, context // 2) - self.MARGIN

    def continuation_logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[list[float]]:
        """The wrapped LLM's (a re-ranker's scoring, e.g. UPR): no answer text, so nothing to record but the stage."""
        return self.llm.continuation_logprobs(pairs)

    def fit(
        self, stage: str, template: Any, values: Mapping[str, Any], conversation: list[dict[str, str]], max_new_tokens: int
    ) -> tuple[list[dict[str, str]], dict[str, Any] | None]:
        """``(conversation that fits, record of what was cut or None)``."""
        size = sum(len(m["content"].encode("utf-8")) for m in conversation)
        if size + self.MARGIN <= 1024:
            return conversation, None  # no chat model has a context this small: skip any lookup
        budget = self.budget(max_new_tokens)
        if budget is None or size + self.MARGIN <= budget:
            return conversation, None  # never more tokens than UTF-8 bytes (byte-level tokenizers)
        with self._lock:  # tokenizers are not safe to share between threads
            tokens = self.counter.count_prompt(conversation)
        if tokens <= budget:
            return conversation, None
        fitted, record = self._shorten(template, dict(values), budget)
        record = {"stage": stage, "prompt_tokens": tokens, "context_length": self.context_length,
                  "max_new_tokens": max_new_tokens, **record}
        with self._lock:
            first, self.warned = not self.warned, True
        if first:
            message = (f"a {stage!r} prompt has {tokens:,} tokens, more than the model's context of "
                       f"{self.context_length:,} leaves beside a {max_new_tokens:,}-token answer: prompts that do not "
                       "fit are shortened (shorter, then fewer papers/summaries), recorded as 'prompt_fitting' in "
                       "each survey.json; this warning is shown once")
            if self.on_warning is not None:
                self.on_warning(message)
            else:
                import warnings

                warnings.warn(message, stacklevel=3)
        return fitted, record

    def _count(self, template: Any, values: Mapping[str, Any]) -> int:
        with self._lock:
            return self.counter.count_prompt(template.render(**dict(values)))

    def _shorten(self, template: Any, values: dict[str, Any], budget: int) -> tuple[list[dict[str, str]], dict[str, Any]]:
        texts = {k: v for k, v in values.items() if isinstance(v, str)}
        listed = [k for k in self.LIST_FIELDS if k in texts and texts[k].strip()]
        name = listed[0] if listed else max(texts, key=lambda k: len(texts[k]))
        original = texts[name]
        separator = "\n\n" if "\n\n" in original.strip() else "\n"
        entries = [e for e in original.strip().split(separator) if e.strip()] or [original]

        def block(chars: int | None, keep: int) -> str:
            return separator.join(e if chars is None or len(e) <= chars else e[:chars].rstrip() + "..."
                                  for e in entries[:keep])

        def fits(text: str) -> bool:
            return self._count(template, {**values, name: text}) <= budget

        def largest(lo: int, hi: int, ok: Callable[[int], bool]) -> int | None:
            """The largest n in [lo, hi] with ok(n) (ok is monotone), or None."""
            if not ok(lo):
                return None
            while lo < hi:
                mid = (lo + hi + 1) // 2
                lo, hi = (mid, hi) if ok(mid) else (lo, mid - 1)
            return lo

        longest = max(len(e) for e in entries)
        floor = min(self.MIN_ENTRY_CHARS, longest)
        keep = len(entries)
        chars = largest(floor, longest, lambda c: fits(block(c, keep)))
        if chars is None:
            chars = floor
            keep = largest(1, len(entries), lambda n: fits(block(chars, n))) or 0
        if keep:
            text = block(None if chars >= longest else chars, keep)
        else:  # not even one short entry fits: keep the longest prefix that does
            one = block(chars, 1)
            cut = largest(0, len(one), lambda n: fits(one[:n])) or 0
            text = one[:cut]
        fitted = template.render(**{**values, name: text})
        with self._lock:
            fitted_tokens = self.counter.count_prompt(fitted)
        return fitted, {"field": name, "fitted_tokens": fitted_tokens, "entries": len(entries), "kept_entries": keep,
                        "chars_per_entry": None if chars >= longest else chars}


class RecordingLLM:
    """Wraps an :class:`~surge_dataset.llm.LLM`: same ``generate``, plus a per-call record for the sidecar.

    It also reports progress (``on_progress`` gets a :class:`StageProgress` when a stage starts and as
    each answer arrives) and fits prompts to the model's context through ``fitter``.
    """

    def __init__(
        self,
        llm: Any,
        counter: TokenCounter | None = None,
        *,
        survey_id: int | None = None,
        on_progress: Callable[[StageProgress], None] | None = None,
        fitter: PromptFitter | None = None,
    ) -> None:
        self.llm = llm
        self.counter = counter or TokenCounter(llm)
        self.calls: list[dict[str, Any]] = []
        self.fits: list[dict[str, Any]] = []
        self.stage = ""
        self.batches = 0
        self.survey_id = survey_id
        self.on_progress = on_progress
        self.fitter = fitter
        self._lock = threading.Lock()
        self._progress_stage: str | None = None
        self._done = self._total = self._cached = self._tokens = self._streamed = 0
        self._stage_start = time.perf_counter()
        self._first_token: float | None = None

    @property
    def spec(self) -> Any:
        return self.llm.spec

    def fit(
        self, stage: str, template: Any, values: Mapping[str, Any], conversation: list[dict[str, str]], max_new_tokens: int
    ) -> list[dict[str, str]]:
        """The conversation shortened to the model's context when needed (recorded in :attr:`fits`)."""
        if self.fitter is None:
            return conversation
        fitted, record = self.fitter.fit(stage, template, values, conversation, max_new_tokens)
        if record is not None:
            self.fits.append(record)
        return fitted

    def _emit(self) -> None:
        if self.on_progress is None:
            return
        with self._lock:
            now = time.perf_counter()
            event = StageProgress(self.survey_id, self._progress_stage or "", self._done, self._total, self._cached,
                                  max(self._tokens, self._streamed), now - self._stage_start,
                                  None if self._first_token is None else now - self._first_token)
        self.on_progress(event)

    def generate(self, conversations: Sequence[Any], settings: Any = None) -> list[Any]:
        conversations = list(conversations)
        with self._lock:
            if self.stage != self._progress_stage:
                self._progress_stage, self._stage_start = self.stage, time.perf_counter()
                self._done = self._total = self._cached = self._tokens = self._streamed = 0
                self._first_token = None
            self._total += len(conversations)
        self._emit()
        answer_tokens: dict[int, int] = {}

        def on_answer(index: int, completion: Any) -> None:
            with self._lock:
                tokens = self.counter.count_text(completion.text)
                answer_tokens[index] = tokens
                self._done += 1
                if completion.cached:
                    self._cached += 1
                else:
                    self._tokens += tokens
            self._emit()

        def on_tokens(count: int) -> None:
            with self._lock:
                if self._first_token is None:
                    self._first_token = time.perf_counter()
                self._streamed += count
            self._emit()

        start = time.perf_counter()
        live = _accepts(self.llm.generate, "on_answer")
        hooks: dict[str, Any] = {"on_answer": on_answer} if live else {}
        if _accepts(self.llm.generate, "on_tokens"):
            hooks["on_tokens"] = on_tokens
        completions = self.llm.generate(conversations, settings, **hooks)
        seconds = time.perf_counter() - start
        if not live:
            for index, completion in enumerate(completions):
                on_answer(index, completion)
        self.batches += 1
        for index, (conversation, completion) in enumerate(zip(conversations, completions, strict=True)):
            reported = getattr(completion, "prompt_tokens", None) is not None
            if reported:  # the backend's own usage (server or local model): exact, preferred over our count
                prompt_tokens, completion_tokens = completion.prompt_tokens, completion.completion_tokens or 0
            else:
                prompt_tokens = self.counter.count_prompt(conversation)
                completion_tokens = answer_tokens.get(index)
                if completion_tokens is None:
                    completion_tokens = self.counter.count_text(completion.text)
            self.calls.append({
                "stage": self.stage,
                "batch": self.batches,
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "tokens_from": "reported" if reported else self.counter.method,
                "cached": bool(completion.cached),
                "error": completion.error,
                "batch_size": len(conversations),
                "batch_seconds": round(seconds, 4),
            })
        return completions
