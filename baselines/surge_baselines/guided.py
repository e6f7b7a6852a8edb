"""``guided``: human-guided generation (the SurveyGen paper's Task 3), the upper bound of writing alone.

The system receives the ground-truth survey's outline (every heading, at its depth) and its cited
papers grouped by section -- never the human text. A section's papers are those of the
``queries.json`` items extracted from it; a cited paper that no query places goes to the section whose
heading path is most similar to it. The LLM writes the content of every section that is a leaf or
has papers of its own (all in one parallel batch); headings are kept exactly. Retrieval and planning
are thus taken out, which separates the quality of the writing from them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from surge_dataset.core.records import Paper
from surge_dataset.generation import Draft, GuideSection, Topic

from .baseline_generator import BaselineGenerator
from .lexical import TfIdf, paper_text
from .outlines import OutlineItem, heuristic_outline, to_draft_sections, walk_outline


def _outline_of(guide: Sequence[GuideSection], position: dict[int, int]) -> list[OutlineItem]:
    return [
        OutlineItem(g.title, "", _outline_of(g.children, position), [position[d] for d in g.doc_ids if d in position])
        for g in guide
    ]


class Guided(BaselineGenerator):
    name = "guided"
    inputs = "ground_truth"

    def generate(self, topic: Topic, papers: Sequence[Paper], llm: Any) -> Draft:
        notes: list[str] = []
        position = {p.doc_id: i for i, p in enumerate(papers)}
        outline = _outline_of(topic.guidance or (), position)
        if not outline:
            notes.append("no ground-truth outline: heuristic outline used")
            outline = heuristic_outline(topic.title, papers, self.max_sections)
        nodes = walk_outline(outline)
        placed = {i for _, node in nodes for i in node.papers}
        loose = [i for i in range(len(papers)) if i not in placed]
        if loose and nodes:
            index = TfIdf([" ".join(path) for path, _ in nodes])
            for i in loose:
                scores = index.scores(paper_text(papers[i]))
                best = int(np.argmax(scores)) if scores.size and scores.max() > 0 else len(nodes) - 1
                nodes[best][1].papers.append(i)
            notes.append(f"{len(loose)} cited paper(s) without a section: placed by heading similarity")
        items = [(path, node) for path, node in nodes if not node.children or node.papers]
        texts = self.write_items(llm, topic.title, outline, items, papers)
        return Draft(topic.title, to_draft_sections(outline, texts), self.sources(papers), notes)
