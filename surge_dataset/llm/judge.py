"""An LLM as a judge: requests in, readable scores (or lists) out, with a bounded number of tries.

Four kinds of question: a ``score`` in a range, a list of ``points``, a ``choice`` among lettered options (the
quiz metric: the value is the index of the letter picked) and ``items``, a JSON array of objects (the quiz
writer of ``surge data quiz``). Two styles. ``surge`` (below) is ours. ``released`` sets every parameter as the released SurGE
evaluator did (``--protocol official``): 100 answer tokens, the API's default temperature (1.0), an
answer accepted only if it is exactly one digit in range (``re.match(r"^[0-5]$")``, which allows one
trailing newline), and an unreadable answer re-asked with the same conversation as a new sample, up to
``max_tries`` answers (the released loop has no working bound). The prompt wording stays ours.

Every request of a run goes through :meth:`Judge.run` in one call, so a server sees them concurrently
and a local model in batches. An answer that cannot be read gets a follow-up turn ("reply with a single
integer ...") in the same conversation, at most ``max_tries`` answers in all; after that the score is
*missing* (``value=None``, with the reason), never a crash and never a silent 0. The follow-up turn
makes another try meaningful under greedy decoding, and being part of the conversation it is cached
like any other request, so a rerun replays the same tries without sending anything.

Outcomes are memoised per request: callers can prefetch a whole run, then ask survey by survey.

Repeats (``--judge-repeats K``): a request with ``repeat=r`` is draw r of a question deliberately asked
K times. It is sent with ``GenerationSettings.repeat=r`` (its own cache entry) and, when its style
decodes greedily, at ``sample_temperature`` (default :data:`REPEAT_TEMPERATURE`), since K greedy answers
would be one answer K times. ``repeat=None`` (every request without ``--judge-repeats``) is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from surge_dataset.core.vocabulary import JUDGE_STYLES, RELEASED_STYLE
from surge_dataset.llm.base import Conversation, GenerationSettings, as_conversation
from surge_dataset.llm.client import LLM
from surge_dataset.llm.parse import parse_choice, parse_items, parse_points, parse_score, parse_score_strict
from surge_dataset.llm.prompts import get_prompt

__all__ = ["JUDGE_STYLES", "REPEAT_TEMPERATURE", "Judge", "JudgeOutcome", "JudgeRequest", "JudgeStats",
           "style_settings"]

#: The released evaluator's judge settings (protocol.md §4).
RELEASED_SCORE_TOKENS = 100
RELEASED_TEMPERATURE = 1.0
#: Temperature of repeated questions whose style decodes greedily (``--judge-temperature``).
REPEAT_TEMPERATURE = 0.7


def style_settings(score_tokens: int = 16, points_tokens: int = 1024) -> dict[tuple[str, str], GenerationSettings]:
    """(kind, style) -> decoding settings of a first, unrepeated question: what ``Judge`` uses and records.

    A ``choice`` is decoded as a ``score`` of the ``surge`` style (a short greedy answer) and ``items`` as
    ``points``, in either style: the released evaluator asked no such question, so there is no released setting
    to reproduce.
    """
    return {
        ("score", "surge"): GenerationSettings(max_new_tokens=score_tokens),
        ("score", "released"): GenerationSettings(max_new_tokens=RELEASED_SCORE_TOKENS, temperature=RELEASED_TEMPERATURE),
        ("points", "surge"): GenerationSettings(max_new_tokens=points_tokens),
        ("points", "released"): GenerationSettings(max_new_tokens=points_tokens),
        ("choice", "surge"): GenerationSettings(max_new_tokens=score_tokens),
        ("choice", "released"): GenerationSettings(max_new_tokens=score_tokens),
        ("items", "surge"): GenerationSettings(max_new_tokens=points_tokens),
        ("items", "released"): GenerationSettings(max_new_tokens=points_tokens),
    }


def repeated_settings(settings: GenerationSettings, repeat: int | None, sample_temperature: float) -> GenerationSettings:
    """The settings of draw ``repeat`` (None: not a repeated question, unchanged)."""
    if repeat is None:
        return settings
    temperature = settings.temperature if settings.temperature > 0 else sample_temperature
    return replace(settings, temperature=temperature, repeat=repeat)


@dataclass(frozen=True)
class JudgeRequest:
    """One question to the judge: a conversation and what kind of answer is expected."""

    conversation: Conversation
    kind: Literal["score", "points", "choice", "items"] = "score"
    low: int = 0
    high: int = 5
    max_points: int | None = None
    #: ``surge`` or ``released`` (see the module docstring); None = the judge's default style.
    style: str | None = None
    #: Draw number of a question asked K times (``--judge-repeats``); None = asked once.
    repeat: int | None = None

    @classmethod
    def score(cls, messages: Sequence[dict[str, str]], low: int, high: int, *, style: str | None = None) -> JudgeRequest:
        if style is not None and style not in JUDGE_STYLES:
            raise ValueError(f"judge style must be one of {', '.join(JUDGE_STYLES)}, not {style!r}")
        return cls(as_conversation(messages), "score", low, high, style=style)

    @classmethod
    def points(cls, messages: Sequence[dict[str, str]], max_points: int | None = None) -> JudgeRequest:
        return cls(as_conversation(messages), "points", max_points=max_points)

    @classmethod
    def choice(cls, messages: Sequence[dict[str, str]], options: int, *, style: str | None = None) -> JudgeRequest:
        """A pick among ``options`` lettered answers (A, B, ...); the outcome's value is the letter's index."""
        if not 2 <= options <= 26:
            raise ValueError(f"a choice needs 2 to 26 lettered options, not {options}")
        request = cls.score(messages, 0, options - 1, style=style)
        return replace(request, kind="choice")

    @classmethod
    def items(cls, messages: Sequence[dict[str, str]], max_items: int | None = None) -> JudgeRequest:
        """A JSON array of objects (at most ``max_items`` kept); the outcome's ``items`` holds them."""
        return cls(as_conversation(messages), "items", max_points=max_items)

    @property
    def letters(self) -> str:
        """The option letters of a ``choice`` (``ABCDE`` for five options)."""
        return "".join(chr(ord("A") + i) for i in range(self.low, self.high + 1))


@dataclass(frozen=True)
class JudgeOutcome:
    """What the judge answered: ``value`` (score) or ``points``, or neither and an ``error``."""

    value: int | None = None
    points: tuple[str, ...] | None = None
    weighted: float | None = None  # expected score under the next-token distribution (local judges)
    score_token_mass: float | None = None  # how much probability the score tokens had at all
    tries: int = 0
    answers: tuple[str | None, ...] = ()
    error: str | None = None
    failed: bool = False  # the transport failed (not cached: a rerun asks again)
    items: tuple[dict[str, object], ...] | None = field(default=None, compare=False)  # an ``items`` request's

    @property
    def missing(self) -> bool:
        return self.value is None and self.points is None and self.items is None


@dataclass
class JudgeStats:
    """Per-run counters of the judge (the transport-level ones live in ``LLM.stats``)."""

    requests: int = 0
    invalid_answers: int = 0  # answers that could not be read (each try counts)
    missing_invalid: int = 0  # requests still unreadable after every try
    missing_failed: int = 0  # requests whose transport failed after every retry

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class _State:
    request: JudgeRequest
    conversation: Conversation
    answers: list[str | None] = field(default_factory=list)


class Judge:
    """Scores and lists from an :class:`~.client.LLM`, with follow-up tries and an outcome memo.

    ``weighted=True`` also reads the probability-weighted score of every score request (local judges
    only): sum over v of v * P(first answer token = v), renormalised over the score tokens.
    """

    def __init__(
        self,
        llm: LLM,
        *,
        max_tries: int = 3,
        weighted: bool = False,
        score_tokens: int = 16,
        points_tokens: int = 1024,
        style: str = "surge",
        sample_temperature: float = REPEAT_TEMPERATURE,
    ) -> None:
        if max_tries < 1:
            raise ValueError(f"max_tries must be at least 1, got {max_tries}")
        if style not in JUDGE_STYLES:
            raise ValueError(f"judge style must be one of {', '.join(JUDGE_STYLES)}, not {style!r}")
        self.style = style
        if weighted and not llm.supports_probabilities:
            llm.probabilities([], [])  # raises the explanatory LLMConfigurationError
        self.llm = llm
        self.max_tries = max_tries
        self.weighted = weighted
        if sample_temperature <= 0:
            raise ValueError(f"sample_temperature must be above 0 (repeats of a greedy answer are one answer), "
                             f"got {sample_temperature}")
        self.settings = style_settings(score_tokens, points_tokens)
        self.sample_temperature = sample_temperature
        self.stats = JudgeStats()
        self._memo: dict[JudgeRequest, JudgeOutcome] = {}

    @property
    def spec(self) -> str:
        return str(self.llm.spec)

    def run(self, requests: Sequence[JudgeRequest]) -> list[JudgeOutcome]:
        """Outcomes in input order; only requests never seen by this judge are asked."""
        todo = [r for r in dict.fromkeys(requests) if r not in self._memo]
        if todo:
            self.stats.requests += len(todo)
            outcomes = self._ask(todo)
            if self.weighted:
                outcomes = self._add_weighted(todo, outcomes)
            self._memo.update(zip(todo, outcomes, strict=True))
        return [self._memo[r] for r in requests]

    def _parse(self, request: JudgeRequest, answer: str | None) -> int | tuple[object, ...] | None:
        if request.kind == "score":
            if self._style(request) == RELEASED_STYLE:
                return parse_score_strict(answer, request.low, request.high)
            return parse_score(answer, request.low, request.high)
        if request.kind == "choice":
            return parse_choice(answer, request.letters)
        if request.kind == "items":
            items = parse_items(answer, request.max_points)
            return tuple(items) if items else None
        points = parse_points(answer, request.max_points)
        return tuple(points) if points else None

    def settings_for(self, request: JudgeRequest, attempt: int = 0) -> GenerationSettings:
        """The decoding settings (and so the cache entry) of one try of ``request``."""
        settings = repeated_settings(self.settings[request.kind, self._style(request)], request.repeat,
                                     self.sample_temperature)
        if self._reasks(request):  # the same question again: a new draw, own cache entry
            settings = replace(settings, sample=attempt)
        return settings

    def _follow_up(self, request: JudgeRequest) -> tuple[str, str]:
        if request.kind == "score":
            text = get_prompt("retry_score").render(low=request.low, high=request.high)[-1]["content"]
        elif request.kind == "choice":
            text = get_prompt("retry_choice").render(letters=", ".join(request.letters))[-1]["content"]
        elif request.kind == "items":
            text = get_prompt("retry_items").render()[-1]["content"]
        else:
            text = get_prompt("retry_points").render()[-1]["content"]
        return ("user", text)

    def _ask(self, requests: list[JudgeRequest]) -> list[JudgeOutcome]:
        states = [_State(r, r.conversation) for r in requests]
        final: dict[int, JudgeOutcome] = {}
        active = list(range(len(states)))
        for attempt in range(self.max_tries):
            if not active:
                break
            still = []
            groups: dict[GenerationSettings, list[int]] = {}
            for kind, style in self.settings:  # a fixed order of groups: scripted tests rely on it
                for i in active:
                    request = states[i].request
                    if (request.kind, self._style(request)) == (kind, style):
                        groups.setdefault(self.settings_for(request, attempt), []).append(i)
            for settings, group in groups.items():
                completions = self.llm.generate([states[i].conversation for i in group], settings)
                for i, completion in zip(group, completions, strict=True):
                    state = states[i]
                    state.answers.append(completion.text)
                    if completion.text is None:
                        self.stats.missing_failed += 1
                        final[i] = JudgeOutcome(tries=len(state.answers), answers=tuple(state.answers),
                                                error=f"request failed: {completion.error}", failed=True)
                        continue
                    parsed = self._parse(state.request, completion.text)
                    if parsed is not None:
                        listed = state.request.kind == "items"
                        final[i] = JudgeOutcome(
                            value=parsed if isinstance(parsed, int) else None,
                            points=parsed if isinstance(parsed, tuple) and not listed else None,  # type: ignore[arg-type]
                            tries=len(state.answers), answers=tuple(state.answers),
                            items=parsed if listed else None,  # type: ignore[arg-type]
                        )
                        continue
                    self.stats.invalid_answers += 1
                    if attempt + 1 < self.max_tries:
                        if not self._reasks(state.request):
                            state.conversation = (*state.conversation, ("assistant", completion.text),
                                                  self._follow_up(state.request))
                        still.append(i)
                    else:
                        self.stats.missing_invalid += 1
                        final[i] = JudgeOutcome(tries=len(state.answers), answers=tuple(state.answers),
                                                error=f"no valid answer in {self.max_tries} tries")
            active = sorted(still)
        return [final[i] for i in range(len(states))]

    def _style(self, request: JudgeRequest) -> str:
        return request.style or self.style

    def _reasks(self, request: JudgeRequest) -> bool:
        """Released style re-asks a score question unchanged instead of following up in the conversation."""
        return request.kind == "score" and self._style(request) == RELEASED_STYLE

    def _add_weighted(self, requests: list[JudgeRequest], outcomes: list[JudgeOutcome]) -> list[JudgeOutcome]:
        result = list(outcomes)
        by_range: dict[tuple[int, int], list[int]] = {}
        for i, request in enumerate(requests):
            if request.kind == "score":
                by_range.setdefault((request.low, request.high), []).append(i)
        for (low, high), indices in by_range.items():
            values = np.arange(low, high + 1, dtype=np.float64)
            rows = self.llm.probabilities([requests[i].conversation for i in indices], [str(v) for v in range(low, high + 1)])
            for i, row in zip(indices, rows, strict=True):
                probs, mass = row[:-1], float(row[-1])
                weighted = float(probs @ values) if mass > 0 and np.all(np.isfinite(probs)) else None
                old = result[i]
                result[i] = JudgeOutcome(old.value, old.points, weighted, mass, old.tries, old.answers, old.error,
                                         old.failed)
        return result
