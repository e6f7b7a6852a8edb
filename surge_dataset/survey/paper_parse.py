"""The ``paper`` reading: the SurGE paper's text, read robustly (protocol.md §2-§4).

The reference list comes from a References / Bibliography / Works Cited section (a heading, or a bare
``**References:**`` line) when there is one, else from the main block of ``[n]`` lines anywhere; titles
are taken whole from ``[n] Title``, ``[n] Authors. (year). *Title*`` and (best effort) ``[n] Authors.
Title. Venue, year.``; citations ``[3]``, ``[1, 2]``, ``[1-3]``, ``[1; 2]``, ``[1][2]`` are all found,
none in math, code or link targets and none citing 0 (:mod:`.citations`, the rule ``surge import`` shares);
sentences end at ``.``/``?``/``!`` followed by white space (common abbreviations excepted) or at a line
break; the references section is neither a heading, a content section nor a source of citation instances.
"""

from __future__ import annotations

import bisect
import re

from surge_dataset.core.diagnostics import Diagnostic, diagnostic
from surge_dataset.survey.citations import (
    MAX_CITATION_RANGE,
    citation_groups,
    expand_citation_range,
)
from surge_dataset.survey.diagnostics import final_diagnostics, line_list, missing_numbers_diagnostic
from surge_dataset.survey.entry_scan import first_emphasis, first_quoted, replace_links
from surge_dataset.survey.headings import (
    atx_heading,
    is_references_label,
    is_references_node,
    is_references_title,
    strip_wrapping_emphasis,
)
from surge_dataset.survey.model import Citation, GeneratedSurvey, Reference, SurveyNode, walk_nodes
from surge_dataset.survey.tree import NodeBuilder, build_tree, to_int

__all__ = ["MARKDOWN_LINK_RE", "MAX_CITATION_RANGE", "expand_citation_range", "parse_paper"]

#: A numbered reference entry: optional list bullet, ``[n]`` (or footnote ``[^n]:``), the entry text.
#: The entry text is empty or ends in a non-space, as the shortest text before trailing white space always does:
#: a lazy ``(.*?)\s*$`` alone retried the trailing ``\s*$`` at every space of a long run (quadratic on a line of
#: spaces); stopping only after a non-space keeps these three patterns linear and their matches the same.
PAPER_REFERENCE_RE = re.compile(r"^\s*(?:[-*+]\s+)?\[\^?(\d+)\]\s*[:.)]?\s*((?:.*?\S)??)\s*$")
_NUMBERED_LIST_RE = re.compile(r"^\s*(\d+)[.)]\s+(\S(?:.*?\S)??)\s*$")
_BULLET_RE = re.compile(r"^\s*[-*+]\s+(\S(?:.*?\S)??)\s*$")
#: ``*emphasised*`` text inside an entry; underscores are left alone (LaTeX subscripts use them). This pattern, the
#: link pattern and the quoted-title pattern define what an entry's title is; :mod:`.entry_scan` computes their
#: matches in linear time.
_EMPHASIS_RE = re.compile(r"(?<![*\w])(\*{1,3})(?!\s)(.+?)(?<!\s)\1(?![*\w])")
_QUOTED_WHOLE_RE = re.compile(r"^([\"'\u201c\u2018])(.+)([\"'\u201d\u2019])$")
#: A Markdown link ``[text](url)``: its text is kept (reference entries, imported reference lists).
MARKDOWN_LINK_RE = re.compile(r"\[([^\]]+)\]\([^)]*\)")
#: ``authors`` ends in a non-space (its text is stripped, so that is the shortest match too), which keeps a long
#: run of spaces from being retried at each of its positions.
_APA_RE = re.compile(
    r"^(?P<authors>.*?\S)\s*[\(\[](?P<year>(?:19|20)\d{2}[a-z]?|n\.\s?d\.?|in\s+press|forthcoming)[\)\]]"
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


def _paper_heading(line: str) -> tuple[int, str] | None:
    """The paper reading's heading: a CommonMark ATX heading (:data:`~.headings.ATX_HEADING_RE`), emphasis unwrapped."""
    heading = atx_heading(line)
    return None if heading is None else (heading[0], strip_wrapping_emphasis(heading[1]))


def _clean_title(title: str) -> str:
    title = strip_wrapping_emphasis(title.strip())
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


def paper_reference_title(entry: str) -> str:
    """The title of a reference entry in any of the styles generated surveys use (best effort)."""
    text = replace_links(entry).strip()
    apa = _APA_RE.match(text)
    if apa and re.search(r"[^\W\d_]", apa.group("rest")):
        authors, rest = apa.group("authors").strip(), apa.group("rest").strip()
        leading = first_emphasis(rest, anchored=True)
        if leading:
            return _clean_title(leading)
        if authors.endswith(".") or _looks_like_authors(authors):
            segments = _split_segments(rest)
            return _clean_title(segments[0] if segments else rest)
    emphasised = first_emphasis(text)
    if emphasised:
        return _clean_title(emphasised)
    quoted = first_quoted(text)
    if quoted:
        return _clean_title(quoted)
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
    number = to_int(match.group(1))
    if number is None or _looks_like_prose(match.group(2)):
        return None
    return number, match.group(2)


def parse_paper(lines: list[str], diagnostics: list[Diagnostic]) -> GeneratedSurvey:
    """Tree, reference list and citation instances of right-stripped ``lines`` under the paper's rules."""
    root_builder, heading_count, fenced = build_tree(lines, _paper_heading, fence_aware=True)
    region, region_numbers, has_section = _references_region(list(root_builder.walk()), fenced)
    references = _ReferenceList(diagnostics)
    if has_section:
        _read_references_section(region, region_numbers, fenced, references, diagnostics)
    consumed = set(region_numbers) | _read_lines_outside(
        _reference_line_blocks(lines, region_numbers, fenced), references, diagnostics)
    root = root_builder.freeze(lambda number: number not in consumed)
    citations = _citation_instances(root, diagnostics)
    diagnostics.extend(missing_numbers_diagnostic(citations, references.by_number))
    diagnostics.extend(final_diagnostics(heading_count, references.by_number))
    return GeneratedSurvey(root, references.by_number, citations, diagnostics, "paper")


def _references_region(builders: list[NodeBuilder], fenced: set[int]) -> tuple[list[tuple[int, str]], set[int], bool]:
    """``(region, its line numbers, whether a references section exists)``: the lines under a References heading
    (and its sub-headings), or after a bare "**References:**" line up to the next heading."""
    region: list[tuple[int, str]] = []
    region_numbers: set[int] = set()
    ref_roots = [b for b in builders if b.level > 0 and is_references_title(b.title)]
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
                if number not in fenced and is_references_label(text)
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
    return region, region_numbers, has_section


class _ReferenceList:
    """The reference list being read: the first entry of a number is kept, a repeat or an entry without a title is
    a diagnostic."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.by_number: dict[int, Reference] = {}
        self.diagnostics = diagnostics

    def __contains__(self, number: int) -> bool:
        return number in self.by_number

    def __bool__(self) -> bool:
        return bool(self.by_number)

    def add(self, number: int, entry: str, raw: str, line: int) -> None:
        if number in self.by_number:
            self.diagnostics.append(
                diagnostic(
                    "duplicate_reference_number",
                    f"[{number}] listed again (first on line {self.by_number[number].line}); the first is kept",
                    line,
                )
            )
            return
        title = paper_reference_title(entry)
        if not title:
            self.diagnostics.append(
                diagnostic(
                    "unparsed_reference_line", f"no title in reference entry {raw.strip()[:120]!r}", line
                )
            )
            return
        self.by_number[number] = Reference(number, title, raw.strip(), line)


def _read_references_section(region: list[tuple[int, str]], region_numbers: set[int], fenced: set[int],
                             references: _ReferenceList, diagnostics: list[Diagnostic]) -> None:
    """The entries of the references section: numbered ones, else its bullets numbered in order."""
    bullets: list[tuple[int, str, str]] = []
    unparsed: list[tuple[int, str]] = []
    for number, text in region:
        if not text.strip() or number in fenced:
            continue
        match = PAPER_REFERENCE_RE.match(text) or _NUMBERED_LIST_RE.match(text)
        ref_number = to_int(match.group(1)) if match else None
        if match and ref_number is not None and match.group(2):
            references.add(ref_number, match.group(2), text, number)
            continue
        bullet = _BULLET_RE.match(text)
        if bullet:
            bullets.append((number, bullet.group(1), text))
        else:
            unparsed.append((number, text))
    if not references and bullets:
        diagnostics.append(
            diagnostic(
                "unnumbered_references",
                f"the references section lists {len(bullets)} entries without numbers; numbered 1.."
                f"{len(bullets)} in order, so no [n] in the text can be matched with certainty",
                bullets[0][0],
            )
        )
        for index, (number, entry, raw) in enumerate(bullets, 1):
            references.add(index, entry, raw, number)
    else:
        unparsed.extend((number, raw) for number, _entry, raw in bullets)
    for number, text in unparsed:
        diagnostics.append(
            diagnostic(
                "unparsed_reference_line",
                f"line in the references section is not an entry: {text.strip()[:120]!r}",
                number,
            )
        )
    if not references:
        diagnostics.append(
            diagnostic(
                "empty_references_section",
                "a references section exists but holds no entry; looking for [n] lines elsewhere",
                min(region_numbers) if region_numbers else None,
            )
        )


def _reference_line_blocks(lines: list[str], region_numbers: set[int],
                           fenced: set[int]) -> list[list[tuple[int, int, str, str]]]:
    """The ``[n]`` lines outside the references section, in blocks of consecutive lines (blank lines between
    them allowed): ``(line number, n, entry, raw line)``."""
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
    return blocks


def _read_lines_outside(blocks: list[list[tuple[int, int, str, str]]], references: _ReferenceList,
                        diagnostics: list[Diagnostic]) -> set[int]:
    """``[n]`` lines outside the references section: stray when a section gave entries, else the fallback list
    (the longest block, then the others for numbers it lacks). The line numbers taken as entries."""
    consumed: set[int] = set()
    outside = [item for block in blocks for item in block]
    if not references and outside:
        main = max(reversed(blocks), key=len)  # the longest block; on a tie the later one
        for number, ref_number, entry, raw in main:
            references.add(ref_number, entry, raw, number)
            consumed.add(number)
        extras = [item for block in blocks if block is not main for item in block]
        used = 0
        for number, ref_number, entry, raw in extras:
            if ref_number not in references:
                references.add(ref_number, entry, raw, number)
                consumed.add(number)
                used += 1
        if extras:
            diagnostics.append(
                diagnostic(
                    "stray_reference_lines",
                    f"{len(extras)} [n] line(s) outside the main reference list (lines "
                    f"{line_list([item[0] for item in extras])}); "
                    f"{used} used for numbers missing from it, the rest left as text",
                    extras[0][0],
                )
            )
    elif outside:
        diagnostics.append(
            diagnostic(
                "stray_reference_lines",
                f"{len(outside)} [n] line(s) outside the references section are left as text (lines "
                f"{line_list([item[0] for item in outside])})",
                outside[0][0],
            )
        )
    return consumed


def _citation_instances(root: SurveyNode, diagnostics: list[Diagnostic]) -> list[Citation]:
    """Every citation of every content node (the references section pruned), with the sentence it sits in."""
    citations: list[Citation] = []
    for node, _depth in walk_nodes(root, prune=is_references_node):
        content = node.content
        ends: list[int] | None = None
        sentences: dict[tuple[int, int], str] = {}  # one string per sentence, shared by all its citations
        for group in citation_groups(content):
            if ends is None:
                ends = _sentence_ends(content)
            at = group.start
            k = bisect.bisect_right(ends, at)
            begin = ends[k - 1] if k > 0 else 0
            end = ends[k] if k < len(ends) else len(content)
            if (begin, end) not in sentences:
                sentences[begin, end] = content[begin:end].strip()
            sentence = sentences[begin, end]
            for item in group.clipped:
                diagnostics.append(diagnostic("suspicious_citation_range",
                                              f"citation range [{item}] kept as its two ends only", node.line or None))
            citations.extend(Citation(cited, node.title, sentence, at) for cited in group.numbers)
    return citations
