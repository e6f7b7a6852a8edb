"""Cite keys -> arXiv ids: by the id the bibliography entry writes, else by its title (:class:`KeyResolver`).

**By id first.** A key whose entry writes an arXiv id (``LatexSource.bibliography_ids``, :mod:`.arxiv_ids`) is
fetched by id (the API's ``id_list``, :data:`~.candidates.ID_BATCH` ids a request, cached in ``fresh.sqlite``):
one request answers a hundred keys, where the title search asks once per title at ``--rate`` seconds apart. The
key is resolved by id (method ``id``) only when the API returns that very id with a title; an id it does not know
(absent from the answer, or refused) is not trusted, and the key goes to the title search like a key without an id
(none when the entry has no title). A typo in an id would name another paper: when the entry also has a title
and the record's title scores below :data:`ID_TITLE_FLOOR` against it, the id is not trusted either and the title
is searched. An id whose request failed (retries spent) is a failed look-up: the survey is reported as not fully
looked up and a rerun asks again, as for a title.

**Then by title.** Each distinct title (distinct by the corpus rule: letters a-z, lower-cased) is searched once with the
resolver's arXiv request (``ti:"<title>"``, 5 results; :mod:`surge_dataset.references.arxiv_search`), its answer
kept in the resolver's cache (``<cache>/references.sqlite``, keyed by base URL and title), so a rerun asks
nothing. Of the papers returned:

1. **exact**: one whose title normalises like the reference's (``match_score`` 100) is taken;
2. **fuzzy**: else the closest by ``match_score`` (rapidfuzz ``ratio`` of the lower-cased, punctuation-free
   titles) is taken when it scores at least ``--match-threshold`` (default :data:`DEFAULT_THRESHOLD` = 90).

Why 90 and not the resolver's 95: titles read out of ``.bbl``/``.bib`` files keep LaTeX residue (a lost accent,
``\\&``, a dropped brace group, a British spelling), which costs a few points on a 60-character title; 90 allows
about 6 edits there, while different papers that share a long prefix ("X: a survey" vs "X: a review") score
below it. Titles of fewer than :data:`MIN_TITLE_LETTERS` letters are not searched (a lone "Attention" would
match anything). A look-up that fails (retries spent) is *not* unresolved: the survey is reported as not fully
looked up, and a rerun asks again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from surge_dataset.core.normalise import normalise_title
from surge_dataset.core.vocabulary import ARXIV
from surge_dataset.fresh.candidates import ArxivApi, ArxivRecord
from surge_dataset.fresh.latex import LatexSource
from surge_dataset.fresh.settings import DEFAULT_THRESHOLD
from surge_dataset.fresh.sources import HostPool
from surge_dataset.references.chain import ChainOptions, ReferenceChain
from surge_dataset.references.labels import best_candidate
from surge_dataset.references.match import match_score

__all__ = ["BY_ID", "DEFAULT_THRESHOLD", "EXACT", "FUZZY", "ID_TITLE_FLOOR", "MIN_TITLE_LETTERS", "KeyResolver", "Resolution",
           "ResolvedKeys", "TitleResolver"]

#: Below this ``match_score`` between an entry's title and the record its arXiv id fetched, the id is taken for a
#: typo (another paper) and the title is searched instead. Low on purpose: a ``.bbl`` title with LaTeX residue, a
#: shortened or a later version's title of the same paper stay well above it; another paper's title scores ~20-40.
ID_TITLE_FLOOR = 60.0
MIN_TITLE_LETTERS = 12
EXACT, FUZZY, BY_ID = "exact", "fuzzy", "id"


@dataclass(frozen=True)
class Resolution:
    """What became of one title: its arXiv id (None: not found), how, and the score; ``error`` when the
    look-up failed (neither found nor known to be absent)."""

    arxiv_id: str | None = None
    method: str | None = None  # "id", "exact" or "fuzzy"
    score: float | None = None
    matched_title: str | None = None
    error: str | None = None


class TitleResolver:
    """Resolve many titles at once against the arXiv API on ``base_url`` (module docstring)."""

    def __init__(self, base_url: str, hosts: HostPool, cache_dir: Any, *, threshold: float = DEFAULT_THRESHOLD,
                 concurrency: int = 4, environ: Mapping[str, str] | None = None) -> None:
        options = ChainOptions(services=(ARXIV,), threshold=threshold, base_urls={ARXIV: base_url},
                               timeout=hosts.timeout, max_retries=hosts.max_retries, concurrency=concurrency,
                               cache_dir=cache_dir)
        self.threshold = threshold
        self.chain = ReferenceChain(options, environ, transports={ARXIV: hosts.transport(base_url)})

    def resolve(self, titles: Iterable[str]) -> dict[str, Resolution]:
        """``{title: Resolution}`` for every title given (short or empty titles: not searched, unresolved)."""
        titles = list(dict.fromkeys(t for t in titles if t))
        keyed = {normalise_title(t): t for t in titles if len(normalise_title(t)) >= MIN_TITLE_LETTERS}
        answers = self.chain.lookup(keyed) if keyed else {}
        by_key: dict[str, Resolution] = {}
        for key, title in keyed.items():
            answer = answers[key][-1] if answers.get(key) else None
            if answer is None:
                by_key[key] = Resolution()
            elif answer.error is not None:
                by_key[key] = Resolution(error=answer.error)
            else:
                best = best_candidate(title, answer.candidates)
                if best is not None and best[1] >= self.threshold and best[0].arxiv_id:
                    by_key[key] = Resolution(best[0].arxiv_id, EXACT if best[1] >= 100 else FUZZY, best[1],
                                             best[0].title)
                else:
                    by_key[key] = Resolution(score=best[1] if best else None,
                                             matched_title=best[0].title if best else None)
        return {t: by_key.get(normalise_title(t), Resolution()) for t in titles}

    def stats(self) -> dict[str, Any]:
        stats = self.chain.stats.get(ARXIV)
        return stats.as_dict() if stats else {}


Progress = Callable[[str, int, int | None], None]


@dataclass
class ResolvedKeys:
    """What :class:`KeyResolver` found: per source, key -> Resolution (None: neither an id nor a title); the
    arXiv records of every resolved id; the counts of what was asked."""

    keys: list[dict[str, Resolution | None]]
    metadata: dict[str, ArxivRecord]
    stats: dict[str, int] = field(default_factory=dict)


class KeyResolver:
    """Cited keys of many surveys -> arXiv ids, by id then by title (module docstring)."""

    def __init__(self, api: ArxivApi, titles: TitleResolver) -> None:
        self.api, self.titles = api, titles

    def resolve(self, sources: Sequence[LatexSource], progress: Progress | None = None) -> ResolvedKeys:
        """Every cited key of ``sources`` (``all_cite_keys``), resolved (module docstring)."""
        progress = progress or (lambda stage, done, total: None)
        cited = [(source, source.all_cite_keys()) for source in sources]
        ids = list(dict.fromkeys(source.bibliography_ids[k] for source, keys in cited for k in keys
                                 if k in source.bibliography_ids))
        requests = self.api.id_requests
        progress("resolving arXiv ids", 0, len(ids))
        by_id, unknown, failed = self.api.lookup_ids(ids)
        progress("resolving arXiv ids", len(ids), len(ids))
        id_requests = self.api.id_requests - requests

        def id_trusted(source: LatexSource, key: str) -> bool:
            arxiv_id, title = source.bibliography_ids.get(key), source.bibliography.get(key)
            return arxiv_id in by_id and (not title or match_score(title, by_id[arxiv_id].title) >= ID_TITLE_FLOOR)

        def title_of(source: LatexSource, key: str) -> str | None:
            arxiv_id = source.bibliography_ids.get(key)
            usable = arxiv_id is None or arxiv_id in unknown or (arxiv_id in by_id and not id_trusted(source, key))
            return source.bibliography.get(key) if usable else None

        titles = list(dict.fromkeys(t for source, keys in cited for k in keys if (t := title_of(source, k))))
        progress("resolving titles", 0, len(titles))
        by_title = self.titles.resolve(titles)
        progress("resolving titles", len(titles), len(titles))
        found = [r.arxiv_id for r in by_title.values() if r.arxiv_id and r.arxiv_id not in by_id]
        progress("cited papers' metadata", 0, len(found))
        metadata, meta_unknown, meta_failed = self.api.lookup_ids(found)
        progress("cited papers' metadata", len(found), len(found))
        metadata.update(by_id)
        results: list[dict[str, Resolution | None]] = []
        for source, keys in cited:
            resolved: dict[str, Resolution | None] = {}
            for key in keys:
                arxiv_id, title = source.bibliography_ids.get(key), title_of(source, key)
                if arxiv_id in by_id and id_trusted(source, key):
                    resolved[key] = Resolution(arxiv_id, BY_ID, matched_title=by_id[arxiv_id].title)
                elif arxiv_id is not None and arxiv_id in failed:
                    resolved[key] = Resolution(error=f"arXiv id {arxiv_id} not fetched")
                elif title is None:
                    resolved[key] = None
                else:
                    answer = by_title.get(title, Resolution())
                    if answer.arxiv_id in meta_failed:
                        answer = Resolution(error=f"metadata of {answer.arxiv_id} not fetched")
                    elif answer.arxiv_id in meta_unknown:
                        answer = Resolution(score=answer.score, matched_title=answer.matched_title)
                    resolved[key] = answer
            results.append(resolved)
        stats = {"ids": len(ids), "ids_found": len(by_id), "ids_unknown": len(unknown), "ids_failed": len(failed),
                 "id_requests": id_requests, "titles": len(titles)}
        return ResolvedKeys(results, metadata, stats)
