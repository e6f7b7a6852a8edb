"""``surveyforge``: SurveyForge as described in protocol.md §7.

1. heuristic hierarchical outline: the papers are clustered (deterministic k-means over TF-IDF); the
   skeleton is the usual shape of a human survey -- Introduction, one section per cluster, Open
   Challenges and Future Directions -- and the LLM names each cluster's section and proposes its
   subsections (one parallel batch); unreadable names fall back to the cluster's top title words;
2. memory-driven writing: sections are written in order; every call sees a memory of the sections
   already written (their first sentence and the labels they cited) so that later sections build on
   earlier ones instead of repeating them; the subsections of one section are written in parallel.
   Each subsection is grounded on its most similar papers within its cluster.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from surge_dataset.core.records import Paper
from surge_dataset.generation import Draft, Topic
from surge_dataset.generation.inputs import paper_lines

from .baseline_generator import BaselineGenerator
from .lexical import TfIdf, cluster_name, cluster_papers, paper_text, top_matches
from .outlines import OutlineItem, heuristic_outline, to_draft_sections, usable_title

_BULLET_RE = re.compile(r"^\s*(?:[-*\u2022]|\d{1,2}(?:\.\d{1,2})*[.)]?)\s+(.+)$")
_LABELS_RE = re.compile(r"\[(?:P\d+(?:\s*,\s*)?)+\]")


def parse_section_names(text: str, limit: int) -> tuple[str | None, list[str]]:
    """First line = the section title, ``- `` lines = subsection titles (cleaned, unique, usable)."""
    title: str | None = None
    subsections: list[str] = []
    for line in (text or "").splitlines():
        if not line.strip():
            continue
        bullet = _BULLET_RE.match(line)
        candidate = (bullet.group(1) if bullet else line).strip().strip("#*_\"'").split(":")[0].strip()
        if not usable_title(candidate):
            continue
        if title is None and not bullet:
            title = candidate[:120]
        elif bullet and candidate.lower() not in {s.lower() for s in subsections} and candidate != title:
            subsections.append(candidate[:120])
    return title, subsections[:limit]


def first_sentence(text: str, chars: int = 200) -> str:
    flat = " ".join(text.split())
    end = flat.find(". ")
    sentence = flat[: end + 1] if 0 < end < chars else flat[:chars]
    return sentence or "(empty)"


class SurveyForge(BaselineGenerator):
    name = "surveyforge"

    def generate(self, topic: Topic, papers: Sequence[Paper], llm: Any) -> Draft:
        notes: list[str] = []
        index = TfIdf([paper_text(p) for p in papers])
        outline = self._outline(topic.title, papers, llm, index, notes)
        texts: dict[int, str] = {}
        memory: list[str] = []
        for section in outline:
            items = [((section.title, leaf.title) if leaf is not section else (section.title,), leaf) for leaf in section.leaves()]
            written = self.write_items(
                llm, topic.title, outline, items, papers, stage=f"write {section.title[:40]}",
                prompt="gen.surveyforge.write", memory="\n".join(memory) or "(nothing written yet)",
            )
            texts.update(written)
            for _, leaf in items:
                cited = ", ".join(dict.fromkeys(re.findall(r"P\d+", written[id(leaf)]))) or "none"
                memory.append(f"- {leaf.title}: {first_sentence(written[id(leaf)])} (cited: {cited})")
        return Draft(topic.title, to_draft_sections(outline, texts), self.sources(papers), notes)

    def _outline(self, topic: str, papers: Sequence[Paper], llm: Any, index: TfIdf, notes: list[str]) -> list[OutlineItem]:
        if not papers:
            notes.append("no papers: generic outline used")
            return heuristic_outline(topic, papers, self.max_sections, index)
        groups = cluster_papers(papers, max(1, self.max_sections - 2), index)
        answers = self.ask(llm, "outline", "gen.surveyforge.name", [
            {"topic": topic, "papers": paper_lines(self.labelled(papers, g), 0), "max_subsections": self.max_subsections}
            for g in groups
        ])
        overall = top_matches(topic, papers, self.papers_per_section, index)
        outline = [OutlineItem("Introduction", f"motivation, scope and organisation of the survey on {topic}", [], overall)]
        unnamed = 0
        for group, answer in zip(groups, answers, strict=True):
            members = [papers[i] for i in group]
            title, subsections = parse_section_names(answer, self.max_subsections)
            if title is None or title.lower() in {s.title.lower() for s in outline}:
                unnamed += 1
                title = base = cluster_name(members, exclude=topic)
                n = 2
                while title.lower() in {s.title.lower() for s in outline}:
                    title, n = f"{base} ({n})", n + 1
            section = OutlineItem(title, "", [], group[: self.papers_per_section])
            for sub in subsections:
                chosen = [group[j] for j in top_matches(f"{title} {sub}", members, self.papers_per_section)]
                section.children.append(OutlineItem(sub, "", [], chosen))
            outline.append(section)
        if unnamed:
            notes.append(f"{unnamed} section name(s) unreadable: named from the papers' title words")
        outline.append(OutlineItem("Open Challenges and Future Directions", "limitations, open problems and outlook",
                                   [], overall))
        return outline
