"""``-o rerank=NAME``: a re-ranker (``upr``, ``rankgpt``, any ``surge.rerankers`` entry point) for the systems
that write from retrieved papers.

The re-ranker reads the survey title as the query and each paper's title and abstract as the passage, with the
system's own LLM. ``rag`` re-ranks its top-k papers and keeps the first ``rerank_keep`` (0: all, re-ordered);
``qualsg`` puts the re-ranker's order in place of its three-criteria ranking before ``select`` keeps the best
(SurveyGen's Table 5: UPR and RankGPT against QUAL-SG's ranking).

The options enter a system's resume key only when a re-ranker is chosen: surveys generated before these
options existed keep their key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from surge_dataset.core.records import Paper
from surge_dataset.generation import Generator
from surge_dataset.retrieval.index_base import document_text
from surge_dataset.retrieval.rerank import Candidate, get_reranker, reranker_class

__all__ = ["Reranks"]


class Reranks(Generator):
    """Adds the ``rerank*`` options and :meth:`rerank_papers` to a generator (put it before the base class)."""

    defaults: ClassVar[dict[str, Any]] = {
        "rerank": "",  # re-ranker name (upr, rankgpt, ...); "" = the retrieval order
        "rerank_window": 20,  # rankgpt: passages per call
        "rerank_step": 10,  # rankgpt: how far the window moves
        "rerank_passage_chars": 400,  # characters of title + abstract the re-ranker reads per paper
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if self.rerank:
            reranker_class(self.rerank)  # an unknown name fails before the first survey, naming the closest

    def config(self) -> dict[str, Any]:
        config = super().config()
        if not self.options.get("rerank"):
            config["options"] = {k: v for k, v in config["options"].items() if not k.startswith("rerank")}
        return config

    def rerank_papers(self, query: str, papers: Sequence[Paper], llm: Any, notes: list[str]) -> list[Paper]:
        """``papers`` in the re-ranker's order (as given when no re-ranker is chosen)."""
        if not self.rerank or len(papers) < 2:
            return list(papers)
        if hasattr(llm, "stage"):  # RecordingLLM: the calls are recorded under their own stage
            llm.stage = "rerank"
        reranker = get_reranker(self.rerank, llm=llm, window=self.rerank_window, step=self.rerank_step,
                                passage_chars=self.rerank_passage_chars)
        ranked = reranker.rerank(query, [Candidate(i, document_text(p.title, p.abstract)) for i, p in enumerate(papers)])
        unreadable = getattr(reranker, "unreadable", 0)
        notes.append(f"re-ranked {len(papers)} papers with {self.rerank}"
                     + (f" ({unreadable} window answer(s) unreadable: kept in order)" if unreadable else ""))
        return [papers[r.id] for r in ranked]
