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
    "split_protected",
]

MAX_CITATION_RANGE = 50  # a range [a-b] spanning more numbers than this is kept as its two ends only

#: A bracketed group of numbers, not followed by ``(`` (that is a link): ``[3]``, ``[^3]``, ``[1, 2]``,
#: ``[1-3]``, ``[1; 2]``, ``[2, 4-6]``. Whether it is a citation also depends on where it stands.
CITATION_GROUP_RE = re.compile(
    r"\[\^?\s*(\d+(?:\s*[-\u2013\u2014]\s*\d+)?(?:\s*[,;]\s*\d+(?:\s*[-\u2013\u2014]\s*\d+)?)*)\s*\](?!\()"
)
#: One item of a group: a number or a range ``a-b`` (``-``, en or em dash).
CITATION_ITEM_RE = re.compile(r"(\d+)(?:\s*[-\u2013\u2014]\s*(\d+))?")
_PARAGRAPH_END_RE = re.compile(r"\n[ \t]*\n")


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


def _closing_dollar(text: str, start: int, stop: int) -> int | None:
    """Index of the ``$`` closing inline math opened at ``start`` (pandoc's rule), before ``stop``."""
    at = start + 1
    while True:
        at = text.find("$", at, stop)
        if at < 0:
            return None
        if text[at - 1] == "\\":
            at += 1
            continue
        if not text[at - 1].isspace() and not (at + 1 < len(text) and text[at + 1].isdigit()):
            return at
        at += 1


def _inline_spans(text: str, begin: int, end: int) -> Iterator[tuple[int, int]]:
    """Math, inline code and link targets in ``text[begin:end]`` (no fenced block in it)."""
    at = begin
    while at < end:
        char = text[at]
        if char == "\\" and at + 1 < end:
            following = text[at + 1]
            if following in "([":
                close = text.find("\\)" if following == "(" else "\\]", at + 2, end)
                if close >= 0:
                    yield at, close + 2
                    at = close + 2
                    continue
            at += 2  # an escaped character: \$ is a dollar, \[ alone a bracket
            continue
        if char == "`":
            run = at
            while run < end and text[run] == "`":
                run += 1
            paragraph = _PARAGRAPH_END_RE.search(text, run, end)
            close = re.compile(rf"(?<!`){text[at:run]}(?!`)").search(text, run, paragraph.start() if paragraph else end)
            if close is not None:
                yield at, close.end()
                at = close.end()
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
                paragraph = _PARAGRAPH_END_RE.search(text, at, end)
                close = _closing_dollar(text, at, paragraph.start() if paragraph else end)
                if close is not None:
                    yield at, close + 1
                    at = close + 1
                    continue
            at += 1
            continue
        if char == "]" and text.startswith("](", at):
            depth, close = 0, at + 1
            while close < end:
                if text[close] == "(":
                    depth += 1
                elif text[close] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                elif text[close] == "\n" and text.startswith("\n", close + 1):
                    break
                close += 1
            if close < end and text[close] == ")":
                yield at + 1, close + 1
                at = close + 1
                continue
        at += 1


def protected_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every part of ``text`` that holds no citation: fenced code blocks, math, inline code
    and link targets, in order and not overlapping."""
    spans: list[tuple[int, int]] = []
    fence_start: int | None = None
    free_start = 0
    offset = 0
    for line in text.splitlines(keepends=True):
        if FENCE_RE.match(line):
            if fence_start is None:
                spans.extend(_inline_spans(text, free_start, offset))
                fence_start = offset
            else:
                spans.append((fence_start, offset + len(line)))
                fence_start = None
                free_start = offset + len(line)
        offset += len(line)
    if fence_start is not None:
        spans.append((fence_start, len(text)))
    else:
        spans.extend(_inline_spans(text, free_start, len(text)))
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


def split_protected(text: str, extra: Iterable[tuple[int, int]] = ()) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, protected) pairs, in order: the pieces :func:`protected_spans` (and the
    ``extra`` spans) cover are protected, so a rewriter can leave them as they are."""
    spans = sorted([*protected_spans(text), *extra])
    pieces: list[tuple[str, bool]] = []
    at = 0
    for start, end in spans:
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
