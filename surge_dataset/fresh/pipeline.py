"""``surge data fresh``: recent arXiv surveys -> SurGE's official files, a fresh split no model has read.

The SurGE construction pipeline (paper §3.1 and §3.3) as one resumable run, step by step:

1. **candidates** (:mod:`.candidates`): arXiv search in the date window and categories, the survey/review rule,
   citation counts (OpenAlex or Semantic Scholar), ``--min-citations``;
2. **sources** (:mod:`.sources`, :mod:`.latex`): each candidate's e-print, read into a section tree with the
   ``\\cite`` keys of each section and the bibliography's titles; a 404 or an unusable e-print drops it;
3. **resolution** (:mod:`.resolve`): each cited key -> an arXiv id, by the id its entry writes (``id_list``
   batches), else by its title (exact, then fuzzy); the extraction rate
   (resolved cited keys / all cited keys) below ``--min-extract-rate`` drops the survey;
4. **corpus** (:mod:`.corpus`): cited papers, topic-related papers, an optional random sample, deduplicated;
5. **output** in ``--out``: ``surveys.json``, ``corpus.json``, ``queries.json`` (derived from the surveys'
   section cites by :mod:`surge_dataset.data.queries`), all in the official schema, and ``fresh_manifest.json``
   (window, settings, versions, counts, every kept survey and every dropped candidate with its stage and reason).

Survey ids count from 0 in submission order (also with ``--base-corpus``: the split is its own dataset, only its
corpus is shared with SurGE); ``date`` is the first version's submission time (UTC), ``category`` the primary
category, ``Bertopic_CD`` null (a topic-model statistic of the whole released set, not computable for a new one).
Every download and look-up is cached on disk first (:mod:`.sources`), so a rerun of the same command continues
where a killed one stopped and a finished one is redone from the cache alone; the four files are rewritten at the
end of every run, each atomically, all four written in ``OUT/.writing/`` first and then moved in together.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from surge_dataset.core.io import atomic_write_json, atomic_write_json_array
from surge_dataset.core.records import OFFICIAL_FILES
from surge_dataset.core.vocabulary import (
    ARXIV,
    ARXIV_SOURCE_HOST,
    BBL,
    BIB,
    CITATIONS_STAGE,
    NO_CITATION_SOURCE,
    RESOLVE_STAGE,
    RULE_STAGE,
    SOURCE_STAGE,
    parse_list,
)
from surge_dataset.data.fresh_manifest import FRESH_KIND, FRESH_MANIFEST, FRESH_VERSION
from surge_dataset.data.queries import survey_topic
from surge_dataset.fresh.candidates import (
    ArxivApi,
    ArxivRecord,
    CitationCounts,
    FreshSearchError,
    candidate_query,
    date_window,
    survey_rule,
)
from surge_dataset.fresh.corpus import (
    CITED,
    RANDOM,
    SAMPLE_PAGE,
    TOPIC,
    BaseCorpus,
    CorpusBuilder,
    sample_offsets,
    topic_query,
)
from surge_dataset.fresh.resolve import BY_ID, EXACT, FUZZY, KeyResolver, TitleResolver
from surge_dataset.fresh.settings import DEFAULT_CATEGORIES, FreshOptions
from surge_dataset.fresh.sources import EPRINT_FOLDER, EprintStore, HostPool, host_urls, source_url_for
from surge_dataset.references.chain import web_service

__all__ = ["DEFAULT_CATEGORIES", "FreshOptions", "FreshResult", "id_origins", "run_fresh"]

#: Reason codes of dropped candidates beyond the e-print reader's own (``SourceError.reason``).
NOT_A_SURVEY, FEW_CITATIONS, CITATIONS_UNKNOWN = "not_a_survey", "few_citations", "citations_unknown"
NO_SOURCE, NOT_FETCHED, LOOKUP_FAILED = "no_source", "not_fetched", "lookup_failed"
TOO_LARGE = "too_large"
LOW_EXTRACT_RATE, NO_CITATIONS = "low_extract_rate", "no_citations"
#: Codes of candidates dropped because something could not be fetched: a rerun asks again.
TRANSIENT = (NOT_FETCHED, LOOKUP_FAILED)
VERSIONED = ("surge-bench", "feedparser", "bibtexparser", "pyalex", "semanticscholar", "rapidfuzz", "requests")


@dataclass
class FreshResult:
    """What a run wrote: the manifest (also in ``out/fresh_manifest.json``) and the files' paths."""

    out: Path
    manifest: dict[str, Any]
    files: list[Path] = field(default_factory=list)


Progress = Callable[[str, int, int | None], None]


def _dropped(record: ArxivRecord, stage: str, code: str, detail: str) -> dict[str, Any]:
    return {"arxiv_id": record.arxiv_id, "title": record.title, "stage": stage, "reason": f"{code}: {detail}",
            "code": code}


class _Run:
    """One run's state (the steps of the module docstring, in order)."""

    def __init__(self, out: Path, options: FreshOptions, progress: Progress, environ: Mapping[str, str]) -> None:
        from surge_dataset.core.cache import JsonStore
        from surge_dataset.core.http import user_agent

        self.out, self.options, self.progress, self.environ = out, options, progress, dict(environ)
        self.cache_dir = Path(options.cache_dir) if options.cache_dir else out / "cache"
        self.urls = host_urls(options.bib_base_url)
        self.hosts = HostPool(rate_seconds=options.rate, timeout=options.timeout, max_retries=options.max_retries,
                              user_agent=user_agent())
        self.cache = JsonStore(self.cache_dir, name="fresh")
        self.api = ArxivApi(self.urls.get(ARXIV) or web_service(ARXIV).default_base_url, self.hosts, self.cache)
        self.eprints = EprintStore(self.cache_dir / EPRINT_FOLDER, self.hosts)
        self.first, self.last = date_window(options.since, options.until, datetime.now(timezone.utc).date())
        self.categories = parse_list(options.categories)
        self.dropped: list[dict[str, Any]] = []
        self.notes: list[str] = []

    # -- 1. candidates --------------------------------------------------------------------------------------

    def candidates(self) -> tuple[list[ArxivRecord], dict[str, dict[str, Any]], dict[str, str], int]:
        query = candidate_query(self.first, self.last, self.categories)
        self.query = query
        totals: list[int] = []

        def on_page(done: int, total: int) -> None:
            totals.append(total)
            self.progress("searching arXiv", done, total)

        found = self.api.search(query, on_page=on_page)
        if totals and len(found) < totals[-1]:
            self.notes.append(f"the candidate search stopped at {len(found)} of {totals[-1]} results (arXiv kept "
                              "answering an empty page); rerun to ask for the rest")
        unique = list({r.arxiv_id: r for r in found}.values())
        kept, clauses = [], {}
        for record in unique:
            decision = survey_rule(record.title, record.abstract)
            if decision.accepted:
                kept.append(record)
                clauses[record.arxiv_id] = decision.clause
            else:
                self.dropped.append(_dropped(record, RULE_STAGE, NOT_A_SURVEY, decision.clause))
        source = self.options.citations_from
        base_url = self.urls.get(source) or ("" if source == NO_CITATION_SOURCE else web_service(source).default_base_url)
        counter = CitationCounts(source, base_url, self.hosts, self.cache, self.environ)
        self.progress("citation counts", 0, len(kept))
        counts = counter.counts(kept)
        self.progress("citation counts", len(kept), len(kept))
        minimum, passed = self.options.min_citations, []
        for record in kept:
            count = counts[record.arxiv_id]["citations"]
            if minimum > 0 and count is None:
                why = counter.failures.get(record.arxiv_id) or f"{source} does not know the paper"
                self.dropped.append(_dropped(record, CITATIONS_STAGE, CITATIONS_UNKNOWN, why))
            elif minimum > 0 and count < minimum:
                self.dropped.append(_dropped(record, CITATIONS_STAGE, FEW_CITATIONS,
                                             f"{count} citations < --min-citations {minimum}"))
            else:
                passed.append(record)
        if counter.failures:
            self.notes.append(f"{len(counter.failures)} citation look-ups failed (count unknown; asked again on rerun)")
        return passed, counts, clauses, len(unique)

    # -- 2. sources -----------------------------------------------------------------------------------------

    def sources(self, records: list[ArxivRecord]) -> list[tuple[ArxivRecord, Any]]:
        from surge_dataset.fresh.latex import SourceError, read_eprint

        override = self.urls.get(ARXIV_SOURCE_HOST)

        def one(record: ArxivRecord) -> tuple[ArxivRecord, Any]:
            url = source_url_for(record.arxiv_id, record.version, record.source_link, override)
            eprint = self.eprints.fetch(record.arxiv_id, record.version, url)
            if eprint.missing:
                return record, _dropped(record, SOURCE_STAGE, NO_SOURCE, f"arXiv has no source for it (HTTP 404 "
                                                                          f"from {url})")
            if eprint.too_large:
                return record, _dropped(record, SOURCE_STAGE, TOO_LARGE, f"{eprint.too_large} (from {url})")
            if eprint.data is None:
                return record, _dropped(record, SOURCE_STAGE, NOT_FETCHED, eprint.error or "no answer")
            try:
                return record, read_eprint(eprint.data, name=f"{record.arxiv_id}{record.version}")
            except SourceError as exc:
                return record, _dropped(record, SOURCE_STAGE, exc.reason, str(exc))

        parsed = []
        with ThreadPoolExecutor(max_workers=self.options.concurrency, thread_name_prefix="surge-fresh") as pool:
            for done, (record, result) in enumerate(pool.map(one, records), 1):
                self.progress("e-prints", done, len(records))
                if isinstance(result, dict):
                    self.dropped.append(result)
                else:
                    parsed.append((record, result))
        return parsed

    # -- 3. resolution --------------------------------------------------------------------------------------

    def resolve(self, parsed: list[tuple[ArxivRecord, Any]]) -> tuple[list[dict[str, Any]], TitleResolver]:
        resolver = TitleResolver(self.api.base_url, self.hosts, self.cache_dir, threshold=self.options.match_threshold,
                                 concurrency=self.options.concurrency, environ=self.environ)
        found_keys = KeyResolver(self.api, resolver).resolve([source for _, source in parsed], self.progress)
        self.metadata, self.id_stats = found_keys.metadata, found_keys.stats
        kept = []
        for (record, source), found in zip(parsed, found_keys.keys, strict=True):
            keys = source.all_cite_keys()
            errors = [r.error for r in found.values() if r is not None and r.error]
            if errors:
                self.dropped.append(_dropped(record, RESOLVE_STAGE, LOOKUP_FAILED,
                                             f"{len(errors)} look-ups failed ({errors[0]})"))
                continue
            cite_ids = {k: (r.arxiv_id if r is not None and r.arxiv_id in self.metadata else None)
                        for k, r in found.items()}
            hits = sum(1 for v in cite_ids.values() if v)
            if not keys:
                self.dropped.append(_dropped(record, RESOLVE_STAGE, NO_CITATIONS, "no \\cite in its sections"))
                continue
            rate = hits / len(keys)
            if rate < self.options.min_extract_rate:
                self.dropped.append(_dropped(record, RESOLVE_STAGE, LOW_EXTRACT_RATE,
                                             f"extraction rate {rate:.2f} < {self.options.min_extract_rate:g} "
                                             f"({hits} of {len(keys)} cited keys resolved to arXiv papers)"))
                continue
            methods = Counter(r.method for k, r in found.items() if r is not None and cite_ids[k])
            kept.append({"record": record, "source": source, "cite_ids": cite_ids, "rate": rate, "keys": len(keys),
                         "hits": hits, "by_id": methods.get(BY_ID, 0), "exact": methods.get(EXACT, 0),
                         "fuzzy": methods.get(FUZZY, 0),
                         "titled": sum(1 for k in keys if source.bibliography.get(k)),
                         "with_id": sum(1 for k in keys if k in source.bibliography_ids),
                         **id_origins(source, keys)})
        return kept, resolver

    # -- 4. corpus and 5. output ---------------------------------------------------------------------------

    def corpus(self, kept: list[dict[str, Any]]) -> CorpusBuilder:
        base = BaseCorpus(self.options.base_corpus) if self.options.base_corpus else None
        builder = CorpusBuilder(base)
        for survey in kept:
            survey["doc_ids"] = {a: builder.add(self.metadata[a], CITED)
                                 for a in dict.fromkeys(v for v in survey["cite_ids"].values() if v)}
        own = {s["record"].arxiv_id for s in kept} - set(builder.by_arxiv)  # never a survey's own paper
        failed_topics = 0
        for done, survey in enumerate(kept, 1):
            self.progress("topic searches", done, len(kept))
            query = topic_query(survey_topic(survey["record"].title), self.categories,
                                date.fromisoformat(survey["record"].published[:10])) if self.options.topic_papers else None
            if query is None:
                continue
            try:
                found = self.api.most_relevant(query, self.options.topic_papers)
            except FreshSearchError as exc:  # recorded, the run goes on
                failed_topics += 1
                self.notes.append(f"topic search of {survey['record'].arxiv_id} not fetched ({exc})")
                continue
            for record in found:
                if record.arxiv_id not in own:
                    builder.add(record, TOPIC)
        if self.options.random_sample:
            self._sample(builder, own)
        return builder

    def _sample(self, builder: CorpusBuilder, own: set[str]) -> None:
        from surge_dataset.fresh.candidates import ARXIV_FIRST_DAY, category_clause, submitted_between

        query = f"{category_clause(self.categories)} AND {submitted_between(ARXIV_FIRST_DAY, self.last)}"
        try:
            total, _ = self.api.page(query, 0, 1)
            picks = sample_offsets(total, self.options.random_sample, self.options.seed)
            added = 0
            for done, (start, positions) in enumerate(picks, 1):
                self.progress("random sample", done, len(picks))
                _, records = self.api.page(query, start, SAMPLE_PAGE)
                for position in positions:
                    if position < len(records) and records[position].arxiv_id not in own and \
                            added < self.options.random_sample:
                        builder.add(records[position], RANDOM)
                        added += 1
        except FreshSearchError as exc:  # recorded, the run goes on
            self.notes.append(f"random sample not complete ({exc}); rerun to complete it")


def id_origins(source: Any, keys: list[str]) -> dict[str, Any]:
    """Of the cited ``keys``: how many have an arXiv id written in the ``.bbl`` (or inline list), how many only in the
    ``.bib`` (read by key), how many none; and the entries whose title read like a note, venue or field name."""
    where = Counter(source.bibliography_id_sources.get(k, "none") for k in keys)
    return {"id_in_bbl": where[BBL], "id_in_bib": where[BIB], "no_id": where["none"],
            "note_titles": sorted(source.bibliography_note_titles)}


def _survey_record(survey_id: int, survey: dict[str, Any]) -> dict[str, Any]:
    from surge_dataset.fresh.latex import structure_nodes

    record: ArxivRecord = survey["record"]
    structure = structure_nodes(survey["source"], survey["cite_ids"])
    for node in structure:
        if "cites" in node:
            node["cites"] = list(dict.fromkeys(survey["doc_ids"][a] for a in node["cites"] if a in survey["doc_ids"]))
    return {"survey_id": survey_id, "survey_title": record.title, "authors": list(record.authors),
            "year": record.year, "date": record.published, "category": record.primary_category,
            "abstract": record.abstract, "structure": structure, "all_cites": sorted(set(survey["doc_ids"].values())),
            "Bertopic_CD": None}


def run_fresh(out: str | os.PathLike[str], options: FreshOptions, *, progress: Progress | None = None,
              environ: Mapping[str, str] | None = None) -> FreshResult:
    """Build a fresh split into ``out`` (module docstring); resumable: rerun the same call after a crash."""
    from surge_dataset.core.metadata import installed_versions
    from surge_dataset.core.output_folder import claim_output_folder
    from surge_dataset.data.queries import derive_queries

    started = time.monotonic()
    out = claim_output_folder(out, "official-json", "surge data fresh",
                              inputs=[("--base-corpus", options.base_corpus)])
    run = _Run(out, options, progress or (lambda stage, done, total: None), os.environ if environ is None else environ)
    records, counts, clauses, searched = run.candidates()
    parsed = run.sources(records)
    kept, resolver = run.resolve(parsed)
    builder = run.corpus(kept)
    surveys = [_survey_record(i, s) for i, s in enumerate(kept)]
    queries = []
    for _, query in derive_queries(surveys):
        queries.append({k: v for k, v in query.items() if k not in ("derived_from", "cites_from")})
    # the four files are written beside each other first and moved in together: a run killed while writing never
    # leaves a new surveys.json with an old corpus.json (a rerun writes them all again)
    staging = out / ".writing"
    staging.mkdir(exist_ok=True)
    names = [OFFICIAL_FILES["surveys"], OFFICIAL_FILES["corpus"], OFFICIAL_FILES["queries"], FRESH_MANIFEST]
    atomic_write_json(staging / names[0], surveys)
    corpus_size = atomic_write_json_array(staging / names[1], builder.records())
    atomic_write_json(staging / names[2], queries)
    by_stage = Counter(d["stage"] for d in run.dropped)
    by_code = Counter(d["code"] for d in run.dropped)
    manifest = {
        "kind": FRESH_KIND, "version": FRESH_VERSION,
        "window": {"since": run.first.isoformat(), "until": options.until and run.last.isoformat()},
        "categories": run.categories,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "counts": {"searched": searched, "surveys_by_rule": len(clauses), "kept": len(surveys),
                   "dropped": len(run.dropped), "dropped_by_stage": dict(by_stage), "dropped_by_reason": dict(by_code),
                   "not_fetched": sum(by_code[c] for c in TRANSIENT), "queries": len(queries), "corpus": corpus_size,
                   "corpus_detail": builder.counts(),
                   "cited_keys": sum(s["keys"] for s in kept), "resolved_keys": sum(s["hits"] for s in kept),
                   "resolved_by_id": sum(s["by_id"] for s in kept),
                   "resolved_by_title": sum(s["exact"] + s["fuzzy"] for s in kept),
                   "keys_with_id_in_bbl": sum(s["id_in_bbl"] for s in kept),
                   "keys_with_id_in_bib": sum(s["id_in_bib"] for s in kept),
                   "keys_without_id": sum(s["no_id"] for s in kept),
                   "note_like_titles": sum(len(s["note_titles"]) for s in kept)},
        "dropped": run.dropped,
        "surveys": [{"survey_id": i, "arxiv_id": s["record"].arxiv_id, "version": s["record"].version,
                     "title": s["record"].title, "date": s["record"].published[:10],
                     "citations": counts[s["record"].arxiv_id]["citations"],
                     "citations_found_by": counts[s["record"].arxiv_id]["found_by"], "extract_rate": round(s["rate"], 4),
                     "cited_keys": s["keys"], "resolved_keys": s["hits"], "resolved_by_id": s["by_id"],
                     "resolved_by_title": s["exact"] + s["fuzzy"], "resolved_exact": s["exact"],
                     "resolved_fuzzy": s["fuzzy"], "keys_with_title": s["titled"], "keys_with_id": s["with_id"],
                     "keys_with_id_in_bbl": s["id_in_bbl"], "keys_with_id_in_bib": s["id_in_bib"],
                     "keys_without_id": s["no_id"], "note_like_titles": s["note_titles"][:20],
                     "cited_papers": len(set(
                         s["doc_ids"].values())), "bibliography": s["source"].bibliography_kind,
                     "rule": clauses[s["record"].arxiv_id], "warnings": list(s["source"].warnings)[:20]}
                    for i, s in enumerate(kept)],
        "versions": installed_versions(VERSIONED),
        "settings": {**options.to_json(), "searched_until": run.last.isoformat(), "query": run.query,
                     "cache_dir": str(run.cache_dir)},
        "requests": {"hosts": run.hosts.stats(), "eprints_downloaded": run.eprints.downloaded,
                     "eprints_from_cache": run.eprints.from_cache, "titles": resolver.stats(),
                     "arxiv_ids": run.id_stats},
        "notes": run.notes,
        "elapsed_s": round(time.monotonic() - started, 2),
    }
    atomic_write_json(staging / FRESH_MANIFEST, manifest)
    for name in names:
        os.replace(staging / name, out / name)
    staging.rmdir()
    return FreshResult(out, manifest, [out / name for name in names])
