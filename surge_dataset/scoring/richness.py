"""Non-textual richness: the tables, figures, display equations and code blocks of a generated survey.

SurveyBench (arXiv 2510.03120) scores "non-textual richness"; its released code counts Markdown images and tables
and divides by the survey's length in characters (x 10^5). Ours counts what a person counts when reading the
rendered Markdown, by these rules, and reports each kind absolute and per 1,000 words
(``metrics/richness/README.md`` lists the differences):

1. **Reference list**: everything from the last References / Bibliography heading (or a bare ``References:``
   line) to the end is left out, as the reference list is not part of the text.
2. **Code blocks**: fenced blocks (a line of three or more backticks or tildes, up to three spaces indented, to
   the next fence of the same character at least as long, or to the end). One block is one code block, except
   a fence whose info string is ``math`` (a display equation) or ``mermaid`` (a diagram: a figure). Nothing
   inside a fence counts as anything else. Indented code (four spaces) is not counted: in generated surveys it
   is mostly a list continuation.
3. **Display equations**: ``$$ ... $$`` (one or several lines), ``\\[ ... \\]`` starting and ending a line, and
   the LaTeX environments equation, align, gather, multline, eqnarray, displaymath (starred or not) outside
   both; each counts once. Inline math (``$x$``) is text.
4. **Tables**: a GitHub-style pipe table, i.e. a row with a ``|`` followed by a delimiter row (``| --- | :-: |``);
   one header and delimiter pair is one table however many rows follow. An HTML ``<table>`` element is one table.
5. **Figures**: Markdown images ``![alt](src)`` and ``![alt][ref]``, HTML ``<img>`` elements, ``mermaid`` fences.
   A caption alone ("Figure 2 shows ...") is no figure.
6. **Words**: whitespace-separated tokens with at least one letter, outside code blocks, display equations,
   images and HTML tags (table cells count: they are text). ``[12]`` and ``2021`` are not words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from surge_dataset.survey.headings import ATX_HEADING_RE, is_references_label, is_references_title

__all__ = ["Richness", "count_richness"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)")
_DOLLARS = re.compile(r"\$\$(.+?)\$\$", re.S)
_BRACKETS = re.compile(r"^[ \t]*\\\[(.*?)\\\][ \t]*$", re.S | re.M)
_ENVIRONMENT = re.compile(
    r"\\begin\{(equation|align|gather|multline|eqnarray|displaymath)(\*?)\}.*?\\end\{\1\2\}", re.S)
_DELIMITER_ROW = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
_HTML_TABLE = re.compile(r"<table\b", re.I)
_IMAGE = re.compile(r"!\[[^\]\n]*\](?:\([^)\n]*\)|\[[^\]\n]*\])")
_HTML_IMAGE = re.compile(r"<img\b[^>]*>", re.I)
_HTML_TAG = re.compile(r"<[^>\n]+>")


@dataclass(frozen=True)
class Richness:
    """What one survey holds besides its prose (counting rules: the module docstring)."""

    tables: int
    figures: int
    equations: int
    code_blocks: int
    words: int

    def per_1k_words(self, count: int) -> float | None:
        """``count`` per 1,000 words; None for a survey without words."""
        return count * 1000 / self.words if self.words else None


def _body(lines: list[str]) -> list[str]:
    """The lines before the reference list (rule 1): cut at the last References heading outside a fence."""
    cut, fence = len(lines), None
    for number, line in enumerate(lines):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            continue
        if fence is not None:
            if _closes(line, fence):
                fence = None
            continue
        heading = ATX_HEADING_RE.match(line)
        if is_references_title(heading.group(2)) if heading else is_references_label(line):
            cut = number
    return lines[:cut]


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return len(line) - len(line.lstrip(" ")) <= 3 and set(stripped) == {fence[0]} and len(stripped) >= len(fence)


def _fenced(lines: list[str]) -> tuple[list[str], dict[str, int]]:
    """The lines outside fences (fenced lines blanked) and the fenced blocks by kind (rule 2)."""
    kinds = {"code": 0, "math": 0, "mermaid": 0}
    kept: list[str] = []
    fence: str | None = None
    for line in lines:
        if fence is None:
            match = _FENCE.match(line)
            if match:
                fence = match.group(1)
                info = match.group(2).lower()
                kinds[info if info in ("math", "mermaid") else "code"] += 1
                kept.append("")
                continue
            kept.append(line)
        else:
            if _closes(line, fence):
                fence = None
            kept.append("")
    return kept, kinds


def count_richness(markdown: str) -> Richness:
    """Tables, figures, display equations, code blocks and words of a survey's Markdown."""
    lines, fenced = _fenced(_body(markdown.replace("\r\n", "\n").split("\n")))
    text = "\n".join(lines)
    equations = fenced["math"]
    for pattern in (_DOLLARS, _BRACKETS, _ENVIRONMENT):  # in this order: an environment inside $$ counts once
        equations += len(pattern.findall(text))
        text = pattern.sub(" ", text)
    rows = text.split("\n")
    tables = sum(1 for above, row in zip(rows, rows[1:], strict=False)
                 if "|" in above and "|" in row and "-" in row and _DELIMITER_ROW.match(row)
                 and not _DELIMITER_ROW.match(above))
    tables += len(_HTML_TABLE.findall(text))
    figures = len(_IMAGE.findall(text)) + len(_HTML_IMAGE.findall(text)) + fenced["mermaid"]
    prose = _HTML_TAG.sub(" ", _IMAGE.sub(" ", text))
    words = sum(1 for token in prose.split() if any(ch.isalpha() for ch in token))
    return Richness(tables=tables, figures=figures, equations=equations, code_blocks=fenced["code"], words=words)
