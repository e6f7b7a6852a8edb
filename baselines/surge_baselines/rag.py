"""``rag``: the paper's RAG baseline (protocol.md §7).

The top-k papers go to the LLM in batches of ``batch_size``; each batch is summarised with its papers'
labels kept (one call per batch, all batches in parallel); one fusion call then writes the survey, with
Markdown headings, from the partial summaries. Fallbacks: a fusion answer without headings becomes one
plain-text section; an empty one is replaced by the partial summaries, one section each. With ``-o rerank=NAME``
(``upr``, ``rankgpt``) the top-k are re-ranked first and the first ``rerank_keep`` kept (``reranking.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from surge_dataset.core.records import Paper
from surge_dataset.generation import Draft, DraftSection, Topic
from surge_dataset.generation.inputs import paper_lines

from .answer_cleaning import clean_section_text
from .baseline_generator import BaselineGenerator
from .outlines import parse_markdown_sections
from .reranking import Reranks


class RAG(Reranks, BaselineGenerator):
    name = "rag"
    defaults = {
        "batch_size": 10,  # papers per summarisation call
        "rerank_keep": 0,  # with -o rerank=NAME: papers kept after re-ranking (0 = all)
    }

    def generate(self, topic: Topic, papers: Sequence[Paper], llm: Any) -> Draft:
        notes: list[str] = []
        if self.rerank:
            papers = self.rerank_papers(topic.title, papers, llm, notes)
            papers = papers[: self.rerank_keep] if self.rerank_keep > 0 else papers
        labelled = self.labelled(papers)
        size = max(1, self.batch_size)
        batches = [labelled[i : i + size] for i in range(0, len(labelled), size)]
        summaries = [
            clean_section_text(text)
            for text in self.ask(llm, "summarise", "gen.rag.summarise", [
                {"topic": topic.title, "papers": paper_lines(batch, self.abstract_chars)} for batch in batches
            ])
        ]
        joined = "\n\n".join(f"Summary {i}:\n{s}" for i, s in enumerate(summaries, start=1) if s) or "(none)"
        fused = self.ask(llm, "fuse", "gen.rag.fuse", [
            {"topic": topic.title, "summaries": joined, "max_sections": self.max_sections}
        ])[0]
        sections = parse_markdown_sections(fused, skip=topic.title)
        if not sections:
            text = clean_section_text(fused)
            if text:
                notes.append("fusion answer had no headings: kept as one plain-text section")
                sections = [DraftSection("Overview", text)]
            else:
                notes.append("fusion answer empty: partial summaries used as sections")
                sections = [DraftSection(f"Literature Summary {i}", s) for i, s in enumerate(summaries, start=1) if s]
        return Draft(topic.title, sections or [DraftSection("Overview")], self.sources(papers), notes)
