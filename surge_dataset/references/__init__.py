"""Do the generated references exist? A resolver chain over the corpus and bibliographic services.

SurGE only knows whether a reference is *in its corpus*; a real paper outside it is not fabricated. The
chain (:mod:`.chain`) asks, in order: the corpus (exact title, then the nearest title), SurveyGen's reference
metadata (``--bib-surveygen``), then OpenAlex, Semantic Scholar, arXiv and Crossref as ``--bib-services``
lists them; every reference gets one label (:mod:`.labels`: ``in_corpus``, ``exists``, ``not_found``,
``unchecked``). The metric ``reference_existence`` (``evaluation/metrics/reference_existence.py``) scores
them; no other metric asks anything outside the corpus.

Layout: pure logic apart from HTTP. ``match.py`` (title similarity, fuzzy index), ``labels.py`` (labels and
the temporal check), one module per source building its request and reading its answer (``openalex.py``,
``semantic_scholar.py``, ``arxiv_search.py``, ``crossref.py``; ``corpus.py`` and ``surveygen.py`` are
local), ``markup.py`` (a service's title as plain text, for every service), :mod:`surge_dataset.core.http` (rate limit, retries,
``Retry-After``), ``chain.py`` (order, batching, the SQLite cache, the other form of a refused query).

The web services' client libraries are optional: ``pip install 'surge-bench[bib]'`` (``pyalex``,
``semanticscholar``, ``feedparser`` for arXiv's Atom answers). Keys and e-mail addresses come from the environment only:
``SURGE_OPENALEX_EMAIL`` / ``SURGE_CROSSREF_EMAIL`` (polite pools; ``SURGE_BIB_EMAIL`` for both),
``SURGE_OPENALEX_API_KEY``, ``SEMANTIC_SCHOLAR_API_KEY``; ``SURGE_OFFLINE=1`` asks no web service.
"""

from __future__ import annotations

from surge_dataset.references.base import Candidate, MissingExtraError, SourceAnswer
from surge_dataset.references.chain import (
    ChainOptions,
    LookupSession,
    ReferenceChain,
    is_offline,
    parse_services,
)
from surge_dataset.references.labels import Evidence, label_reference, published_after
from surge_dataset.references.match import match_score

__all__ = [
    "Candidate",
    "ChainOptions",
    "Evidence",
    "LookupSession",
    "MissingExtraError",
    "ReferenceChain",
    "SourceAnswer",
    "is_offline",
    "label_reference",
    "match_score",
    "parse_services",
    "published_after",
]
