"""Quiz answerability (SurveyBench's quiz-based mode, on SurGE): questions drawn from the human-written survey,
answered by an LLM from the generated survey alone, graded by letter (:mod:`surge_dataset.scoring.quiz`).

The questions come from the quiz set the run pins (:meth:`Quiz.pin`): ``--quiz FILE`` or the dataset's
``quizzes`` config; its fingerprint goes into the journal key and the results' ``config``. A survey is asked the
questions of its GT survey (by the GT's ``survey_id``); a GT survey without a generated file is not asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from surge_dataset.core.errors import SettingError
from surge_dataset.core.records import QUIZ_CONFIG
from surge_dataset.evaluation.metric import Metric, MetricOutput, Requests, diagnostic, register
from surge_dataset.evaluation.metrics._judged import repeats, with_repeat
from surge_dataset.scoring import judges
from surge_dataset.scoring import quiz as scoring
from surge_dataset.scoring.injection import injection_diagnostics

if TYPE_CHECKING:
    from surge_dataset.data.quiz_sets import QuizQuestion


def load_quiz_set(source: str) -> Any:
    """:func:`surge_dataset.data.quiz_sets.load_quiz_set`, imported on first use (pydantic: not at registry load)."""
    from surge_dataset.data.quiz_sets import load_quiz_set as load

    return load(source)


def questions_of(survey: Any, config: Any) -> tuple[QuizQuestion, ...]:
    """The pinned quiz set's questions on the survey's GT (none when the run pinned no set)."""
    return load_quiz_set(config.quiz).for_survey(survey.gt.survey_id) if config.quiz else ()


def _asked(survey: Any, config: Any) -> tuple[str, bool, list[tuple[int | None, list[tuple[int, ...]], list[Any]]]]:
    """(the survey text as shown, whether it was cut, per repeat: the option orders and the requests)."""
    text, cut = scoring.fit_survey(judges.generated_text(survey.parsed))
    questions = questions_of(survey, config)
    if not text.strip() or not questions:
        return text, cut, []
    draws = []
    for repeat in repeats(config):
        orders = [scoring.option_order(q.question_id, repeat) for q in questions]
        requests = [scoring.answer_request(survey.gt.survey_title, text, q, order)
                    for q, order in zip(questions, orders, strict=True)]
        draws.append((repeat, orders, with_repeat(requests, repeat)))
    return text, cut, draws


def _mean(values: list[float]) -> float | None:
    return float(np.mean(values)) if values else None


def _std(values: list[float]) -> float | None:
    return float(np.std(values, ddof=1)) if len(values) > 1 else None


@register
class Quiz(Metric):
    name = "quiz"
    keys = ("quiz", "quiz_unanswered")
    needs = frozenset({"judge"})
    judged = True
    order = 130
    value_range = (0.0, 1.0)  # shares of the questions; <key>_std follows (metric.value_range)
    key_directions = {"quiz_unanswered": False}  # more questions the survey cannot answer is worse
    description = (
        "Share of multiple-choice questions drawn from the human-written survey that an LLM answers correctly from "
        "the generated survey alone, and the share it finds the generated survey does not answer (SurveyBench's "
        "quiz-based answerability)"
    )

    def pin(self, config, data):
        source = config.quiz
        if source is None and data is not None and QUIZ_CONFIG in getattr(data, "configs", ()):
            source = str(data.path)
        if source is None:
            where = f" ({data.path} has no '{QUIZ_CONFIG}' config)" if data is not None else ""
            raise SettingError(f"the quiz metric needs a quiz set{where}: pass --quiz FILE (written by `surge data "
                               "quiz`) or build the dataset with `surge data build --quizzes FILE`")
        fingerprint = load_quiz_set(source).fingerprint
        if config.quiz_fingerprint not in (None, fingerprint):
            raise SettingError(f"the quiz set {source} has fingerprint {fingerprint}, not {config.quiz_fingerprint} "
                               "as this run recorded: it changed; start a new results file")
        return {"quiz": str(source), "quiz_fingerprint": fingerprint}

    def requests(self, survey, config):
        return Requests(judge=[r for _, _, requests in _asked(survey, config)[2] for r in requests])

    def score(self, survey, models, config):
        text, cut, draws = _asked(survey, config)
        questions = questions_of(survey, config)
        with_repeats = config.judge_repeats > 1
        counts = {"quiz_questions": len(questions), "quiz_judged": 0, "quiz_missing": 0}
        notes = []
        if cut:
            counts["quiz_truncated"] = 1
            notes.append(diagnostic("quiz_truncated", f"quiz: the generated survey was cut to {len(text):,} characters "
                                                      "to fit the answering model, as CQS cuts a section"))
        if not questions:
            values: dict[str, float | None] = dict.fromkeys(self.keys)
            notes.append(diagnostic("no_quiz_questions", f"quiz: the quiz set has no question on GT survey "
                                                         f"{survey.gt.survey_id}: quiz is undefined"))
        elif not draws:  # an empty survey answers nothing: every question unanswered, not asked
            values = {"quiz": 0.0, "quiz_unanswered": 1.0}
            notes.append(diagnostic("empty_survey", "empty generated survey: quiz = 0 and every question unanswered "
                                                    "(not asked)"))
        else:
            return self._asked_output(survey, models, draws, questions, counts, notes, with_repeats, text)
        if with_repeats:
            values.update(quiz_std=None, quiz_unanswered_std=None)
        return MetricOutput(values, counts=counts, diagnostics=notes)

    def _asked_output(self, survey, models, draws, questions, counts, notes, with_repeats, text):
        scores, details = [], []
        for repeat, orders, requests in draws:
            score = scoring.quiz_score(questions, orders, models.judge.run(requests), repeat)
            scores.append(score)
            details += [answer.detail() for answer in score.answers]
        correct = [s.value for s in scores if s.value is not None]
        unanswered = [s.unanswered for s in scores if s.unanswered is not None]
        values: dict[str, float | None] = {"quiz": _mean(correct), "quiz_unanswered": _mean(unanswered)}
        if with_repeats:
            values.update(quiz_std=_std(correct), quiz_unanswered_std=_std(unanswered))
            counts["quiz_repeats"] = len(correct)
        counts["quiz_judged"] = sum(len(s.answers) for s in scores)
        counts["quiz_missing"] = sum(s.missing for s in scores)
        failed = sum(s.failed for s in scores)
        if failed:  # transport failures: the survey is scored again on a rerun
            counts["quiz_failed"] = failed
        if counts["quiz_missing"]:
            notes.append(diagnostic("judge_missing", f"quiz: {counts['quiz_missing']} of {counts['quiz_judged']} "
                                                     "answers could not be read: left out of the shares"))
        notes += injection_diagnostics(self.name, [text])
        return MetricOutput(values, counts=counts, diagnostics=notes, details=details)
