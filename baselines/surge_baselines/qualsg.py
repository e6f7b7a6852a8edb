"""``qualsg``: QUAL-SG (the SurveyGen paper's quality-aware RAG, protocol.md §8), then outline + sections.

Paper selection, with the signals that exist:

1. semantic top-n: the run's top-k; re-ordered by cosine similarity of topic and abstract when
   ``embedding_model`` (a sentence-transformers folder or id) is given, else the run's order as is
   (a dense run already is a semantic ranking);
2. co-citation expansion, only when ``signals`` names a citation graph (``surveygen_signals.json`` of
   ``surge data from-surveygen``: ``referenced_doc_ids`` per paper): corpus papers cited by at least two
   candidates are added, the ``max_expansion`` most co-cited first, none dated after the survey;
3. re-ranking by the mean of three ranks:
   * topical relevance: an LLM judge's 1-5 rating per candidate (``llm_relevance``; unreadable answers
     rank after readable ones, ties keep the retrieval order); without it, the retrieval order;
   * academic impact (only with ``signals``): 0.5 x citations per year + 0.3 x venue h-index + 0.2 x
     (first + last author h-index), each bucketed into 4 levels by percentile within the candidates;
     a missing component is left out and the weights of the others renormalised; papers with no
     signal at all rank last; without ``signals`` this criterion is dropped;
   * content diversity: mean cosine distance of a paper to the other candidates (TF-IDF vectors of title
     + abstract, or the embedding model's vectors when given);
   with ``-o rerank=NAME`` (``upr``, ``rankgpt``: SurveyGen's Table 5), the re-ranker's order of the
   candidates replaces the three criteria;
4. the ``select`` best papers (default 66, SurGE's mean number of cited papers per survey; the paper
   matched each human survey's own count, which would leak the ground truth) are kept.

Writing follows SurveyGen's Task 2: an outline with section descriptions, then every section in
parallel from its most similar selected papers.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from surge_dataset.core.records import Paper
from surge_dataset.generation import Draft, Topic, usable_papers
from surge_dataset.llm import parse_score

from .common import BaselineGenerator, TfIdf, paper_lines, paper_text, to_draft_sections
from .reranking import Reranks

IMPACT_WEIGHTS = {"citations_per_year": 0.5, "venue_h_index": 0.3, "author_h_index": 0.2}


def _year(text: str | None) -> int | None:
    return int(text[:4]) if text and text[:4].isdigit() else None


def _is_after(paper: Paper, date: str | None) -> bool:
    """Dated after the survey (compared on the common ISO prefix; unknown dates are kept)."""
    mine, limit = (paper.date or paper.year or "")[:10], (date or "")[:10]
    width = min(len(mine), len(limit))
    return bool(width) and mine[:width] > limit[:width]


def percentile_levels(values: dict[int, float], levels: int = 4) -> dict[int, int]:
    """Each value's level 1..``levels`` by its mid-rank percentile among ``values``."""
    ordered = sorted(values.values())
    n = len(ordered)
    out = {}
    for key, value in values.items():
        below = sum(1 for v in ordered if v < value)
        equal = sum(1 for v in ordered if v == value)
        out[key] = min(levels, 1 + int(levels * (below + 0.5 * equal) / n))
    return out


def impact_scores(papers: Sequence[Paper], signals: dict[str, dict[str, Any]], year: int | None) -> list[float | None]:
    """The weighted impact score per paper (None: no signal); see the module docstring."""
    components: dict[str, dict[int, float]] = {name: {} for name in IMPACT_WEIGHTS}
    for i, paper in enumerate(papers):
        signal = signals.get(str(paper.doc_id)) or {}
        published = signal.get("year") or _year(paper.year) or _year(paper.date)
        if signal.get("citation_count") is not None and published:
            age = max(1, (year or published) - int(published))
            components["citations_per_year"][i] = float(signal["citation_count"]) / age
        if signal.get("venue_h_index") is not None:
            components["venue_h_index"][i] = float(signal["venue_h_index"])
        authors = [h for h in signal.get("author_h_indices") or [] if h is not None]
        if authors:
            components["author_h_index"][i] = float(authors[0] + (authors[-1] if len(authors) > 1 else 0))
    levels = {name: percentile_levels(values) for name, values in components.items() if values}
    scores: list[float | None] = []
    for i in range(len(papers)):
        present = {name: lv[i] for name, lv in levels.items() if i in lv}
        weight = sum(IMPACT_WEIGHTS[n] for n in present)
        scores.append(sum(IMPACT_WEIGHTS[n] * v for n, v in present.items()) / weight if weight else None)
    return scores


def ranks(keys: Sequence[tuple]) -> np.ndarray:
    """1-based rank of each item under ascending ``keys`` (ties broken by the key's last element)."""
    order = sorted(range(len(keys)), key=lambda i: keys[i])
    out = np.empty(len(keys))
    for rank, i in enumerate(order, start=1):
        out[i] = rank
    return out


@functools.lru_cache(maxsize=2)
def _embedder(name: str) -> Any:
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(name, trust_remote_code=False)


@functools.lru_cache(maxsize=4)
def _read_signals(path: str) -> dict[str, dict[str, Any]]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


class QualSG(Reranks, BaselineGenerator):
    name = "qualsg"
    defaults = {
        "signals": "",  # surveygen_signals.json (impact signals and citation graph); "" = none
        "embedding_model": "",  # sentence-transformers model for semantic order and diversity; "" = TF-IDF
        "llm_relevance": True,  # LLM-judged topical relevance (one short call per candidate)
        "select": 66,  # papers kept after re-ranking
        "max_expansion": 50,  # co-cited papers added at most
    }

    def bind(self, data: Any) -> None:
        self.corpus = getattr(data, "corpus", None)

    def generate(self, topic: Topic, papers: Sequence[Paper], llm: Any) -> Draft:
        notes: list[str] = []
        signals = _read_signals(self.signals) if self.signals else {}
        candidates = list(papers)
        vectors = None
        if self.embedding_model and candidates:
            model = _embedder(self.embedding_model)
            vectors = model.encode([paper_text(p) for p in candidates], normalize_embeddings=True)
            query = model.encode([topic.title], normalize_embeddings=True)[0]
            order = sorted(range(len(candidates)), key=lambda i: (-float(vectors[i] @ query), i))
            candidates, vectors = [candidates[i] for i in order], vectors[order]
        n_retrieved = len(candidates)
        expansion = self._co_cited(candidates, signals, topic) if signals else []
        if expansion:
            candidates += expansion
            if vectors is not None:
                extra = _embedder(self.embedding_model).encode([paper_text(p) for p in expansion], normalize_embeddings=True)
                vectors = np.vstack([vectors, extra])
        criteria: dict[str, np.ndarray] = {}
        if self.rerank and candidates:  # Table 5: a re-ranker's order in place of the three criteria
            reranked = self.rerank_papers(topic.title, candidates, llm, notes)
            position = {id(p): rank for rank, p in enumerate(reranked, start=1)}
            criteria[self.rerank] = np.array([float(position[id(p)]) for p in candidates])
        elif candidates:
            criteria["relevance"] = self._relevance_ranks(topic, candidates, llm, notes)
            impact = impact_scores(candidates, signals, _year(topic.date)) if signals else []
            if any(s is not None for s in impact):
                criteria["impact"] = ranks([(s is None, -(s or 0.0), i) for i, s in enumerate(impact)])
            x = vectors if vectors is not None else TfIdf([paper_text(p) for p in candidates]).matrix
            similarity = x @ x.T
            n = len(candidates)
            distance = (n - 1 - (similarity.sum(axis=1) - np.diag(similarity))) / max(1, n - 1)
            criteria["diversity"] = ranks([(-round(float(d), 9), i) for i, d in enumerate(distance)])
        mean_rank = np.mean(np.vstack(list(criteria.values())), axis=0) if criteria else np.zeros(0)
        order = sorted(range(len(candidates)), key=lambda i: (float(mean_rank[i]), i))
        selected = [candidates[i] for i in order[: max(1, self.select)]]
        info = {
            "retrieved": n_retrieved,
            "co_cited_added": [p.doc_id for p in expansion],
            "criteria": list(criteria),
            "selected": [p.doc_id for p in selected],
        }
        if not signals:
            notes.append("no signals file: no co-citation expansion, impact criterion dropped")
        index = TfIdf([paper_text(p) for p in selected])
        outline = self.plan_outline(topic.title, selected, llm, notes, index)
        self.route_papers(outline, selected, index)
        texts = self.write_items(llm, topic.title, outline, self.leaves(outline), selected)
        return Draft(topic.title, to_draft_sections(outline, texts), self.sources(selected), notes, extra=info)

    def _relevance_ranks(self, topic: Topic, candidates: list[Paper], llm: Any, notes: list[str]) -> np.ndarray:
        if not self.llm_relevance:
            return ranks([(i,) for i in range(len(candidates))])
        answers = self.ask(llm, "relevance", "gen.qualsg.relevance", [
            {"topic": topic.title, "paper": paper_lines([("P", p)], self.abstract_chars).removeprefix("[P] ")}
            for p in candidates
        ], max_new_tokens=8)
        scores = [parse_score(a, 1, 5) for a in answers]
        unreadable = sum(s is None for s in scores)
        if unreadable:
            notes.append(f"relevance unreadable for {unreadable} of {len(scores)} candidates: ranked after the others")
        return ranks([(s is None, -(s or 0), i) for i, s in enumerate(scores)])

    def _co_cited(self, candidates: list[Paper], signals: dict[str, dict[str, Any]], topic: Topic) -> list[Paper]:
        corpus = getattr(self, "corpus", None)
        if corpus is None:
            return []
        have = {p.doc_id for p in candidates}
        counts: dict[int, int] = {}
        for paper in candidates:
            for target in (signals.get(str(paper.doc_id)) or {}).get("referenced_doc_ids") or []:
                if int(target) not in have:
                    counts[int(target)] = counts.get(int(target), 0) + 1
        frequent = sorted((d for d, c in counts.items() if c >= 2), key=lambda d: (-counts[d], d))
        added = [p for p in usable_papers(corpus.get(frequent)) if not _is_after(p, topic.date)]
        return added[: self.max_expansion]
