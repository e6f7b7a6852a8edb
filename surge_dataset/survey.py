"""Reading a generated survey (Markdown) into a heading tree, a reference list and citation instances.

Two protocols, because the published SurGE numbers and the SurGE paper disagree on how a survey is read
(``docs/protocol.md`` §2-§4):

``official``
    Reproduces the authors' released evaluator, quirks included, so that scores computed with it are
    comparable with the published Table 4. Its rules, as regular expressions written for this module:

    * heading: ``^(#+)\\s+(.*)`` on the right-stripped line; level = number of ``#``; a heading closes
      every open node of the same or deeper level; every other line (blank ones too) is appended to the
      current node, content = lines joined with ``"\\n"``; text before the first heading is the root's.
    * reference line: every stripped line starting with ``[`` that matches :data:`OFFICIAL_REFERENCE_RE`
      ``^\\[(\\d+)\\]\\s*(?:.*?\\*?([\\w\\s:,.-]+)\\*?|([\\w\\s:,.-]+))$``: the title is the final run
      of word/space/``:,.-`` characters, so a title ending in ``?``, ``'``, ``)``, ``/``, ``**`` ... keeps
      only the text after that character, or is lost altogether. A repeated number keeps the last title.
    * citation: :data:`OFFICIAL_CITATION_RE` ``\\[(\\d+)\\]`` anywhere in a node's content (reference-list
      lines included); its sentence runs from after the last ``.`` before the match to the first ``.`` at
      or after it (exclusive; end of content if none), stripped.
    * skip rule for headings and citations: the root and every node whose title contains ``root``
      (case-sensitive, so "Uproot" too) or ``Abstract:``; the children of a skipped node are kept.

``paper``
    Follows the paper's text, robustly: the reference list comes from a References / Bibliography /
    Works Cited section (a heading, or a bare ``**References:**`` line) when there is one, else from the
    main block of ``[n]`` lines anywhere; titles are taken whole from ``[n] Title``,
    ``[n] Authors. (year). *Title*`` and (best effort) ``[n] Authors. Title. Venue, year.``; citations
    ``[3]``, ``[1, 2]``, ``[1-3]``, ``[1; 2]``, ``[1][2]`` are all found; sentences end at ``.``/``?``/``!``
    followed by white space (common abbreviations excepted) or at a line break; the references section is
    neither a heading, a content section nor a source of citation instances.

Parsing never raises on odd input: every oddity becomes a :class:`Diagnostic`.
"""

from __future__ import annotations

import bisect
import functools
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from surge_dataset.normalize import normalise_title

PROTOCOLS: tuple[str, ...] = ("official", "paper")

# --- the released evaluator's patterns (written from the protocol description) -----------------------
#: A heading line: one or more ``#``, white space, the title (the rest of the line).
OFFICIAL_HEADING_RE = re.compile(r"^(#+)\s+(.*)")
#: A reference line: ``[n]``, optional spaces, then the shortest run of anything, an optional ``*``, the
#: title (a final run of word, space, ``:``, ``,``, ``.``, ``-`` characters), an optional ``*`` and the end;
#: or just such a final run. Documented and tested; :func:`_official_reference` computes the same match
#: in linear time because the lazy ``.*?`` makes this pattern quadratic on long lines.
OFFICIAL_REFERENCE_RE = re.compile(r"^\[(\d+)\]\s*(?:.*?\*?([\w\s:,.-]+)\*?|([\w\s:,.-]+))$")
#: A citation instance: a number in square brackets, nothing else inside.
OFFICIAL_CITATION_RE = re.compile(r"\[(\d+)\]")
_OFFICIAL_TITLE_CHAR = re.compile(r"[\w\s:,.-]")
_NUMBERED_LINE_RE = re.compile(r"\[(\d+)\]")

# --- the paper protocol's patterns ------------------------------------------------------------------
#: CommonMark ATX heading: up to 3 spaces, 1-6 ``#``, white space, title, optional closing ``#`` run.
PAPER_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE_RE = re.compile(r"^ {0,3}(```|~~~)")
#: A bracketed group of citation numbers: ``[3]``, ``[1, 2]``, ``[1-3]``, ``[1; 2]``, ``[2, 4-6]``.
PAPER_CITATION_RE = re.compile(
    r"\[\s*(\d+(?:\s*[-\u2013\u2014]\s*\d+)?(?:\s*[,;]\s*\d+(?:\s*[-\u2013\u2014]\s*\d+)?)*)\s*\]"
)
_CITATION_ITEM_RE = re.compile(r"(\d+)(?:\s*[-\u2013\u2014]\s*(\d+))?")
#: A numbered reference entry: optional list bullet, ``[n]`` (or footnote ``[^n]:``), the entry text.
PAPER_REFERENCE_RE = re.compile(r"^\s*(?:[-*+]\s+)?\[\^?(\d+)\]\s*[:.)]?\s*(.*?)\s*$")
_NUMBERED_LIST_RE = re.compile(r"^\s*(\d+)[.)]\s+(\S.*?)\s*$")
_BULLET_RE = re.compile(r"^\s*[-*+]\s+(\S.*?)\s*$")
_REF_WORDS = r"(?:references?|bibliography|works\s+cited|reference\s+list|literature\s+cited|cited\s+works)"
_REFERENCES_TITLE_RE = re.compile(rf"^(?:(?:\d+(?:\.\d+)*|[ivxlc]+)[.)]?\s+)?{_REF_WORDS}\s*:?$", re.I)
#: A bare line announcing the reference list, e.g. ``**References:**`` (not a heading).
_PSEUDO_REFERENCES_RE = re.compile(
    rf"^\s*(?:\*\*|__|\*|_)?\s*{_REF_WORDS}\s*:?\s*(?:\*\*|__|\*|_)?\s*:?\s*$", re.I
)
_ABSTRACT_TITLE_RE = re.compile(r"^(?:(?:\d+(?:\.\d+)*|[ivxlc]+)[.)]?\s+)?abstract\b", re.I)
_WRAPPING_EMPHASIS_RE = re.compile(r"^(\*{1,3}|_{1,3})(\S(?:.*\S)?)\1$")
#: ``*emphasised*`` text inside an entry; underscores are left alone (LaTeX subscripts use them).
_EMPHASIS_RE = re.compile(r"(?<![*\w])(\*{1,3})(?!\s)(.+?)(?<!\s)\1(?![*\w])")
_QUOTED_WHOLE_RE = re.compile(r"^([\"'\u201c\u2018])(.+)([\"'\u201d\u2019])$")
_MD_LINK_RE = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_APA_RE = re.compile(
    r"^(?P<authors>.+?)\s*[\(\[](?P<year>(?:19|20)\d{2}[a-z]?|n\.\s?d\.?|in\s+press|forthcoming)[\)\]]"
    r"\s*[.,:]?\s*(?P<rest>.*)$",
    re.I,
)
_QUOTED_TITLE_RE = re.compile(r"[\"\u201c]([^\"\u201d]{3,})[\"\u201d]")
_YEAR_RE = re.compile(r"\b(?:19|20)\d{2}[a-z]?\b")
#: Sentence end: ``.``/``?``/``!`` (then closing quotes or brackets) followed by white space, or a line break.
_SENTENCE_END_RE = re.compile(r"[.?!]+[\"'\u201d\u2019)\]]*(?=\s)|\n")
_ABBREVIATIONS = frozenset(
    "e.g i.e al cf vs fig figs eq eqs sec secs ref refs no nos vol pp proc conf approx resp dr mr ms mrs "
    "prof jr sr st inc ed eds ch et".split()
)
_LAST_WORD_RE = re.compile(r"([A-Za-z][A-Za-z.]*)$")

MAX_CITATION_RANGE = 50  # a range [a-b] spanning more numbers than this is kept as its two ends only
_MAX_NUMBER_DIGITS = 1000  # int() refuses very long digit strings; such "numbers" are ignored


@dataclass(frozen=True)
class Diagnostic:
    """Something odd found while reading a survey; parsing goes on and reports it instead of failing."""

    code: str
    message: str
    line: int | None = None


@dataclass(frozen=True)
class SurveyNode:
    """One heading and the text under it; the root (level 0, title ``root``) holds text before any heading."""

    title: str
    level: int
    content: str
    children: list[SurveyNode] = field(default_factory=list)
    line: int = 0  # 1-based line of the heading; 0 for the root


@dataclass(frozen=True)
class Reference:
    """One reference-list entry: the number the text cites it by and the title extracted from it."""

    number: int
    title: str
    raw: str
    line: int

    @property
    def normalised_title(self) -> str:
        """The title as resolution compares it (letters a-z only, lower-cased)."""
        return normalise_title(self.title)


@dataclass(frozen=True)
class Citation:
    """One citation instance: the cited number, the node whose content holds it, and its sentence."""

    number: int
    node_title: str
    sentence: str
    position: int  # character offset of the citation's bracket in that node's content


@dataclass(frozen=True)
class GeneratedSurvey:
    """A parsed generated survey; the helpers apply the protocol's own skip rules."""

    root: SurveyNode
    references: dict[int, Reference]
    citations: list[Citation]
    diagnostics: list[Diagnostic]
    protocol: str

    def nodes(self) -> list[SurveyNode]:
        """Every node in document order (pre-order), root first."""
        return [node for node, _depth in _walk(self.root)]

    def headings(self) -> list[SurveyNode]:
        """The generated headings (SHR's H_P, SQS's tree) in document order, skip rule applied."""
        return [node for node, _depth in self._heading_walk()]

    def heading_titles(self) -> list[str]:
        """Titles of :meth:`headings`, the strings SHR embeds."""
        return [node.title for node in self.headings()]

    def content_sections(self, min_chars: int = 100) -> list[SurveyNode]:
        """Nodes, root included, whose content has at least ``min_chars`` characters (CQS, ROUGE, BLEU)."""
        return [node for node in self._content_nodes() if len(node.content) >= min_chars]

    def heading_markdown(self) -> str:
        """The generated tree as the SQS judge sees it: ``#`` x (depth + 1), one line per kept heading.

        ``official`` ends every line with ``\n`` as the released evaluator does (so its "< 5 characters"
        cut counts the newlines too); ``paper`` joins the lines with ``\n``.
        """
        lines = ["#" * (depth + 1) + " " + node.title for node, depth in self._heading_walk()]
        if self.protocol == "official":
            return "".join(line + "\n" for line in lines)
        return "\n".join(lines)

    def diagnostic_codes(self) -> set[str]:
        """The distinct diagnostic codes, for quick checks."""
        return {d.code for d in self.diagnostics}

    def _heading_walk(self) -> Iterator[tuple[SurveyNode, int]]:
        if self.protocol == "official":
            return ((n, d) for n, d in _walk(self.root) if d > 0 and not _official_skipped(n.title))
        return (
            (n, d)
            for n, d in _walk(self.root, prune=_is_references_node)
            if d > 0 and not _paper_heading_skipped(n.title)
        )

    def _content_nodes(self) -> list[SurveyNode]:
        if self.protocol == "official":
            return self.nodes()
        return [n for n, _d in _walk(self.root, prune=_is_references_node)]


# --- public entry points ------------------------------------------------------------------------------


def decode_survey_bytes(data: bytes) -> tuple[str, list[Diagnostic]]:
    """Decode survey bytes: UTF-8 else cp1252/latin-1 (reported), newlines made ``\\n``.

    A UTF-8 byte-order mark is kept as ``\\ufeff``: the released evaluator opens files as plain
    UTF-8, so its first line starts with it (a first-line heading is then no heading). The ``official``
    parser keeps it for that reason; the ``paper`` parser drops it.
    """
    diagnostics: list[Diagnostic] = []
    text: str | None = None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            text = None
    if text is None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            for encoding in ("cp1252", "latin-1"):
                try:
                    text = data.decode(encoding)
                except UnicodeDecodeError:
                    continue
                line = data.count(b"\n", 0, err.start) + 1
                diagnostics.append(
                    Diagnostic(
                        "decode_fallback",
                        f"not valid UTF-8 (byte {err.start}: {data[err.start : err.start + 1]!r}); "
                        f"decoded as {encoding}",
                        line,
                    )
                )
                break
    assert text is not None  # latin-1 decodes every byte string
    return _normalise_newlines(text, keep_bom=True), diagnostics


def read_survey_file(path: str | os.PathLike[str]) -> tuple[str, list[Diagnostic]]:
    """Read a generated survey from disk robustly (see :func:`decode_survey_bytes`); I/O errors propagate."""
    with open(path, "rb") as handle:
        return decode_survey_bytes(handle.read())


def parse_survey(text: str | bytes, protocol: str = "official") -> GeneratedSurvey:
    """Parse a generated survey under ``protocol`` (``official`` or ``paper``); never raises on odd text."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; expected one of {', '.join(PROTOCOLS)}")
    diagnostics: list[Diagnostic] = []
    if isinstance(text, (bytes, bytearray)):
        text, diagnostics = decode_survey_bytes(bytes(text))
    elif not isinstance(text, str):
        raise TypeError(f"parse_survey expects str or bytes, not {type(text).__name__}")
    text = _normalise_newlines(text, keep_bom=protocol == "official")
    if text.startswith("\ufeff") and protocol == "official":
        diagnostics.append(
            Diagnostic("byte_order_mark", "the file starts with a byte-order mark, kept as the released "
                       "evaluator keeps it (a heading on the first line is then not read as a heading)", 1)
        )
    lines = _split_lines(text)
    if not text.strip():
        diagnostics.append(Diagnostic("empty_file", "the survey is empty or only white space"))
    if protocol == "official":
        return _parse_official(lines, diagnostics)
    return _parse_paper(lines, diagnostics)


# --- shared helpers -----------------------------------------------------------------------------------


def _normalise_newlines(text: str, *, keep_bom: bool = False) -> str:
    if text.startswith("\ufeff") and not keep_bom:
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _split_lines(text: str) -> list[str]:
    """Right-stripped lines, as iterating a text file gives them (no phantom line after a final newline)."""
    if not text:
        return []
    parts = text.split("\n")
    if text.endswith("\n"):
        parts.pop()
    return [part.rstrip() for part in parts]


def _walk(
    node: SurveyNode, depth: int = 0, prune: Callable[[SurveyNode], bool] | None = None
) -> Iterator[tuple[SurveyNode, int]]:
    """Pre-order (node, depth) pairs; ``prune`` drops a node together with its subtree."""
    stack: list[tuple[SurveyNode, int]] = [(node, depth)]
    while stack:
        current, current_depth = stack.pop()
        if prune is not None and current_depth > 0 and prune(current):
            continue
        yield current, current_depth
        stack.extend((child, current_depth + 1) for child in reversed(current.children))


def _official_skipped(title: str) -> bool:
    return "root" in title or "Abstract:" in title


def _strip_wrapping_emphasis(text: str) -> str:
    text = text.strip()
    while True:
        match = _WRAPPING_EMPHASIS_RE.match(text)
        if not match:
            return text
        text = match.group(2).strip()


def _is_references_title(title: str) -> bool:
    return bool(_REFERENCES_TITLE_RE.match(_strip_wrapping_emphasis(title)))


def _is_references_node(node: SurveyNode) -> bool:
    return _is_references_title(node.title)


def _paper_heading_skipped(title: str) -> bool:
    cleaned = _strip_wrapping_emphasis(title)
    return not cleaned or "Abstract:" in title or bool(_ABSTRACT_TITLE_RE.match(cleaned))


def _to_int(digits: str) -> int | None:
    return int(digits) if len(digits) <= _MAX_NUMBER_DIGITS else None


class _Builder:
    """Mutable node used while reading lines; frozen into a :class:`SurveyNode` at the end."""

    def __init__(self, title: str, level: int, line: int) -> None:
        self.title = title
        self.level = level
        self.line = line
        self.lines: list[tuple[int, str]] = []
        self.children: list[_Builder] = []

    def freeze(self, keep: Callable[[int], bool] | None = None) -> SurveyNode:
        """Build the frozen tree bottom-up without recursion (a file may nest headings arbitrarily deep)."""
        order = list(self.walk())
        frozen: dict[int, SurveyNode] = {}
        for builder in reversed(order):
            content = "\n".join(text for number, text in builder.lines if keep is None or keep(number))
            children = [frozen.pop(id(child)) for child in builder.children]
            frozen[id(builder)] = SurveyNode(builder.title, builder.level, content, children, builder.line)
        return frozen[id(self)]

    def walk(self) -> Iterator[_Builder]:
        """This node and its descendants, pre-order, iteratively."""
        stack: list[_Builder] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


def _build_tree(
    lines: list[str], match_heading: Callable[[str], tuple[int, str] | None], fence_aware: bool
) -> tuple[_Builder, int, set[int]]:
    """Heading tree from lines; returns (root, heading count, 1-based numbers of lines inside code fences)."""
    root = _Builder("root", 0, 0)
    stack = [root]
    headings = 0
    fenced: set[int] = set()
    in_fence = False
    for number, line in enumerate(lines, 1):
        if fence_aware and _FENCE_RE.match(line):
            in_fence = not in_fence
            fenced.add(number)
            stack[-1].lines.append((number, line))
            continue
        heading = None if in_fence else match_heading(line)
        if heading is None:
            if in_fence:
                fenced.add(number)
            stack[-1].lines.append((number, line))
            continue
        level, title = heading
        headings += 1
        while len(stack) > 1 and stack[-1].level >= level:
            stack.pop()
        node = _Builder(title, level, number)
        stack[-1].children.append(node)
        stack.append(node)
    return root, headings, fenced


def _missing_numbers_diagnostic(
    citations: list[Citation], references: dict[int, Reference]
) -> list[Diagnostic]:
    missing = [c.number for c in citations if c.number not in references]
    if not missing:
        return []
    distinct = sorted(set(missing))
    shown = ", ".join(map(str, distinct[:20])) + (" ..." if len(distinct) > 20 else "")
    return [
        Diagnostic(
            "missing_reference_number",
            f"{len(missing)} citation instance(s) cite {len(distinct)} number(s) absent from the reference "
            f"list: {shown}",
        )
    ]


def _final_diagnostics(headings: int, references: dict[int, Reference]) -> list[Diagnostic]:
    out = []
    if headings == 0:
        out.append(Diagnostic("no_headings", "no Markdown heading found; everything is root content"))
    if not references:
        out.append(Diagnostic("no_references", "no reference-list entry found"))
    return out


# --- protocol "official" ------------------------------------------------------------------------------


def _official_heading(line: str) -> tuple[int, str] | None:
    match = OFFICIAL_HEADING_RE.match(line)
    return (len(match.group(1)), match.group(2)) if match else None


@functools.lru_cache(maxsize=4096)
def _is_official_title_char(char: str) -> bool:
    return _OFFICIAL_TITLE_CHAR.fullmatch(char) is not None


def _official_reference(stripped: str) -> tuple[int, str, int, int] | None:
    """What :data:`OFFICIAL_REFERENCE_RE` extracts: (number, title, title start, end of the ``[n]`` prefix).

    The lazy ``.*?`` takes the first position from which the rest is ``*``? run ``*``? end, so the title
    is the longest run of title characters ending the line (before one optional final ``*``); no such run
    means no match. Computed by a backwards scan so that long lines stay linear.
    """
    prefix = _NUMBERED_LINE_RE.match(stripped)
    if prefix is None:
        return None
    number = _to_int(prefix.group(1))
    if number is None:
        return None
    body = stripped[:-1] if stripped.endswith("*") else stripped
    start = len(body)
    while start > prefix.end() and _is_official_title_char(body[start - 1]):
        start -= 1
    if start == len(body):
        return None
    return number, body[start:].strip(), start, prefix.end()


def _parse_official(lines: list[str], diagnostics: list[Diagnostic]) -> GeneratedSurvey:
    root_builder, heading_count, _ = _build_tree(lines, _official_heading, fence_aware=False)
    root = root_builder.freeze()

    references: dict[int, Reference] = {}
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped.startswith("["):
            continue
        parsed = _official_reference(stripped)
        if parsed is None:
            prefix = _NUMBERED_LINE_RE.match(stripped)
            if prefix and stripped[prefix.end() :].strip():
                diagnostics.append(
                    Diagnostic(
                        "unparsed_reference_line",
                        f"the released reference pattern finds no title in {stripped[:120]!r}",
                        number,
                    )
                )
            continue
        ref_number, title, start, prefix_end = parsed
        before_at = start - 2 if stripped[start - 1] == "*" else start - 1
        before = stripped[before_at] if before_at >= prefix_end else ""
        if before and not before.isspace():
            diagnostics.append(
                Diagnostic(
                    "official_title_cut",
                    f"the released pattern keeps only the text after {before!r}: {title!r}",
                    number,
                )
            )
        if ref_number in references:
            diagnostics.append(
                Diagnostic(
                    "duplicate_reference_number",
                    f"[{ref_number}] listed again (first on line {references[ref_number].line}); "
                    "the released evaluator keeps the last title",
                    number,
                )
            )
        references[ref_number] = Reference(ref_number, title, stripped, number)

    citations: list[Citation] = []
    for node, depth in _walk(root):
        if depth == 0 or _official_skipped(node.title):
            continue
        content = node.content
        dots = [i for i, char in enumerate(content) if char == "."]
        for match in OFFICIAL_CITATION_RE.finditer(content):
            cited = _to_int(match.group(1))
            if cited is None:
                continue
            at = match.start()
            k = bisect.bisect_left(dots, at)  # dots[k] is the first '.' at or after the match start
            begin = dots[k - 1] + 1 if k > 0 else 0
            end = dots[k] if k < len(dots) else len(content)
            citations.append(Citation(cited, node.title, content[begin:end].strip(), at))

    diagnostics.extend(_missing_numbers_diagnostic(citations, references))
    diagnostics.extend(_final_diagnostics(heading_count, references))
    return GeneratedSurvey(root, references, citations, diagnostics, "official")


# --- protocol "paper" ---------------------------------------------------------------------------------


def _paper_heading(line: str) -> tuple[int, str] | None:
    match = PAPER_HEADING_RE.match(line)
    if match is None:
        return None
    return len(match.group(1)), _strip_wrapping_emphasis(match.group(2))


def _clean_title(title: str) -> str:
    title = _strip_wrapping_emphasis(title.strip())
    quoted = _QUOTED_WHOLE_RE.match(title)
    if quoted and (quoted.group(1) + quoted.group(3)) in ('""', "''", "\u201c\u201d", "\u2018\u2019"):
        title = quoted.group(2).strip()
    return title.rstrip(" .,;").strip()


def _looks_like_authors(segment: str) -> bool:
    lowered = segment.lower()
    return any(mark in lowered for mark in (",", "&", " and ", "et al")) or bool(
        re.search(r"\b[A-Z]\.$", segment.strip())
    )


def _sentence_ends(text: str) -> list[int]:
    """End offsets of the sentences of ``text`` (boundaries after ``.?!`` + space, or at a line break)."""
    ends = []
    for match in _SENTENCE_END_RE.finditer(text):
        token = match.group(0)
        if token != "\n" and token.startswith(".") and len(token.rstrip("\"'\u201d\u2019)]")) == 1:
            word = _LAST_WORD_RE.search(text, max(0, match.start() - 12), match.start())
            if word is not None:
                last = word.group(1)
                if (len(last) == 1 and last.isupper()) or last.lower().rstrip(".") in _ABBREVIATIONS:
                    continue
        ends.append(match.end())
    return ends


def _split_segments(text: str) -> list[str]:
    segments, begin = [], 0
    for end in _sentence_ends(text):
        segments.append(text[begin:end].strip())
        begin = end
    segments.append(text[begin:].strip())
    return [segment for segment in segments if segment]


def _paper_reference_title(entry: str) -> str:
    """The title of a reference entry in any of the styles generated surveys use (best effort)."""
    text = _MD_LINK_RE.sub(r"\1", entry).strip()
    apa = _APA_RE.match(text)
    if apa and re.search(r"[^\W\d_]", apa.group("rest")):
        authors, rest = apa.group("authors").strip(), apa.group("rest").strip()
        leading = _EMPHASIS_RE.match(rest)
        if leading:
            return _clean_title(leading.group(2))
        if authors.endswith(".") or _looks_like_authors(authors):
            segments = _split_segments(rest)
            return _clean_title(segments[0] if segments else rest)
    emphasised = _EMPHASIS_RE.search(text)
    if emphasised:
        return _clean_title(emphasised.group(2))
    quoted = _QUOTED_TITLE_RE.search(text)
    if quoted:
        return _clean_title(quoted.group(1))
    segments = _split_segments(text)
    if len(segments) >= 2 and _YEAR_RE.search(segments[-1]):
        if len(segments) >= 3 and _looks_like_authors(segments[0]):
            return _clean_title(segments[1])
        return _clean_title(segments[0])
    return _clean_title(text)


def _looks_like_prose(entry: str) -> bool:
    """A paragraph that merely starts with a citation ("[43] suggests that ...") rather than an entry."""
    return bool(entry) and entry[0].islower() and len(entry.split()) > 12


def _reference_candidate(line: str) -> tuple[int, str] | None:
    match = PAPER_REFERENCE_RE.match(line)
    if match is None or not match.group(2):
        return None
    number = _to_int(match.group(1))
    if number is None or _looks_like_prose(match.group(2)):
        return None
    return number, match.group(2)


def _parse_paper(lines: list[str], diagnostics: list[Diagnostic]) -> GeneratedSurvey:
    root_builder, heading_count, fenced = _build_tree(lines, _paper_heading, fence_aware=True)
    builders = list(root_builder.walk())

    # Lines of the references section: under a References heading (and its sub-headings), or after a bare
    # "**References:**" line up to the next heading.
    region: list[tuple[int, str]] = []
    region_numbers: set[int] = set()
    ref_roots = [b for b in builders if b.level > 0 and _is_references_title(b.title)]
    for ref_root in ref_roots:
        for sub in ref_root.walk():
            for number, text in sub.lines:
                if number not in region_numbers:
                    region.append((number, text))
                    region_numbers.add(number)
    has_section = bool(ref_roots)
    for builder in builders:
        if any(number in region_numbers for number, _ in builder.lines):
            continue
        marker_at = next(
            (
                i
                for i, (number, text) in enumerate(builder.lines)
                if number not in fenced and _PSEUDO_REFERENCES_RE.match(text)
            ),
            None,
        )
        if marker_at is not None:
            has_section = True
            for number, text in builder.lines[marker_at:]:
                region_numbers.add(number)
                if number != builder.lines[marker_at][0]:
                    region.append((number, text))
    region.sort()

    references: dict[int, Reference] = {}
    consumed: set[int] = set(region_numbers)

    def add(number: int, entry: str, raw: str, line: int) -> None:
        if number in references:
            diagnostics.append(
                Diagnostic(
                    "duplicate_reference_number",
                    f"[{number}] listed again (first on line {references[number].line}); the first is kept",
                    line,
                )
            )
            return
        title = _paper_reference_title(entry)
        if not title:
            diagnostics.append(
                Diagnostic(
                    "unparsed_reference_line", f"no title in reference entry {raw.strip()[:120]!r}", line
                )
            )
            return
        references[number] = Reference(number, title, raw.strip(), line)

    if has_section:
        bullets: list[tuple[int, str, str]] = []
        unparsed: list[tuple[int, str]] = []
        for number, text in region:
            if not text.strip() or number in fenced:
                continue
            match = PAPER_REFERENCE_RE.match(text) or _NUMBERED_LIST_RE.match(text)
            ref_number = _to_int(match.group(1)) if match else None
            if match and ref_number is not None and match.group(2):
                add(ref_number, match.group(2), text, number)
                continue
            bullet = _BULLET_RE.match(text)
            if bullet:
                bullets.append((number, bullet.group(1), text))
            else:
                unparsed.append((number, text))
        if not references and bullets:
            diagnostics.append(
                Diagnostic(
                    "unnumbered_references",
                    f"the references section lists {len(bullets)} entries without numbers; numbered 1.."
                    f"{len(bullets)} in order, so no [n] in the text can be matched with certainty",
                    bullets[0][0],
                )
            )
            for index, (number, entry, raw) in enumerate(bullets, 1):
                add(index, entry, raw, number)
        else:
            unparsed.extend((number, raw) for number, _entry, raw in bullets)
        for number, text in unparsed:
            diagnostics.append(
                Diagnostic(
                    "unparsed_reference_line",
                    f"line in the references section is not an entry: {text.strip()[:120]!r}",
                    number,
                )
            )
        if not references:
            diagnostics.append(
                Diagnostic(
                    "empty_references_section",
                    "a references section exists but holds no entry; looking for [n] lines elsewhere",
                    min(region_numbers) if region_numbers else None,
                )
            )

    # [n] lines outside the references section: stray when a section was used, else the fallback list.
    blocks: list[list[tuple[int, int, str, str]]] = []
    current: list[tuple[int, int, str, str]] = []
    for number, line in enumerate(lines, 1):
        in_content = number not in region_numbers and number not in fenced and _paper_heading(line) is None
        candidate = _reference_candidate(line) if in_content else None
        if candidate is not None:
            current.append((number, candidate[0], candidate[1], line))
        elif not (in_content and not line.strip()):
            if current:
                blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    outside = [item for block in blocks for item in block]

    if not references and outside:
        main = max(reversed(blocks), key=len)  # the longest block; on a tie the later one
        for number, ref_number, entry, raw in main:
            add(ref_number, entry, raw, number)
            consumed.add(number)
        extras = [item for block in blocks if block is not main for item in block]
        used = 0
        for number, ref_number, entry, raw in extras:
            if ref_number not in references:
                add(ref_number, entry, raw, number)
                consumed.add(number)
                used += 1
        if extras:
            diagnostics.append(
                Diagnostic(
                    "stray_reference_lines",
                    f"{len(extras)} [n] line(s) outside the main reference list (lines "
                    f"{_line_list([item[0] for item in extras])}); "
                    f"{used} used for numbers missing from it, the rest left as text",
                    extras[0][0],
                )
            )
    elif outside:
        diagnostics.append(
            Diagnostic(
                "stray_reference_lines",
                f"{len(outside)} [n] line(s) outside the references section are left as text (lines "
                f"{_line_list([item[0] for item in outside])})",
                outside[0][0],
            )
        )

    root = root_builder.freeze(lambda number: number not in consumed)

    citations: list[Citation] = []
    for node, _depth in _walk(root, prune=_is_references_node):
        content = node.content
        ends: list[int] | None = None
        for match in PAPER_CITATION_RE.finditer(content):
            if ends is None:
                ends = _sentence_ends(content)
            at = match.start()
            k = bisect.bisect_right(ends, at)
            begin = ends[k - 1] if k > 0 else 0
            end = ends[k] if k < len(ends) else len(content)
            sentence = content[begin:end].strip()
            for cited in _expand_citation_group(match.group(1), diagnostics, node.line):
                citations.append(Citation(cited, node.title, sentence, at))

    diagnostics.extend(_missing_numbers_diagnostic(citations, references))
    diagnostics.extend(_final_diagnostics(heading_count, references))
    return GeneratedSurvey(root, references, citations, diagnostics, "paper")


def _line_list(numbers: list[int], shown: int = 10) -> str:
    """A short, human-readable list of line numbers for a diagnostic message."""
    return ", ".join(map(str, numbers[:shown])) + (" ..." if len(numbers) > shown else "")


def _expand_citation_group(group: str, diagnostics: list[Diagnostic], line: int) -> list[int]:
    """Numbers of one bracket group (``1, 3-5``), ranges expanded, repeats within the group dropped."""
    numbers: list[int] = []
    for item in _CITATION_ITEM_RE.finditer(group):
        low = _to_int(item.group(1))
        high = _to_int(item.group(2)) if item.group(2) else low
        if low is None or high is None:
            continue
        if high < low or high - low >= MAX_CITATION_RANGE:
            diagnostics.append(
                Diagnostic(
                    "suspicious_citation_range",
                    f"citation range [{item.group(0)}] kept as its two ends only",
                    line or None,
                )
            )
            numbers.extend((low, high))
        else:
            numbers.extend(range(low, high + 1))
    return list(dict.fromkeys(numbers))
