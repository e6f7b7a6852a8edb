r"""Which headings each protocol counts, and the one rule for "is this the references section?".

``official`` (the released evaluator): skip every node whose title *contains* ``root`` (case-sensitive,
so "Uproot" too) or ``Abstract:``; the children of a skipped node are kept; it has no references-section rule at
all (its headings are ``^(#+)\s+(.*)``, :data:`~surge_dataset.survey.official_parse.OFFICIAL_HEADING_RE`, by design).
``paper``: skip empty and Abstract headings, and treat a References / Bibliography / Works Cited section as no
content at all.

The references rule (:func:`is_references_title` for a heading, :func:`is_references_label` for a bare line such as
``**References:**``) and the Markdown heading rule (:data:`ATX_HEADING_RE`) live here once: the ``paper`` parser,
``surge import``, the generator's writer, the leaderboard's survey viewer, the richness and ALCE metrics and the
Inspect task all ask them (``tests/test_references_heading_rule.py`` feeds the same headings to every caller).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Protocol

#: The titles of a reference list, in one list (any case; words apart by any white space; numbered ``7.``,
#: ``VII.`` and wrapped in punctuation or emphasis allowed, as in ``## 7. References``, ``**Bibliography:**``).
REFERENCES_TITLES: tuple[str, ...] = ("references", "reference", "reference list", "bibliography", "works cited",
                                      "literature cited", "cited works", "sources", "citations",
                                      # reports written in Chinese (DeepResearch Bench's zh tasks) name theirs so
                                      "参考文献", "参考资料", "参考来源", "引用文献")
_WORDS = "|".join(r"\s+".join(title.split()) for title in REFERENCES_TITLES)
_REFERENCES_TITLE_RE = re.compile(rf"^[\W_]*(?:(?:\d+(?:\.\d+)*|[ivxlc]+)[.)]?\s+)?(?:{_WORDS})[\W_]*$", re.I)
#: A list item (bullet or number): a table of contents' "7. References" is no reference-list label.
_LIST_ITEM_RE = re.compile(r"^\s*(?:[-+*\u2022]\s|\d+(?:\.\d+)*[.)]?\s)")
#: A CommonMark ATX heading line: up to 3 spaces, 1-6 ``#``, white space, the title (group 2), an optional closing
#: ``#`` run after white space. The ``paper`` reading's, ``surge import``'s and the viewer's heading rule.
#: The title is empty or ends in a character that is no space, tab or line break: the shortest title is always such
#: a one, and stopping only there keeps a line with long runs of spaces linear (a plain lazy ``(.*?)`` retried the
#: closing part at every space of a run: quadratic).
ATX_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})[ \t]+((?:.*?[^ \t\n])??)(?:[ \t]+#+)?[ \t]*$")
_ATX_HEADING_LINES_RE = re.compile(ATX_HEADING_RE.pattern, re.M)
#: Lines that name a reference list somewhere (a cheap first pass of :func:`references_lines` over a whole text).
_LINE_WORDS = "|".join(r"[ \t]+".join(title.split()) for title in REFERENCES_TITLES)
_NAMING_LINES_RE = re.compile(rf"^[^\n]*(?:{_LINE_WORDS})[^\n]*$", re.I | re.M)
_ABSTRACT_TITLE_RE = re.compile(r"^(?:(?:\d+(?:\.\d+)*|[ivxlc]+)[.)]?\s+)?abstract\b", re.I)
_WRAPPING_EMPHASIS_RE = re.compile(r"^(\*{1,3}|_{1,3})(\S(?:.*\S)?)\1$")


def atx_heading(line: str) -> tuple[int, str] | None:
    """``(level, title)`` of an ATX heading line (:data:`ATX_HEADING_RE`), else None."""
    match = ATX_HEADING_RE.match(line)
    return (len(match.group(1)), match.group(2)) if match else None


def atx_heading_lines(text: str) -> Iterator[re.Match[str]]:
    """Every ATX heading line of a whole text, as a match (group 1: the ``#`` run, group 2: the title)."""
    return _ATX_HEADING_LINES_RE.finditer(text)


class Titled(Protocol):
    title: str


def official_skipped(title: str) -> bool:
    """The released evaluator's skip rule for headings and citation instances (a substring test)."""
    return "root" in title or "Abstract:" in title


def strip_wrapping_emphasis(text: str) -> str:
    """``**Title**`` / ``_Title_`` -> ``Title`` (repeatedly), the rest untouched.

    :data:`_WRAPPING_EMPHASIS_RE` applied until it no longer matches, computed on indices: a line of 100,000
    ``*`` would otherwise be matched and copied once per three stars it loses (quadratic).
    """
    text = text.strip()
    if "\n" in text:  # the pattern's ``.`` stops at a line break and the markers are no line break: never matches
        return text
    low, high = 0, len(text)
    while high - low >= 3 and text[low] in "*_":
        marker = text[low]
        for width in (3, 2, 1):  # the pattern's greedy {1,3}: the widest marker first
            if (high - low >= 2 * width + 1 and text.startswith(marker * width, low)
                    and text.startswith(marker * width, high - width)
                    and not text[low + width].isspace() and not text[high - width - 1].isspace()):
                low, high = low + width, high - width
                break
        else:
            break
    return text[low:high]


def is_references_title(title: str) -> bool:
    """A heading that opens the reference list: one of :data:`REFERENCES_TITLES`, optionally numbered, emphasised
    or wrapped in punctuation."""
    return bool(_REFERENCES_TITLE_RE.match(strip_wrapping_emphasis(title)))


def is_references_label(line: str) -> bool:
    """A bare line (not a heading) that announces the reference list, ``References:`` or ``**Bibliography**``: the
    heading rule (:func:`is_references_title`) on a line that is no list item."""
    return not _LIST_ITEM_RE.match(line) and is_references_title(line)


def references_lines(text: str) -> Iterator[re.Match[str]]:
    """Every line of a whole text that opens a reference list, a References heading or a bare label (code fences not
    considered), as a match of the line: where the leaderboard's viewer takes the reference list to start."""
    for match in _NAMING_LINES_RE.finditer(text):
        heading = atx_heading(match.group(0))
        if is_references_title(heading[1]) if heading else is_references_label(match.group(0)):
            yield match


def is_references_node(node: Titled) -> bool:
    return is_references_title(node.title)


def paper_heading_skipped(title: str) -> bool:
    """The paper protocol's skip rule: empty headings and Abstract headings are no section headings."""
    cleaned = strip_wrapping_emphasis(title)
    return not cleaned or "Abstract:" in title or bool(_ABSTRACT_TITLE_RE.match(cleaned))
