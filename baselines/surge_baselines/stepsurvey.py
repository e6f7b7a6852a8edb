"""``stepsurvey``: StepSurvey as described in protocol.md §7.

1. primary headings: the LLM lists the main sections from the topic and the papers' titles;
2. subtopics: for each heading (one parallel batch), the LLM splits it into subtopics, each tied to a
   subset of the heading's candidate papers (``Subtopic | P1, P4``); a subtopic without readable labels
   gets its most similar candidates;
3. drafting, one subsection after another: each subsection sees the end of the subsection drafted
   before it in the same section. Sections advance in lockstep (the r-th subsections of all sections
   form one batch), so the number of sequential rounds is the number of subtopics, not their total.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from surge_dataset.core.records import Paper
from surge_dataset.generation import Draft, Topic
from surge_dataset.generation.inputs import paper_lines

from .answer_cleaning import clean_section_text, tail
from .baseline_generator import BaselineGenerator
from .lexical import TfIdf, paper_text, top_matches
from .outlines import OutlineItem, heuristic_outline, parse_outline, to_draft_sections, usable_title

_SUBTOPIC_RE = re.compile(r"^\s*(?:[-*\u2022]|\d{1,2}(?:\.\d{1,2})*[.)]?)?\s*(.+?)\s*(?:\|\s*(.*))?$")
_LABEL_RE = re.compile(r"P\s*(\d+)", re.I)


def parse_subtopics(text: str, n_papers: int, limit: int) -> list[tuple[str, list[int]]]:
    """``Subtopic | P1, P4`` lines -> (title, paper indices); labels outside the paper list are ignored."""
    found: list[tuple[str, list[int]]] = []
    for line in (text or "").splitlines():
        match = _SUBTOPIC_RE.match(line)
        if not match:
            continue
        title = match.group(1).strip().strip("*_\"'").rstrip(":").strip()
        labels = [int(n) - 1 for n in _LABEL_RE.findall(match.group(2) or "")]
        indices = list(dict.fromkeys(i for i in labels if 0 <= i < n_papers))
        if usable_title(title) and title.lower() not in {t.lower() for t, _ in found}:
            found.append((title[:120], indices))
    return found[:limit]


class StepSurvey(BaselineGenerator):
    name = "stepsurvey"

    def generate(self, topic: Topic, papers: Sequence[Paper], llm: Any) -> Draft:
        notes: list[str] = []
        index = TfIdf([paper_text(p) for p in papers])
        answer = self.ask(llm, "headings", "gen.stepsurvey.headings", [{
            "topic": topic.title, "papers": paper_lines(self.labelled(papers), 0), "max_sections": self.max_sections,
        }])[0]
        outline = parse_outline(answer, self.max_sections, 0, skip=topic.title)
        if not outline:
            notes.append("headings unreadable: heuristic outline used")
            outline = heuristic_outline(topic.title, papers, self.max_sections, index)
            for item in outline:
                item.children = []
        n_candidates = 2 * self.papers_per_section
        candidates = {
            id(h): h.papers or top_matches(f"{h.title} {h.description}", papers, n_candidates, index) for h in outline
        }
        answers = self.ask(llm, "subtopics", "gen.stepsurvey.subtopics", [
            {"topic": topic.title, "heading": h.title, "papers": paper_lines(self.labelled(papers, candidates[id(h)]), 0),
             "max_subsections": max(1, self.max_subsections)}
            for h in outline
        ])
        unreadable = 0
        for heading, text in zip(outline, answers, strict=True):
            pool = candidates[id(heading)]
            subtopics = parse_subtopics(text, len(papers), self.max_subsections) if self.max_subsections > 0 else []
            if not subtopics:
                unreadable += self.max_subsections > 0
                heading.papers = pool[: self.papers_per_section]
                continue
            for title, chosen in subtopics:
                pool_papers = [papers[i] for i in pool]
                chosen = chosen or [pool[j] for j in top_matches(f"{heading.title} {title}", pool_papers, self.papers_per_section)]
                heading.children.append(OutlineItem(title, "", [], chosen[: self.papers_per_section]))
        if unreadable:
            notes.append(f"subtopics unreadable for {unreadable} heading(s): heading written as one section")
        texts = self._draft_sequentially(llm, topic.title, outline, papers)
        return Draft(topic.title, to_draft_sections(outline, texts), self.sources(papers), notes)

    def _draft_sequentially(self, llm: Any, topic: str, outline: list[OutlineItem], papers: Sequence[Paper]) -> dict[int, str]:
        texts: dict[int, str] = {}
        queues = [heading.children or [heading] for heading in outline]
        for round_ in range(max(len(q) for q in queues) if queues else 0):
            jobs = [(h, q[round_], q[round_ - 1] if round_ else None) for h, q in zip(outline, queues, strict=True) if round_ < len(q)]
            answers = self.ask(llm, f"subsections round {round_ + 1}", "gen.stepsurvey.subsection", [
                {
                    "topic": topic,
                    "heading": heading.title,
                    "subtopic": item.title,
                    "previous": tail(texts.get(id(prev), "")) if prev is not None and texts.get(id(prev)) else
                    "(nothing yet: this is the first subsection of the section)",
                    "papers": paper_lines(self.labelled(papers, item.papers), self.abstract_chars),
                }
                for heading, item, prev in jobs
            ])
            for (_, item, _), answer in zip(jobs, answers, strict=True):
                texts[id(item)] = clean_section_text(answer, item.title)
        return texts
