"""``upr``: Unsupervised Passage Re-ranking (Sachan et al., EMNLP 2022), with any local causal LLM.

Each candidate is scored by how likely the LLM finds the query as a question written about it: the mean
log-probability of the query's tokens after ``Passage: <text>`` and the instruction *Please write a question
based on this passage.* (the paper's prompt, with its T5 encoder-decoder replaced by a decoder-only model:
prompt and query are one sequence, only the query's tokens are scored). Higher is better; no training, no
sampling: the same model gives the same order.

It needs the log-probabilities of a given text: an ``hf:`` or ``gguf:`` model, or an ``openai:`` server whose
completions endpoint echoes them (vLLM, llama.cpp); any other LLM is an ``LLMConfigurationError`` naming those.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from surge_dataset.llm.base import LLMConfigurationError
from surge_dataset.retrieval.rerank import Candidate, Ranked, Reranker, by_score, register_reranker

__all__ = ["UPR", "upr_prompt"]

INSTRUCTION = "Please write a question based on this passage."


def upr_prompt(passage: str, passage_chars: int = 1500) -> str:
    """The text the query is scored after (the passage cut to ``passage_chars`` characters; 0 = whole)."""
    text = " ".join(passage.split())
    if passage_chars > 0 and len(text) > passage_chars:
        text = text[:passage_chars]
    return f"Passage: {text}\n{INSTRUCTION}\nQuestion:"


@register_reranker
class UPR(Reranker):
    """Score = mean log p(query tokens | passage prompt); candidates sorted by it, ties in input order."""

    name = "upr"

    def __init__(self, llm: Any = None, *, passage_chars: int = 1500) -> None:
        if llm is None:
            raise LLMConfigurationError("the upr re-ranker needs an LLM (hf:/gguf:, or a server that echoes "
                                        "prompt log-probabilities)")
        self.llm = llm
        self.passage_chars = int(passage_chars)

    def scores(self, query: str, candidates: Sequence[Candidate]) -> list[float]:
        """The mean query-token log-probability after each candidate's prompt."""
        if not candidates:
            return []
        question = " " + " ".join(query.split())
        rows = self.llm.continuation_logprobs([(upr_prompt(c.text, self.passage_chars), question) for c in candidates])
        return [sum(row) / len(row) if row else float("-inf") for row in rows]

    def rerank(self, query: str, candidates: Sequence[Candidate]) -> list[Ranked]:
        return by_score(candidates, self.scores(query, candidates))

    def describe(self) -> dict[str, Any]:
        return {"reranker": self.name, "passage_chars": self.passage_chars, "instruction": INSTRUCTION}
