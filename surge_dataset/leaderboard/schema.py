"""One declared schema for what the leaderboard reads from someone else: results files, ``--details`` records and
submission manifests (pydantic v2), checked before anything else reads them.

Refused, each with one line naming the file, the record and the field (:func:`refusal`): a value of the wrong type
(a list survey id, a string ``number``, a dict ``heading``, a bool ``doc_id``), a score that is a string, not finite
or outside its metric card's range (:func:`surge_dataset.evaluation.metric.value_range`), diagnostics or failures
that are not objects, an empty survey set, a survey key that is not a survey id, a system name that is not plain
text of at most :data:`NAME_MAX` characters. Unknown fields are allowed (results carry more than the leaderboard
reads), but every field the leaderboard reads is typed here.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

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

__all__ = ["NAME_MAX", "DetailsRecord", "Manifest", "ResultsFile", "check_name", "refusal"]

#: The longest system name shown anywhere (table, card, messages).
NAME_MAX = 100
#: A survey id as a results file's key: digits, no sign, no leading zero.
SURVEY_KEY = re.compile(r"0|[1-9][0-9]{0,8}")
#: The pydantic error type of a refusal whose message is a whole sentence.
REFUSAL = "surge_refusal"
#: Every per-survey value that is not a metric's.
NOT_SCORES = frozenset({"counts", "diagnostics"})


def _fail(message: str, **context: Any) -> PydanticCustomError:
    """An error whose message is a whole sentence (printed after the file and the record, as it is)."""
    return PydanticCustomError(REFUSAL, message, context)


def check_name(value: str) -> str:
    """A system name: plain text (printable, no line break), 1 to :data:`NAME_MAX` characters."""
    if not value.strip():
        raise _fail("an empty system name")
    if len(value) > NAME_MAX:
        raise _fail(f"a system name of {len(value):,} characters (at most {NAME_MAX})")
    if not value.isprintable():
        raise _fail("a system name with control characters or line breaks")
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


class _Open(BaseModel):
    """Unknown fields allowed and kept; the declared ones typed strictly (no "1" for 1, no true for 1)."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)


class Diagnostic(_Open):
    code: Text
    message: Text = ""
    line: StrictInt | None = None


class Failure(_Open):
    survey_id: StrictInt | None = None
    path: Text = ""
    error: Text = ""


class ModelRecord(_Open):
    name: Annotated[StrictStr, Field(max_length=500)]
    fingerprint: Annotated[StrictStr, Field(max_length=200)] | None = None


class SurveyRecord(_Open):
    """One survey's scores: every field but ``counts`` and ``diagnostics`` is a metric value."""

    __pydantic_extra__: dict[str, Score] = Field(init=False)  # type: ignore[assignment]
    counts: dict[StrictStr, StrictInt | None] = {}
    diagnostics: list[Diagnostic] = []

    @model_validator(mode="after")
    def _in_range(self) -> SurveyRecord:
        from surge_dataset.evaluation.metric import value_range

        for key, value in (self.__pydantic_extra__ or {}).items():
            bounds = value_range(key) if value is not None else None
            if bounds is not None and not bounds[0] <= value <= bounds[1]:
                raise _fail(f"{key} = {value:g} is outside [{bounds[0]:g}, {bounds[1]:g}], the range of its metric card")
        return self


class ResultsConfig(_Open):
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


class ResultsFile(_Open):
    """A ``surge evaluate`` results file."""

    config: ResultsConfig
    surveys: dict[StrictStr, SurveyRecord]
    failures: list[Failure] = []
    excluded: list[dict[str, Any]] = []

    @field_validator("surveys")
    @classmethod
    def _survey_ids(cls, surveys: dict[str, SurveyRecord]) -> dict[str, SurveyRecord]:
        if not surveys:
            raise _fail("scores no survey (an empty survey set has no mean)")
        bad = next((k for k in surveys if not SURVEY_KEY.fullmatch(k)), None)
        if bad is not None:
            raise _fail(f"survey key {bad!r} is not a survey id")
        return surveys


class DetailsRecord(_Open):
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


class FileEntry(_Open):
    path: StrictStr
    size: Annotated[StrictInt, Field(ge=0)]
    sha256: Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{64}$")]


class Manifest(_Open):
    """``submission.json`` (its layout rules, paths and limits: :mod:`.submission_rules`)."""

    format: Literal["surge-submission"]
    format_version: StrictInt
    name: Name
    surveys: list[StrictInt]
    files: list[FileEntry]
    protocol: Annotated[StrictStr, Field(max_length=50)] | None = None
    data_fingerprint: Annotated[StrictStr, Field(max_length=100)] | None = None

    @field_validator("name")
    @classmethod
    def _submission_name(cls, name: str) -> str:
        from surge_dataset.leaderboard.submission_rules import _NAME

        if not _NAME.fullmatch(name):
            raise _fail(f"name {name!r} is not a system name (1-64 letters, digits, spaces, . _ + ( ) -)")
        return name

    @model_validator(mode="before")
    @classmethod
    def _what_it_is(cls, value: Any) -> Any:
        from surge_dataset.leaderboard.submission_rules import FORMAT, FORMAT_VERSION

        if not isinstance(value, dict) or value.get("format") != FORMAT:
            raise _fail(f'not a surge-bench submission manifest (no "format": "{FORMAT}")')
        if value.get("format_version") != FORMAT_VERSION or type(value.get("format_version")) is not int:
            raise _fail(f"format_version {value.get('format_version')!r}; this surge-bench reads {FORMAT_VERSION} (a "
                        "newer surge-bench may read it)")
        return value


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
