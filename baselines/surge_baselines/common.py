"""Helpers every baseline shares: paper lists for prompts, lexical similarity, outlines, answer cleaning.

Everything here is deterministic and tolerant: an LLM answer is never trusted to have any shape. An
outline that cannot be read becomes ``[]`` (callers then use :func:`heuristic_outline`), a section
answer is reduced to prose (headings, code fences and any reference list the model wrote removed).
Lexical similarity is TF-IDF over title + abstract: no model download, and good enough to route a
section's papers to it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from surge_dataset.core.records import Paper
from surge_dataset.generation import DraftSection, Generator, is_references_title, label_of
from surge_dataset.generation.inputs import paper_lines

from .prompts import BASELINE_PROMPTS_VERSION

__all__ = [
    "LABEL_RE",
    "BaselineGenerator",
    "OutlineItem",
    "TfIdf",
    "clean_section_text",
    "cluster_name",
    "cluster_papers",
    "head",
    "heuristic_outline",
    "outline_text",
    "paper_lines",
    "parse_markdown_sections",
    "parse_outline",
    "split_references",
    "tail",
    "to_draft_sections",
    "top_matches",
    "usable_title",
    "walk_outline",
]

_STOPWORDS = frozenset(
    """a an and are as at be by for from has have in into is it its of on or that the their this to
    via was were with we our using based towards toward new approach approaches method methods study
    survey review paper papers learning model models analysis toward can these which""".split()
)
_WORD_RE = re.compile(r"[a-z][a-z0-9\-]+")
#: A paper label as the LLM writes it (``P3``); used to see which papers a text cites.
LABEL_RE = re.compile(r"\bP\s*(\d+)\b")


def words(text: str) -> list[str]:
    return [w for w in _WORD_RE.findall(text.lower()) if w not in _STOPWORDS and len(w) > 2]


def paper_text(paper: Paper) -> str:
    return f"{paper.title}. {paper.abstract or ''}"


class TfIdf:
    """L2-normalised TF-IDF vectors of a fixed set of documents, and cosine queries against them."""

    def __init__(self, documents: Sequence[str]) -> None:
        tokenised = [words(d) for d in documents]
        df = Counter(w for doc in tokenised for w in set(doc))
        self.vocab = {w: i for i, w in enumerate(sorted(df))}
        n = max(1, len(documents))
        self.idf = np.array([math.log((1 + n) / (1 + df[w])) + 1.0 for w in sorted(df)])
        self.matrix = np.vstack([self.vector(doc, tokenised=True) for doc in tokenised]) if tokenised else np.zeros((0, 0))

    def vector(self, text: str | list[str], *, tokenised: bool = False) -> np.ndarray:
        vec = np.zeros(len(self.vocab))
        for word, count in Counter(text if tokenised else words(text)).items():  # type: ignore[arg-type]
            index = self.vocab.get(word)
            if index is not None:
                vec[index] = (1 + math.log(count)) * self.idf[index]
        norm = np.linalg.norm(vec)
        return vec / norm if norm > 0 else vec

    def scores(self, query: str) -> np.ndarray:
        if self.matrix.size == 0:
            return np.zeros(len(self.matrix))
        return self.matrix @ self.vector(query)


def top_matches(query: str, papers: Sequence[Paper], n: int, index: TfIdf | None = None) -> list[int]:
    """Indices of the ``n`` papers most similar to ``query`` (ties: the retrieval order)."""
    if not papers or n <= 0:
        return []
    index = index or TfIdf([paper_text(p) for p in papers])
    scores = index.scores(query)
    order = sorted(range(len(papers)), key=lambda i: (-round(float(scores[i]), 9), i))
    return order[:n]


def cluster_papers(papers: Sequence[Paper], k: int, index: TfIdf | None = None) -> list[list[int]]:
    """Deterministic k-means (cosine, farthest-first seeds from the top-ranked paper) over TF-IDF vectors.

    Returns non-empty groups of paper indices, each sorted by retrieval rank, groups ordered by their
    best-ranked member.
    """
    if not papers:
        return []
    k = max(1, min(k, len(papers)))
    index = index or TfIdf([paper_text(p) for p in papers])
    x = index.matrix
    seeds = [0]
    while len(seeds) < k:
        similarity = (x @ x[seeds].T).max(axis=1)
        similarity[seeds] = np.inf
        seeds.append(int(np.argmin(similarity)))
    centres = x[seeds]
    assign = np.zeros(len(papers), dtype=int)
    for _ in range(10):
        new = np.argmax(x @ centres.T, axis=1)
        if np.array_equal(new, assign) and _ > 0:
            break
        assign = new
        for c in range(k):
            members = x[assign == c]
            if len(members):
                centre = members.mean(axis=0)
                norm = np.linalg.norm(centre)
                centres[c] = centre / norm if norm > 0 else centre
    groups = [sorted(int(i) for i in np.flatnonzero(assign == c)) for c in range(k)]
    return sorted((g for g in groups if g), key=lambda g: g[0])


def cluster_name(papers: Sequence[Paper], exclude: str = "", n_terms: int = 3) -> str:
    """A heading from a cluster's most frequent distinctive title words (no LLM needed)."""
    banned = set(words(exclude))
    counts = Counter(w for p in papers for w in dict.fromkeys(words(p.title)) if w not in banned)
    terms = [w for w, _ in counts.most_common(n_terms)]
    if not terms:
        return "Related Work"
    terms = [t.capitalize() for t in terms]
    return terms[0] if len(terms) == 1 else ", ".join(terms[:-1]) + " and " + terms[-1]


# ---------------------------------------------------------------------------------------- outlines


@dataclass
class OutlineItem:
    """A planned heading: title, a short description of what it covers, its subsections, its papers."""

    title: str
    description: str = ""
    children: list[OutlineItem] = field(default_factory=list)
    papers: list[int] = field(default_factory=list)  # indices into the generator's paper list

    def leaves(self) -> list[OutlineItem]:
        return [leaf for child in self.children for leaf in child.leaves()] if self.children else [self]


_MD_HEADING_RE = re.compile(r"^\s*(#{1,6})\s+(.+)$")
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
        if m := _MD_HEADING_RE.match(line):
            body = m.group(2).strip().strip("#*_ ")
            if skip and body.lower() == skip.strip().lower():
                continue
            if numbered := _NUMBERED_RE.match(body):  # "## 2.1 Title": the number says the depth
                depth, body = min(2, numbered.group(1).count(".") + 1), numbered.group(2)
            else:
                depth = -len(m.group(1))
                md_levels.append(len(m.group(1)))
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
        if m := _MD_HEADING_RE.match(line):
            title = m.group(2).strip().strip("#").strip()
            if not (skip and title.strip("*_ ").lower() == skip.lower()):
                marks.append((i, len(m.group(1)), title))
    if not marks:
        marks = [(i, 1, m.group(1).strip()) for i, line in enumerate(lines) if (m := _BOLD_LINE_RE.match(line))]
    marks = [(i, lvl, t) for i, lvl, t in marks if re.search(r"[A-Za-z]{3}", t)]
    if not marks:
        return []
    top = min(level for _, level, _ in marks)
    skip_lines = {i for i, line in enumerate(lines) if _MD_HEADING_RE.match(line)}
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


# ---------------------------------------------------------------------------------------- answers

_FENCE_RE = re.compile(r"^\s*(```|~~~)")
_HEADING_LINE_RE = re.compile(r"^\s*#{1,6}\s*")
_PREAMBLE_RE = re.compile(r"^\s*(?:sure|certainly|here is|here's|of course)\b[^\n]*:\s*$", re.I)


def split_references(text: str) -> tuple[str, str]:
    """(body, reference list the model wrote) split at the first references heading line."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if is_references_title(_HEADING_LINE_RE.sub("", line)):
            return "\n".join(lines[:i]), "\n".join(lines[i + 1 :])
    return text, ""


def clean_section_text(text: str | None, title: str = "") -> str:
    """An answer reduced to the section's prose: no fences, headings, preamble or reference list."""
    body, _ = split_references(text or "")
    kept: list[str] = []
    for line in body.splitlines():
        stripped = line.strip()
        if _FENCE_RE.match(line) or _PREAMBLE_RE.match(line):
            continue
        if stripped.startswith("#"):
            continue  # the writer owns the headings
        plain = stripped.strip("*_: ").lower()
        if title and not kept and plain in (title.lower(), f"section {title.lower()}"):
            continue  # the model repeated the section title
        kept.append(line.rstrip())
    cleaned = "\n".join(kept).strip()
    return re.sub(r"\n{3,}", "\n\n", cleaned)


def tail(text: str, chars: int = 400) -> str:
    """The end of a text (for 'the previous section ended with ...' prompts)."""
    text = " ".join(text.split())
    return text if len(text) <= chars else "..." + text[-chars:]


def head(text: str, chars: int = 400) -> str:
    text = " ".join(text.split())
    return text if len(text) <= chars else text[:chars] + "..."


# ---------------------------------------------------------------------------------------- base class


class BaselineGenerator(Generator):
    """Options and steps the built-in systems share."""

    prompts_version = BASELINE_PROMPTS_VERSION  # the templates of baselines/surge_baselines/prompts.py
    defaults = {
        "max_sections": 8,  # main sections of a planned outline
        "max_subsections": 4,  # subsections per main section
        "papers_per_section": 10,  # papers shown when writing one (sub)section
        "abstract_chars": 500,  # abstract characters shown per paper (0: titles only)
    }

    def labelled(self, papers: Sequence[Paper], indices: Sequence[int] | None = None) -> list[tuple[str, Paper]]:
        chosen = range(len(papers)) if indices is None else indices
        return [(label_of(i), papers[i]) for i in chosen]

    def sources(self, papers: Sequence[Paper]) -> dict[str, str]:
        return {label_of(i): p.title for i, p in enumerate(papers)}

    def plan_outline(self, topic: str, papers: Sequence[Paper], llm: object, notes: list[str], index: TfIdf) -> list[OutlineItem]:
        """LLM outline from the topic and the paper titles; the heuristic outline when unreadable."""
        answer = self.ask(llm, "outline", "gen.common.outline", [{
            "topic": topic, "papers": paper_lines(self.labelled(papers), 0),
            "max_sections": self.max_sections, "max_subsections": self.max_subsections,
        }])[0]
        outline = parse_outline(answer, self.max_sections, self.max_subsections, skip=topic)
        if not outline:
            notes.append("outline unreadable: heuristic outline used")
            outline = heuristic_outline(topic, papers, self.max_sections, index)
        return outline

    def route_papers(self, outline: Sequence[OutlineItem], papers: Sequence[Paper], index: TfIdf) -> None:
        """Give every leaf without papers its ``papers_per_section`` most similar papers."""
        for section in outline:
            for leaf in section.leaves():
                if not leaf.papers:
                    query = f"{section.title} {leaf.title} {leaf.description}"
                    leaf.papers = top_matches(query, papers, self.papers_per_section, index)

    def write_items(
        self, llm: object, topic: str, outline: Sequence[OutlineItem], items: Sequence[tuple[tuple[str, ...], OutlineItem]],
        papers: Sequence[Paper], *, stage: str = "write", prompt: str = "gen.common.section", **extra: str,
    ) -> dict[int, str]:
        """One call per item, all in one batch: ``{id(item): cleaned text}``."""
        overview = outline_text(outline)
        answers = self.ask(llm, stage, prompt, [
            {
                "topic": topic,
                "outline": overview,
                "section": " / ".join(path),
                "description": f" ({item.description})" if item.description else "",
                "papers": paper_lines(self.labelled(papers, item.papers), self.abstract_chars),
                **extra,
            }
            for path, item in items
        ])
        return {id(item): clean_section_text(answer, item.title) for (_, item), answer in zip(items, answers, strict=True)}

    def leaves(self, outline: Sequence[OutlineItem]) -> list[tuple[tuple[str, ...], OutlineItem]]:
        return [(path, item) for path, item in walk_outline(outline) if not item.children]
