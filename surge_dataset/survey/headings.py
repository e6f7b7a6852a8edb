"""Which headings each protocol counts: the skip rules shared by the data model and both parsers.

``official`` (the released evaluator): skip every node whose title *contains* ``root`` (case-sensitive,
so "Uproot" too) or ``Abstract:``; the children of a skipped node are kept. ``paper``: skip empty and
Abstract headings, and treat a References / Bibliography / Works Cited section as no content at all.
"""

from __future__ import annotations

import re
from typing import Protocol

_REF_WORDS = r"(?:references?|bibliography|works\s+cited|reference\s+list|literature\s+cited|cited\s+works)"
_REFERENCES_TITLE_RE = re.compile(rf"^(?:(?:\d+(?:\.\d+)*|[ivxlc]+)[.)]?\s+)?{_REF_WORDS}\s*:?$", re.I)
#: A bare line announcing the reference list, e.g. ``**References:**`` (not a heading).
PSEUDO_REFERENCES_RE = re.compile(
    rf"^\s*(?:\*\*|__|\*|_)?\s*{_REF_WORDS}\s*:?\s*(?:\*\*|__|\*|_)?\s*:?\s*$", re.I
)
_ABSTRACT_TITLE_RE = re.compile(r"^(?:(?:\d+(?:\.\d+)*|[ivxlc]+)[.)]?\s+)?abstract\b", re.I)
_WRAPPING_EMPHASIS_RE = re.compile(r"^(\*{1,3}|_{1,3})(\S(?:.*\S)?)\1$")


class Titled(Protocol):
    title: str


def official_skipped(title: str) -> bool:
    """The released evaluator's skip rule for headings and citation instances (a substring test)."""
    return "root" in title or "Abstract:" in title


def strip_wrapping_emphasis(text: str) -> str:
    """``**Title**`` / ``_Title_`` -> ``Title`` (repeatedly), the rest untouched."""
    text = text.strip()
    while True:
        match = _WRAPPING_EMPHASIS_RE.match(text)
        if not match:
            return text
        text = match.group(2).strip()


def is_references_title(title: str) -> bool:
    """A References / Bibliography / Works Cited heading, optionally numbered and emphasised."""
    return bool(_REFERENCES_TITLE_RE.match(strip_wrapping_emphasis(title)))


def is_references_node(node: Titled) -> bool:
    return is_references_title(node.title)


def paper_heading_skipped(title: str) -> bool:
    """The paper protocol's skip rule: empty headings and Abstract headings are no section headings."""
    cleaned = strip_wrapping_emphasis(title)
    return not cleaned or "Abstract:" in title or bool(_ABSTRACT_TITLE_RE.match(cleaned))
