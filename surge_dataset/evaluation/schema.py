"""One declared schema (pydantic v2) for what ``surge evaluate`` writes and every reader reads back: results files
(:class:`ResultsFile`, read by :mod:`surge_dataset.evaluation.results` for ``surge report``, the leaderboard,
``surge judge-agreement``, ``surge meta-eval`` and ``surge arena``) and ``--details`` records
(:class:`DetailsRecord`); the leaderboard's submission manifest builds on the same pieces
(:mod:`surge_dataset.leaderboard.schema`).

Refused, each with one line naming the file, the record and the field (:func:`refusal`): a value of the wrong type
(a list survey id, a string ``number``, a dict ``heading``, a bool ``doc_id``), a score that is a string, not finite
or outside its metric card's range (:func:`surge_dataset.evaluation.catalogue.value_range`), a per-survey key that no
registered metric declares (:func:`~surge_dataset.evaluation.catalogue.metric_of_key`: a table never shows a column a
results file made up), a count that is not an integer in ``[0, COUNT_MAX]``, diagnostics or failures that are not
objects, a survey key that is not a survey id, a system name that is not plain text of at most :data:`NAME_MAX`
characters.

Two strengths. :class:`ResultsFile`, what every reader checks: a survey's record is closed, the file's other parts
may carry fields a newer writer added (never read). :class:`WrittenResults`, what ``surge evaluate`` checks before it
writes and ``surge submit`` and the leaderboard check before they trust a file: closed throughout, every top-level
and ``config`` field one that the runner writes (:data:`RESULTS_FIELDS`, :data:`RUN_RECORD_FIELDS` and the
settings of :class:`~surge_dataset.evaluation.config.EvaluationConfig`).
"""

from __future__ import annotations

import math
import re
from dataclasses import MISSING, fields
from typing import Annotated, Any, get_type_hints

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from surge_dataset.core.diagnostics import DIAGNOSTIC_FIELDS
from surge_dataset.core.diagnostics import Diagnostic as CoreDiagnostic

__all__ = ["COUNT_MAX", "NAME_MAX", "RESULTS_FIELDS", "RUN_RECORD_FIELDS", "SURVEY_KEY", "DetailsRecord", "Name",
           "OpenRecord", "ResultsFile", "WrittenResults", "check_name", "invalid", "refusal"]

#: A survey id as a results file's key (and a submission's folder name): digits, no sign, no leading zero.
SURVEY_KEY = re.compile(r"0|[1-9][0-9]{0,8}")
#: The longest system name shown anywhere (table, card, messages).
NAME_MAX = 100
#: The largest count a results file may hold: far above any survey's references or citations, and small enough that
#: every reader's arithmetic (int64 Parquet columns, sums over surveys, formatting) stays exact and cheap.
COUNT_MAX = 10**12
#: The top-level fields ``surge evaluate`` writes (:func:`~surge_dataset.evaluation.runner.evaluate_run`).
RESULTS_FIELDS = frozenset({"config", "surveys", "average", "average_counts", "failures", "excluded", "averaging",
                            "references", "judge", "fingerprints"})
#: The ``config`` fields ``surge evaluate`` writes besides the evaluation settings themselves.
RUN_RECORD_FIELDS = frozenset({"data", "data_fingerprint", "data_window", "data_survey_dates", "passages", "versions",
                               "num_processes", "model_work", "judge_settings", "models", "system"})
#: The pydantic error type of a refusal whose message is a whole sentence.
REFUSAL = "surge_refusal"


def invalid(message: str, **context: Any) -> PydanticCustomError:
    """An error whose message is a whole sentence (printed after the file and the record, as it is)."""
    return PydanticCustomError(REFUSAL, message, context)


def check_name(value: str) -> str:
    """A system name: plain text (printable, no line break), 1 to :data:`NAME_MAX` characters."""
    if not value.strip():
        raise invalid("an empty system name")
    if len(value) > NAME_MAX:
        raise invalid(f"a system name of {len(value):,} characters (at most {NAME_MAX})")
    if not value.isprintable():
        raise invalid("a system name with control characters or line breaks")
    return value


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


Name = Annotated[StrictStr, AfterValidator(check_name)]
#: A finite JSON number (an int or a float; not a bool, not a string that looks like one), checked natively: a
#: details file has hundreds of thousands of them.
Number = Annotated[float, Field(strict=True, allow_inf_nan=False)]
Score = Number | None
Text = Annotated[StrictStr, Field(max_length=100_000)]
Count = Annotated[StrictInt, Field(ge=0, le=COUNT_MAX)]


class OpenRecord(BaseModel):
    """Unknown fields allowed and kept; the declared ones typed strictly (no "1" for 1, no true for 1)."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)


#: The strict, bounded pydantic type of each Python type a record's fields have.
_STRICT: dict[Any, Any] = {str: Text, int | None: StrictInt | None}


def _schema_of(record: type, names: tuple[str, ...]) -> type[OpenRecord]:
    """An :class:`OpenRecord` of ``record``'s (a dataclass's) fields ``names``: their types made strict, the
    defaults kept, so the schema is read off the one definition instead of restating it."""
    hints = get_type_hints(record)
    declared = {f.name: f for f in fields(record)}
    spec: dict[str, Any] = {name: (_STRICT[hints[name]], ... if declared[name].default is MISSING
                                   else declared[name].default) for name in names}
    return create_model(record.__name__, __base__=OpenRecord, __module__=__name__, **spec)


#: A diagnostic as a results file holds it: :func:`~surge_dataset.core.diagnostics.diagnostic_record`'s shape,
#: the producer's extra fields allowed and kept.
Diagnostic = _schema_of(CoreDiagnostic, DIAGNOSTIC_FIELDS)


class Failure(OpenRecord):
    survey_id: StrictInt | None = None
    path: Text = ""
    error: Text = ""


class ModelRecord(OpenRecord):
    name: Annotated[StrictStr, Field(max_length=500)]
    fingerprint: Annotated[StrictStr, Field(max_length=200)] | None = None


class SurveyRecord(OpenRecord):
    """One survey's scores: every field but ``counts`` and ``diagnostics`` is a registered metric's value."""

    __pydantic_extra__: dict[str, Score] = Field(init=False)  # type: ignore[assignment]
    counts: dict[Annotated[StrictStr, Field(max_length=100)], Count | None] = {}
    diagnostics: list[Diagnostic] = []

    @model_validator(mode="after")
    def _in_range(self) -> SurveyRecord:
        from surge_dataset.evaluation.catalogue import metric_of_key, value_range

        for key, value in (self.__pydantic_extra__ or {}).items():
            if metric_of_key(key) is None:
                raise invalid(f"{key!r} is not a result key of any registered metric (a metric of a plugin that is not "
                              "installed here?); a results file holds metric values, counts and diagnostics only")
            bounds = value_range(key) if value is not None else None
            if bounds is not None and not _within(value, *bounds):
                raise invalid(f"{key} = {value:g} is outside [{bounds[0]:g}, {bounds[1]:g}], the range of its metric card")
        return self


def _within(value: float, low: float, high: float) -> bool:
    """``low <= value <= high`` up to a float's rounding (sacreBLEU gives a perfect survey 100.00000000000004)."""
    return (low <= value or math.isclose(value, low, rel_tol=1e-9, abs_tol=1e-12)) and \
        (value <= high or math.isclose(value, high, rel_tol=1e-9, abs_tol=1e-12))


class ResultsConfig(OpenRecord):
    system: Name | None = None
    protocol: Annotated[StrictStr, Field(max_length=50)] | None = None
    aggregate: Annotated[StrictStr, Field(max_length=50)] | None = None
    metrics: list[Annotated[StrictStr, Field(max_length=100)]] | None = None
    data_fingerprint: Annotated[StrictStr, Field(max_length=100)] | None = None
    passages: Annotated[StrictStr, Field(max_length=4096)] | None = None
    nli_model: Annotated[StrictStr, Field(max_length=500)] | None = None
    embedding_model: Annotated[StrictStr, Field(max_length=500)] | None = None
    ner_model: Annotated[StrictStr, Field(max_length=500)] | None = None
    judge: Annotated[StrictStr, Field(max_length=500)] | None = None
    judge_settings: dict[str, Any] | None = None
    models: dict[StrictStr, ModelRecord] | None = None
    min_cites: StrictInt | None = None
    exclude_empty: StrictBool | None = None


Sha256 = Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{64}$")]


class Fingerprints(OpenRecord):
    """What a run scored, by content (:mod:`.fingerprints`): each survey file's sha256, and the run's."""

    surveys: dict[Annotated[StrictStr, Field(pattern=rf"^(?:{SURVEY_KEY.pattern})$")], Sha256]
    run: Sha256 | None = None


class ResultsFile(OpenRecord):
    """A ``surge evaluate`` results file (``config`` may be absent or null: every reader takes it as empty)."""

    config: ResultsConfig | None = None
    fingerprints: Fingerprints | None = None
    surveys: dict[StrictStr, SurveyRecord]
    failures: list[Failure] = []
    excluded: list[dict[str, Any]] = []

    @field_validator("surveys")
    @classmethod
    def _survey_ids(cls, surveys: dict[str, SurveyRecord]) -> dict[str, SurveyRecord]:
        bad = next((k for k in surveys if not SURVEY_KEY.fullmatch(k)), None)
        if bad is not None:
            raise invalid(f"survey key {bad!r} is not a survey id")
        return surveys


class WrittenResults(ResultsFile):
    """A results file as ``surge evaluate`` writes it: no field that the runner does not write, at any level."""

    @model_validator(mode="before")
    @classmethod
    def _closed(cls, value: Any) -> Any:
        import dataclasses

        from surge_dataset.evaluation.config import EvaluationConfig

        if not isinstance(value, dict):
            return value
        unknown = sorted(k for k in value if k not in RESULTS_FIELDS)
        if unknown:
            raise invalid(f"unknown field {unknown[0]!r} (a results file of `surge evaluate` has "
                          f"{', '.join(sorted(RESULTS_FIELDS))})")
        config = value.get("config")
        if isinstance(config, dict):
            allowed = RUN_RECORD_FIELDS | {f.name for f in dataclasses.fields(EvaluationConfig)}
            unknown = sorted(k for k in config if k not in allowed)
            if unknown:
                raise invalid(f"unknown field 'config.{unknown[0]}' (not a setting of `surge evaluate`)")
        return value


class DetailsRecord(OpenRecord):
    """One ``surge evaluate --details`` line: the fields the leaderboard's survey viewer reads, typed."""

    survey_id: StrictInt
    kind: Annotated[StrictStr, Field(max_length=50)] | None = None
    metric: Annotated[StrictStr, Field(max_length=100)] | None = None
    number: StrictInt | None = None
    doc_id: StrictInt | None = None
    heading: Text | None = None
    sentence: Text | None = None
    title: Text | None = None
    line: StrictInt | None = None
    why: Text | None = None
    sent_why: Text | None = None
    sec_why: Text | None = None
    doc_why: Text | None = None
    sent_score: Score = None
    sec_score: Score = None
    doc_score: Score = None
    sent_probs: dict[StrictStr, Number] | None = None
    sec_probs: dict[StrictStr, Number] | None = None
    doc_probs: dict[StrictStr, Number] | None = None


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _where(loc: tuple[Any, ...]) -> str:
    """A pydantic location as a reader names it: ``survey '3', field 'recall'``, ``field 'config.system'``."""
    if len(loc) >= 2 and loc[0] == "surveys":
        rest = _path(loc[2:])
        return f"survey {loc[1]!r}" + (f", field {rest!r}" if rest else "")
    return f"field {_path(loc)!r}" if loc else ""


#: pydantic's error types in the words of the rest of surge's messages.
_EXPECTED = {"model_type": "an object", "dict_type": "an object", "model_attributes_type": "an object",
             "int_type": "an integer", "string_type": "a string", "list_type": "a list", "bool_type": "true or false",
             "literal_error": "one of the allowed values", "float_type": "a number", "finite_number": "a finite number"}


def refusal(label: str, error: ValidationError) -> str:
    """One line for the first problem: the file (and record) ``label``, where, what and the value found."""
    first = error.errors(include_url=False)[0]
    where = _where(tuple(first["loc"]))
    if first["type"] == REFUSAL:
        message = first["msg"]
    elif first["type"] in _EXPECTED:
        value = first.get("input")
        message = f"{_EXPECTED[first['type']]} is required, got {_shown(value)} ({type(value).__name__})"
    else:
        message = f"{first['msg'][:1].lower()}{first['msg'][1:]} (got {_shown(first.get('input'))})"
    more = error.error_count() - 1
    tail = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
    return f"{label}: {where + ': ' if where else ''}{message}{tail}"
