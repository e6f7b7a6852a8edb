"""Lexical similarity of papers, with no model download: TF-IDF over title + abstract, the papers closest to a
query, deterministic k-means clusters and a heading named after a cluster's title words (good enough to route a
section's papers to it, or to plan an outline without the LLM).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from surge_dataset.core.records import Paper

__all__ = ["TfIdf", "cluster_name", "cluster_papers", "paper_text", "top_matches", "words"]

_STOPWORDS = frozenset(
    """a an and are as at be by for from has have in into is it its of on or that the their this to
    via was were with we our using based towards toward new approach approaches method methods study
    survey review paper papers learning model models analysis toward can these which""".split()
)
_WORD_RE = re.compile(r"[a-z][a-z0-9\-]+")


def words(text: str) -> list[str]:
    return [w for w in _WORD_RE.findall(text.lower()) if w not in _STOPWORDS and len(w) > 2]


def paper_text(paper: Paper) -> str:
    return f"{paper.title}. {paper.abstract or ''}"


class TfIdf:
    """L2-normalised TF-IDF vectors of a fixed set of documents, and cosine queries against them."""

    def __init__(self, documents: Sequence[str]) -> None:
        tokenised = [words(d) for d in documents]
        df = Counter(w for doc in tokenised for w in set(doc))
        self.vocab = {w: i for i, w in enumerate(sorted(df))}
        n = max(1, len(documents))
        self.idf = np.array([math.log((1 + n) / (1 + df[w])) + 1.0 for w in sorted(df)])
        self.matrix = np.vstack([self.vector(doc, tokenised=True) for doc in tokenised]) if tokenised else np.zeros((0, 0))

    def vector(self, text: str | list[str], *, tokenised: bool = False) -> np.ndarray:
        vec = np.zeros(len(self.vocab))
        for word, count in Counter(text if tokenised else words(text)).items():  # type: ignore[arg-type]
            index = self.vocab.get(word)
            if index is not None:
                vec[index] = (1 + math.log(count)) * self.idf[index]
        norm = np.linalg.norm(vec)
        return vec / norm if norm > 0 else vec

    def scores(self, query: str) -> np.ndarray:
        if self.matrix.size == 0:
            return np.zeros(len(self.matrix))
        return self.matrix @ self.vector(query)


def top_matches(query: str, papers: Sequence[Paper], n: int, index: TfIdf | None = None) -> list[int]:
    """Indices of the ``n`` papers most similar to ``query`` (ties: the retrieval order)."""
    if not papers or n <= 0:
        return []
    index = index or TfIdf([paper_text(p) for p in papers])
    scores = index.scores(query)
    order = sorted(range(len(papers)), key=lambda i: (-round(float(scores[i]), 9), i))
    return order[:n]


def cluster_papers(papers: Sequence[Paper], k: int, index: TfIdf | None = None) -> list[list[int]]:
    """Deterministic k-means (cosine, farthest-first seeds from the top-ranked paper) over TF-IDF vectors.

    Returns non-empty groups of paper indices, each sorted by retrieval rank, groups ordered by their
    best-ranked member.
    """
    if not papers:
        return []
    k = max(1, min(k, len(papers)))
    index = index or TfIdf([paper_text(p) for p in papers])
    x = index.matrix
    seeds = [0]
    while len(seeds) < k:
        similarity = (x @ x[seeds].T).max(axis=1)
        similarity[seeds] = np.inf
        seeds.append(int(np.argmin(similarity)))
    centres = x[seeds]
    assign = np.zeros(len(papers), dtype=int)
    for _ in range(10):
        new = np.argmax(x @ centres.T, axis=1)
        if np.array_equal(new, assign) and _ > 0:
            break
        assign = new
        for c in range(k):
            members = x[assign == c]
            if len(members):
                centre = members.mean(axis=0)
                norm = np.linalg.norm(centre)
                centres[c] = centre / norm if norm > 0 else centre
    groups = [sorted(int(i) for i in np.flatnonzero(assign == c)) for c in range(k)]
    return sorted((g for g in groups if g), key=lambda g: g[0])


def cluster_name(papers: Sequence[Paper], exclude: str = "", n_terms: int = 3) -> str:
    """A heading from a cluster's most frequent distinctive title words (no LLM needed)."""
    banned = set(words(exclude))
    counts = Counter(w for p in papers for w in dict.fromkeys(words(p.title)) if w not in banned)
    terms = [w for w, _ in counts.most_common(n_terms)]
    if not terms:
        return "Related Work"
    terms = [t.capitalize() for t in terms]
    return terms[0] if len(terms) == 1 else ", ".join(terms[:-1]) + " and " + terms[-1]
