"""Titles from bibliographic services as plain text: HTML, JATS and MathML markup and character references removed.

Services return titles as their publishers deposited them: Crossref (and OpenAlex, which copies Crossref) keep
inline markup, so a real paper's title arrives as ``<scp>T</scp>reebase: an <scp>R</scp> package ...``,
``... of <i>Exiguobacterium chiriqhucha</i> str. N139 ...``, ``Robust<mml:math ...><mml:mi>H</mml:mi>...``
or ``... P&amp;U purchase``, sometimes escaped twice (``&lt;i&gt;``). Compared as is with the reference's
title such a paper scores below the match threshold and is counted fabricated. :func:`plain_title` is the one
reading of a service's title used by every client (OpenAlex, Semantic Scholar, arXiv, Crossref) and by
``surge data fresh``; the raw title is kept beside it for ``--details``.

Rules: tags are dropped and their text kept (``<i>x</i>`` -> ``x``, ``<scp>T</scp>reebase`` -> ``Treebase``: a
formatting tag inside a word joins the word back); the text of ``tex-math`` (LaTeX source that duplicates the
MathML beside it) is dropped; character references are decoded; an escaped tag (``&lt;i&gt;``) is decoded and
then removed like a tag (at most :data:`MAX_ROUNDS` rounds); white space is collapsed. A ``<`` that opens no
tag (``p < 0.05``) is text.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

__all__ = ["MAX_ROUNDS", "has_markup", "plain_title"]

#: Rounds of "decode references, drop tags" (a title escaped twice needs two).
MAX_ROUNDS = 3
#: Elements whose text is not part of the title (LaTeX source duplicating the MathML of a JATS formula).
_SKIPPED = frozenset({"tex-math", "jats:tex-math", "mml:annotation", "annotation"})
_TAG = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")
_REFERENCE = re.compile(r"&(?:#\d+|#x[0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);")


class _TextOnly(HTMLParser):
    """Collects the character data of a fragment, character references decoded, skipped elements left out."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self._skipping += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED and self._skipping:
            self._skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)


def has_markup(text: str | None) -> bool:
    """Whether ``text`` holds a tag or a character reference (what :func:`plain_title` changes)."""
    return bool(text) and bool(_TAG.search(text) or _REFERENCE.search(text))


def _one_round(text: str) -> str:
    parser = _TextOnly()
    parser.feed(text)
    parser.close()
    return "".join(parser.parts)


def plain_title(raw: str | None) -> str:
    """``raw`` (a title as a service sent it) as plain text by the module's rules; ``""`` for None."""
    text = raw or ""
    for _ in range(MAX_ROUNDS):
        if not has_markup(text):
            break
        text = _one_round(text) if _TAG.search(text) else html.unescape(text)
    return " ".join(text.split())
