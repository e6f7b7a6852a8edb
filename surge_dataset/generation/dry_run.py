"""``surge generate --dry-run``: what a run would ask the LLM, counted without sending anything.

Each survey is generated against :class:`PlaceholderLLM`, a stand-in that answers at once with minimal
well-formed placeholders, so the multi-stage systems go through every stage as with a real model. The
placeholders fill every limit a prompt sets ("at most 8 main sections, each with at most 4 subsections"
gets 8 x 4) and prose answers fill their whole answer budget, so the counts are an upper-end estimate:
input tokens are counted on the prompts as built (the model's tokenizer for ``hf:``/``gguf:``, else
characters / 4), output tokens are the answer budget of each call. Nothing is written; the answer cache
is not consulted.

The placeholders recognise the answer formats of the shipped baselines' prompts (an integer in a range,
numbered outlines, ``Title | P1`` lists, ``- `` lists, ``## `` sections); anything else gets prose. A
generator whose parser needs another shape overrides :meth:`Generator.placeholder_answer`.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import error_text
from surge_dataset.generation.generator import GenerationError, Generator
from surge_dataset.generation.inputs import all_queries, read_run_topk
from surge_dataset.generation.llm_calls import PromptFitter
from surge_dataset.generation.run import generate_one, survey_inputs
from surge_dataset.llm.base import BackendSpec, Completion, Conversation, GenerationSettings, as_conversation
from surge_dataset.llm.usage import TokenCounter

__all__ = ["GenerationEstimate", "PlaceholderLLM", "estimate_generation", "placeholder_answer"]

_SENTENCE = "This placeholder sentence stands for one sentence of the answer"
_INTEGER = re.compile(r"one integer from (\d+) to (\d+)")
_COUNT = re.compile(r"(?:at most|up to) (\d+)")
_LABEL = re.compile(r"\[(P\d+)\]")


def _counts(text: str, cue: str, default: int = 3) -> list[int]:
    """The "at most N" / "up to N" numbers of the paragraph holding ``cue`` (the instruction)."""
    for paragraph in text.split("\n\n"):
        if cue in paragraph:
            found = [int(n) for n in _COUNT.findall(paragraph)]
            return found or [default]
    return [default]


def _prose(budget: int, label: str | None) -> str:
    """About ``budget`` tokens (characters / 4) of sentences, each citing ``label`` when there is one."""
    sentence = f"{_SENTENCE} [{label}]. " if label else f"{_SENTENCE}. "
    return (sentence * max(1, (4 * budget) // len(sentence))).strip()


def placeholder_answer(conversation: Conversation, settings: GenerationSettings, serial: Callable[[], int]) -> str:
    """A minimal well-formed answer to one prompt of the shipped baselines (prose for anything else)."""
    text = conversation[-1][1] if conversation else ""
    labels = _LABEL.findall(text)
    label = labels[0] if labels else None
    if match := _INTEGER.search(text):
        return match.group(1)
    if "'N. Title" in text:  # an outline: N sections, each with M subsections
        sections, *rest = _counts(text, "'N. Title")
        subsections = rest[0] if rest else 0
        lines = []
        for i in range(1, sections + 1):
            lines.append(f"{i}. Placeholder Section {i}: what this section covers")
            lines += [f"{i}.{j} Placeholder Subsection {i}.{j}: what it covers" for j in range(1, subsections + 1)]
        return "\n".join(lines)
    if "'N. Heading'" in text:
        return "\n".join(f"{i}. Placeholder Heading {i}" for i in range(1, _counts(text, "'N. Heading'")[0] + 1))
    if "| P1" in text:  # subtopics tied to papers
        tail = f" | {label}" if label else ""
        return "\n".join(f"Placeholder Subtopic {i}{tail}" for i in range(1, _counts(text, "| P1")[0] + 1))
    if "'- Exact title" in text:
        return "\n".join(f"- Placeholder Recalled Paper Number {i}" for i in range(1, _counts(text, "'- Exact title")[0] + 1))
    if "starting with '- '" in text:  # a section name, then its subsection titles
        n = _counts(text, "starting with '- '")[0]
        return "\n".join([f"Placeholder Theme {serial()}", *(f"- Placeholder Part {i}" for i in range(1, n + 1))])
    if "'## '" in text:  # a whole survey in Markdown sections
        n = _counts(text, "'## '")[0]
        each = max(1, settings.max_new_tokens // max(1, n))
        return "\n\n".join(f"## Placeholder Section {i}\n\n{_prose(each, label)}" for i in range(1, n + 1))
    return _prose(settings.max_new_tokens, label)


class PlaceholderLLM:
    """A stand-in for :class:`~surge_dataset.llm.LLM`: same ``spec`` and ``generate``, answers placeholders,
    sends nothing, and keeps the answer budget of every call (``budgets``, in call order)."""

    def __init__(self, spec: str | BackendSpec, generator: Generator | None = None,
                 context_length: int | None = None) -> None:
        self.spec = spec if isinstance(spec, BackendSpec) else BackendSpec.parse(spec)
        self.backend = None  # no model: TokenCounter loads the tokenizer alone for hf:/gguf:
        self.generator = generator
        self.context_length = context_length
        self.budgets: list[int] = []
        self._serial = itertools.count(1)
        self._lock = threading.Lock()

    def _next(self) -> int:
        with self._lock:
            return next(self._serial)

    def generate(self, conversations: Sequence[Any], settings: GenerationSettings | None = None, *,
                 on_answer: Callable[[int, Completion], None] | None = None) -> list[Completion]:
        settings = settings or GenerationSettings()
        completions = []
        for index, conversation in enumerate(conversations):
            conv = as_conversation(conversation)
            text = self.generator.placeholder_answer(conv, settings) if self.generator is not None else None
            completion = Completion(text if text is not None else placeholder_answer(conv, settings, self._next))
            completions.append(completion)
            self.budgets.append(settings.max_new_tokens)
            if on_answer is not None:
                on_answer(index, completion)
        return completions

    def continuation_logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[list[float]]:
        """A re-ranker's scoring in a dry run: zeros (nothing is sent; the order stays the retrieval's)."""
        return [[0.0] for _ in pairs]


@dataclass
class GenerationEstimate:
    """Per survey: LLM calls, input tokens, output tokens at most (the answer budgets), calls per stage."""

    system: str
    llm: str
    token_method: str
    surveys: dict[int, dict[str, Any]] = field(default_factory=dict)
    failed: dict[int, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def total(self) -> dict[str, int]:
        keys = ("calls", "prompt_tokens", "completion_tokens")
        return {k: sum(s[k] for s in self.surveys.values()) for k in keys}


def _context_length(spec: BackendSpec, given: int | None) -> int | None:
    """``--context-length``, else a local model's own (its config only, no weights), else none."""
    if given is not None:
        return given or None
    if spec.kind in ("hf", "gguf"):
        try:
            from surge_dataset.llm.local import TransformersBackend

            return TransformersBackend(spec).context_length()
        except Exception:  # noqa: BLE001 - unknown context: prompts are counted as built
            return None
    return None


def estimate_generation(
    data: Any, generator: Generator, llm_spec: str, survey_ids: Sequence[int], *, run: str | Path | None = None,
    top_k: int = 100, context_length: int | None = None,
) -> GenerationEstimate:
    """Run ``generator`` on every survey against :class:`PlaceholderLLM`; count what it asks. Sends nothing."""
    spec = BackendSpec.parse(llm_spec)
    if generator.inputs == "retrieval" and run is None:
        raise ValueError(f"system {generator.name!r} needs a retrieval run (--run)")
    ranked = read_run_topk(run, top_k) if generator.inputs == "retrieval" and run is not None else {}
    queries = all_queries(data) if generator.inputs == "ground_truth" else []
    generator.bind(data)
    counter = TokenCounter(PlaceholderLLM(spec))
    fitter = PromptFitter(counter, _context_length(spec, context_length), on_warning=lambda message: None)
    estimate = GenerationEstimate(generator.name, str(spec), counter.method)
    for survey_id in survey_ids:
        stand_in = PlaceholderLLM(spec, generator)
        try:
            topic, papers = survey_inputs(data, generator, survey_id, ranked, queries, run)
            _, info = generate_one(generator, topic, papers, stand_in, counter=counter, fitter=fitter)
        except (GenerationError, ValueError, KeyError) as exc:
            estimate.failed[survey_id] = error_text(exc)
            continue
        stages: dict[str, int] = {}
        for call in info["calls"]:
            stages[call["stage"]] = stages.get(call["stage"], 0) + 1
        estimate.surveys[survey_id] = {
            "calls": len(info["calls"]),
            "prompt_tokens": sum(c["prompt_tokens"] for c in info["calls"]),
            "completion_tokens": sum(stand_in.budgets),
            "stages": stages,
            "prompts_fitted": len(info["prompt_fitting"]),
        }
    estimate.notes = [
        "an estimate: the stand-in fills every 'at most N' limit of a prompt and every answer budget, so counts "
        "of structure-dependent stages are at their upper end",
        "output tokens: the answer budget (--max-new-tokens) of each call, an upper bound",
        "no answer cache consulted: a rerun of a finished run costs nothing",
    ]
    return estimate
