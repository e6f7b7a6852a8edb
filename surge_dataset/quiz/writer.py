"""``surge data quiz``: an LLM writes multiple-choice questions on the GT surveys, one section at a time.

Per GT survey, ``per_survey`` questions are spread over its sections with at least 100 characters of content
(:func:`plan`): every section gets ``per_survey // S`` and the remainder goes to evenly spaced sections. The
writer (template ``quiz_write``) sees one section, cut to :data:`MAX_SECTION_CHARS`, and answers a JSON array
of questions, each with four options, the correct letter and the sentence of the section it rests on. Each
question is checked (:func:`check_question`) and dropped, with the reason counted, when it is malformed, when its
quoted sentence is not in the section, when the quote does not carry the correct option (less than
:data:`~.evidence.SUPPORT_SHARE` of its content words), or when it repeats an earlier question. A writer that
gives more questions than asked has the surplus dropped too.

Every request goes through the judge's LLM layer: answers are cached on disk as they arrive (a crashed or
repeated run sends only what was not answered: resumable), unreadable answers get a follow-up turn, and
``--dry-run`` counts the calls and tokens first (:func:`estimate_writing`). Every line records the writer's
prompt version (:data:`~surge_dataset.llm.prompts.QUIZ_WRITER_VERSION`) and model; the manifest beside the file
(``<name>.manifest.json``) records them too, with what was asked, kept and dropped.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from surge_dataset.core.records import Survey, gt_content_sections
from surge_dataset.core.vocabulary import ALL_SPLITS, parse_ids
from surge_dataset.data.quiz_sets import QuizQuestion, QuizSet, write_quiz_file
from surge_dataset.llm.judge import Judge, JudgeRequest
from surge_dataset.llm.prompts import QUIZ_WRITER_VERSION, get_prompt
from surge_dataset.quiz.evidence import SUPPORT_SHARE, evidence_in, normalise_quote, support
from surge_dataset.quiz.settings import QuizOptions
from surge_dataset.scoring.judges import cut_section

__all__ = ["DROP_REASONS", "MAX_SECTION_CHARS", "QUESTION_TOKENS", "Ask", "QuizWriting", "check_question",
           "estimate_writing", "make_judge", "manifest_path", "plan", "write_quiz_set", "write_outputs"]

#: Characters of a GT section shown to the writer (about 3,000 tokens).
MAX_SECTION_CHARS = 12_000
#: Answer tokens allowed per question asked (a question, four options and a quoted sentence, as JSON).
QUESTION_TOKENS = 400
#: Why a written question is dropped (the manifest counts each).
DROP_REASONS = ("malformed", "evidence_not_in_section", "answer_not_in_evidence", "duplicate", "surplus",
                "no_answer")


@dataclass(frozen=True)
class Ask:
    """One writer request: ``count`` questions on one section of one GT survey."""

    survey_id: int
    title: str
    section: str
    text: str
    count: int

    def request(self) -> JudgeRequest:
        messages = get_prompt("quiz_write").render(title=self.title, heading=self.section, section=self.text,
                                                   count=self.count)
        return JudgeRequest.items(messages, max_items=None)


def plan(survey: Survey, per_survey: int) -> list[Ask]:
    """The requests of one GT survey: ``per_survey`` questions spread over its sections with content."""
    sections = gt_content_sections(survey)
    if not sections:
        return []
    base, extra = divmod(per_survey, len(sections))
    bonus = {i * len(sections) // extra for i in range(extra)} if extra else set()
    asks = []
    for index, (title, content) in enumerate(sections):
        count = base + (index in bonus)
        if count:
            asks.append(Ask(survey.survey_id, survey.survey_title, title, cut_section(content, MAX_SECTION_CHARS),
                            count))
    return asks


def check_question(item: dict[str, Any], ask: Ask) -> tuple[dict[str, Any] | None, str | None]:
    """(the question's fields, None) when it passes every check, else (None, the reason it is dropped)."""
    fields = {k: item.get(k) for k in ("question", "options", "answer", "evidence")}
    if isinstance(fields["answer"], str):
        fields["answer"] = fields["answer"].strip().strip("().").upper()
    try:
        draft = QuizQuestion.model_validate({**fields, "survey_id": ask.survey_id, "question_id": "draft",
                                             "section": ask.section})
    except ValidationError:
        return None, "malformed"
    if not draft.evidence or not evidence_in(draft.evidence, ask.text):
        return None, "evidence_not_in_section"
    if support(draft.correct, draft.evidence) < SUPPORT_SHARE:
        return None, "answer_not_in_evidence"
    return draft.record(), None


@dataclass
class QuizWriting:
    """What one writing run produced: the kept questions and the manifest (asked, kept, dropped, who wrote)."""

    questions: list[QuizQuestion]
    manifest: dict[str, Any] = field(default_factory=dict)

    @property
    def quiz_set(self) -> QuizSet:
        return QuizSet(tuple(self.questions), "")


def selected_surveys(data: Any, options: QuizOptions) -> list[Survey]:
    """``--survey-ids`` when given, else ``--split``'s GT surveys."""
    ids = parse_ids(options.survey_ids)
    if ids:
        return [data.survey(i) for i in ids]
    return data.surveys(None if options.split == ALL_SPLITS else options.split)


def make_judge(options: QuizOptions, asks: Sequence[Ask] = ()) -> Judge:
    """The writer as a :class:`~surge_dataset.llm.Judge` (cache, follow-up tries), with an answer budget of
    :data:`QUESTION_TOKENS` per question of the largest request."""
    from surge_dataset.llm import make_llm

    llm = make_llm(options.judge, base_url=options.base_url, concurrency=options.concurrency, timeout=options.timeout,
                   device=options.device, batch_size=options.batch_size, cache_dir=options.cache_dir)
    most = max((a.count for a in asks), default=1)
    return Judge(llm, max_tries=options.max_tries, points_tokens=QUESTION_TOKENS * most)


def write_quiz_set(data: Any, options: QuizOptions, *, judge: Any = None,
                   progress: Callable[[str], None] | None = None) -> QuizWriting:
    """Ask the writer for every planned section of the selected GT surveys, check every question, number the kept
    ones ``<survey_id>-<n>`` in section order, and say what happened in the manifest."""
    say = progress or (lambda _message: None)
    surveys = selected_surveys(data, options)
    asks = [ask for survey in surveys for ask in plan(survey, options.per_survey)]
    judge = judge or make_judge(options, asks)
    say(f"asking {options.judge} for {sum(a.count for a in asks)} questions on {len(asks)} sections")
    outcomes = judge.run([ask.request() for ask in asks])
    kept: dict[int, list[QuizQuestion]] = {s.survey_id: [] for s in surveys}
    dropped: Counter[str] = Counter()
    seen: set[tuple[int, str]] = set()
    for ask, outcome in zip(asks, outcomes, strict=True):
        items = list(outcome.items or ())
        if outcome.items is None:
            dropped["no_answer"] += ask.count
        dropped["surplus"] += max(0, len(items) - ask.count)
        for item in items[: ask.count]:
            record, reason = check_question(item, ask)
            key = (ask.survey_id, normalise_quote(str(item.get("question", ""))))
            if record is not None and key in seen:
                record, reason = None, "duplicate"
            if record is None:
                dropped[str(reason)] += 1
                continue
            seen.add(key)
            number = len(kept[ask.survey_id])
            kept[ask.survey_id].append(QuizQuestion.model_validate({
                **record, "question_id": f"{ask.survey_id}-{number}", "prompt_version": QUIZ_WRITER_VERSION,
                "generator": options.judge}))
    questions = [q for survey in surveys for q in kept[survey.survey_id]]
    writing = QuizWriting(questions)
    writing.manifest = _manifest(data, options, surveys, asks, writing, dropped, judge)
    return writing


def _manifest(data: Any, options: QuizOptions, surveys: Sequence[Survey], asks: Sequence[Ask], writing: QuizWriting,
              dropped: Counter[str], judge: Any) -> dict[str, Any]:
    from surge_dataset.core.metadata import installed_versions

    asked = Counter[int]()
    for ask in asks:
        asked[ask.survey_id] += ask.count
    got = Counter(q.survey_id for q in writing.questions)
    llm = getattr(judge, "llm", None)
    return {
        "kind": "surge-quiz-set",
        "prompt_version": QUIZ_WRITER_VERSION,
        "generator": options.judge,
        "fingerprint": writing.quiz_set.fingerprint,
        "per_survey": options.per_survey,
        "data_fingerprint": data.fingerprint,
        "surveys": len(surveys),
        "sections_asked": len(asks),
        "questions_asked": sum(asked.values()),
        "questions": len(writing.questions),
        "dropped": {reason: dropped.get(reason, 0) for reason in DROP_REASONS},
        "by_survey": {str(s.survey_id): {"asked": asked.get(s.survey_id, 0), "kept": got.get(s.survey_id, 0)}
                      for s in surveys},
        "support_share": SUPPORT_SHARE,
        "llm": llm.stats.as_dict() if llm is not None else None,
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "versions": installed_versions(("surge-bench",)),
    }


def manifest_path(out: str | Path) -> Path:
    """``quizzes.jsonl`` -> ``quizzes.manifest.json`` beside it."""
    out = Path(out)
    return out.with_name(out.name.removesuffix(".jsonl") + ".manifest.json")


def write_outputs(out: str | Path, writing: QuizWriting) -> Path:
    """The quiz file and its manifest, each written atomically; returns the manifest's path."""
    from surge_dataset.core.io import atomic_write_json

    write_quiz_file(out, writing.questions)
    manifest = manifest_path(out)
    atomic_write_json(manifest, writing.manifest)
    return manifest


def estimate_writing(data: Any, options: QuizOptions) -> dict[str, Any]:
    """The writer calls a run would make, their tokens and how many are cached; sends nothing."""
    from surge_dataset.llm.usage import TokenCounter

    asks = [ask for survey in selected_surveys(data, options) for ask in plan(survey, options.per_survey)]
    judge = make_judge(options, asks)  # no client, no weights: nothing loads
    llm = judge.llm
    counter = TokenCounter(llm)
    requests = [ask.request() for ask in asks]
    settings = [judge.settings_for(r) for r in requests]
    try:
        keys = [llm._key("chat", r.conversation, s.as_key()) for r, s in zip(requests, settings, strict=True)]
        cached = llm.cache.get_many(keys) if keys else {}
    except Exception:  # noqa: BLE001 - a local model's identity reads its files: then the cache is not consulted
        keys, cached = [], None
    prompt = [counter.count_prompt(r.conversation) for r in requests]
    hits = [k in cached for k in keys] if cached is not None else [False] * len(requests)
    return {
        "calls": len(requests), "questions": sum(a.count for a in asks),
        "cached": None if cached is None else sum(hits),
        "prompt_tokens": sum(prompt), "completion_tokens": sum(s.max_new_tokens for s in settings),
        "prompt_tokens_to_send": sum(p for p, hit in zip(prompt, hits, strict=True) if not hit),
        "completion_tokens_to_send": sum(s.max_new_tokens for s, hit in zip(settings, hits, strict=True) if not hit),
        "token_method": counter.method,
    }
