"""Diagnostics both parsers add at the end: cited numbers missing from the list, no headings, no references."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from surge_dataset.core.diagnostics import Diagnostic, diagnostic
from surge_dataset.survey.model import Citation, Reference

#: Diagnostics of one code kept per survey; the rest are counted in one more of that code. A survey of a million
#: repeated ``[1] ...`` lines made a million diagnostics (a gigabyte in memory, hundreds of MB of results file).
MAX_DIAGNOSTICS_PER_CODE = 100


class DiagnosticLog(list[Diagnostic]):
    """The diagnostics of one survey while it is parsed: the first :data:`MAX_DIAGNOSTICS_PER_CODE` of each code
    kept, the others only counted (:meth:`finish` adds one diagnostic per code saying how many)."""

    def __init__(self, items: Iterable[Diagnostic] = ()) -> None:
        super().__init__()
        self.kept: Counter[str] = Counter()
        self.dropped: Counter[str] = Counter()
        self.extend(items)

    def append(self, item: Diagnostic) -> None:
        if self.kept[item.code] >= MAX_DIAGNOSTICS_PER_CODE:
            self.dropped[item.code] += 1
            return
        self.kept[item.code] += 1
        super().append(item)

    def extend(self, items: Iterable[Diagnostic]) -> None:
        for item in items:
            self.append(item)

    def finish(self) -> list[Diagnostic]:
        """The kept diagnostics, then one per code that had more, with how many were left out."""
        return [*self, *(diagnostic(code, f"{count:,} more {code} diagnostic(s) in this survey, not listed "
                                          f"(the first {MAX_DIAGNOSTICS_PER_CODE} are)")
                         for code, count in self.dropped.items())]


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
