"""``qualsg``: QUAL-SG (the SurveyGen paper's quality-aware RAG, protocol.md §8), then outline + sections.

QUAL-SG is :mod:`Naive-RAG <.naive_rag>` with a different choice of its K papers. Paper selection, with the
signals that exist:

1. semantic top-n: the run's top-k; re-ordered by cosine similarity of topic and abstract when
   ``embedding_model`` (a sentence-transformers folder or id) is given, else the run's order as is
   (a dense run already is a semantic ranking);
2. co-citation expansion, only when ``signals`` names a citation graph (``surveygen_signals.json`` of
   ``surge data from-surveygen``: ``referenced_doc_ids`` per paper): corpus papers cited by at least two
   candidates are added, the ``max_expansion`` most co-cited first (0: none), none dated after the survey;
3. re-ranking by the mean of the ranks under the criteria switched on (``relevance``, ``impact``,
   ``diversity``; each false drops that criterion from the mean, one Table 7 row each):
   * topical relevance: an LLM judge's 1-5 rating per candidate (``llm_relevance``; unreadable answers
     rank after readable ones, ties keep the retrieval order); ``llm_relevance=false`` ranks this criterion
     by the retrieval order instead (a cheaper stand-in for the judge, not an ablation);
   * academic impact (only with ``signals``): 0.5 x citations per year + 0.3 x venue h-index + 0.2 x
     (first + last author h-index), each bucketed into 4 levels by percentile within the candidates;
     a missing component is left out and the weights of the others renormalised; papers with no
     signal at all rank last; without ``signals`` this criterion is dropped;
   * content diversity: mean cosine distance of a paper to the other candidates (TF-IDF vectors of title
     + abstract, or the embedding model's vectors when given);
   with ``-o rerank=NAME`` (``upr``, ``rankgpt``: SurveyGen's Table 5), the re-ranker's order of the
   candidates replaces the three criteria;
   ties of the mean rank keep the order of step 1 (then the co-cited papers); with every criterion off,
   that order is the ranking;
4. the K best papers are kept: K = ``select``, 0 (the default) = each human survey's own reference count,
   as in the paper; a number fixes K for every survey.

Table 7's "w/o topical relevance" removes the relevance-based *ranking* (the paper's item (2)): the
judge's rating leaves the mean rank, while the semantic retrieval of step 1, which builds the candidate pool,
stays. That is ``relevance=false``. Writing follows SurveyGen's Task 2 (:meth:`NaiveRAG.write`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from surge_dataset.core.records import Paper
from surge_dataset.generation import Draft, Topic, usable_papers
from surge_dataset.generation.inputs import paper_lines
from surge_dataset.llm import parse_score

from .lexical import TfIdf, paper_text
from .naive_rag import NaiveRAG
from .reranking import Reranks

#: The re-ranking criteria, each an option that Table 7's ablations switch off one at a time.
CRITERIA = ("relevance", "impact", "diversity")
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


@functools.lru_cache(maxsize=4)
def _read_signals(path: str) -> dict[str, dict[str, Any]]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def score_ranks(scores: Sequence[float | None]) -> np.ndarray:
    """Ranks of scores, highest first; ``None`` (no score) after every score; ties: the given order."""
    return ranks([(s is None, -(s or 0.0), i) for i, s in enumerate(scores)])


def mean_distances(x: np.ndarray) -> np.ndarray:
    """Each row's mean cosine distance to the other rows (rows L2-normalised): the paper's S_d."""
    n = len(x)
    similarity = x @ x.T
    return (n - 1 - (similarity.sum(axis=1) - np.diag(similarity))) / max(1, n - 1)


def diversity_ranks(distances: Sequence[float]) -> np.ndarray:
    """Ranks of the mean distances, farthest first (ties: the given order)."""
    return ranks([(-round(float(d), 9), i) for i, d in enumerate(distances)])


def mean_rank_order(criteria: Mapping[str, np.ndarray], n: int) -> list[int]:
    """The ``n`` candidates' indices by their mean rank over ``criteria`` (ties, or no criterion: as given)."""
    mean = np.mean(np.vstack(list(criteria.values())), axis=0) if criteria else np.zeros(n)
    return sorted(range(n), key=lambda i: (float(mean[i]), i))


class QualSG(Reranks, NaiveRAG):
    name = "qualsg"
    defaults = {
        "signals": "",  # surveygen_signals.json (impact signals and citation graph); "" = none
        "relevance": True,  # relevance criterion in the mean rank (false: Table 7 "w/o topical relevance")
        "impact": True,  # impact criterion (false: "w/o academic impact"); needs signals
        "diversity": True,  # diversity criterion (false: "w/o content diversity")
        "llm_relevance": True,  # relevance by an LLM judge (one short call per candidate); false: retrieval order
        "max_expansion": 50,  # co-cited papers added at most (0: "w/o co-cited expansion")
    }

    def generate(self, topic: Topic, papers: Sequence[Paper], llm: Any) -> Draft:
        notes: list[str] = []
        selected, info = self.select_papers(topic, papers, llm, notes)
        return self.write(topic, selected, llm, notes, info)

    def select_papers(self, topic: Topic, papers: Sequence[Paper], llm: Any, notes: list[str]) -> tuple[list[Paper], dict]:
        """Steps 1-4 of the module docstring: the K papers kept, and what the sidecar records of the choice."""
        signals = _read_signals(self.signals) if self.signals else {}
        candidates, vectors = self.semantic_order(topic, papers)
        n_retrieved = len(candidates)
        expansion = self._co_cited(candidates, signals, topic) if signals and self.max_expansion > 0 else []
        if expansion:
            candidates += expansion
            if vectors is not None:
                vectors = np.vstack([vectors, self.embed(expansion)])
        criteria: dict[str, np.ndarray] = {}
        if self.rerank and candidates:  # Table 5: a re-ranker's order in place of the three criteria
            reranked = self.rerank_papers(topic.title, candidates, llm, notes)
            position = {id(p): rank for rank, p in enumerate(reranked, start=1)}
            criteria[self.rerank] = np.array([float(position[id(p)]) for p in candidates])
        else:
            criteria.update(self._criteria(topic, candidates, vectors, signals, llm, notes))
        k, k_source = self.k_of(topic)
        order = mean_rank_order(criteria, len(candidates))
        selected = [candidates[i] for i in order[:k]]
        if len(candidates) < k:
            notes.append(f"K = {k} but there are {len(candidates)} candidates: all kept (raise --top-k)")
        if not signals:
            notes.append("no signals file: no co-citation expansion, impact criterion dropped")
        info = {
            "retrieved": n_retrieved,
            "co_cited_added": [p.doc_id for p in expansion],
            "criteria": list(criteria),
            "switched_off": [c for c in CRITERIA if not getattr(self, c)],
            "k": k,
            "k_source": k_source,
            "selected": [p.doc_id for p in selected],
        }
        return selected, info

    def _criteria(self, topic: Topic, candidates: list[Paper], vectors: np.ndarray | None, signals: dict,
                  llm: Any, notes: list[str]) -> dict[str, np.ndarray]:
        """Each switched-on criterion's ranks of the candidates (Table 7's ablations switch them off one by one)."""
        criteria: dict[str, np.ndarray] = {}
        if candidates and self.relevance:
            criteria["relevance"] = self._relevance_ranks(topic, candidates, llm, notes)
        if candidates and self.impact and signals:
            impact = impact_scores(candidates, signals, _year(topic.date))
            if any(s is not None for s in impact):
                criteria["impact"] = score_ranks(impact)
        if candidates and self.diversity:
            x = vectors if vectors is not None else TfIdf([paper_text(p) for p in candidates]).matrix
            criteria["diversity"] = diversity_ranks(mean_distances(x))
        return criteria

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
        return score_ranks(scores)

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
