"""A quiz set as pinned data: ``quizzes.jsonl`` (one question a line) and the dataset's ``quizzes`` config.

A line::

    {"survey_id": 0, "question_id": "0-3", "section": "Spectral Methods", "question": "...",
     "options": ["...", "...", "...", "..."], "answer": "B", "evidence": "<the GT sentence it rests on>",
     "prompt_version": "surge-quiz-writer-1", "generator": "openai:gpt-4o"}

``answer`` is the letter of the correct option in the order listed. A file is untrusted input: every line is
checked (:class:`QuizQuestion`, pydantic) and a bad one is an :class:`~surge_dataset.core.errors.InputFileError`
naming the file, the line and the problem; a quiz set is never used half-read.

The **fingerprint** (16 hex digits) identifies the questions, not the file: it hashes the canonical JSON of
every question, sorted, so a set read from its JSONL file and from the ``quizzes`` config built from it have
the same one. Results record it (``config.quiz_fingerprint``) as they record the data's.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from surge_dataset.core.errors import InputFileError
from surge_dataset.core.io import reading_input
from surge_dataset.core.records import QUIZ_CONFIG, QUIZ_FILE
from surge_dataset.core.vocabulary import QuizAnswer

__all__ = ["QUIZ_CONFIG", "QUIZ_FILE", "QuizQuestion", "QuizSet", "load_quiz_set", "pin_quiz_config", "quiz_columns",
           "quiz_set_to_pin", "read_quiz_file", "write_quiz_config", "write_quiz_file"]



class QuizQuestion(BaseModel):
    """One multiple-choice question on one GT survey (a line of ``quizzes.jsonl``)."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    survey_id: int
    question_id: str
    section: str
    question: str
    options: tuple[str, str, str, str]
    answer: QuizAnswer
    evidence: str
    #: The writer's prompt version and model (``surge data quiz`` fills both; a hand-written set may not).
    prompt_version: str | None = None
    generator: str | None = None

    @field_validator("question_id", mode="before")
    @classmethod
    def _id_as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("options", mode="before")
    @classmethod
    def _four_options(cls, value: Any) -> Any:
        if isinstance(value, list | tuple) and len(value) != 4:
            raise ValueError(f"a question has 4 options, not {len(value)}")
        return value

    @field_validator("question", "question_id")
    @classmethod
    def _not_empty(cls, value: str) -> str:
        if not value:
            raise ValueError("must not be empty")
        return value

    @field_validator("options")
    @classmethod
    def _distinct_options(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(not option for option in value):
            raise ValueError("an option is empty")
        if len({" ".join(option.lower().split()) for option in value}) < len(value):
            raise ValueError("two options are the same")
        return value

    def record(self) -> dict[str, Any]:
        """The line as written (field order as in the module docstring)."""
        return {**self.model_dump(), "options": list(self.options)}

    @property
    def correct(self) -> str:
        """The text of the correct option."""
        return self.options["ABCD".index(self.answer)]


def problem(error: ValidationError) -> str:
    """A pydantic error in one line: ``options: two options are the same``."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "line"
    message = str(first["msg"]).removeprefix("Value error, ")
    return f"{where}: {message}" + (f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else "")


@dataclass(frozen=True)
class QuizSet:
    """A checked quiz set: its questions in order, where it was read from, and its fingerprint."""

    questions: tuple[QuizQuestion, ...]
    source: str = ""
    by_survey: dict[int, tuple[QuizQuestion, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        grouped: dict[int, list[QuizQuestion]] = {}
        for question in self.questions:
            grouped.setdefault(question.survey_id, []).append(question)
        object.__setattr__(self, "by_survey", {k: tuple(v) for k, v in grouped.items()})

    @classmethod
    def of(cls, questions: Iterable[QuizQuestion | Mapping[str, Any]], source: str = "") -> QuizSet:
        """Checked questions (records are validated; ids must be unique) -> a set."""
        checked = [q if isinstance(q, QuizQuestion) else QuizQuestion.model_validate(q) for q in questions]
        seen: set[str] = set()
        for question in checked:
            if question.question_id in seen:
                raise InputFileError(f"{source or 'quiz set'}: question_id {question.question_id!r} appears twice")
            seen.add(question.question_id)
        return cls(tuple(checked), source)

    def for_survey(self, survey_id: int) -> tuple[QuizQuestion, ...]:
        return self.by_survey.get(survey_id, ())

    @functools.cached_property
    def fingerprint(self) -> str:
        lines = sorted(json.dumps(q.record(), ensure_ascii=False, sort_keys=True) for q in self.questions)
        return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]

    def writers(self) -> list[str]:
        """Who wrote the questions: ``<generator> (<prompt version>)`` per distinct pair, in order seen."""
        return list(dict.fromkeys(f"{q.generator or 'unknown writer'} ({q.prompt_version or 'no prompt version'})"
                                  for q in self.questions))

    def summary(self) -> dict[str, Any]:
        """What a dataset's metadata and card say of the set."""
        return {"fingerprint": self.fingerprint, "questions": len(self.questions), "surveys": len(self.by_survey),
                "writers": self.writers()}


def read_quiz_file(path: str | Path) -> QuizSet:
    """``quizzes.jsonl`` -> a checked :class:`QuizSet` (blank lines skipped); the first bad line is an error."""
    questions = []
    with reading_input(path):
        text = Path(path).read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            questions.append(QuizQuestion.model_validate(json.loads(line)))
        except json.JSONDecodeError as exc:
            raise InputFileError(f"{path}:{number}: not a JSON object ({exc.msg})") from None
        except ValidationError as exc:
            raise InputFileError(f"{path}:{number}: {problem(exc)}") from None
    if not questions:
        raise InputFileError(f"{path}: no question in the file (write one with `surge data quiz`)")
    return QuizSet.of(questions, str(path))


def write_quiz_file(path: str | Path, questions: Sequence[QuizQuestion]) -> None:
    """The questions as ``quizzes.jsonl``, written atomically."""
    from surge_dataset.core.io import atomic_write_text

    atomic_write_text(path, "".join(json.dumps(q.record(), ensure_ascii=False) + "\n" for q in questions))


# ------------------------------------------------------------------------------- the dataset's config


def quiz_columns() -> Any:
    """The Arrow schema of the ``quizzes`` config (the JSON line's fields, in order)."""
    import pyarrow as pa

    text = pa.string()
    return pa.schema([("survey_id", pa.int64()), ("question_id", text), ("section", text), ("question", text),
                      ("options", pa.list_(text)), ("answer", text), ("evidence", text),
                      ("prompt_version", text), ("generator", text)])


def write_quiz_config(folder: Path, quiz_set: QuizSet, split_of: Mapping[int, str]) -> dict[str, int]:
    """``folder/quizzes/<split>-00000-of-00001.parquet``, each question under its survey's split; returns the
    questions per split. Raises when a question's survey is not in the dataset."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    unknown = sorted({q.survey_id for q in quiz_set.questions} - set(split_of))
    if unknown:
        raise InputFileError(f"{quiz_set.source}: questions on survey ids the dataset does not have: {unknown}")
    counts: dict[str, int] = {}
    for split in ("train", "test"):
        rows = [q.record() for q in quiz_set.questions if split_of[q.survey_id] == split]
        if rows:
            (folder / QUIZ_CONFIG).mkdir(parents=True, exist_ok=True)
            pq.write_table(pa.Table.from_pylist(rows, schema=quiz_columns()),
                           folder / QUIZ_CONFIG / f"{split}-00000-of-00001.parquet", compression="zstd")
            counts[split] = len(rows)
    return counts


def quiz_set_to_pin(path: Path, has_surveys: bool, *, given: bool) -> QuizSet | None:
    """The quiz set ``surge data build`` pins, checked before anything is written: ``--quizzes`` (``given``),
    else ``quizzes.jsonl`` beside the official files if there is one; None otherwise."""
    if not given and not path.is_file():
        return None
    if not has_surveys:
        raise InputFileError(f"{path}: a quiz set needs the surveys it asks about, and surveys.json is not in the "
                             "source folder")
    return read_quiz_file(path)


def pin_quiz_config(folder: Path, quiz_set: QuizSet, split_of: Mapping[int, str]) -> tuple[dict[str, int],
                                                                                           dict[str, Any], str]:
    """The ``quizzes`` config written into a dataset being built: (questions per split, what ``surge_meta.json``
    records of the set, the build's note)."""
    from surge_dataset.core.io import file_sha256

    counts = write_quiz_config(folder, quiz_set, split_of)
    name = Path(quiz_set.source).name
    meta = {**quiz_set.summary(), "file": name, "sha256": file_sha256(Path(quiz_set.source))}
    note = (f"quiz set {name} pinned as the '{QUIZ_CONFIG}' config: {len(quiz_set.questions)} questions on "
            f"{len(quiz_set.by_survey)} surveys, fingerprint {quiz_set.fingerprint}, written by "
            f"{'; '.join(quiz_set.writers())}")
    return counts, meta, note


def _read_config(folder: Path) -> QuizSet:
    import pyarrow.parquet as pq

    files = sorted((folder / QUIZ_CONFIG).glob("*.parquet"))
    if not files:
        raise InputFileError(f"{folder}: this dataset has no '{QUIZ_CONFIG}' config: build it with "
                             f"`surge data build --quizzes FILE` or pass --quiz FILE")
    rows = [row for file in files for row in pq.read_table(file).to_pylist()]
    return QuizSet.of(sorted(rows, key=lambda r: r["survey_id"]), f"{folder} ({QUIZ_CONFIG} config)")


@functools.lru_cache(maxsize=8)
def _load(path: str, _stamp: tuple[int, int]) -> QuizSet:
    source = Path(path)
    if source.is_dir():
        return _read_config(source)
    return read_quiz_file(source)


def load_quiz_set(source: str | Path) -> QuizSet:
    """A quiz set from ``quizzes.jsonl`` or from a built dataset folder's ``quizzes`` config; read once per file
    version (a changed file is read again)."""
    path = Path(source)
    if not path.exists():
        raise InputFileError(f"{source}: no such quiz file or dataset folder")
    stamped = path / QUIZ_CONFIG if path.is_dir() else path
    stat = stamped.stat() if stamped.exists() else path.stat()
    return _load(str(path), (stat.st_mtime_ns, stat.st_size))
