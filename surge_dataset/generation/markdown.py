"""The evaluator-ready Markdown writer: a :class:`~.draft.Draft` -> the Markdown ``surge evaluate`` reads.

:func:`render_markdown` writes (protocol.md §2):

* ``# <title>``, then ``##`` sections, ``###`` subsections ... (levels nest by construction);
* every label group becomes ``[n]`` with ``n`` numbered by first use in document order;
* a final ``## References`` section with one ``[n] <exact corpus title>`` line per cited paper.

So every reference of a generated survey resolves by construction. A label the LLM invents (one that
is not among the given papers) is dropped from the text and counted, never written. Body lines that
the evaluator would misread are repaired: a line starting with ``#`` would become a heading and a line
starting with ``[n]`` would become a reference entry (the released evaluator scans every such line).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from surge_dataset.core.normalise import normalise_title
from surge_dataset.generation.draft import Draft, DraftSection
from surge_dataset.survey.headings import is_references_label, is_references_title

__all__ = ["RenderedSurvey", "clean_heading", "render_markdown"]

_LABEL = r"(?:P\s*-?\s*)?\d+"
_P_LABEL = r"P\s*-?\s*\d+"
_SEP = r"\s*(?:,|;|&|\band\b)\s*"
_ITEM = rf"{_LABEL}(?:\s*[-\u2013]\s*{_LABEL})?"
_BRACKET_GROUP_RE = re.compile(rf"\[\s*({_ITEM}(?:{_SEP}{_ITEM})*)\s*\]", re.I)
_PAREN_GROUP_RE = re.compile(rf"\(\s*({_P_LABEL}(?:{_SEP}{_P_LABEL})*)\s*\)", re.I)
_ITEM_RE = re.compile(rf"({_LABEL})(?:\s*[-\u2013]\s*({_LABEL}))?", re.I)
_MAX_RANGE = 20
_LEADING_CITES_RE = re.compile(r"^((?:\[\d+\]\s*,?\s*)+)(.*)$")
_SPACE_BEFORE_PUNCT_RE = re.compile(r"[ \t]+([.,;:!?])")
_DOUBLE_SPACE_RE = re.compile(r"(?<=\S)[ \t]{2,}")
_MAX_DEPTH = 6


def _label_number(text: str) -> int:
    return int(re.sub(r"\D", "", text))


def _group_labels(group: str) -> list[str]:
    """``P1, P3-P5`` -> ``["P1", "P3", "P4", "P5"]`` (bare numbers read as labels; long ranges: ends only)."""
    labels: list[str] = []
    for match in _ITEM_RE.finditer(group):
        start = _label_number(match.group(1))
        end = _label_number(match.group(2)) if match.group(2) else start
        numbers = range(start, end + 1) if 0 <= end - start <= _MAX_RANGE else (start, end)
        labels.extend(f"P{n}" for n in numbers)
    return labels


def clean_heading(text: str, fallback: str) -> str:
    """One line, no Markdown markup, no citations; ``fallback`` when nothing is left."""
    line = " ".join(str(text or "").split())
    line = _BRACKET_GROUP_RE.sub("", line)
    line = line.strip().strip("#*_`\"' ").strip()
    line = " ".join(line.split())[:200]
    return line if re.search(r"[A-Za-z0-9]", line) else fallback


@dataclass
class RenderedSurvey:
    """The Markdown and what the writer did: references written, citations kept and dropped."""

    markdown: str
    references: list[dict[str, Any]]  # {"number", "labels", "title"} in number order
    citations: int
    dropped_citations: int
    dropped_labels: list[str]


class _Numbering:
    """Assigns ``[n]`` by first use; labels whose titles normalise alike share one number."""

    def __init__(self, sources: Mapping[str, str]) -> None:
        self.sources = {label.upper(): " ".join(str(title).split()) for label, title in sources.items()}
        self.by_key: dict[str, int] = {}
        self.entries: list[dict[str, Any]] = []
        self.citations = 0
        self.dropped: list[str] = []

    def number(self, label: str, *, cited: bool = True) -> int | None:
        title = self.sources.get(label.upper())
        if not title:
            self.dropped.append(label.upper())
            return None
        key = normalise_title(title) or title
        if key not in self.by_key:
            self.by_key[key] = len(self.entries) + 1
            self.entries.append({"number": len(self.entries) + 1, "labels": [label.upper()], "title": title})
        entry = self.entries[self.by_key[key] - 1]
        if label.upper() not in entry["labels"]:
            entry["labels"].append(label.upper())
        self.citations += int(cited)
        return entry["number"]

    def replace(self, match: re.Match[str]) -> str:
        numbers: list[int] = []
        for label in _group_labels(match.group(1)):
            number = self.number(label)
            if number is not None and number not in numbers:
                numbers.append(number)
        return "".join(f"[{n}]" for n in numbers)


def _cite_first_sentence(text: str, cites: str, *, last: bool = False) -> str:
    """Put ``cites`` before the full stop of the first (or ``last``) sentence, where the evaluator looks."""
    ends = [m.start() for m in re.finditer(r"\.(?=\s|$)", text)]
    if not ends:
        return f"{text} {cites}"
    at = ends[-1] if last else ends[0]
    return f"{text[:at]} {cites}{text[at:]}"


def _render_text(text: str, numbering: _Numbering) -> list[str]:
    """Body text -> lines safe for the evaluator, with citations numbered."""
    text = _BRACKET_GROUP_RE.sub(numbering.replace, str(text or ""))
    text = _PAREN_GROUP_RE.sub(numbering.replace, text)
    lines: list[str] = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = _SPACE_BEFORE_PUNCT_RE.sub(r"\1", _DOUBLE_SPACE_RE.sub(" ", raw.rstrip()))
        stripped = line.strip()
        if stripped.startswith("#"):  # would be read as a heading
            line = stripped = stripped.lstrip("#").strip()
        if stripped and is_references_label(stripped):  # would open a second reference list (the writer adds the one)
            continue
        if stripped.startswith("["):  # "[3] shows ..." would be read as a reference entry
            match = _LEADING_CITES_RE.match(stripped)
            if match:
                cites, rest = match.group(1).replace(" ", "").replace(",", ""), match.group(2).strip()
                if rest and not rest.startswith("["):
                    line = _cite_first_sentence(rest, cites)  # the citation stays in its sentence
                elif lines and lines[-1].strip():
                    lines[-1] = _cite_first_sentence(lines[-1].rstrip(), cites, last=True)
                    continue
                else:
                    line = f"See {cites}."
            else:
                line = "\u2014 " + stripped  # any other bracketed start: harmless prefix
        if not line.strip() and lines and not lines[-1].strip():
            continue  # one blank line between paragraphs is enough
        lines.append(line)
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return lines


def render_markdown(draft: Draft) -> RenderedSurvey:
    """Write a draft as the evaluator's Markdown; citations of unknown labels are dropped and counted."""
    numbering = _Numbering(draft.sources)
    out = [f"# {clean_heading(draft.title, 'Survey')}", ""]

    def walk(sections: Sequence[DraftSection], depth: int) -> None:
        for i, section in enumerate(sections, start=1):
            title = clean_heading(section.title, f"Section {i}")
            if is_references_title(title):
                title = "Related Literature"
            out.append(f"{'#' * min(depth, _MAX_DEPTH)} {title}")
            out.append("")
            body = _render_text(section.text, numbering)
            if body:
                out.extend(body)
                out.append("")
            walk(section.children, depth + 1)

    walk(draft.sections, 2)
    for label in draft.listed:
        if label.upper() in numbering.sources:
            numbering.number(label, cited=False)
    out.append("## References")
    out.append("")
    out.extend(f"[{e['number']}] {e['title']}" for e in numbering.entries)
    return RenderedSurvey(
        markdown="\n".join(out).rstrip() + "\n",
        references=numbering.entries,
        citations=numbering.citations,
        dropped_citations=len(numbering.dropped),
        dropped_labels=sorted(set(numbering.dropped), key=lambda s: (len(s), s)),
    )
