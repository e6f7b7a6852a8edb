"""Survey generation: the generator interface, the evaluator-ready Markdown writer and the run driver.

A :class:`Generator` turns a :class:`Topic` (a survey of the dataset: id, title, date) and the papers
given to it into a :class:`Draft`: a title, nested sections, and text that cites papers by *label*
(``[P3]``, ``[P1, P4]``; the label of the i-th given paper is ``P<i>``). :func:`render_markdown`
writes the draft in the form ``surge evaluate`` reads (protocol.md §2):

* ``# <title>``, then ``##`` sections, ``###`` subsections ... (levels nest by construction);
* every label group becomes ``[n]`` with ``n`` numbered by first use in document order;
* a final ``## References`` section with one ``[n] <exact corpus title>`` line per cited paper.

So every reference of a generated survey resolves by construction. A label the LLM invents (one that
is not among the given papers) is dropped from the text and counted, never written. Body lines that
the evaluator would misread are repaired: a line starting with ``#`` would become a heading and a line
starting with ``[n]`` would become a reference entry (the released evaluator scans every such line).

:func:`generate_surveys` drives a whole run: one folder per survey (``<out>/<survey_id>/survey.md``
plus the ``survey.json`` sidecar: system, prompts version, LLM, per-call token counts, timings,
dropped citations), written atomically, skipped when already complete, failures reported per survey.
Built-in systems live in the ``baselines`` package; :func:`get_generator` finds them by name.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, ClassVar

from .io import atomic_write_json, atomic_write_text
from .normalize import normalise_title
from .records import Paper, Survey

__all__ = [
    "SIDECAR_NAME",
    "SURVEY_FILE",
    "Draft",
    "DraftSection",
    "GenerationError",
    "Generator",
    "GuideSection",
    "RecordingLLM",
    "RenderedSurvey",
    "PromptFitter",
    "RunReport",
    "StageProgress",
    "TokenCounter",
    "Topic",
    "available_generators",
    "generate_surveys",
    "get_generator",
    "label_of",
    "register_generator",
    "render_markdown",
]

SURVEY_FILE = "survey.md"
SIDECAR_NAME = "survey.json"
FAILURE_DIR = ".failed"  # hidden: `surge evaluate` skips dot-entries of the passage folder
SIDECAR_VERSION = 1


class GenerationError(RuntimeError):
    """One survey could not be generated (e.g. an LLM request failed after every retry)."""


# ---------------------------------------------------------------------------------------- records


@dataclass(frozen=True)
class GuideSection:
    """A node of a ground-truth outline given to the ``guided`` system: heading, its cited papers, children.

    Content is deliberately absent: the guided system sees the human outline, never the human text.
    """

    title: str
    doc_ids: tuple[int, ...] = ()
    children: tuple[GuideSection, ...] = ()


@dataclass(frozen=True)
class Topic:
    """What a generator is asked to write about: a survey of the dataset, by id, title and date."""

    survey_id: int
    title: str
    date: str | None = None
    #: Ground-truth outline with cited papers per section (only for systems with ``inputs="ground_truth"``).
    guidance: tuple[GuideSection, ...] | None = None


@dataclass
class DraftSection:
    """One heading with its text (citing by label) and its subsections."""

    title: str
    text: str = ""
    children: list[DraftSection] = field(default_factory=list)


@dataclass
class Draft:
    """A generated survey before rendering: citations are labels, ``sources`` maps label -> title."""

    title: str
    sections: list[DraftSection]
    #: label (``P3``) -> the title written in the reference list (the exact corpus title for papers).
    sources: dict[str, str] = field(default_factory=dict)
    #: Fallbacks the generator took (empty outline, unparseable answer ...), recorded in the sidecar.
    notes: list[str] = field(default_factory=list)
    #: Anything else worth keeping (e.g. QUAL-SG's selected papers), recorded in the sidecar as ``system_info``.
    extra: dict[str, Any] = field(default_factory=dict)
    #: Labels listed in the references even when the text never cites them (``llm_only``: the model's
    #: own reference list is its output), after the cited ones.
    listed: list[str] = field(default_factory=list)


def label_of(index: int) -> str:
    """The citation label of the ``index``-th (0-based) given paper."""
    return f"P{index + 1}"


# ---------------------------------------------------------------------------------------- writer

_LABEL = r"(?:P\s*-?\s*)?\d+"
_P_LABEL = r"P\s*-?\s*\d+"
_SEP = r"\s*(?:,|;|&|\band\b)\s*"
_ITEM = rf"{_LABEL}(?:\s*[-\u2013]\s*{_LABEL})?"
_BRACKET_GROUP_RE = re.compile(rf"\[\s*({_ITEM}(?:{_SEP}{_ITEM})*)\s*\]", re.I)
_PAREN_GROUP_RE = re.compile(rf"\(\s*({_P_LABEL}(?:{_SEP}{_P_LABEL})*)\s*\)", re.I)
_ITEM_RE = re.compile(rf"({_LABEL})(?:\s*[-\u2013]\s*({_LABEL}))?", re.I)
_MAX_RANGE = 20
_LEADING_CITES_RE = re.compile(r"^((?:\[\d+\]\s*,?\s*)+)(.*)$")
_SPACE_BEFORE_PUNCT_RE = re.compile(r"[ \t]+([.,;:!?])")
_DOUBLE_SPACE_RE = re.compile(r"(?<=\S)[ \t]{2,}")
_REFERENCES_LINE_RE = re.compile(
    r"^\W*(?:\d+(?:\.\d+)*\.?\s+)?(?:references?|bibliography|works\s+cited|reference\s+list|cited\s+works)\W*$", re.I
)
_MAX_DEPTH = 6


def _label_number(text: str) -> int:
    return int(re.sub(r"\D", "", text))


def _group_labels(group: str) -> list[str]:
    """``P1, P3-P5`` -> ``["P1", "P3", "P4", "P5"]`` (bare numbers read as labels; long ranges: ends only)."""
    labels: list[str] = []
    for match in _ITEM_RE.finditer(group):
        start = _label_number(match.group(1))
        end = _label_number(match.group(2)) if match.group(2) else start
        numbers = range(start, end + 1) if 0 <= end - start <= _MAX_RANGE else (start, end)
        labels.extend(f"P{n}" for n in numbers)
    return labels


def is_references_title(text: str) -> bool:
    """A heading or line that announces a reference list (the writer adds the only one)."""
    return bool(_REFERENCES_LINE_RE.match(text.strip().strip("*_#:").strip()))


def clean_heading(text: str, fallback: str) -> str:
    """One line, no Markdown markup, no citations; ``fallback`` when nothing is left."""
    line = " ".join(str(text or "").split())
    line = _BRACKET_GROUP_RE.sub("", line)
    line = line.strip().strip("#*_`\"' ").strip()
    line = " ".join(line.split())[:200]
    return line if re.search(r"[A-Za-z0-9]", line) else fallback


@dataclass
class RenderedSurvey:
    """The Markdown and what the writer did: references written, citations kept and dropped."""

    markdown: str
    references: list[dict[str, Any]]  # {"number", "labels", "title"} in number order
    citations: int
    dropped_citations: int
    dropped_labels: list[str]


class _Numbering:
    """Assigns ``[n]`` by first use; labels whose titles normalise alike share one number."""

    def __init__(self, sources: Mapping[str, str]) -> None:
        self.sources = {label.upper(): " ".join(str(title).split()) for label, title in sources.items()}
        self.by_key: dict[str, int] = {}
        self.entries: list[dict[str, Any]] = []
        self.citations = 0
        self.dropped: list[str] = []

    def number(self, label: str, *, cited: bool = True) -> int | None:
        title = self.sources.get(label.upper())
        if not title:
            self.dropped.append(label.upper())
            return None
        key = normalise_title(title) or title
        if key not in self.by_key:
            self.by_key[key] = len(self.entries) + 1
            self.entries.append({"number": len(self.entries) + 1, "labels": [label.upper()], "title": title})
        entry = self.entries[self.by_key[key] - 1]
        if label.upper() not in entry["labels"]:
            entry["labels"].append(label.upper())
        self.citations += int(cited)
        return entry["number"]

    def replace(self, match: re.Match[str]) -> str:
        numbers: list[int] = []
        for label in _group_labels(match.group(1)):
            number = self.number(label)
            if number is not None and number not in numbers:
                numbers.append(number)
        return "".join(f"[{n}]" for n in numbers)


def _cite_first_sentence(text: str, cites: str, *, last: bool = False) -> str:
    """Put ``cites`` before the full stop of the first (or ``last``) sentence, where the evaluator looks."""
    ends = [m.start() for m in re.finditer(r"\.(?=\s|$)", text)]
    if not ends:
        return f"{text} {cites}"
    at = ends[-1] if last else ends[0]
    return f"{text[:at]} {cites}{text[at:]}"


def _render_text(text: str, numbering: _Numbering) -> list[str]:
    """Body text -> lines safe for the evaluator, with citations numbered."""
    text = _BRACKET_GROUP_RE.sub(numbering.replace, str(text or ""))
    text = _PAREN_GROUP_RE.sub(numbering.replace, text)
    lines: list[str] = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = _SPACE_BEFORE_PUNCT_RE.sub(r"\1", _DOUBLE_SPACE_RE.sub(" ", raw.rstrip()))
        stripped = line.strip()
        if stripped.startswith("#"):  # would be read as a heading
            line = stripped = stripped.lstrip("#").strip()
        if stripped and is_references_title(stripped):  # would open a second reference list
            continue
        if stripped.startswith("["):  # "[3] shows ..." would be read as a reference entry
            match = _LEADING_CITES_RE.match(stripped)
            if match:
                cites, rest = match.group(1).replace(" ", "").replace(",", ""), match.group(2).strip()
                if rest and not rest.startswith("["):
                    line = _cite_first_sentence(rest, cites)  # the citation stays in its sentence
                elif lines and lines[-1].strip():
                    lines[-1] = _cite_first_sentence(lines[-1].rstrip(), cites, last=True)
                    continue
                else:
                    line = f"See {cites}."
            else:
                line = "\u2014 " + stripped  # any other bracketed start: harmless prefix
        if not line.strip() and lines and not lines[-1].strip():
            continue  # one blank line between paragraphs is enough
        lines.append(line)
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return lines


def render_markdown(draft: Draft) -> RenderedSurvey:
    """Write a draft as the evaluator's Markdown; citations of unknown labels are dropped and counted."""
    numbering = _Numbering(draft.sources)
    out = [f"# {clean_heading(draft.title, 'Survey')}", ""]

    def walk(sections: Sequence[DraftSection], depth: int) -> None:
        for i, section in enumerate(sections, start=1):
            title = clean_heading(section.title, f"Section {i}")
            if is_references_title(title):
                title = "Related Literature"
            out.append(f"{'#' * min(depth, _MAX_DEPTH)} {title}")
            out.append("")
            body = _render_text(section.text, numbering)
            if body:
                out.extend(body)
                out.append("")
            walk(section.children, depth + 1)

    walk(draft.sections, 2)
    for label in draft.listed:
        if label.upper() in numbering.sources:
            numbering.number(label, cited=False)
    out.append("## References")
    out.append("")
    out.extend(f"[{e['number']}] {e['title']}" for e in numbering.entries)
    return RenderedSurvey(
        markdown="\n".join(out).rstrip() + "\n",
        references=numbering.entries,
        citations=numbering.citations,
        dropped_citations=len(numbering.dropped),
        dropped_labels=sorted(set(numbering.dropped), key=lambda s: (len(s), s)),
    )


# ---------------------------------------------------------------------------------------- LLM record


@functools.lru_cache(maxsize=8)
def _load_tokenizer(spec: str) -> Any:
    """A tokenizer for hf:/gguf: specs, loaded once per process (None when it cannot be loaded)."""
    try:
        from transformers import AutoTokenizer

        from .llm.base import BackendSpec
        from .llm.local import gguf_location

        parsed = BackendSpec.parse(spec)
        if parsed.kind == "gguf":
            folder, name = gguf_location(parsed.model)
            return AutoTokenizer.from_pretrained(folder, gguf_file=name, trust_remote_code=False)
        if parsed.kind == "hf":
            return AutoTokenizer.from_pretrained(parsed.model, trust_remote_code=False)
    except Exception:  # noqa: BLE001 - counting is best effort; fall back to the estimate
        return None
    return None


class TokenCounter:
    """Token counts of prompts and answers; the LLM layer reports none, so they are counted here.

    ``method`` says how: ``tokenizer`` (the model's own tokenizer, chat template applied to prompts;
    hf:/gguf:) or ``estimate: characters / 4`` (openai: servers, or when no tokenizer loads). The
    tokenizer is looked up on the first count, after the first request: by then a local backend has
    loaded its own, which is reused.
    """

    def __init__(self, llm: Any) -> None:
        self.llm = llm
        self._tokenizer: Any = None
        self._resolved = False

    @property
    def tokenizer(self) -> Any:
        if not self._resolved:
            spec = str(getattr(self.llm, "spec", ""))
            tokenizer = getattr(getattr(self.llm, "backend", None), "_tokenizer", None)
            if tokenizer is None and spec.split(":", 1)[0] in ("hf", "gguf"):
                tokenizer = _load_tokenizer(spec)
            self._tokenizer, self._resolved = tokenizer, True
        return self._tokenizer

    @property
    def method(self) -> str:
        return "tokenizer" if self.tokenizer is not None else "estimate: characters / 4"

    def count_text(self, text: str | None) -> int:
        if not text:
            return 0
        if self.tokenizer is None:
            return max(1, round(len(text) / 4))
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def count_prompt(self, messages: Sequence[Any]) -> int:
        pairs = [(m["role"], m["content"]) if isinstance(m, dict) else tuple(m) for m in messages]
        tokenizer = self.tokenizer
        if tokenizer is not None and getattr(tokenizer, "chat_template", None):
            try:
                ids = tokenizer.apply_chat_template(
                    [{"role": r, "content": c} for r, c in pairs], tokenize=True, add_generation_prompt=True
                )
                if isinstance(ids, Mapping):
                    ids = ids["input_ids"]
                return len(ids)
            except Exception:  # noqa: BLE001 - template quirks: count the plain text instead
                pass
        return self.count_text("\n".join(c for _, c in pairs))


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
            completion_tokens = answer_tokens.get(index)
            if completion_tokens is None:
                completion_tokens = self.counter.count_text(completion.text)
            self.calls.append({
                "stage": self.stage,
                "batch": self.batches,
                "prompt_tokens": self.counter.count_prompt(conversation),
                "completion_tokens": completion_tokens,
                "cached": bool(completion.cached),
                "error": completion.error,
                "batch_size": len(conversations),
                "batch_seconds": round(seconds, 4),
            })
        return completions


# ---------------------------------------------------------------------------------------- generators


class Generator:
    """Base class of survey generators: options with defaults, LLM calls through named prompts.

    Subclasses set ``name``, optionally ``inputs`` (``retrieval``: the top-k papers of a run;
    ``none``: no papers; ``ground_truth``: the GT survey's cited papers and :attr:`Topic.guidance`) and
    ``defaults`` (extra options), and implement :meth:`generate`. Options come from
    ``get_generator(name, **options)`` or ``surge generate -o key=value``; values are converted to the
    type of the default.
    """

    name: ClassVar[str] = ""
    inputs: ClassVar[str] = "retrieval"
    defaults: ClassVar[dict[str, Any]] = {}

    def __init__(self, *, max_new_tokens: int = 1024, temperature: float = 0.0, **options: Any) -> None:
        from .llm import GenerationSettings

        self.settings = GenerationSettings(max_new_tokens=int(max_new_tokens), temperature=float(temperature))
        known = self.option_defaults()
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise ValueError(
                f"system {self.name!r} has no option(s) {', '.join(unknown)}; its options: {', '.join(sorted(known))}"
            )
        self.options = {key: _coerce(key, options.get(key, default), default) for key, default in known.items()}
        for key, value in self.options.items():
            setattr(self, key, value)

    @classmethod
    def option_defaults(cls) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            merged.update(getattr(klass, "defaults", {}) or {})
        return merged

    def config(self) -> dict[str, Any]:
        """What changes this system's output besides the LLM: recorded in the sidecar and its key."""
        return {"system": self.name, "inputs": self.inputs, "options": dict(self.options), **asdict(self.settings)}

    def bind(self, data: Any) -> None:
        """Called once by the run driver before the first survey; systems that need the corpus keep it."""

    def generate(self, topic: Topic, papers: Sequence[Paper], llm: Any) -> Draft:
        raise NotImplementedError

    # -- helpers for subclasses -----------------------------------------------------------------------

    def ask(
        self, llm: Any, stage: str, prompt: str, values: Sequence[Mapping[str, Any]], *, max_new_tokens: int | None = None
    ) -> list[str]:
        """Render ``prompt`` once per value set, ask the LLM in one batch, return the answers' texts.

        ``max_new_tokens`` lowers the token budget of short answers (a score) below the system's setting.

        A request that failed after every retry raises :class:`GenerationError` (the survey is reported
        as failed and resumes from the cache on a rerun); any answer text, even garbage, is returned.
        """
        from .prompts import get_prompt

        if not values:
            return []
        template = get_prompt(prompt)
        settings = self.settings
        if max_new_tokens is not None and max_new_tokens < settings.max_new_tokens:
            settings = replace(settings, max_new_tokens=max_new_tokens)
        conversations = [template.render(**dict(v)) for v in values]
        if isinstance(llm, RecordingLLM):
            llm.stage = stage
            conversations = [llm.fit(stage, template, v, c, settings.max_new_tokens)
                             for v, c in zip(values, conversations, strict=True)]
        completions = llm.generate(conversations, settings)
        errors = [c.error for c in completions if c.text is None]
        if errors:
            raise GenerationError(f"{stage}: {len(errors)} of {len(completions)} LLM request(s) failed: {errors[0]}")
        return [c.text or "" for c in completions]


def _coerce(key: str, value: Any, default: Any) -> Any:
    """Option text from the command line -> the type of the default."""
    if not isinstance(value, str) or isinstance(default, str) or default is None:
        return value
    if isinstance(default, bool):
        lowered = value.strip().lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"option {key}: expected true/false, got {value!r}")
    try:
        return type(default)(value)
    except (TypeError, ValueError):
        raise ValueError(f"option {key}: expected {type(default).__name__}, got {value!r}") from None


_REGISTRY: dict[str, type[Generator]] = {}


def register_generator(cls: type[Generator]) -> type[Generator]:
    """Class decorator: make a generator available to :func:`get_generator` / ``--system`` by its name."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    if cls.inputs not in ("retrieval", "none", "ground_truth"):
        raise ValueError(f"{cls.__name__}.inputs must be retrieval, none or ground_truth, not {cls.inputs!r}")
    _REGISTRY[cls.name] = cls
    return cls


def _generator_class(name: str) -> type[Generator]:
    if ":" in name:  # "package.module:ClassName" -- a user's own generator, no registration needed
        module, _, attr = name.partition(":")
        cls = getattr(importlib.import_module(module), attr)
        if not (isinstance(cls, type) and issubclass(cls, Generator)):
            raise ValueError(f"{name} is not a surge_dataset.generation.Generator subclass")
        return cls
    if name not in _REGISTRY:
        importlib.import_module("baselines")  # the built-in systems register themselves on import
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"no generator named {name!r}; known: {', '.join(available_generators())}") from None


def available_generators() -> list[str]:
    """Names of the registered systems (the built-in baselines included)."""
    importlib.import_module("baselines")
    return sorted(_REGISTRY)


def get_generator(name: str, **options: Any) -> Generator:
    """A generator by registered name (``rag``, ``autosurvey`` ...) or ``module:Class``, with options."""
    return _generator_class(name)(**options)


# ---------------------------------------------------------------------------------------- inputs


def topic_of(survey: Survey) -> Topic:
    return Topic(survey.survey_id, survey.survey_title, survey.date)


def guidance_of(survey: Survey, queries: Iterable[Any]) -> tuple[GuideSection, ...]:
    """The GT outline with the papers each section cites (from ``queries.json``; no section text).

    A query's ``prefix_titles`` give the heading path of the section it was extracted from; its
    ``cites`` are that section's papers. Cited papers no query assigns stay unassigned here (the
    guided system places them by similarity).
    """
    cites_by_path: dict[tuple[str, ...], list[int]] = {}
    for query in queries:
        if query.survey_id != survey.survey_id:
            continue
        path = tuple(str(t) for _, t in query.prefix_titles[1:])
        bucket = cites_by_path.setdefault(path, [])
        bucket.extend(d for d in query.cites if d not in bucket)

    def build(section: Any, path: tuple[str, ...]) -> GuideSection:
        here = (*path, section.title)
        return GuideSection(
            title=section.title,
            doc_ids=tuple(cites_by_path.get(here, ())),
            children=tuple(build(child, here) for child in section.children),
        )

    return tuple(build(child, ()) for child in survey.tree().children)


def read_run_topk(run_path: str | Path, top_k: int) -> dict[int, list[int]]:
    """``{survey_id: [doc_id, ...]}``: the top-k of a survey-title run (query id = survey id)."""
    from .retrieval.runs import read_run_metadata, read_trec_run

    meta = read_run_metadata(run_path)
    if meta.get("query_type") not in (None, "titles"):
        raise ValueError(
            f"{run_path}: a {meta.get('query_type')!r} run; generation needs a survey-title run "
            "(`surge retrieve --query-type titles`), whose query ids are survey ids"
        )
    ranked: dict[int, list[int]] = {}
    for qid, scores in read_trec_run(run_path).items():
        if not qid.strip().lstrip("-").isdigit():
            continue
        order = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        ranked[int(qid)] = [int(doc) for doc, _ in order[:top_k] if doc.strip().isdigit()]
    return ranked


def usable_papers(papers: Iterable[Paper | None]) -> list[Paper]:
    """Papers whose title can resolve (letters a-z present), without repeats, in the given order."""
    seen: set[int] = set()
    out = []
    for paper in papers:
        if paper is None or paper.doc_id in seen or not normalise_title(paper.title):
            continue
        seen.add(paper.doc_id)
        out.append(paper)
    return out


# ---------------------------------------------------------------------------------------- run driver


@dataclass
class RunReport:
    """What one process of a run did."""

    generated: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    failed: dict[int, str] = field(default_factory=dict)


def _config_key(config: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _file_digest(path: str | Path | None) -> str | None:
    if path is None:
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def is_complete(folder: Path, key: str | None = None) -> bool:
    """A survey folder whose sidecar says complete (and, when ``key`` is given, was made by this config)."""
    sidecar = folder / SIDECAR_NAME
    if not (sidecar.is_file() and (folder / SURVEY_FILE).is_file()):
        return False
    try:
        meta = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return meta.get("status") == "complete" and (key is None or meta.get("config_key") == key)


def _summarise_calls(calls: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    stages: dict[str, dict[str, Any]] = {}
    seen_batches: set[int] = set()
    for call in calls:
        stage = stages.setdefault(call["stage"], {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
                                                  "cached": 0, "seconds": 0.0})
        stage["calls"] += 1
        stage["prompt_tokens"] += call["prompt_tokens"]
        stage["completion_tokens"] += call["completion_tokens"]
        stage["cached"] += int(call["cached"])
        if call["batch"] not in seen_batches:  # a batch's wall time counts once
            seen_batches.add(call["batch"])
            stage["seconds"] = round(stage["seconds"] + call["batch_seconds"], 4)
    return {
        "calls": len(calls),
        "cached_calls": sum(int(c["cached"]) for c in calls),
        "prompt_tokens": sum(c["prompt_tokens"] for c in calls),
        "completion_tokens": sum(c["completion_tokens"] for c in calls),
        "stages": stages,
    }


def generate_one(
    generator: Generator,
    topic: Topic,
    papers: Sequence[Paper],
    llm: Any,
    *,
    counter: TokenCounter | None = None,
    on_progress: Callable[[StageProgress], None] | None = None,
    fitter: PromptFitter | None = None,
) -> tuple[RenderedSurvey, dict[str, Any]]:
    """Run one generator on one topic: the rendered survey and the sidecar fields it produced."""
    recorder = RecordingLLM(llm, counter, survey_id=topic.survey_id, on_progress=on_progress, fitter=fitter)
    start = time.perf_counter()
    draft = generator.generate(topic, list(papers), recorder)
    rendered = render_markdown(draft)
    seconds = time.perf_counter() - start
    llm_seconds = _summarise_calls(recorder.calls)
    info = {
        "survey_id": topic.survey_id,
        "topic": topic.title,
        "papers_given": [p.doc_id for p in papers],
        "references": len(rendered.references),
        "citations": rendered.citations,
        "dropped_citations": rendered.dropped_citations,
        "dropped_labels": rendered.dropped_labels,
        "notes": list(draft.notes),
        "prompt_fitting": recorder.fits,
        "system_info": dict(draft.extra),
        "token_count_method": recorder.counter.method,
        "totals": {k: v for k, v in llm_seconds.items() if k != "stages"},
        "stages": llm_seconds["stages"],
        "calls": recorder.calls,
        "timings": {"total_seconds": round(seconds, 4),
                    "llm_seconds": round(sum(s["seconds"] for s in llm_seconds["stages"].values()), 4)},
    }
    return rendered, info


def generate_surveys(
    data: Any,
    generator: Generator,
    llm: Any,
    out: str | Path,
    survey_ids: Sequence[int],
    *,
    run: str | Path | None = None,
    top_k: int = 100,
    llm_info: Mapping[str, Any] | None = None,
    parallel_surveys: int = 1,
    on_start: Callable[[int], None] | None = None,
    on_done: Callable[[int, str, str | None], None] | None = None,
    on_progress: Callable[[StageProgress], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
    context_length: int | None = None,
) -> RunReport:
    """Generate ``survey_ids`` into ``out/<id>/``; finished surveys of the same config are skipped.

    ``on_done(survey_id, status, error)`` reports each survey: ``generated``, ``skipped`` or ``failed``;
    ``on_progress`` gets a :class:`StageProgress` as LLM answers arrive. Prompts longer than the model's
    context (``context_length``, default: what the LLM reports; 0 = never fit) are shortened by a
    :class:`PromptFitter`, which warns once through ``on_warning``.
    A failure (no run entry, an LLM request that failed after retries, a bug in a generator) is
    recorded under ``out/.failed/<id>.json`` and the run goes on; a configuration error of the LLM
    (wrong key or model) or a model that cannot be loaded stops the run, since every survey would fail
    alike. ``parallel_surveys`` > 1 generates that many surveys at once in threads (for ``openai:``
    servers, whose request pool a single survey's stages rarely fill).
    """
    from .llm import LLMConfigurationError
    from .models.base import ModelLoadError
    from .prompts import PROMPTS_VERSION

    out = Path(out)
    if generator.inputs == "retrieval" and run is None:
        raise ValueError(f"system {generator.name!r} needs a retrieval run (--run)")
    ranked = read_run_topk(run, top_k) if generator.inputs == "retrieval" and run is not None else {}
    queries = _all_queries(data) if generator.inputs == "ground_truth" else []
    baseline_prompts = _baseline_prompts_version()
    config = {
        **generator.config(),
        "llm": str(llm.spec),
        "prompts_version": baseline_prompts,
        "top_k": top_k if generator.inputs == "retrieval" else None,
        "run": _file_digest(run) if generator.inputs == "retrieval" else None,
        "data": getattr(data, "fingerprint", ""),
    }
    key = _config_key(config)
    generator.bind(data)
    counter = TokenCounter(llm)
    report = RunReport()

    def reported_context() -> int | None:
        """Asked on the first long prompt only: it may read the model's config."""
        return getattr(llm, "context_length", None)

    fitter = PromptFitter(counter, reported_context if context_length is None else (context_length or None), on_warning)

    def inputs(survey_id: int) -> tuple[Topic, list[Paper]]:
        survey = data.survey(survey_id)
        topic = topic_of(survey)
        if generator.inputs == "retrieval":
            if survey_id not in ranked:
                raise GenerationError(f"the run {run} has no ranking for survey {survey_id}")
            return topic, usable_papers(data.corpus.get(ranked[survey_id]))
        if generator.inputs == "ground_truth":
            guided = Topic(topic.survey_id, topic.title, topic.date, guidance=guidance_of(survey, queries))
            return guided, usable_papers(data.corpus.get(list(survey.all_cites)))
        return topic, []

    def one(survey_id: int) -> None:
        folder = out / str(survey_id)
        if is_complete(folder, key):
            report.skipped.append(survey_id)
            if on_done:
                on_done(survey_id, "skipped", None)
            return
        if on_start:
            on_start(survey_id)
        try:
            topic, papers = inputs(survey_id)
            rendered, info = generate_one(generator, topic, papers, llm, counter=counter, on_progress=on_progress,
                                          fitter=fitter)
            sidecar = {
                "status": "complete",
                "sidecar_version": SIDECAR_VERSION,
                "config_key": key,
                "system": generator.name,
                "prompts_version": baseline_prompts,
                "judge_prompts_version": PROMPTS_VERSION,
                "llm": {"spec": str(llm.spec), **dict(llm_info or {})},
                "generation": asdict(generator.settings),
                "options": dict(generator.options),
                "inputs": generator.inputs,
                "run": None if run is None or generator.inputs != "retrieval" else str(run),
                "run_digest": config["run"],
                "top_k": config["top_k"],
                "data": str(getattr(data, "path", "")),
                "data_fingerprint": config["data"],
                **info,
                "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "versions": _versions(),
            }
            atomic_write_text(folder / SURVEY_FILE, rendered.markdown)
            atomic_write_json(folder / SIDECAR_NAME, sidecar)  # last: its presence marks the survey complete
            (out / FAILURE_DIR / f"{survey_id}.json").unlink(missing_ok=True)
            report.generated.append(survey_id)
            if on_done:
                on_done(survey_id, "generated", None)
        except (LLMConfigurationError, ModelLoadError):
            raise  # every survey would fail alike: stop with one clear message
        except Exception as exc:  # noqa: BLE001 - one survey's failure must not stop the others
            error = f"{type(exc).__name__}: {exc}"
            report.failed[survey_id] = error
            atomic_write_json(out / FAILURE_DIR / f"{survey_id}.json",
                              {"survey_id": survey_id, "system": generator.name, "error": error,
                               "time": datetime.now(timezone.utc).isoformat(timespec="seconds")})
            if on_done:
                on_done(survey_id, "failed", error)

    if parallel_surveys <= 1:
        for survey_id in survey_ids:
            one(survey_id)
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=parallel_surveys, thread_name_prefix="surge-survey") as pool:
            for future in [pool.submit(one, survey_id) for survey_id in survey_ids]:
                future.result()  # re-raises a configuration error
    order = {survey_id: i for i, survey_id in enumerate(survey_ids)}
    report.generated.sort(key=order.__getitem__)
    report.skipped.sort(key=order.__getitem__)
    return report


def _all_queries(data: Any) -> list[Any]:
    """Every query of the dataset, or none when it was built without queries.json."""
    try:
        return list(data.queries())
    except (FileNotFoundError, KeyError):
        return []


def _baseline_prompts_version() -> str:
    """The version of the generation templates (``baselines.prompts``), recorded per survey."""
    try:
        return str(importlib.import_module("baselines.prompts").BASELINE_PROMPTS_VERSION)
    except (ImportError, AttributeError):
        return "unknown"


def _versions() -> dict[str, str]:
    from importlib import metadata

    versions = {}
    for name in ("surge-bench", "transformers", "torch", "openai"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions

