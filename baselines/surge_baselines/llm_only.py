"""``llm_only``: Fully-LLMGen (the SurveyGen paper's Task 1): no retrieval at all.

The model first lists the papers it recalls on the topic (its reference list), then plans an outline
from the topic alone and writes every section in parallel, citing the recalled papers by label. The
reference list holds every recalled title as the model wrote it (cited ones first, in order of first
citation, then the others): most will not resolve to a corpus paper, which is what this baseline
measures (references not in the corpus: made up, or real but outside it). Citations of labels the model never listed are dropped and
counted like in every system.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from surge_dataset.core.records import Paper
from surge_dataset.generation import Draft, Topic

from .answer_cleaning import split_references
from .baseline_generator import BaselineGenerator
from .lexical import TfIdf, paper_text
from .outlines import heuristic_outline, parse_outline, to_draft_sections, usable_title

_MARKER_RE = re.compile(r"^\s*(?:[-*\u2022]|\[\d+\]|\d{1,3}[.)])\s*")
_QUOTED_RE = re.compile(r"[\"\u201c]([^\"\u201d]{8,})[\"\u201d]")
_TRAILING_YEAR_RE = re.compile(r"[\s,.(]*(?:19|20)\d{2}[a-z]?\)?\.?\s*$")


def parse_recalled_titles(text: str, limit: int) -> list[str]:
    """Listed paper titles: list markers, emphasis, quotes and a trailing year removed; unique, usable."""
    body, listed = split_references(text or "")
    lines = [line for line in (listed or body).splitlines() if line.strip()]
    marked = [line for line in lines if _MARKER_RE.match(line)]
    titles: list[str] = []
    for line in marked or lines:  # without list markers, every line is taken for a title
        entry = _MARKER_RE.sub("", line).strip()
        quoted = _QUOTED_RE.search(entry)
        title = quoted.group(1) if quoted else entry
        title = _TRAILING_YEAR_RE.sub("", title.replace("*", "").replace("_", " ")).strip(" .\"'")
        title = " ".join(title.split())[:200]
        if usable_title(title) and title.lower() not in {t.lower() for t in titles}:
            titles.append(title)
    return titles[:limit]


class LLMOnly(BaselineGenerator):
    name = "llm_only"
    inputs = "none"
    defaults = {"n_references": 30}

    def generate(self, topic: Topic, papers: Sequence[Paper], llm: Any) -> Draft:
        notes: list[str] = []
        listed = self.ask(llm, "references", "gen.llm_only.references", [
            {"topic": topic.title, "n_references": self.n_references}
        ])[0]
        recalled = [Paper(doc_id=-(i + 1), title=t) for i, t in enumerate(parse_recalled_titles(listed, self.n_references))]
        if not recalled:
            notes.append("no paper titles recalled: the survey has no references")
        answer = self.ask(llm, "outline", "gen.llm_only.outline", [
            {"topic": topic.title, "max_sections": self.max_sections, "max_subsections": self.max_subsections}
        ])[0]
        index = TfIdf([paper_text(p) for p in recalled])
        outline = parse_outline(answer, self.max_sections, self.max_subsections, skip=topic.title)
        if not outline:
            notes.append("outline unreadable: generic outline used")
            outline = heuristic_outline(topic.title, [], self.max_sections)
        if recalled:
            self.route_papers(outline, recalled, index)
        texts = self.write_items(llm, topic.title, outline, self.leaves(outline), recalled, prompt="gen.llm_only.section")
        return Draft(topic.title, to_draft_sections(outline, texts), self.sources(recalled), notes,
                     extra={"recalled_titles": [p.title for p in recalled]}, listed=list(self.sources(recalled)))
