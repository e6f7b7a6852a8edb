"""Citation marks besides the bracketed group ``[3]``: what deep-research systems and exports write.

* **Linked numbers** ``[[3]](url)`` (Onyx, DeepResearch Bench submissions), ``[\\[1\\]](url)`` and ``[[24][25]](url)``
  (OpenAI Deep Research's escaped links), ``[3](url)``: citation 3 of the numbered list when the survey has that
  entry, else a citation of the URL itself, which becomes the entry (the link is the source). A text fragment
  (``#:~:text=...``) is no part of the source's address and is dropped from the entry.
* **Source chips** ``([Page title](url))``: a parenthesis that holds nothing but one link whose text is a title, as
  a ChatGPT (OpenAI Deep Research) answer copied as Markdown writes each source (the title may run over lines). A
  citation of the URL, which becomes the entry, titled by the link's text; the parentheses go with the mark.
* ``<sup>3</sup>``, ``<sup>[1, 2]</sup>``: numeric citations, as ``[3]``.
* Unicode superscripts (``studies¹²``, ``known¹˒³``): citations only where a numbered list holds every number
  (``m²`` after a unit and ``10²`` after a digit are powers; ``MS³-Conv``, superscripts inside a word, is a name).
* **Flattened superscripts** (a Gemini Deep Research export copies ``balance.⁴ It`` as ``balance.4 It``): read only
  when a numbered list exists, the survey has no other numeric citation, the digits follow punctuation closing a
  word that holds a letter, maybe after a closing quote or emphasis (``balance.4``, ``Sty1.27``, ``"context".1``,
  ``*game*.5``; never ``1.5`` or ``Fig.2``), the next word starts a sentence or the line ends, and every number is
  an entry of the list. Each one is a guess, and the report lists them all. A number after a space (``studies 2,
  they``) is never read: ``Table 2, they`` looks the same.

Every other link keeps its text and target as they are (``[Title](url)`` is no citation); the marks above are
looked for only where the evaluator looks for citations (never in math or code).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from surge_dataset.survey.citations import CITATION_GROUP_RE, protected_spans, read_citation_group
from surge_dataset.survey.headings import ATX_HEADING_RE
from surge_dataset.survey.tree import FENCE_RE

__all__ = ["CHIP_RE", "FLAT_RE", "SUP_RE", "LinkMarks", "entry_url", "flat_numbers", "sup_numbers", "unicode_numbers"]

#: A link's target: ``<...>`` may hold spaces (CommonMark), a bare one balanced parentheses (``Graph_(math)``).
_URL = r"(?:<[^<>\n]*>|<?[^\s()<>]+(?:\([^\s()]*\)[^\s()<>]*)*>?)"
_NUMBERED = r"\\?\[\s*\d{1,4}(?:\s*[,;]\s*\d{1,4})*\s*\\?\]"
#: ``[[3]](url)``, ``[\[1\]](url)``, ``[[24][25]](url)``, ``[3](url)``, ``[1, 2](url)``; an optional link title.
LINK_CITE_RE = re.compile(
    rf"\[\s*((?:{_NUMBERED}\s*)+|\d{{1,4}}(?:\s*[,;]\s*\d{{1,4}})*)\s*\]\(\s*({_URL})(?:\s+\"[^\"\n]*\")?\s*\)")
#: ``([Page title](url))``: one link alone in parentheses, its text no number (a blank line ends a text).
CHIP_RE = re.compile(rf"\(\s*\[((?:[^\[\]\n]|\n(?![ \t]*\n))+)\]\(\s*({_URL})\s*\)\s*\)")
#: Any other inline link's text (kept as it is: a URL or a word in it is no citation key).
_LINK_TEXT_RE = re.compile(r"\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\](?=\()")
#: The characters that enclose the placeholder a linked citation becomes until the citation pass reads it: the first
#: pair of which the text holds neither (a hostile text may hold ``\x02 0 \x03``, which must stay text).
_SENTINELS = (("\x02", "\x03"), *((chr(c), chr(c + 1)) for c in (*range(0xE000, 0xF8FF, 2),
                                                                 *range(0xF0000, 0x10FFFE, 2))))

SUP_RE = re.compile(r"(?<!\\)<(?i:sup)>\s*\[?\s*(\d{1,4}(?:\s*[-\u2013,;]\s*\d{1,4})*)\s*\]?\s*</(?i:sup)>")
_SUPERSCRIPTS = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
_SUP_DIGIT = f"[{_SUPERSCRIPTS}]"
#: Superscript digits closing a word; ones a letter, digit or hyphenated word follows are part of a name
#: (``MS³-Conv``, ``H²O``), never a citation, and ones after a digit are a power (``10²``, ``2³``). Ones after ``$`` stay
#: too: a digit after a ``$`` keeps it from closing math (the evaluator's rule), and ``$²$²`` written ``$[2]$[2]`` is math;
#: and after a backslash, which escapes them (``\²`` written ``\[2]`` would open display math). A group is read whole
#: or not at all: never its tail (``¹`` of `` ⁴,¹``) nor its head (``¹`` of ``¹˒²0``).
UNICODE_RE = re.compile(rf"(?<=[^\s\d$\\{_SUPERSCRIPTS}])(?<!{_SUP_DIGIT}[,\u02d2])({_SUP_DIGIT}+(?:[,\u02d2]{_SUP_DIGIT}+)*)"
                        rf"(?![^\W_]|[-\u2010\u2011][^\W_]|[,\u02d2]?{_SUP_DIGIT})")  # all of ``¹˒²0`` or none
#: A unit before ``²``/``³`` makes it a power, not a citation.
_UNIT_RE = re.compile(r"(?:^|[\s\d(])(?:[kcmµn]?m|s|ft|in|[kM]?Hz|[kMG]?W)$")
#: The sentence's mark may close a quote or emphasis first (``"bag of context".1``, ``*persuasion game*.5``).
FLAT_RE = re.compile(r"(?:(?<=[^\W_][.,;:!?)\]\"\u201d])|(?<=[^\W_][\"\u201d*_)][.,;:!?]))(\d{1,3}(?:,\d{1,3})*)"
                     r"(?=[ \t]+[\"\u201c(*]?[A-Z]|[ \t]*$)", re.M)
#: Words after which ``.2`` is a number, not a flattened citation (``Fig.2``, ``Eq.3``, ``No.5``).
_ABBREVIATIONS = {"fig", "figs", "eq", "eqs", "no", "nos", "vol", "p", "pp", "sec", "ch", "tab", "ref", "refs", "vs",
                  "v", "ver", "art", "op", "e.g", "i.e", "approx", "ca"}
_TEXT_FRAGMENT_RE = re.compile(r"#:~:text=.*$")


def heading_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every ATX heading line outside code fences."""
    spans, offset, in_fence = [], 0, False
    for line in text.split("\n"):
        if FENCE_RE.match(line):
            in_fence = not in_fence
        elif not in_fence and ATX_HEADING_RE.match(line):
            spans.append((offset, offset + len(line)))
        offset += len(line) + 1
    return spans


def section_protected_spans(text: str) -> list[tuple[int, int]]:
    """:func:`protected_spans` of each section (the text between heading lines) on its own, as the evaluator reads
    citations section by section: ``\\[`` or ``$$`` opened in one section and closed in a later one protects nothing."""
    spans: list[tuple[int, int]] = []
    at = 0
    for start, end in [*heading_spans(text), (len(text), len(text))]:
        spans.extend((at + s, at + e) for s, e in protected_spans(text[at:start]))
        at = end
    return spans


def entry_url(url: str) -> str:
    """The source's address a linked citation names: angle brackets and a text fragment dropped, a space (``<a b>``
    may hold one) written ``%20``, so that the written entry is one address."""
    return re.sub(r"\s+", "%20", _TEXT_FRAGMENT_RE.sub("", url.strip().strip("<>")).strip())


def _numbers(group: str) -> list[int] | None:
    read = read_citation_group(group)
    return read[0] if read is not None else None


def sup_numbers(inside: str) -> list[int] | None:
    """The numbers of a ``<sup>`` citation's inside (``1, 3-5``), None when it holds 0."""
    return _numbers(inside)


def unicode_numbers(text: str, match: re.Match[str]) -> list[int] | None:
    """``¹²˒³`` -> [12, 3]; None after a unit (``m²``: a power) or for a 0."""
    if _UNIT_RE.search(text[: match.start()]):
        return None
    table = {ord(c): str(i) for i, c in enumerate(_SUPERSCRIPTS)}
    numbers = [int(part.translate(table)) for part in re.split("[,\u02d2]", match.group(1)) if part]
    return None if 0 in numbers else numbers


def flat_numbers(text: str, match: re.Match[str], entries: int) -> list[int] | None:
    """The numbers of a flattened superscript at ``match`` when the module's rule takes it, else None."""
    word = re.search(r"(\S+)$", text[: match.start() - 1])
    if word is None:
        return None
    head = word.group(1).strip("*_\"'(")
    if not re.search(r"[^\W\d_]", head) or head.lower().rstrip(".") in _ABBREVIATIONS:
        return None
    if re.fullmatch(r"[\d.,]*\d[a-z]{0,2}", head):  # "3rd", "2.5x"
        return None
    numbers = [int(n) for n in match.group(1).split(",")]
    return numbers if all(1 <= n <= entries for n in numbers) else None


def _placeholder_pattern(sentinels: tuple[str, str] | None) -> re.Pattern[str]:
    if sentinels is None:
        return re.compile(r"(?!)(\d)")
    return re.compile(re.escape(sentinels[0]) + r"(\d+)" + re.escape(sentinels[1]))


@dataclass
class LinkMarks:
    """Linked citations taken out of a text before the citation pass: each becomes a placeholder (``\\x02i\\x03``,
    :attr:`pattern` reads it), and ``found[i]`` holds its numbers (none for a source chip), URL and link title (a
    chip's text, else empty). Other links' texts are returned as spans the citation pass must leave alone."""

    found: list[tuple[list[int], str, str]] = field(default_factory=list)
    originals: list[str] = field(default_factory=list)
    sentinels: tuple[str, str] | None = _SENTINELS[0]
    #: A placeholder, compiled once :meth:`take` has chosen the sentinels (matching nothing when none was free).
    pattern: re.Pattern[str] = field(default_factory=lambda: _placeholder_pattern(_SENTINELS[0]))

    def restore(self, text: str) -> str:
        """``text`` with every placeholder written back as it was (a heading's linked citation stays a link)."""
        return self.pattern.sub(lambda m: self.originals[int(m.group(1))], text)

    def take(self, text: str) -> tuple[str, list[tuple[int, int]]]:
        """(text with every linked citation replaced by its placeholder, spans of the other links' texts). A text
        that holds every sentinel pair keeps its linked citations as links (never seen outside a hostile input)."""
        held = set(text)
        self.sentinels = next(((a, b) for a, b in _SENTINELS if a not in held and b not in held), None)
        self.pattern = _placeholder_pattern(self.sentinels)
        if self.sentinels is None:
            return text, _link_text_spans(text)
        out = self._replace(text, LINK_CITE_RE, self._numbered)
        out = self._replace(out, CHIP_RE, self._chip)
        return out, _link_text_spans(out)

    @staticmethod
    def _numbered(match: re.Match[str]) -> tuple[list[int], str] | None:
        numbers = _numbers(",".join(re.findall(r"\d+", match.group(1))))
        return (numbers, "") if numbers else None

    @staticmethod
    def _chip(match: re.Match[str]) -> tuple[list[int], str] | None:
        title = " ".join(match.group(1).split())
        return ([], title) if re.search(r"[^\W\d_]", title) else None

    def _replace(self, text: str, pattern: re.Pattern[str], read: Callable[[re.Match[str]], Any]) -> str:
        spans = section_protected_spans(text)  # in order, not overlapping: a bisection finds a match's one
        starts = [start for start, _ in spans]
        pieces: list[str] = []
        at = 0
        for match in pattern.finditer(text):
            k = bisect.bisect_right(starts, match.start()) - 1
            if k >= 0 and match.start() < spans[k][1]:
                continue
            got = read(match)
            if got is None:
                continue
            pieces.append(text[at:match.start()])
            pieces.append(f"{self.sentinels[0]}{len(self.found)}{self.sentinels[1]}")  # type: ignore[index]
            self.found.append((got[0], entry_url(match.group(2)), got[1]))
            self.originals.append(match.group(0))
            at = match.end()
        pieces.append(text[at:])
        return "".join(pieces)


def _link_text_spans(text: str) -> list[tuple[int, int]]:
    """The spans of link texts, less the citation groups inside one (``[see [1] here](url)``: the evaluator reads that
    [1], so it is renumbered with the others, or it would cite another entry)."""
    spans: list[tuple[int, int]] = []
    for link in _LINK_TEXT_RE.finditer(text):
        at = link.start()
        for group in CITATION_GROUP_RE.finditer(text, link.start() + 1, link.end() - 1):
            if read_citation_group(group.group(1)) is not None:
                spans.append((at, group.start()))
                at = group.end()
        spans.append((at, link.end()))
    return spans


def has_numeric_citations(text: str) -> bool:
    """Whether ``text`` holds a bracketed, linked or ``<sup>`` numeric citation (then no flattened digit is a guess
    worth making)."""
    return bool(LINK_CITE_RE.search(text) or SUP_RE.search(text) or any(
        read_citation_group(m.group(1)) for m in CITATION_GROUP_RE.finditer(text)))
