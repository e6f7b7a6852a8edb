"""``rankgpt``: listwise re-ranking by a chat LLM with a sliding window (Sun et al., EMNLP 2023).

The model sees ``window`` numbered passages and the query and answers their order, ``[2] > [1] > [3]``. The
window slides from the end of the list to its start by ``step`` (RankGPT's order: the best passages found in
a later window climb into the earlier one), so a list longer than one window needs
``ceil((n - window) / step) + 1`` calls, one after the other. The prompt's words are ours.

An answer is read leniently (:func:`parse_permutation`): every number in it, in order; numbers outside the
window and repeats are dropped; passages it does not name follow in their current order. An unreadable or
failed answer leaves the window as it was. The final score of a candidate is ``n - position`` (higher first).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from surge_dataset.llm.base import GenerationSettings, LLMConfigurationError
from surge_dataset.retrieval.rerank import Candidate, Ranked, Reranker, register_reranker

__all__ = ["RankGPT", "parse_permutation", "rankgpt_messages", "windows"]

_NUMBER = re.compile(r"\d+")
SYSTEM = "You order passages by how well they match a search query."


def parse_permutation(answer: str | None, size: int) -> list[int]:
    """0-based window positions in the answer's order, then the unnamed ones in their current order."""
    seen: list[int] = []
    for match in _NUMBER.findall(answer or ""):
        position = int(match) - 1
        if 0 <= position < size and position not in seen:
            seen.append(position)
    return seen + [i for i in range(size) if i not in seen]


def windows(n: int, window: int, step: int) -> list[tuple[int, int]]:
    """The ``(start, end)`` slices, from the end of the list to its start (the last one starts at 0)."""
    if n <= 0:
        return []
    out = []
    end = n
    while True:
        start = max(0, end - window)
        out.append((start, end))
        if start == 0:
            return out
        end -= step


def rankgpt_messages(query: str, passages: Sequence[str], passage_chars: int) -> list[dict[str, str]]:
    """The conversation for one window (passages cut to ``passage_chars`` characters; 0 = whole)."""
    lines = []
    for number, text in enumerate(passages, start=1):
        text = " ".join(text.split())
        if passage_chars > 0 and len(text) > passage_chars:
            text = text[:passage_chars] + "..."
        lines.append(f"[{number}] {text}")
    example = " > ".join(f"[{i}]" for i in (2, 1, 3)[: max(1, min(3, len(passages)))])
    user = (f"Search query: {' '.join(query.split())}\n\n" + "\n".join(lines) + "\n\n"
            f"Order these {len(passages)} passages from the most to the least relevant to the search query. "
            f"Answer with their numbers only, every number once, like {example}, and write nothing else.")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


@register_reranker
class RankGPT(Reranker):
    """Sliding-window permutation generation with a chat LLM (``window`` passages per call, moved by ``step``)."""

    name = "rankgpt"

    def __init__(self, llm: Any = None, *, window: int = 20, step: int = 10, passage_chars: int = 400) -> None:
        if llm is None:
            raise LLMConfigurationError("the rankgpt re-ranker needs a chat LLM")
        if window < 2 or not 1 <= step <= window:
            raise ValueError(f"rankgpt needs window >= 2 and 1 <= step <= window, got window={window}, step={step}")
        self.llm, self.window, self.step, self.passage_chars = llm, int(window), int(step), int(passage_chars)
        self.unreadable = 0  # windows whose answer named no passage (left as they were)

    def rerank(self, query: str, candidates: Sequence[Candidate]) -> list[Ranked]:
        order = list(candidates)
        for start, end in windows(len(order), self.window, self.step):
            part = order[start:end]
            if len(part) < 2:
                continue
            settings = GenerationSettings(max_new_tokens=6 * len(part) + 16, temperature=0.0)
            answer = self.llm.generate([rankgpt_messages(query, [c.text for c in part], self.passage_chars)],
                                       settings)[0]
            if not _NUMBER.search(answer.text or ""):
                self.unreadable += 1
            order[start:end] = [part[i] for i in parse_permutation(answer.text, len(part))]
        n = len(order)
        return [Ranked(c.id, c.text, float(n - position)) for position, c in enumerate(order)]

    def describe(self) -> dict[str, Any]:
        return {"reranker": self.name, "window": self.window, "step": self.step, "passage_chars": self.passage_chars}
