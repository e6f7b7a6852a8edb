"""The one diagnostic record: something odd about a survey, reported instead of failing.

The survey parsers, the metrics and the runner all make a :class:`Diagnostic` with :func:`diagnostic`; a results
file holds each one as :func:`diagnostic_record` writes it (``{"code", "message", "line", ...extra}``, in that key
order), and the results schema (``evaluation/schema.py``) validates that shape from this same definition.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

__all__ = ["DIAGNOSTIC_FIELDS", "Diagnostic", "as_diagnostic", "diagnostic", "diagnostic_record"]


@dataclass(frozen=True)
class Diagnostic:
    """Something odd found while reading or scoring a survey; the work goes on and reports it instead of failing.

    ``line`` is the 1-based line of the survey file it is about (None: the survey as a whole); ``extra`` holds a
    producer's further fields (a judge injection's ``kind``, the ``keys`` scored 0), written after the three.
    """

    code: str
    message: str = ""
    line: int | None = None
    # Not hashed: its values may be lists; equality still compares it, so de-duplicating keeps distinct extras.
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False)


#: The fields every results-file diagnostic has (``extra`` is spread after them, not nested).
DIAGNOSTIC_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Diagnostic) if f.name != "extra")


def diagnostic(code: str, message: str = "", line: int | None = None, **extra: Any) -> Diagnostic:
    """A :class:`Diagnostic`; keyword arguments beyond ``line`` become its extra fields, in the order given."""
    return Diagnostic(code, message, line, extra)


def diagnostic_record(item: Diagnostic) -> dict[str, Any]:
    """The results file's form of a diagnostic: ``code``, ``message``, ``line``, then the extra fields."""
    clash = item.extra.keys() & set(DIAGNOSTIC_FIELDS)
    if clash:
        raise ValueError(f"a diagnostic's extra fields may not repeat {sorted(clash)}")
    return {"code": item.code, "message": item.message, "line": item.line, **item.extra}


def as_diagnostic(item: Diagnostic | Mapping[str, Any]) -> Diagnostic:
    """``item`` as a :class:`Diagnostic`: a record read back (a journal, a plugin's dict) becomes one again."""
    if isinstance(item, Diagnostic):
        return item
    rest = {key: value for key, value in item.items() if key not in DIAGNOSTIC_FIELDS}
    return Diagnostic(str(item["code"]), str(item.get("message", "")), item.get("line"), rest)
