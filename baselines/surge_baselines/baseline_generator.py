"""The base class of the built-in systems: their shared options and steps (plan an outline, route papers to its
sections, write sections in one batch).
"""

from __future__ import annotations

from collections.abc import Sequence

from surge_dataset.core.records import Paper
from surge_dataset.generation import Generator, label_of
from surge_dataset.generation.inputs import paper_lines

from .answer_cleaning import clean_section_text
from .lexical import TfIdf, top_matches
from .outlines import OutlineItem, heuristic_outline, outline_text, parse_outline, walk_outline
from .prompts import BASELINE_PROMPTS_VERSION

__all__ = ["BaselineGenerator"]


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
