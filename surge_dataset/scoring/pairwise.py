"""Pairwise judging: which of two surveys on one topic is better, asked in both orders.

Used by the ``pairwise_gt`` metric (a generated survey against the human one) and by ``surge arena`` (two
systems' surveys on one topic). The judge sees both surveys, unnamed, as Survey A and Survey B (template
``pairwise``: the SurGE rubric's structure and content aspects -- coverage, depth, focus, coherence) and
answers ``[[A]]``, ``[[B]]`` or ``[[C]]`` (a tie) anywhere in its answer. An answer with none of them, or with
two different ones, gets a follow-up turn (``retry_verdict``), at most ``max_tries`` answers in all; after
that the verdict is *missing* (counted, never guessed).

Each pair is asked twice, (X, Y) and (Y, X). Reconciling: the same preference both times is that result
(*consistent*); anything else -- the judge picked whatever stood first, or a win one way and a tie the
other -- counts as a tie (*inconsistent*). The share of consistent pairs is the judge's position
consistency. A pair with a missing verdict in either order has no result.

Surveys longer than :data:`PAIRWISE_MAX_CHARS` are cut the way CQS cuts a section
(:func:`~surge_dataset.scoring.judges.cut_section`: to the limit, then back to the last ``.``), so both fit a
32k-token judge; the cut is recorded.

Verdict questions go through the judge's LLM (cache, concurrency, bounded transport retries) with the
judge's own settings and ``max_tries`` (:func:`ask_verdicts`); they are :class:`~surge_dataset.llm.JudgeRequest`
score questions over 0-2 (0 = A, 1 = B, 2 = C), so a judge without an LLM (a test fake with ``run`` only) is
asked them as such.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from surge_dataset.core.vocabulary import SURGE_STYLE
from surge_dataset.llm.judge import JudgeOutcome, JudgeRequest
from surge_dataset.llm.prompts import get_prompt
from surge_dataset.scoring.judges import cut_section

__all__ = [
    "PAIRWISE_MAX_CHARS",
    "VERDICTS",
    "PairResult",
    "ask_verdicts",
    "fit_text",
    "pair_requests",
    "parse_verdict",
    "reconcile",
]

#: The three answers; a verdict request's outcome value is the index (0 = A better, 1 = B better, 2 = tie).
VERDICTS = ("A", "B", "C")
#: Characters of each survey shown to the judge (two surveys, about 7,500 tokens together).
PAIRWISE_MAX_CHARS = 15_000

_VERDICT_RE = re.compile(r"\[\[\s*([ABC])\s*\]\]", re.I)
_THINKING_RE = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.S | re.I)


def parse_verdict(answer: str | None) -> str | None:
    """``A``, ``B`` or ``C`` when the answer holds ``[[A]]``, ``[[B]]`` or ``[[C]]`` -- one verdict, possibly
    repeated -- anywhere (a reasoning block ``<think>...</think>`` is not read); otherwise None."""
    if not answer:
        return None
    found = {v.upper() for v in _VERDICT_RE.findall(_THINKING_RE.sub(" ", answer))}
    return found.pop() if len(found) == 1 else None


def fit_text(text: str, max_chars: int = PAIRWISE_MAX_CHARS) -> tuple[str, bool]:
    """``text`` cut to fit the judge as CQS cuts a section, and whether it was cut."""
    cut = cut_section(text, max_chars)
    return cut, len(cut) < len(text)


def verdict_request(title: str, survey_a: str, survey_b: str) -> JudgeRequest:
    """One question: is Survey A or Survey B better (surveys already cut to fit)?"""
    messages = get_prompt("pairwise").render(title=title, survey_a=survey_a, survey_b=survey_b)
    return JudgeRequest.score(messages, 0, len(VERDICTS) - 1, style=SURGE_STYLE)


def pair_requests(title: str, first: str, second: str) -> tuple[JudgeRequest, JudgeRequest]:
    """The two questions of a pair: ``first`` shown as A, then ``second`` shown as A."""
    return verdict_request(title, first, second), verdict_request(title, second, first)


@dataclass(frozen=True)
class PairResult:
    """A pair judged in both orders, from ``first``'s side: ``outcome`` 1 (first better), 0.5 (tie or
    inconsistent), 0 (second better), None (a verdict missing); ``consistent`` whether both orders agreed."""

    verdicts: tuple[str | None, str | None]
    outcome: float | None
    consistent: bool | None
    missing: int = 0
    failed: int = 0
    answers: tuple[tuple[str | None, ...], ...] = field(default=(), compare=False)


def reconcile(forward: JudgeOutcome, backward: JudgeOutcome) -> PairResult:
    """``forward``: ``first`` shown as A; ``backward``: ``first`` shown as B."""
    verdicts = tuple(None if o.value is None else VERDICTS[o.value] for o in (forward, backward))
    missing = sum(v is None for v in verdicts)
    failed = sum(1 for o in (forward, backward) if o.value is None and o.failed)
    answers = (forward.answers, backward.answers)
    if missing:
        return PairResult(verdicts, None, None, missing, failed, answers)  # type: ignore[arg-type]
    first_side = {"A": 1.0, "B": 0.0, "C": 0.5}
    one, two = first_side[verdicts[0]], 1.0 - first_side[verdicts[1]]
    consistent = one == two
    return PairResult(verdicts, one if consistent else 0.5, consistent, 0, 0, answers)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ asking through the LLM

_MEMOS: weakref.WeakKeyDictionary[Any, dict[JudgeRequest, JudgeOutcome]] = weakref.WeakKeyDictionary()


def ask_verdicts(judge: Any, requests: Sequence[JudgeRequest]) -> list[JudgeOutcome]:
    """Outcomes of verdict requests, in input order (value: the index into :data:`VERDICTS`).

    A :class:`~surge_dataset.llm.Judge` is asked through its LLM with its settings, ``max_tries`` and
    counters (``judge.stats``); outcomes are memoised per judge, so the whole run can be asked first and then
    read survey by survey. Any other judge object is asked with ``judge.run`` (test fakes).
    """
    llm = getattr(judge, "llm", None)
    if llm is None:
        return list(judge.run(requests))
    memo = _MEMOS.setdefault(judge, {})
    todo = [r for r in dict.fromkeys(requests) if r not in memo]
    if todo:
        memo.update(zip(todo, _ask(judge, llm, todo), strict=True))
    return [memo[r] for r in requests]


def _ask(judge: Any, llm: Any, requests: list[JudgeRequest]) -> list[JudgeOutcome]:
    """The bounded loop of ``Judge._ask`` for verdicts: a follow-up turn after an unreadable answer."""
    follow_up = ("user", get_prompt("retry_verdict").render()[-1]["content"])
    conversations = [r.conversation for r in requests]
    answers: list[list[str | None]] = [[] for _ in requests]
    final: dict[int, JudgeOutcome] = {}
    judge.stats.requests += len(requests)
    active = list(range(len(requests)))
    for attempt in range(judge.max_tries):
        if not active:
            break
        groups: dict[Any, list[int]] = {}
        for i in active:
            groups.setdefault(judge.settings_for(requests[i], attempt), []).append(i)
        still = []
        for settings, group in groups.items():
            for i, completion in zip(group, llm.generate([conversations[i] for i in group], settings), strict=True):
                answers[i].append(completion.text)
                done = {"tries": len(answers[i]), "answers": tuple(answers[i])}
                if completion.text is None:
                    judge.stats.missing_failed += 1
                    final[i] = JudgeOutcome(error=f"request failed: {completion.error}", failed=True, **done)
                elif (verdict := parse_verdict(completion.text)) is not None:
                    final[i] = JudgeOutcome(value=VERDICTS.index(verdict), **done)
                else:
                    judge.stats.invalid_answers += 1
                    if attempt + 1 < judge.max_tries:
                        conversations[i] = (*conversations[i], ("assistant", completion.text), follow_up)
                        still.append(i)
                    else:
                        judge.stats.missing_invalid += 1
                        final[i] = JudgeOutcome(error=f"no verdict in {judge.max_tries} tries", **done)
        active = sorted(still)
    return [final[i] for i in range(len(requests))]
