"""One declared schema (pydantic v2) for what ``surge evaluate`` writes and every reader reads back: results files
(:class:`ResultsFile`, read by :mod:`surge_dataset.evaluation.results` for ``surge report``, the leaderboard,
``surge judge-agreement``, ``surge meta-eval`` and ``surge arena``) and ``--details`` records
(:class:`DetailsRecord`); the leaderboard's submission manifest builds on the same pieces
(:mod:`surge_dataset.leaderboard.schema`).

Refused, each with one line naming the file, the record and the field (:func:`refusal`): a value of the wrong type
(a list survey id, a string ``number``, a dict ``heading``, a bool ``doc_id``), a score that is a string, not finite
or outside its metric card's range (:func:`surge_dataset.evaluation.catalogue.value_range`), diagnostics or failures
that are not objects, a survey key that is not a survey id, a system name that is not plain text of at most
:data:`NAME_MAX` characters. Unknown fields are allowed (results carry more than any reader reads), but every field a
reader reads is typed here.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

__all__ = ["NAME_MAX", "SURVEY_KEY", "DetailsRecord", "Name", "OpenRecord", "ResultsFile", "check_name", "invalid",
           "refusal"]

#: A survey id as a results file's key (and a submission's folder name): digits, no sign, no leading zero.
SURVEY_KEY = re.compile(r"0|[1-9][0-9]{0,8}")
#: The longest system name shown anywhere (table, card, messages).
NAME_MAX = 100
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


class OpenRecord(BaseModel):
    """Unknown fields allowed and kept; the declared ones typed strictly (no "1" for 1, no true for 1)."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)


class Diagnostic(OpenRecord):
    code: Text
    message: Text = ""
    line: StrictInt | None = None


class Failure(OpenRecord):
    survey_id: StrictInt | None = None
    path: Text = ""
    error: Text = ""


class ModelRecord(OpenRecord):
    name: Annotated[StrictStr, Field(max_length=500)]
    fingerprint: Annotated[StrictStr, Field(max_length=200)] | None = None


class SurveyRecord(OpenRecord):
    """One survey's scores: every field but ``counts`` and ``diagnostics`` is a metric value."""

    __pydantic_extra__: dict[str, Score] = Field(init=False)  # type: ignore[assignment]
    counts: dict[StrictStr, StrictInt | None] = {}
    diagnostics: list[Diagnostic] = []

    @model_validator(mode="after")
    def _in_range(self) -> SurveyRecord:
        from surge_dataset.evaluation.catalogue import value_range

        for key, value in (self.__pydantic_extra__ or {}).items():
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
