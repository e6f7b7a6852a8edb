"""Re-rankers: a second look at a retriever's top candidates, found by name like the index kinds.

A re-ranker takes a query and candidate passages and returns them in a new order, each with a score
(higher first): ``reranker.rerank(query, candidates) -> list[Ranked]``. It is a retrieval component any
caller can use: ``surge retrieve --rerank NAME`` re-ranks each query's top candidates before writing the
run, and the retrieval baselines take ``-o rerank=NAME`` (``rag``: re-ranks its top-k papers; ``qualsg``:
the re-ranker's order replaces its three-criteria ranking before ``select`` keeps the best -- SurveyGen's
Table 5).

The names are :data:`RERANKERS`, a :class:`~surge_dataset.core.registries.Registry` like the index kinds:

1. the built-in ones (``upr``, ``rankgpt``), registered with :func:`register_reranker` on their class in their own
   module (``upr.py``, ``rankgpt.py``);
2. the ``surge.rerankers`` entry-point group, for re-rankers shipped by other packages::

       [project.entry-points."surge.rerankers"]
       monot5 = "my_package.monot5:MonoT5"

3. re-rankers registered at run time with :func:`register_reranker` (a decorator on a :class:`Reranker`
   subclass, or a ``"module:Class"`` string).

A built-in name keeps its meaning whatever is installed; two installed packages declaring one name are a
``NameClashError`` when that name is asked for; run-time registration takes a built-in's name, or an earlier
registration's, only with ``replace=True``. ``surge retrieve --rerank``'s help lists :data:`RERANKERS`.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from surge_dataset.core.registries import Registry
from surge_dataset.core.vocabulary import UnknownNameError

__all__ = [
    "ENTRY_POINT_GROUP",
    "RERANKERS",
    "Candidate",
    "Ranked",
    "Reranker",
    "UnknownRerankerError",
    "available_rerankers",
    "get_reranker",
    "register_reranker",
    "reranker_names",
    "unregister_reranker",
]

ENTRY_POINT_GROUP = "surge.rerankers"

#: Re-ranker name -> its :class:`Reranker` subclass: a live mapping of the built-in, installed and registered ones.
RERANKERS = Registry("re-ranker", ENTRY_POINT_GROUP,
                     builtin_modules=("surge_dataset.retrieval.rankgpt", "surge_dataset.retrieval.upr"),
                     pick="register_reranker({target!r}, name={name!r}, replace=True)")


@dataclass(frozen=True)
class Candidate:
    """One passage to re-rank: its id (a corpus ``doc_id``) and the text the re-ranker reads."""

    id: Any
    text: str


@dataclass(frozen=True)
class Ranked:
    """A candidate in its new place: ``score`` is the re-ranker's (higher is better; its scale is its own)."""

    id: Any
    text: str
    score: float


class Reranker(ABC):
    """What every re-ranker is: ``rerank(query, candidates)`` -> all the candidates, best first, with scores.

    Subclasses set ``name`` and take their options (and ``llm``, when they need a model) as keyword arguments
    of ``__init__``. A re-ranker never drops or invents a candidate: the answer holds each input once.
    """

    name: ClassVar[str] = ""

    @abstractmethod
    def rerank(self, query: str, candidates: Sequence[Candidate]) -> list[Ranked]:
        """The candidates, best first."""

    def rerank_many(self, queries: Sequence[str], candidates: Sequence[Sequence[Candidate]]) -> list[list[Ranked]]:
        """One :meth:`rerank` per query (override to batch across queries)."""
        return [self.rerank(q, c) for q, c in zip(queries, candidates, strict=True)]

    def describe(self) -> dict[str, Any]:
        """What changes this re-ranker's order (recorded beside the run or survey it ranked)."""
        return {"reranker": self.name}


def by_score(candidates: Sequence[Candidate], scores: Sequence[float]) -> list[Ranked]:
    """Candidates sorted by score, descending; equal scores keep the input order (stable)."""
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    return [Ranked(candidates[i].id, candidates[i].text, float(scores[i])) for i in order]


# ---------------------------------------------------------------------------------------- registry


class UnknownRerankerError(UnknownNameError, ValueError):
    """A re-ranker name no provider declares, with the closest known one."""


def register_reranker(cls: Any = None, *, name: str | None = None, replace: bool = False) -> Any:
    """Make a :class:`Reranker` subclass (or a ``"module:Class"`` string, with ``name=``) a ``--rerank`` choice.

    Used as ``@register_reranker`` or ``@register_reranker(replace=True)``. Taking a built-in name or one
    registered before needs ``replace=True`` (else a ``NameClashError``); an installed package's name is taken.
    """
    if cls is None:
        return lambda target: register_reranker(target, name=name, replace=replace)
    if isinstance(cls, str):
        if not name:
            raise ValueError("register_reranker('module:Class') needs name=")
    elif not (isinstance(cls, type) and issubclass(cls, Reranker)):
        raise TypeError(f"{cls!r} is not a surge_dataset.retrieval.rerank.Reranker subclass")
    key = name or cls.name
    if not key:
        raise ValueError(f"{cls.__name__} has no name")
    return RERANKERS.register(key, cls, replace=replace)


def unregister_reranker(name: str) -> None:
    """Forget a run-time registration (a shadowed built-in or entry point comes back)."""
    RERANKERS.unregister(name)


def available_rerankers() -> dict[str, str]:
    """Every known name -> where it lives (``module:Class``), no plugin imported."""
    return RERANKERS.targets()


def reranker_names() -> list[str]:
    return list(RERANKERS.names())


def reranker_class(name: str) -> type[Reranker]:
    """The class of ``name`` (imported now); an unknown name is an :class:`UnknownRerankerError`."""
    if name not in RERANKERS:
        raise UnknownRerankerError("re-ranker", name, RERANKERS.names())
    cls = RERANKERS.load(name)
    if not (isinstance(cls, type) and issubclass(cls, Reranker)):
        raise TypeError(f"re-ranker {name!r} ({RERANKERS.targets()[name]}) is not a Reranker subclass")
    return cls


def get_reranker(name: str, **options: Any) -> Reranker:
    """The re-ranker ``name`` built with the ``options`` its ``__init__`` takes (``llm``, ``window``, ...).

    Options it does not take are dropped, so one caller can offer every re-ranker the same set
    (``surge retrieve``, the baselines' ``-o rerank_*``).
    """
    cls = reranker_class(name)
    parameters = inspect.signature(cls).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        options = {k: v for k, v in options.items() if k in parameters}
    return cls(**options)


def rerank_results(reranker: Reranker, queries: dict[str, str], results: dict[str, list[Any]],
                   texts_of: Any, depth: int) -> dict[str, list[Any]]:
    """Each query's first ``depth`` hits in the re-ranker's order, the rest after them as they were.

    ``texts_of(doc_ids) -> texts`` gives the passages (title and abstract). The new scores are ranks turned
    round (``len(hits) - position``): distinct and descending, so the TREC order is the re-ranker's.
    """
    from surge_dataset.retrieval.index_base import Hit

    qids = [qid for qid in results if results[qid]]
    heads = [results[qid][:depth] for qid in qids]
    candidates = [[Candidate(h.doc_id, t) for h, t in zip(hits, texts_of([h.doc_id for h in hits]), strict=True)]
                  for hits in heads]
    ranked = reranker.rerank_many([queries[qid] for qid in qids], candidates)
    out = dict(results)
    for qid, order in zip(qids, ranked, strict=True):
        ids = [r.id for r in order] + [h.doc_id for h in results[qid][depth:]]
        out[qid] = [Hit(doc_id, float(len(ids) - position)) for position, doc_id in enumerate(ids)]
    return out
