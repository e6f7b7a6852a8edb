"""The ``official`` reading: the released evaluator's rules (``markdownParser``, ``informationFuncs``), quirks kept.

Rules, as regular expressions written for this module (protocol.md §4, "Released evaluator, exact
behaviour"):

* heading: :data:`OFFICIAL_HEADING_RE` ``^(#+)\\s+(.*)`` on the right-stripped line; level = number of
  ``#``; content = the other lines (blank ones too) joined with ``"\\n"``; text before the first heading
  is the root's.
* reference line: every stripped line starting with ``[`` that matches :data:`OFFICIAL_REFERENCE_RE`: the
  title is the final run of word/space/``:,.-`` characters, so a title ending in ``?``, ``'``, ``)``,
  ``/``, ``**`` ... keeps only the text after that character, or is lost altogether. A repeated number
  keeps the last title.
* citation: :data:`OFFICIAL_CITATION_RE` ``\\[(\\d+)\\]`` anywhere in a node's content (reference-list lines
  included); its sentence runs from after the last ``.`` before the match to the first ``.`` at or after
  it (exclusive; end of content if none), stripped. Nodes skipped: see :func:`.headings.official_skipped`.
"""

from __future__ import annotations

import bisect
import functools
import re

from surge_dataset.core.diagnostics import Diagnostic, diagnostic
from surge_dataset.survey.diagnostics import final_diagnostics, missing_numbers_diagnostic
from surge_dataset.survey.headings import official_skipped
from surge_dataset.survey.model import Citation, GeneratedSurvey, Reference, walk_nodes
from surge_dataset.survey.tree import build_tree, to_int

#: A heading line: one or more ``#``, white space, the title (the rest of the line).
OFFICIAL_HEADING_RE = re.compile(r"^(#+)\s+(.*)")
#: A reference line: ``[n]``, optional spaces, then the shortest run of anything, an optional ``*``, the
#: title (a final run of word, space, ``:``, ``,``, ``.``, ``-`` characters), an optional ``*`` and the end;
#: or just such a final run. Documented and tested; :func:`official_reference` computes the same match
#: in linear time because the lazy ``.*?`` makes this pattern quadratic on long lines.
OFFICIAL_REFERENCE_RE = re.compile(r"^\[(\d+)\]\s*(?:.*?\*?([\w\s:,.-]+)\*?|([\w\s:,.-]+))$")
#: A citation instance: a number in square brackets, nothing else inside.
OFFICIAL_CITATION_RE = re.compile(r"\[(\d+)\]")
_OFFICIAL_TITLE_CHAR = re.compile(r"[\w\s:,.-]")
OFFICIAL_NUMBERED_LINE_RE = re.compile(r"\[(\d+)\]")


def official_heading(line: str) -> tuple[int, str] | None:
    """(level, title) of a heading line, or None."""
    match = OFFICIAL_HEADING_RE.match(line)
    return (len(match.group(1)), match.group(2)) if match else None


@functools.lru_cache(maxsize=4096)
def _is_official_title_char(char: str) -> bool:
    return _OFFICIAL_TITLE_CHAR.fullmatch(char) is not None


def official_reference(stripped: str) -> tuple[int, str, int, int] | None:
    """What :data:`OFFICIAL_REFERENCE_RE` extracts: (number, title, title start, end of the ``[n]`` prefix).

    The lazy ``.*?`` takes the first position from which the rest is ``*``? run ``*``? end, so the title
    is the longest run of title characters ending the line (before one optional final ``*``); no such run
    means no match. Computed by a backwards scan so that long lines stay linear.
    """
    prefix = OFFICIAL_NUMBERED_LINE_RE.match(stripped)
    if prefix is None:
        return None
    number = to_int(prefix.group(1))
    if number is None:
        return None
    body = stripped[:-1] if stripped.endswith("*") else stripped
    start = len(body)
    while start > prefix.end() and _is_official_title_char(body[start - 1]):
        start -= 1
    if start == len(body):
        return None
    return number, body[start:].strip(), start, prefix.end()


def official_citations(content: str) -> list[tuple[int, str, int]]:
    """(number, sentence, offset) of every ``[n]`` in one node's content, the released sentence rule."""
    found: list[tuple[int, str, int]] = []
    dots: list[int] | None = None
    # one string per sentence, shared by its citations: a sentence citing thousands of times must not be
    # copied once per citation (memory grows with citations x sentence length)
    sentences: dict[tuple[int, int], str] = {}
    for match in OFFICIAL_CITATION_RE.finditer(content):
        cited = to_int(match.group(1))
        if cited is None:
            continue
        if dots is None:
            dots = [i for i, char in enumerate(content) if char == "."]
        at = match.start()
        k = bisect.bisect_left(dots, at)  # dots[k] is the first '.' at or after the match start
        begin = dots[k - 1] + 1 if k > 0 else 0
        end = dots[k] if k < len(dots) else len(content)
        if (begin, end) not in sentences:
            sentences[begin, end] = content[begin:end].strip()
        found.append((cited, sentences[begin, end], at))
    return found


def official_references(lines: list[str], diagnostics: list[Diagnostic]) -> dict[int, Reference]:
    """The reference list: every ``[n] ...`` line of the file, wherever it stands (a repeat keeps the last)."""
    references: dict[int, Reference] = {}
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped.startswith("["):
            continue
        parsed = official_reference(stripped)
        if parsed is None:
            prefix = OFFICIAL_NUMBERED_LINE_RE.match(stripped)
            if prefix and stripped[prefix.end() :].strip():
                diagnostics.append(
                    diagnostic(
                        "unparsed_reference_line",
                        f"the released reference pattern finds no title in {stripped[:120]!r} "
                        "(`--protocol paper` reads such titles)",
                        number,
                    )
                )
            continue
        ref_number, title, start, prefix_end = parsed
        before_at = start - 2 if stripped[start - 1] == "*" else start - 1
        before = stripped[before_at] if before_at >= prefix_end else ""
        if before and not before.isspace():
            diagnostics.append(
                diagnostic(
                    "official_title_cut",
                    f"the released pattern keeps only the text after {before!r}: {title!r} "
                    "(`--protocol paper` reads the whole title)",
                    number,
                )
            )
        if ref_number in references:
            diagnostics.append(
                diagnostic(
                    "duplicate_reference_number",
                    f"[{ref_number}] listed again (first on line {references[ref_number].line}); "
                    "the released evaluator keeps the last title",
                    number,
                )
            )
        references[ref_number] = Reference(ref_number, title, stripped, number)
    return references


def parse_official(lines: list[str], diagnostics: list[Diagnostic]) -> GeneratedSurvey:
    """Tree, reference list and citation instances of right-stripped ``lines`` under the released rules."""
    root_builder, heading_count, _ = build_tree(lines, official_heading, fence_aware=False)
    root = root_builder.freeze()
    references = official_references(lines, diagnostics)
    citations: list[Citation] = []
    for node, depth in walk_nodes(root):
        if depth == 0 or official_skipped(node.title):
            continue
        citations.extend(Citation(n, node.title, sentence, at) for n, sentence, at in official_citations(node.content))
    diagnostics.extend(missing_numbers_diagnostic(citations, references))
    diagnostics.extend(final_diagnostics(heading_count, references))
    return GeneratedSurvey(root, references, citations, diagnostics, "official")
