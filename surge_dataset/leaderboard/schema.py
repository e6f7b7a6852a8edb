"""What the leaderboard asks of a results file beyond the one results schema (:class:`RankedResults`), and the
submission manifest's schema (``submission.json``), on the pieces of that schema
(:mod:`surge_dataset.evaluation.schema`): refused in one line naming the file and the field
(:func:`~surge_dataset.evaluation.schema.refusal`)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, StrictInt, StrictStr, field_validator, model_validator

from surge_dataset.evaluation.schema import (
    Name,
    OpenRecord,
    ResultsConfig,
    SurveyRecord,
    WrittenResults,
    invalid,
)

__all__ = ["FORMAT", "FORMAT_VERSION", "NAME_RE", "FileEntry", "Manifest", "RankedResults"]

#: What ``submission.json`` says it is, and the layout version this surge-bench reads.
FORMAT = "surge-submission"
FORMAT_VERSION = 1
#: A submission's system name (it becomes a folder name on the Hub).
NAME_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9 ._+()-]{0,62}[A-Za-z0-9._+()-])?")


class RankedResults(WrittenResults):
    """A results file the leaderboard ranks: as ``surge evaluate`` writes it (no field it does not write), its
    settings recorded (``config``) and at least one survey scored."""

    config: ResultsConfig

    @field_validator("surveys")
    @classmethod
    def _scored(cls, surveys: dict[str, SurveyRecord]) -> dict[str, SurveyRecord]:
        if not surveys:
            raise invalid("scores no survey (an empty survey set has no mean)")
        return surveys


class FileEntry(OpenRecord):
    path: StrictStr
    size: Annotated[StrictInt, Field(ge=0)]
    sha256: Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{64}$")]


class Manifest(OpenRecord):
    """``submission.json`` (its layout rules, paths and limits: :mod:`.submission_rules`)."""

    format: Literal["surge-submission"]  # FORMAT
    format_version: StrictInt
    name: Name
    surveys: list[StrictInt]
    files: list[FileEntry]
    protocol: Annotated[StrictStr, Field(max_length=50)] | None = None
    data_fingerprint: Annotated[StrictStr, Field(max_length=100)] | None = None

    @field_validator("name")
    @classmethod
    def _submission_name(cls, name: str) -> str:
        if not NAME_RE.fullmatch(name):
            raise invalid(f"name {name!r} is not a system name (1-64 letters, digits, spaces, . _ + ( ) -)")
        return name

    @model_validator(mode="before")
    @classmethod
    def _what_it_is(cls, value: Any) -> Any:
        if not isinstance(value, dict) or value.get("format") != FORMAT:
            raise invalid(f'not a surge-bench submission manifest (no "format": "{FORMAT}")')
        if value.get("format_version") != FORMAT_VERSION or type(value.get("format_version")) is not int:
            raise invalid(f"format_version {value.get('format_version')!r}; this surge-bench reads {FORMAT_VERSION} (a "
                        "newer surge-bench may read it)")
        return value
