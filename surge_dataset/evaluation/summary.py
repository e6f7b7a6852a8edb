"""What a run found odd, by kind: one line per diagnostic code with the surveys it touched.

The JSON results keep every diagnostic per survey; a terminal user needs to see, without opening it, that
survey 3 was an empty file or that survey 7 cites ``[99]`` with no such reference.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["DiagnosticKind", "summarise_diagnostics"]


@dataclass(frozen=True)
class DiagnosticKind:
    """One diagnostic code of a run: the surveys it touched (in id order) and its first message."""

    code: str
    survey_ids: tuple[int, ...]
    example: str

    def line(self, shown: int = 10) -> str:
        ids = ", ".join(str(i) for i in self.survey_ids[:shown]) + (", ..." if len(self.survey_ids) > shown else "")
        noun = "survey" if len(self.survey_ids) == 1 else "surveys"
        return f"{self.code} in {len(self.survey_ids)} {noun} ({ids}): {self.example}"


def summarise_diagnostics(surveys: Mapping[str, Mapping[str, Any]]) -> list[DiagnosticKind]:
    """Group the per-survey diagnostics of a results dict by code, most widespread first."""
    touched: dict[str, list[int]] = {}
    example: dict[str, str] = {}
    for survey_id in sorted(surveys, key=int):
        for entry in surveys[survey_id].get("diagnostics", []):
            code = str(entry.get("code", "unknown"))
            ids = touched.setdefault(code, [])
            if not ids or ids[-1] != int(survey_id):
                ids.append(int(survey_id))
            example.setdefault(code, str(entry.get("message", "")))
    kinds = [DiagnosticKind(code, tuple(ids), example[code]) for code, ids in touched.items()]
    return sorted(kinds, key=lambda k: (-len(k.survey_ids), k.code))
