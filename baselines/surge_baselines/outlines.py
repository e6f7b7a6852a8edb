"""Outlines: an LLM's outline answer read into a two-level plan (numbered, Markdown-heading or bulleted lines),
the plan made without the LLM, its text for the section prompts, and a Markdown answer read into nested sections.

Tolerant by design: an LLM answer is never trusted to have any shape; an outline that cannot be read becomes
``[]`` (callers then use :func:`heuristic_outline`). Markdown headings are read by the package's one heading rule
(:func:`surge_dataset.survey.headings.atx_heading`), as every other reader of generated text does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from surge_dataset.core.records import Paper
from surge_dataset.generation import DraftSection, is_references_title
from surge_dataset.survey.headings import atx_heading

from .answer_cleaning import clean_section_text, split_references
from .lexical import TfIdf, cluster_name, cluster_papers

__all__ = [
    "OutlineItem",
    "heuristic_outline",
    "outline_text",
    "parse_markdown_sections",
    "parse_outline",
    "to_draft_sections",
    "usable_title",
    "walk_outline",
]


@dataclass
class OutlineItem:
    """A planned heading: title, a short description of what it covers, its subsections, its papers."""

    title: str
    description: str = ""
    children: list[OutlineItem] = field(default_factory=list)
    papers: list[int] = field(default_factory=list)  # indices into the generator's paper list

    def leaves(self) -> list[OutlineItem]:
        return [leaf for child in self.children for leaf in child.leaves()] if self.children else [self]


def markdown_heading(line: str) -> tuple[int, str] | None:
    """``(level, title)`` of a Markdown heading line with a non-blank title (the package's ATX heading rule)."""
    heading = atx_heading(line)
    return heading if heading and heading[1].strip() else None


_NUMBERED_RE = re.compile(r"^\s*(?:section\s+|chapter\s+)?(\d{1,2}(?:\.\d{1,2})*)\.?[:)]?\s+(.+)$", re.I)
_LEADING_EMPHASIS_RE = re.compile(r"^(\s*)[*_]{1,3}(?=\S)")
_LEADING_NUMBER_RE = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,4}\.)\s+")
_ROMAN_RE = re.compile(r"^\s*([IVX]{1,4})[.)]\s+(.+)$")
_LETTER_RE = re.compile(r"^\s*([A-Ha-h])[.)]\s+(.+)$")
_BULLET_RE = re.compile(r"^(\s*)[-*\u2022+]\s+(.+)$")
_SPLIT_RE = re.compile(r"\s*(?::|\s[-\u2013\u2014]\s)\s*")
_SKIP_TITLES = re.compile(r"^(?:title|outline|survey outline|abstract|table of contents|contents)\b", re.I)


def _title_and_description(text: str) -> tuple[str, str]:
    text = text.strip().strip("*_`").strip()
    text = re.sub(r"\*\*|__", "", text)
    parts = _SPLIT_RE.split(text, maxsplit=1)
    title = _LEADING_NUMBER_RE.sub("", parts[0].strip().strip("\"'").strip())
    description = parts[1].strip() if len(parts) > 1 else ""
    return title, description


def usable_title(title: str) -> bool:
    letters = re.sub(r"[^A-Za-z]", "", title)
    return (
        len(letters) >= 3
        and len(title) <= 120
        and not is_references_title(title)
        and not _SKIP_TITLES.match(title)
        and "[" not in title
    )


def parse_outline(text: str | None, max_sections: int, max_subsections: int, *, skip: str = "") -> list[OutlineItem]:
    """Numbered, Markdown-heading or bulleted lines -> a two-level outline; ``[]`` when fewer than 2 sections.

    ``skip``: a title to ignore (the survey title, which models like to repeat as the first heading).
    """
    entries: list[tuple[int, str, str]] = []  # (depth or -level for markdown, title, description)
    md_levels: list[int] = []
    for raw in (text or "").splitlines():
        line = _LEADING_EMPHASIS_RE.sub(r"\1", raw.rstrip())  # "**1. Title**" -> "1. Title**"
        if not line.strip() or line.strip().startswith("```"):
            continue
        depth: int | None = None
        body = ""
        if heading := markdown_heading(line):
            level, body = heading[0], heading[1].strip().strip("#*_ ")
            if skip and body.lower() == skip.strip().lower():
                continue
            if numbered := _NUMBERED_RE.match(body):  # "## 2.1 Title": the number says the depth
                depth, body = min(2, numbered.group(1).count(".") + 1), numbered.group(2)
            else:
                depth = -level
                md_levels.append(level)
        elif m := _NUMBERED_RE.match(line):
            depth, body = min(2, m.group(1).count(".") + 1), m.group(2)
        elif m := _ROMAN_RE.match(line):
            depth, body = 1, m.group(2)
        elif m := _LETTER_RE.match(line):
            depth, body = 2, m.group(2)
        elif m := _BULLET_RE.match(line):
            depth, body = (1 if len(m.group(1).expandtabs(4)) < 2 else 2), m.group(2)
        if depth is None:
            if entries and len(line.strip()) < 300 and not entries[-1][2]:  # a description on its own line
                d, t, _ = entries[-1]
                entries[-1] = (d, t, line.strip())
            continue
        title, description = _title_and_description(body)
        if skip and title.strip().lower() == skip.strip().lower():
            continue
        if usable_title(title):
            entries.append((depth, title, description))
    top = min(md_levels) if md_levels else 0
    sections: list[OutlineItem] = []
    for depth, title, description in entries:
        level = (1 if -depth <= top else 2) if depth < 0 else depth
        item = OutlineItem(title[:120], description[:300])
        if level == 1 or not sections:
            if len(sections) < max_sections and title.lower() not in {s.title.lower() for s in sections}:
                sections.append(item)
        elif len(sections[-1].children) < max_subsections and title.lower() not in {
            c.title.lower() for c in sections[-1].children
        }:
            sections[-1].children.append(item)
    return sections if len(sections) >= 2 else []


def heuristic_outline(topic: str, papers: Sequence[Paper], max_sections: int, index: TfIdf | None = None) -> list[OutlineItem]:
    """An outline without the LLM: Introduction, one section per paper cluster, challenges, conclusion."""
    max_sections = max(2, max_sections)
    n_clusters = max(1, max_sections - 2) if papers else 0
    middle = [
        OutlineItem(cluster_name([papers[i] for i in group], exclude=topic), "", [], list(group))
        for group in cluster_papers(papers, n_clusters, index)
    ] if papers else [
        OutlineItem("Background and Key Concepts"), OutlineItem("Main Approaches"), OutlineItem("Applications"),
    ][: max(1, max_sections - 2)]
    seen: set[str] = set()
    for item in middle:  # clusters can share their top words: keep headings distinct
        base, n = item.title, 2
        while item.title.lower() in seen:
            item.title, n = f"{base} ({n})", n + 1
        seen.add(item.title.lower())
    outline = [OutlineItem("Introduction", f"motivation and scope of {topic}")]
    outline += middle
    outline.append(OutlineItem("Open Challenges and Future Directions", "limitations and open problems"))
    return outline[:max_sections] if len(outline) > max_sections else outline


def walk_outline(outline: Sequence[OutlineItem], path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], OutlineItem]]:
    """Every item with its heading path (titles from the top), pre-order."""
    out: list[tuple[tuple[str, ...], OutlineItem]] = []
    for item in outline:
        here = (*path, item.title)
        out.append((here, item))
        out.extend(walk_outline(item.children, here))
    return out


def outline_text(outline: Sequence[OutlineItem]) -> str:
    """The outline as the section prompts show it (``1.``, ``1.1``, ``1.1.1`` ...)."""
    lines: list[str] = []

    def walk(items: Sequence[OutlineItem], prefix: str, depth: int) -> None:
        for i, item in enumerate(items, start=1):
            number = f"{prefix}{i}"
            lines.append(f"{'   ' * depth}{number}{'.' if depth == 0 else ''} {item.title}")
            walk(item.children, f"{number}.", depth + 1)

    walk(outline, "", 0)
    return "\n".join(lines)


def to_draft_sections(outline: Sequence[OutlineItem], texts: dict[int, str]) -> list[DraftSection]:
    """Outline items -> draft sections; ``texts`` maps ``id(item)`` to the item's text."""
    return [
        DraftSection(item.title, texts.get(id(item), ""), to_draft_sections(item.children, texts)) for item in outline
    ]


_BOLD_LINE_RE = re.compile(r"^\s*(?:\*\*|__)([^*_]{3,100})(?:\*\*|__)\s*:?\s*$")


def parse_markdown_sections(text: str | None, *, skip: str = "", max_depth: int = 3) -> list[DraftSection]:
    """A Markdown answer -> nested sections (levels relative to its shallowest heading); ``[]`` without headings.

    Text before the first heading becomes an "Introduction" section; bold-only lines count as headings
    when the answer has no ``#`` heading at all (small models often write ``**Introduction**``).
    """
    body, _ = split_references(text or "")
    lines = body.splitlines()
    marks: list[tuple[int, int, str]] = []  # (line index, level, title)
    for i, line in enumerate(lines):
        if heading := markdown_heading(line):
            level, title = heading[0], heading[1].strip()
            if not (skip and title.strip("*_ ").lower() == skip.lower()):
                marks.append((i, level, title))
    if not marks:
        marks = [(i, 1, m.group(1).strip()) for i, line in enumerate(lines) if (m := _BOLD_LINE_RE.match(line))]
    marks = [(i, lvl, t) for i, lvl, t in marks if re.search(r"[A-Za-z]{3}", t)]
    if not marks:
        return []
    top = min(level for _, level, _ in marks)
    skip_lines = {i for i, line in enumerate(lines) if markdown_heading(line)}
    sections: list[DraftSection] = []
    preface = clean_section_text("\n".join(lines[: marks[0][0]]))
    if preface:
        sections.append(DraftSection("Introduction", preface))
    stack: list[tuple[int, DraftSection]] = []
    for n, (i, level, title) in enumerate(marks):
        end = marks[n + 1][0] if n + 1 < len(marks) else len(lines)
        text = clean_section_text("\n".join(ln for j, ln in enumerate(lines[i + 1 : end], start=i + 1) if j not in skip_lines), title)
        depth = min(max_depth, level - top + 1)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        depth = min(depth, stack[-1][0] + 1 if stack else 1)
        section = DraftSection(title.strip("*_ ")[:120], text)
        siblings = stack[-1][1].children if stack else sections
        if siblings and siblings[-1].title.lower() == section.title.lower():  # a repeated heading: merge
            section = siblings[-1]
            section.text = "\n\n".join(t for t in (section.text, text) if t)
        else:
            siblings.append(section)
        stack.append((depth, section))
    return sections
