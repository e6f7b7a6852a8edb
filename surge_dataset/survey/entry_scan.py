"""The reference-entry patterns of the ``paper`` reading, computed in linear time.

Three patterns read a title out of a reference entry: a Markdown link (its text kept), the first ``*emphasised*``
run and the first ``"quoted"`` run. As regular expressions each one retries, at every opening mark that has no
closing mark after it, a scan to the end of the entry, so a degenerate entry (a generator looping on ``*a `` or
``[`` for a megabyte) took minutes. These functions return exactly what the patterns match (the patterns stay in
:mod:`.paper_parse` as the definition, and ``tests/test_survey_fuzz.py`` checks the two agree on random entries)
by remembering where the next closing mark is instead of searching for it again.
"""

from __future__ import annotations

import bisect
import re

__all__ = ["first_emphasis", "first_quoted", "replace_links"]

#: A closing emphasis run of ``width`` stars: after a non-space, not followed by a star or a word character.
_EMPHASIS_CLOSE_RES = {width: re.compile(rf"(?<!\s)\*{{{width}}}(?![*\w])") for width in (1, 2, 3)}
#: Where an emphasis run may open: a star not after a star or a word character.
_EMPHASIS_OPEN_RE = re.compile(r"(?<![*\w])\*")
_STARS_RE = re.compile(r"\*+")
_LINE_BREAK_RE = re.compile("\n")
_QUOTE_OPEN_RE = re.compile("[\"\u201c]")
_QUOTE_CLOSE_RE = re.compile("[\"\u201d]")


def replace_links(text: str) -> str:
    r"""``re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)``: every Markdown link replaced by its text."""
    pieces: list[str] = []
    kept = 0  # text[kept:] is not yet copied
    close_bracket = -1  # the first "]" after the current "[" (the same for every "[" before it)
    close_paren = -1  # the first ")" after close_bracket's "]("
    at = 0
    while (start := text.find("[", at)) >= 0:
        if close_bracket <= start:
            close_bracket = text.find("]", start + 1)
            if close_bracket < 0:
                break  # no "]" after this "[", nor after any later one
        if close_bracket == start + 1 or not text.startswith("(", close_bracket + 1):
            at = start + 1
            continue
        if close_paren <= close_bracket:
            close_paren = text.find(")", close_bracket + 2)
            if close_paren < 0:
                break  # no ")" after this link's "](", nor after any later one
        pieces += [text[kept:start], text[start + 1 : close_bracket]]
        kept = at = close_paren + 1
    pieces.append(text[kept:])
    return "".join(pieces)


def first_emphasis(text: str, *, anchored: bool = False) -> str | None:
    r"""The inner text of the first match of ``(?<![*\w])(\*{1,3})(?!\s)(.+?)(?<!\s)\1(?![*\w])`` in ``text``
    (``anchored``: a match at the start only), or None."""
    closes: dict[int, list[int]] = {}
    line_breaks: list[int] | None = None
    openers = [_EMPHASIS_OPEN_RE.match(text)] if anchored else _EMPHASIS_OPEN_RE.finditer(text)
    for opener in openers:
        if opener is None:
            return None
        start = opener.start()
        stars = _STARS_RE.match(text, start)
        assert stars is not None  # the opener is a star
        for width in range(min(3, stars.end() - start), 0, -1):  # the greedy {1,3}: the widest run first
            body = start + width
            if body >= len(text) or text[body].isspace():
                continue
            if width not in closes:  # a valid closing run never overlaps another of its width: finditer sees all
                closes[width] = [m.start() for m in _EMPHASIS_CLOSE_RES[width].finditer(text)]
            found = bisect.bisect_left(closes[width], body + 1)  # the lazy body: the first closing run after it
            if found == len(closes[width]):
                continue
            end = closes[width][found]
            if line_breaks is None:
                line_breaks = [m.start() for m in _LINE_BREAK_RE.finditer(text)]
            following = bisect.bisect_left(line_breaks, body)
            if following < len(line_breaks) and line_breaks[following] < end:  # "." stops at a line break
                continue
            return text[body:end]
    return None


def first_quoted(text: str) -> str | None:
    """The group of the first match of ``["\u201c]([^"\u201d]{3,})["\u201d]`` in ``text``, or None."""
    close = -1  # the first closing mark after the current opening one
    for opener in _QUOTE_OPEN_RE.finditer(text):
        start = opener.start()
        if close <= start:
            following = _QUOTE_CLOSE_RE.search(text, start + 1)
            if following is None:
                return None  # no closing mark after this opening one, nor after any later one
            close = following.start()
        if close - start - 1 >= 3:
            return text[start + 1 : close]
    return None
