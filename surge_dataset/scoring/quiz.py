"""Quiz answerability: questions drawn from the GT survey, answered from the generated survey alone.

The answering model (any judge backend) sees the generated survey, cut to :data:`QUIZ_MAX_SURVEY_CHARS` the way
CQS cuts a section, and one question with its four options plus "E: the survey does not say". It answers with a
letter; grading is by letter, with no second judge call: the option it picked is correct or not, and E is
*unanswered* (never correct). A reply with no readable letter after the judge's tries is *missing*: counted,
left out of the shares, never guessed.

Position bias: the four options are shown in an order drawn for each (question, repeat) from a fixed seed
(:func:`option_order`), so a judge that favours a position cannot gain from where the writer put the correct
option, and ``--judge-repeats K`` asks each question K times in K orders (the pairwise judge's control).

Pure: requests in, outcomes in, numbers out; the judge is injected (``run(requests) -> outcomes``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from surge_dataset.core.vocabulary import QUIZ_ANSWERS, QUIZ_CHOICES, QUIZ_UNANSWERED, SURGE_STYLE
from surge_dataset.llm.judge import JudgeOutcome, JudgeRequest
from surge_dataset.llm.prompts import get_prompt
from surge_dataset.scoring.judges import cut_section

__all__ = ["QUIZ_MAX_SURVEY_CHARS", "QUIZ_SEED", "UNANSWERED_OPTION", "QuizAnswer", "QuizScore", "answer_request",
           "fit_survey", "grade", "option_order", "quiz_score"]

#: Characters of the generated survey the answering model reads (about 7,500 tokens, as KPR reads).
QUIZ_MAX_SURVEY_CHARS = 30_000
#: The seed of the option orders (with the question id and the repeat).
QUIZ_SEED = 42
#: The fifth option every question gets.
UNANSWERED_OPTION = "the survey does not say"


def fit_survey(text: str, max_chars: int = QUIZ_MAX_SURVEY_CHARS) -> tuple[str, bool]:
    """``text`` cut to fit the answering model (to the limit, then back to its last '.'), and whether it was cut."""
    cut = cut_section(text, max_chars)
    return cut, len(cut) < len(text)


def option_order(question_id: str, repeat: int | None) -> tuple[int, ...]:
    """The order the four options are shown in: ``order[i]`` is the index (in the quiz line) of the option shown
    as letter i. Drawn from (:data:`QUIZ_SEED`, question id, repeat): the same every run, different per repeat."""
    digest = hashlib.sha256(f"{QUIZ_SEED}|{question_id}|{repeat or 0}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "big"))
    return tuple(int(i) for i in rng.permutation(len(QUIZ_ANSWERS)))


def answer_request(title: str, survey: str, question: Any, order: Sequence[int]) -> JudgeRequest:
    """The question as the answering model gets it: the survey (already cut), the options in ``order``, then E."""
    shown = [question.options[i] for i in order] + [UNANSWERED_OPTION]
    options = "\n".join(f"{letter}: {text}" for letter, text in zip(QUIZ_CHOICES, shown, strict=True))
    messages = get_prompt("quiz_answer").render(title=title, survey=survey, question=question.question,
                                                options=options)
    return JudgeRequest.choice(messages, len(QUIZ_CHOICES), style=SURGE_STYLE)


@dataclass(frozen=True)
class QuizAnswer:
    """One answered question: the letter picked as shown, the quiz line's letter it stands for (E: unanswered),
    and whether it is correct (None: no readable answer)."""

    question_id: str
    repeat: int | None
    order: tuple[int, ...]
    shown: str | None
    picked: str | None
    correct: bool | None
    failed: bool = False

    def detail(self) -> dict[str, Any]:
        return {"kind": "quiz", "question_id": self.question_id, "repeat": self.repeat,
                "order": "".join(QUIZ_ANSWERS[i] for i in self.order), "shown": self.shown, "picked": self.picked,
                "correct": self.correct}


def grade(question: Any, order: Sequence[int], outcome: JudgeOutcome, repeat: int | None = None) -> QuizAnswer:
    """The outcome of one answer request, read back into the quiz line's letters."""
    if outcome.value is None:
        return QuizAnswer(question.question_id, repeat, tuple(order), None, None, None, outcome.failed)
    shown = QUIZ_CHOICES[outcome.value]
    if shown == QUIZ_UNANSWERED:
        return QuizAnswer(question.question_id, repeat, tuple(order), shown, QUIZ_UNANSWERED, False)
    picked = QUIZ_ANSWERS[order[outcome.value]]
    return QuizAnswer(question.question_id, repeat, tuple(order), shown, picked, picked == question.answer)


@dataclass
class QuizScore:
    """One survey's answers over one draw of every question: the shares and what they are over."""

    answers: list[QuizAnswer] = field(default_factory=list)

    @property
    def answered(self) -> list[QuizAnswer]:
        return [a for a in self.answers if a.correct is not None]

    @property
    def value(self) -> float | None:
        """Share of the answered questions answered correctly (None when no answer could be read)."""
        answered = self.answered
        return sum(bool(a.correct) for a in answered) / len(answered) if answered else None

    @property
    def unanswered(self) -> float | None:
        """Share of the answered questions answered E."""
        answered = self.answered
        return sum(a.picked == QUIZ_UNANSWERED for a in answered) / len(answered) if answered else None

    @property
    def missing(self) -> int:
        return sum(a.correct is None for a in self.answers)

    @property
    def failed(self) -> int:
        return sum(a.failed for a in self.answers)


def quiz_score(questions: Sequence[Any], orders: Sequence[Sequence[int]], outcomes: Sequence[JudgeOutcome],
               repeat: int | None = None) -> QuizScore:
    """Grade one draw of a survey's questions (``orders`` and ``outcomes`` in question order)."""
    return QuizScore([grade(q, order, outcome, repeat)
                      for q, order, outcome in zip(questions, orders, outcomes, strict=True)])
