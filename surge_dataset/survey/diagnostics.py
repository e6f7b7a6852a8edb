"""Diagnostics both parsers add at the end: cited numbers missing from the list, no headings, no references."""

from __future__ import annotations

from surge_dataset.core.diagnostics import Diagnostic, diagnostic
from surge_dataset.survey.model import Citation, Reference


def missing_numbers_diagnostic(citations: list[Citation], references: dict[int, Reference]) -> list[Diagnostic]:
    """One diagnostic listing the cited numbers absent from the reference list (they score 0)."""
    missing = [c.number for c in citations if c.number not in references]
    if not missing:
        return []
    distinct = sorted(set(missing))
    shown = ", ".join(map(str, distinct[:20])) + (" ..." if len(distinct) > 20 else "")
    return [
        diagnostic(
            "missing_reference_number",
            f"{len(missing)} citation instance(s) cite {len(distinct)} number(s) absent from the reference "
            f"list: {shown}",
        )
    ]


def final_diagnostics(headings: int, references: dict[int, Reference]) -> list[Diagnostic]:
    """``no_headings`` / ``no_references`` when the survey has none."""
    out = []
    if headings == 0:
        out.append(diagnostic("no_headings", "no Markdown heading found; everything is root content"))
    if not references:
        out.append(diagnostic("no_references", "no reference-list entry found"))
    return out


def line_list(numbers: list[int], shown: int = 10) -> str:
    """A short, human-readable list of line numbers for a diagnostic message."""
    return ", ".join(map(str, numbers[:shown])) + (" ..." if len(numbers) > shown else "")
