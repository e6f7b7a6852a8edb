"""``naive_rag``: the SurveyGen paper's Naive-RAG baseline (its §3.1 and Task 2), which QUAL-SG extends.

What the paper describes, and what this does:

1. retrieval by the topic: the survey topic is the query and candidates are ranked by the similarity of
   their abstract to it. Here that is the run's ranking (a survey-title run, ``surge retrieve --query-type
   titles``; a dense run is a semantic ranking), re-ordered by cosine similarity of topic and title + abstract
   when ``embedding_model`` (a sentence-transformers folder or id) is given;
2. the top-K papers are kept, nothing more: no co-citation expansion, no re-ranking. K = ``select``; 0 (the
   default) is each human survey's own number of references (its ``all_cites``), as the paper matches K to
   the human-written survey "to ensure a fair comparison". Only the count is read off the ground truth,
   never which papers;
3. one generation pass over those K papers, with the same inputs as QUAL-SG (topic, titles, abstracts):
   the LLM plans an outline with section descriptions, then writes every section in parallel from its most
   similar papers (the paper's Task 2 pipeline). No refinement, no second retrieval.

:class:`NaiveRAG` is also QUAL-SG's base: both share the semantic order, K and the writing, so the two
systems differ only in which K papers they pass to the writer, as in the paper.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from surge_dataset.core.records import Paper
from surge_dataset.generation import Draft, GenerationError, Topic

from .baseline_generator import BaselineGenerator
from .lexical import TfIdf, paper_text
from .outlines import to_draft_sections

__all__ = ["NaiveRAG", "reference_count"]


@functools.lru_cache(maxsize=2)
def _embedder(name: str) -> Any:
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(name, trust_remote_code=False)


def reference_count(data: Any, survey_id: int) -> int:
    """How many papers the human survey ``survey_id`` cites (its ``all_cites``): the paper's K."""
    if data is None:
        raise GenerationError(
            "select=0 takes K from the human survey's reference count, which needs the dataset "
            "(surge generate binds it; in Python call generator.bind(data) first), or give -o select=N"
        )
    count = len(data.survey(survey_id).all_cites)
    if count < 1:
        raise GenerationError(f"survey {survey_id} cites no papers: give K explicitly with -o select=N")
    return count


class NaiveRAG(BaselineGenerator):
    name = "naive_rag"
    defaults = {
        "embedding_model": "",  # sentence-transformers model for the semantic order; "" = the run's order
        "select": 0,  # K, papers kept; 0 = each human survey's own reference count
    }

    def bind(self, data: Any) -> None:
        self.data = data
        self.corpus = getattr(data, "corpus", None)

    def generate(self, topic: Topic, papers: Sequence[Paper], llm: Any) -> Draft:
        notes: list[str] = []
        candidates, _ = self.semantic_order(topic, papers)
        k, k_source = self.k_of(topic)
        selected = candidates[:k]
        if len(candidates) < k:
            notes.append(f"K = {k} but the run gave {len(candidates)} papers: all kept (raise --top-k)")
        info = {"retrieved": len(candidates), "k": k, "k_source": k_source, "selected": [p.doc_id for p in selected]}
        return self.write(topic, selected, llm, notes, info)

    # -- shared with QUAL-SG ------------------------------------------------------------------------------

    def k_of(self, topic: Topic) -> tuple[int, str]:
        """K and where it came from: ``option`` (``select`` > 0) or ``human survey`` (its reference count)."""
        if self.select > 0:
            return self.select, "option"
        return reference_count(getattr(self, "data", None), topic.survey_id), "human survey"

    def semantic_order(self, topic: Topic, papers: Sequence[Paper]) -> tuple[list[Paper], np.ndarray | None]:
        """The candidates by similarity to the topic, and their embeddings (None: no ``embedding_model``)."""
        candidates = list(papers)
        if not (self.embedding_model and candidates):
            return candidates, None
        model = _embedder(self.embedding_model)
        vectors = model.encode([paper_text(p) for p in candidates], normalize_embeddings=True)
        query = model.encode([topic.title], normalize_embeddings=True)[0]
        order = sorted(range(len(candidates)), key=lambda i: (-float(vectors[i] @ query), i))
        return [candidates[i] for i in order], vectors[order]

    def embed(self, papers: Sequence[Paper]) -> np.ndarray:
        return _embedder(self.embedding_model).encode([paper_text(p) for p in papers], normalize_embeddings=True)

    def write(self, topic: Topic, selected: list[Paper], llm: Any, notes: list[str], info: dict[str, Any]) -> Draft:
        """SurveyGen's Task 2 writing: an outline with section descriptions, then every section in parallel."""
        index = TfIdf([paper_text(p) for p in selected])
        outline = self.plan_outline(topic.title, selected, llm, notes, index)
        self.route_papers(outline, selected, index)
        texts = self.write_items(llm, topic.title, outline, self.leaves(outline), selected)
        return Draft(topic.title, to_draft_sections(outline, texts), self.sources(selected), notes, extra=info)
