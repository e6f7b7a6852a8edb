"""``autosurvey``: AutoSurvey as described in protocol.md §7.

1. outline: the LLM plans sections and subsections from the topic and the papers' titles;
2. expansion: each leaf section is written from the ``papers_per_section`` papers most similar to its
   heading and description (TF-IDF over title + abstract), all leaves in one parallel batch;
3. refinement: each draft is rewritten next to the end of the previous and the start of the next
   section, for coherence and citation format (a refinement that loses most of the draft or half of
   its citations is ignored);
4. merge: the refined sections under the outline's headings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from surge_dataset.core.records import Paper
from surge_dataset.generation import Draft, Topic

from .answer_cleaning import LABEL_RE, clean_section_text, head, tail
from .baseline_generator import BaselineGenerator
from .lexical import TfIdf, paper_text
from .outlines import to_draft_sections


def acceptable_revision(draft: str, revised: str) -> bool:
    """A revision keeps at least 30% of the draft's length and half of the papers it cited."""
    cited, kept = set(LABEL_RE.findall(draft)), set(LABEL_RE.findall(revised))
    return len(revised.split()) >= 0.3 * len(draft.split()) and len(cited & kept) >= len(cited) / 2


class AutoSurvey(BaselineGenerator):
    name = "autosurvey"
    defaults = {"refine": True}

    def generate(self, topic: Topic, papers: Sequence[Paper], llm: Any) -> Draft:
        notes: list[str] = []
        index = TfIdf([paper_text(p) for p in papers])
        outline = self.plan_outline(topic.title, papers, llm, notes, index)
        self.route_papers(outline, papers, index)
        leaves = self.leaves(outline)
        drafts = self.write_items(llm, topic.title, outline, leaves, papers)
        texts = dict(drafts)
        if self.refine:
            order = [item for _, item in leaves]
            jobs = [i for i, item in enumerate(order) if drafts[id(item)]]
            answers = self.ask(llm, "refine", "gen.autosurvey.refine", [
                {
                    "topic": topic.title,
                    "section": order[i].title,
                    "previous": tail(drafts[id(order[i - 1])]) if i > 0 and drafts[id(order[i - 1])] else "(none)",
                    "draft": drafts[id(order[i])],
                    "next": head(drafts[id(order[i + 1])]) if i + 1 < len(order) and drafts[id(order[i + 1])] else "(none)",
                }
                for i in jobs
            ])
            kept = 0
            for i, answer in zip(jobs, answers, strict=True):
                refined, draft = clean_section_text(answer, order[i].title), drafts[id(order[i])]
                if acceptable_revision(draft, refined):
                    texts[id(order[i])] = refined
                else:
                    kept += 1
            if kept:
                notes.append(f"refinement dropped most of the text or citations of {kept} section(s): draft kept")
        return Draft(topic.title, to_draft_sections(outline, texts), self.sources(papers), notes)
