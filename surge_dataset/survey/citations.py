"""What a numeric citation is in generated Markdown: the one rule the ``paper`` reading and ``surge import`` share.

A citation is a bracketed group of reference numbers: ``[3]``, ``[1, 2]``, ``[1-3]``, ``[1; 2]``, ``[2, 4-6]``,
a footnote mark ``[^3]``; ``[1][2]`` is two groups. Never a citation:

* anything inside math: inline ``$..$`` (pandoc's rule: the opening ``$`` has a non-space character after it,
  the closing one a non-space character before it and no digit after it; within one paragraph; ``\\$`` is a
  dollar), display ``$$..$$``, ``\\(..\\)`` and ``\\[..\\]``;
* anything inside code: fenced blocks (a line opening with ````` or ``~~~`` up to the next such line) and
  inline code spans (a run of backticks up to the next run of the same length);
* a Markdown link: its target ``(..)`` after ``](``, and its text when that is a group (``[3](url)``);
* a group holding the number 0 (``[0]``, ``[0, 1]``, ``[0-9]``): an interval or an index, not a reference.

A range spanning :data:`MAX_CITATION_RANGE` numbers or more, or a reversed one, is read as its two ends (a
typo, not 500 citations). The ``official`` protocol does not use this module: the released evaluator takes
every ``[n]`` anywhere (:data:`.official_parse.OFFICIAL_CITATION_RE`), and parity with it is kept.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from surge_dataset.survey.tree import FENCE_RE, to_int

__all__ = [
    "CITATION_GROUP_RE",
    "CITATION_ITEM_RE",
    "MAX_CITATION_RANGE",
    "CitationGroup",
    "citation_groups",
    "expand_citation_range",
    "protected_spans",
    "read_citation_group",
    "split_at_spans",
]

MAX_CITATION_RANGE = 50  # a range [a-b] spanning more numbers than this is kept as its two ends only

#: A bracketed group of numbers, not followed by ``(`` (that is a link): ``[3]``, ``[^3]``, ``[1, 2]``,
#: ``[1-3]``, ``[1; 2]``, ``[2, 4-6]``. Whether it is a citation also depends on where it stands.
CITATION_GROUP_RE = re.compile(
    r"\[\^?\s*(\d+(?:\s*[-\u2013\u2014]\s*\d+)?(?:\s*[,;]\s*\d+(?:\s*[-\u2013\u2014]\s*\d+)?)*)\s*\](?!\()"
)
#: One item of a group: a number or a range ``a-b`` (``-``, en or em dash).
CITATION_ITEM_RE = re.compile(r"(\d+)(?:\s*[-\u2013\u2014]\s*(\d+))?")
#: Every start of a paragraph end, overlapping ones too (group 1 ends where the match would).
_PARAGRAPH_ENDS_RE = re.compile(r"\n(?=([ \t]*\n))")
_TICK_RUN_RE = re.compile(r"`+")
#: A ``$`` that may close inline math (pandoc): not escaped, after a non-space (and not before a digit: checked apart).
_CLOSING_DOLLAR_RE = re.compile(r"(?<=[^\s\\])\$")
_MATH_CLOSE_RES = {"(": re.compile(r"\\\)"), "[": re.compile(r"\\\]")}
_PAREN_RE = re.compile(r"[()]")
_BLANK_LINE_RE = re.compile(r"\n(?=\n)")
#: One line and its line break: ``\n``, ``\r\n`` or ``\r``, as the heading tree reads lines (``str.splitlines``
#: would also cut at ``\f``, ``\x1c`` or ``\u2028``, putting a fence where the tree sees none).
_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n?|\n)?")


@dataclass(frozen=True)
class CitationGroup:
    """One citation group in a text: where it stands, the numbers it cites (in order, each once) and the
    range items read as their two ends only."""

    start: int
    end: int
    numbers: tuple[int, ...]
    clipped: tuple[str, ...] = ()


def expand_citation_range(low: int, high: int) -> list[int]:
    """The numbers a citation range ``[low-high]`` stands for; a reversed range, or one spanning
    :data:`MAX_CITATION_RANGE` numbers or more, is read as its two ends (a typo, not 500 citations)."""
    if high < low or high - low >= MAX_CITATION_RANGE:
        return [low, high]
    return list(range(low, high + 1))


def read_citation_group(group: str) -> tuple[list[int], list[str]] | None:
    """(numbers, clipped range items) of a group's inside (``1, 3-5``), or None when it is no citation (it
    holds a 0, or a number too long to be one)."""
    numbers: list[int] = []
    clipped: list[str] = []
    for item in CITATION_ITEM_RE.finditer(group):
        low = to_int(item.group(1))
        high = to_int(item.group(2)) if item.group(2) else low
        if low is None or high is None or low == 0 or high == 0:
            return None
        expanded = expand_citation_range(low, high)
        if len(expanded) != high - low + 1:
            clipped.append(item.group(0))
        numbers.extend(expanded)
    return list(dict.fromkeys(numbers)), clipped


class _Marks:
    """Where the closing marks of ``text`` are, found once: each opening mark then finds its closing one by a
    binary search, where searching the text again from every opening mark was quadratic (a paragraph of a
    megabyte of ``$x `` or ``](x `` took minutes)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._found: dict[str, list[int]] = {}
        self._paragraph_ends: list[tuple[int, int]] | None = None
        self._tick_runs: dict[int, list[int]] | None = None
        self._link_closes: dict[int, int] | None = None

    def next_of(self, kind: str, pattern: re.Pattern[str], after: int) -> int | None:
        """The start of the first match of ``pattern`` (named ``kind``) at or after ``after``."""
        if kind not in self._found:
            self._found[kind] = [m.start() for m in pattern.finditer(self.text)]
        found = self._found[kind]
        k = bisect.bisect_left(found, after)
        return found[k] if k < len(found) else None

    def paragraph_end(self, after: int, stop: int) -> int:
        """Start of the first paragraph end (a line break, blanks, a line break) at or after ``after`` that ends by
        ``stop``, else ``stop``."""
        if self._paragraph_ends is None:  # every match start, overlapping ones too ("\n\n\n" holds two)
            self._paragraph_ends = [(m.start(), m.end(1)) for m in _PARAGRAPH_ENDS_RE.finditer(self.text)]
        k = bisect.bisect_left(self._paragraph_ends, (after, -1))
        # the ends grow with the starts, so the first one that starts after ``after`` is the only candidate
        if k < len(self._paragraph_ends) and self._paragraph_ends[k][1] <= stop:
            return self._paragraph_ends[k][0]
        return stop

    def closing_ticks(self, width: int, after: int, stop: int) -> int | None:
        """Start of the first run of exactly ``width`` backticks at or after ``after`` that ends by ``stop``."""
        if self._tick_runs is None:
            self._tick_runs = {}
            for run in _TICK_RUN_RE.finditer(self.text):
                self._tick_runs.setdefault(len(run.group(0)), []).append(run.start())
        runs = self._tick_runs.get(width, [])
        k = bisect.bisect_left(runs, after)
        return runs[k] if k < len(runs) and runs[k] + width <= stop else None

    def closing_dollar(self, start: int, stop: int) -> int | None:
        """Index of the ``$`` closing inline math opened at ``start`` (pandoc's rule), before ``stop``."""
        if "dollar" not in self._found:  # "not before a digit" is str.isdigit, as pandoc's reader has it
            text = self.text
            self._found["dollar"] = [m.start() for m in _CLOSING_DOLLAR_RE.finditer(text)
                                     if not (m.end() < len(text) and text[m.end()].isdigit())]
        close = self.next_of("dollar", _CLOSING_DOLLAR_RE, start + 1)
        return close if close is not None and close < stop else None

    def link_target_end(self, open_paren: int, stop: int) -> int | None:
        """Index of the ``)`` matching the ``(`` at ``open_paren`` (nested pairs skipped), before ``stop`` and
        before a blank line (``\n\n``), or None."""
        if self._link_closes is None:  # one pass pairs every "(" with its ")": the depth count from any "("
            self._link_closes, opened = {}, []
            for paren in _PAREN_RE.finditer(self.text):
                if paren.group(0) == "(":
                    opened.append(paren.start())
                elif opened:
                    self._link_closes[opened.pop()] = paren.start()
        close = self._link_closes.get(open_paren)
        if close is None or close >= stop:
            return None
        blank = self.next_of("blank", _BLANK_LINE_RE, open_paren)
        return close if blank is None or blank > close else None


def _inline_spans(text: str, begin: int, end: int, marks: _Marks) -> Iterator[tuple[int, int]]:
    """Math, inline code and link targets in ``text[begin:end]`` (no fenced block in it)."""
    at = begin
    while at < end:
        char = text[at]
        if char == "\\" and at + 1 < end:
            following = text[at + 1]
            if following in "([":
                close = marks.next_of(following, _MATH_CLOSE_RES[following], at + 2)
                if close is not None and close + 2 <= end:
                    yield at, close + 2
                    at = close + 2
                    continue
            at += 2  # an escaped character: \$ is a dollar, \[ alone a bracket
            continue
        if char == "`":
            run = at
            while run < end and text[run] == "`":
                run += 1
            close = marks.closing_ticks(run - at, run, marks.paragraph_end(run, end))
            if close is not None:
                yield at, close + run - at
                at = close + run - at
            else:
                at = run
            continue
        if char == "$":
            if text.startswith("$$", at):
                close = text.find("$$", at + 2, end)
                if close >= 0:
                    yield at, close + 2
                    at = close + 2
                    continue
                at += 2
                continue
            if at + 1 < end and not text[at + 1].isspace():
                close = marks.closing_dollar(at, marks.paragraph_end(at, end))
                if close is not None:
                    yield at, close + 1
                    at = close + 1
                    continue
            at += 1
            continue
        if char == "]" and text.startswith("](", at):
            close = marks.link_target_end(at + 1, end)
            if close is not None:
                yield at + 1, close + 1
                at = close + 1
                continue
        at += 1


def protected_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every part of ``text`` that holds no citation: fenced code blocks, math, inline code
    and link targets, in order and not overlapping."""
    spans: list[tuple[int, int]] = []
    marks = _Marks(text)
    fence_start: int | None = None
    free_start = 0
    offset = 0
    while offset < len(text):
        line = _LINE_RE.match(text, offset).group(0)  # type: ignore[union-attr] # never empty before the end
        line_end = offset + len(line)
        if FENCE_RE.match(line):
            if fence_start is None:
                spans.extend(_inline_spans(text, free_start, offset, marks))
                fence_start = offset
            else:
                spans.append((fence_start, line_end))
                fence_start = None
                free_start = line_end
        offset = line_end
    if fence_start is not None:
        spans.append((fence_start, len(text)))
    else:
        spans.extend(_inline_spans(text, free_start, len(text), marks))
    return spans


def _inside(spans: list[tuple[int, int]], starts: list[int], at: int) -> bool:
    k = bisect.bisect_right(starts, at) - 1
    return k >= 0 and spans[k][0] <= at < spans[k][1]


def citation_groups(text: str) -> list[CitationGroup]:
    """Every citation group of ``text`` by the module's rule, in order."""
    found: list[CitationGroup] = []
    spans: list[tuple[int, int]] | None = None
    starts: list[int] = []
    for match in CITATION_GROUP_RE.finditer(text):
        if spans is None:
            spans = protected_spans(text)
            starts = [start for start, _ in spans]
        if _inside(spans, starts, match.start()):
            continue
        read = read_citation_group(match.group(1))
        if read is not None:
            found.append(CitationGroup(match.start(), match.end(), tuple(read[0]), tuple(read[1])))
    return found


def split_at_spans(text: str, spans: Iterable[tuple[int, int]]) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, protected) pairs, in order: the pieces the ``spans`` cover (maybe overlapping, e.g.
    :func:`protected_spans` and a caller's own) are protected, so a rewriter can leave them as they are."""
    pieces: list[tuple[str, bool]] = []
    at = 0
    for start, end in sorted(spans):
        if end <= at:
            continue
        start = max(start, at)
        if start > at:
            pieces.append((text[at:start], False))
        pieces.append((text[start:end], True))
        at = end
    if at < len(text):
        pieces.append((text[at:], False))
    return pieces
