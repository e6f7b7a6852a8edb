"""Candidate surveys: an arXiv search in the date window, the survey/review rule, and citation counts.

**The search** (the query API's URL, :func:`~surge_dataset.references.arxiv_search.api_request`; the reference
resolver's transport sends it, ``feedparser`` reads the answer)::

    submittedDate:[<since>0000 TO <until>2359] AND (cat:cs.CL OR cat:cs.LG ...)
        AND (ti:survey OR ti:review OR ti:overview ... OR abs:"this survey" ...)

sorted by submission date, oldest first, in pages of :data:`PAGE_SIZE`. The search is generous on purpose
(arXiv's engine stems and ignores stop words): the rule below then decides, on the title and abstract.

**The rule** (paper §3.1, "the document must explicitly declare itself as a survey or review"), as data in
:data:`SURVEY_RULE`. A paper is a survey when, after the *excluded phrases* are cut out of its title and
abstract (phrases where the word means something else: "peer review", "code review", "review generation",
"survey data"...), either

1. its title still contains a *title word* as a whole word (survey(s), review(s), overview, systematic
   review, meta-analysis, literature review...), or
2. its abstract still contains a *self-declaration* ("this survey", "we review", "in this review", "we present
   a comprehensive survey", "this paper surveys"...).

A title such as "Peer Review in the Age of LLMs: A Survey" is a survey (clause 1 still finds "survey" once
"peer review" is cut); "Automatic Code Review with LLMs" is not. :func:`survey_rule` says which clause decided.

**Citation counts** (paper §3.1, "a minimum citation count of 20"): OpenAlex's ``cited_by_count`` of the
work with the paper's arXiv DOI (``10.48550/arXiv.<id>``, asked 50 DOIs per request), else of the work whose
title matches (one title search in the form the live API accepts, :func:`~surge_dataset.references.openalex.filter_words`;
a refused query is asked again as a full-text search, and a second refusal is an answer, not a failure to retry;
the resolver's title-match rule on the title as plain text, score ≥ 95), or Semantic Scholar's
``citationCount`` of ``arXiv:<id>``. A fresh split keeps ``--min-citations 0`` by default: a survey a few
months old has had no time to be cited 20 times, so the paper's filter would keep next to nothing; the count
is still recorded for every candidate (the annotation sheet shows it). A failed or empty look-up leaves the
count unknown (``null``) and drops the candidate only when ``--min-citations`` is above 0.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any
from urllib.parse import urlsplit

from surge_dataset.core.errors import SurgeError
from surge_dataset.core.http import LookupFailed, Request
from surge_dataset.core.vocabulary import NO_CITATION_SOURCE, OPENALEX, SEMANTIC_SCHOLAR
from surge_dataset.fresh.sources import HostPool, cache_key
from surge_dataset.references.arxiv_search import (
    ASCENDING,
    DESCENDING,
    RELEVANCE,
    SUBMITTED_DATE,
    ArxivEntry,
    api_request,
    parse_feed,
    split_version,
)
from surge_dataset.references.base import AnswerError
from surge_dataset.references.markup import plain_title
from surge_dataset.references.match import match_score

__all__ = ["PAGE_SIZE", "SURVEY_RULE", "ArxivApi", "ArxivRecord", "CitationCounts", "FreshSearchError",
           "IdListRejected", "RuleDecision", "SurveyRule", "candidate_query", "date_window", "survey_rule"]

PAGE_SIZE = 200
#: Tries of a page that comes back empty before the search's end (arXiv does this now and then; never cached).
EMPTY_PAGE_TRIES = 3
ID_BATCH = 100
DOI_BATCH = 50
#: The resolver's title-match rule for a citation count found by title (SurveyGen's "similarity > 0.95").
TITLE_MATCH = 95.0


def unreachable_text(service: str, url: str, host_option: str, exc: Exception) -> str:
    """One line for a service that never answered: which host, why, and the option that points it at a mirror or a
    local replay (``--bib-base-url HOST=URL``, docs/data/fresh.md)."""
    host = urlsplit(url).netloc
    return (f"{service} at {host} is unreachable ({exc}): check the network, or point `surge data fresh` at a "
            f"mirror or a local replay with --bib-base-url {host_option}=URL (docs/data/fresh.md, "
            "'Without the network')")


class FreshSearchError(SurgeError, RuntimeError):
    """An arXiv API request that got no usable answer (retries spent, another status, no Atom feed): fatal for
    the candidate search, recorded for the later searches (topic papers, metadata, the random sample)."""


class IdListRejected(FreshSearchError):
    """The API refused an ``id_list`` request (HTTP 400: one of the ids is not one it accepts)."""


# -- the survey rule --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SurveyRule:
    """What makes a paper declare itself a survey (module docstring); every entry is lower-case text."""

    title_words: tuple[str, ...]
    declarations: tuple[str, ...]
    excluded: tuple[str, ...]
    #: The words searched in the API query (``ti:<word>``) and the phrases (``abs:"<phrase>"``).
    query_title_words: tuple[str, ...]
    query_phrases: tuple[str, ...]


SURVEY_RULE = SurveyRule(
    title_words=("survey", "surveys", "review", "reviews", "overview", "systematic review", "literature review",
                 "scoping review", "meta-analysis", "state of the art", "state-of-the-art review", "taxonomy and survey"),
    declarations=("this survey", "our survey", "in this review", "this review", "this overview", "we survey",
                  "we review", "we present a survey", "we present a comprehensive survey", "we provide a survey",
                  "we provide a comprehensive survey", "we present a review", "we provide a comprehensive review",
                  "we present a comprehensive review", "this paper surveys", "this paper reviews", "this article surveys",
                  "this article reviews", "this work surveys", "this work reviews", "a systematic literature review",
                  "a comprehensive survey", "a comprehensive review", "a systematic review"),
    excluded=("peer review", "peer-review", "peer reviews", "code review", "code reviews", "review generation",
              "review generator", "review summarization", "review summarisation", "review comment", "review comments",
              "product review", "product reviews", "customer review", "customer reviews", "user review",
              "user reviews", "online review", "online reviews", "movie review", "movie reviews", "app review",
              "app reviews", "hotel review", "hotel reviews", "restaurant review", "restaurant reviews",
              "review helpfulness", "review rating", "review ratings", "review text", "review texts",
              "review-based", "review dataset", "review datasets", "survey data", "survey responses",
              "survey respondents", "survey questionnaire", "household survey", "household surveys",
              "opinion survey", "sky survey", "user survey", "we surveyed", "we conducted a survey",
              "through a survey", "an online survey", "a user survey", "a large-scale survey of"),
    query_title_words=("survey", "review", "overview", "meta-analysis"),
    query_phrases=("this survey", "this review", "we survey", "we review", "comprehensive survey",
                   "systematic review", "literature review"),
)


@dataclass(frozen=True)
class RuleDecision:
    """Whether the rule takes a paper, and the clause that decided (``title: 'survey'``, ``abstract: ...``)."""

    accepted: bool
    clause: str


def _without(text: str, phrases: Sequence[str]) -> tuple[str, list[str]]:
    """``text`` lower-cased with every excluded phrase cut out (as whole words), and the phrases found."""
    lowered, found = " ".join((text or "").lower().split()), []
    for phrase in sorted(phrases, key=len, reverse=True):  # "peer reviews" before "peer review"
        pattern = re.compile(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])")
        if pattern.search(lowered):
            found.append(phrase)
            lowered = pattern.sub(" | ", lowered)
    return lowered, found


def _first_phrase(text: str, phrases: Sequence[str]) -> str | None:
    hits = [(m.start(), p) for p in phrases for m in [re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", text)] if m]
    return min(hits)[1] if hits else None


def survey_rule(title: str, abstract: str, rule: SurveyRule = SURVEY_RULE) -> RuleDecision:
    """Apply ``rule`` (module docstring) to one paper's title and abstract."""
    title_text, title_excluded = _without(title, rule.excluded)
    word = _first_phrase(title_text, rule.title_words)
    if word:
        return RuleDecision(True, f"title: {word!r}")
    abstract_text, abstract_excluded = _without(abstract, rule.excluded)
    declaration = _first_phrase(abstract_text, rule.declarations)
    if declaration:
        return RuleDecision(True, f"abstract: {declaration!r}")
    excluded = list(dict.fromkeys(title_excluded + abstract_excluded))
    if excluded:
        return RuleDecision(False, "only " + ", ".join(repr(p) for p in excluded) + " (not a survey of a field)")
    return RuleDecision(False, "no survey or review wording in the title or abstract")


# -- the search --------------------------------------------------------------------------------------------

def date_window(since: str, until: str | None, today: date | None = None) -> tuple[date, date]:
    """The window's first and last day (``until`` None: today, UTC); a bad date is a :class:`SettingError`."""
    from surge_dataset.core.errors import SettingError

    try:
        first = date.fromisoformat(since)
        last = date.fromisoformat(until) if until else (today or date.today())
    except (TypeError, ValueError):
        raise SettingError(f"--since {since!r} / --until {until!r}: dates are YYYY-MM-DD") from None
    if last < first:
        raise SettingError(f"--until {last} is before --since {first}")
    return first, last


#: The first day of arXiv: the open start of a search for papers submitted up to some day.
ARXIV_FIRST_DAY = date(1991, 1, 1)


def submitted_between(first: date, last: date) -> str:
    return f"submittedDate:[{first:%Y%m%d}0000 TO {last:%Y%m%d}2359]"


def category_clause(categories: Sequence[str]) -> str:
    return "(" + " OR ".join(f"cat:{c}" for c in categories) + ")"


def candidate_query(first: date, last: date, categories: Sequence[str], rule: SurveyRule = SURVEY_RULE) -> str:
    """The arXiv ``search_query`` of the candidates (module docstring)."""
    wording = [f"ti:{w}" for w in rule.query_title_words] + [f'abs:"{p}"' for p in rule.query_phrases]
    return f"{submitted_between(first, last)} AND {category_clause(categories)} AND ({' OR '.join(wording)})"


@dataclass(frozen=True)
class ArxivRecord:
    """One paper as the arXiv API describes it (what the candidates, the corpus and the surveys need)."""

    arxiv_id: str  # without version
    version: str  # "v2"
    title: str
    abstract: str
    authors: tuple[str, ...]
    published: str  # ISO, UTC, no zone: "2025-06-03T17:59:46"
    primary_category: str
    categories: tuple[str, ...] = ()
    doi: str | None = None
    source_link: str | None = None  # the entry's pdf link with /pdf/ -> /src/ (ArxivEntry.source_url)

    @classmethod
    def from_entry(cls, entry: ArxivEntry) -> ArxivRecord:
        """The record of one feed entry; the title is plain text (:func:`~surge_dataset.references.markup.plain_title`)."""
        arxiv_id, version = split_version(entry.short_id)
        published = entry.published.strftime("%Y-%m-%dT%H:%M:%S") if entry.published else ""
        return cls(arxiv_id=arxiv_id, version=version, title=plain_title(entry.title), abstract=entry.summary,
                   authors=entry.authors, published=published, primary_category=entry.primary_category,
                   categories=entry.categories, doi=entry.doi, source_link=entry.source_url)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ArxivRecord:
        return cls(**{**data, "authors": tuple(data["authors"]), "categories": tuple(data.get("categories") or ())})

    @property
    def year(self) -> str:
        return self.published[:4]

    @property
    def arxiv_doi(self) -> str:
        return f"10.48550/arXiv.{self.arxiv_id}"


class ArxivApi:
    """The arXiv query API on ``base_url`` (``/api/query``), every page cached (``fresh.sqlite``)."""

    def __init__(self, base_url: str, hosts: HostPool, cache: Any) -> None:
        self.base_url = base_url.rstrip("/")
        self.hosts, self.cache = hosts, cache
        self.id_requests = 0  # id_list requests sent (metadata and ids read from bibliographies)

    def _request(self, query: str, ids: Sequence[str], start: int, size: int, *, relevance: bool = False
                 ) -> Request:
        sort = (RELEVANCE, DESCENDING) if relevance else (SUBMITTED_DATE, ASCENDING)
        return api_request(self.base_url, query=query, ids=ids, start=start, size=size, sort_by=sort[0],
                           sort_order=sort[1])

    def _feed(self, request: Request, *, ids: int = 0) -> Any:
        """The parsed answer to ``request``: :class:`FreshSearchError` naming it when there is none (retries spent,
        a status, no feed); with ``ids``, an HTTP 400 is :class:`IdListRejected` (an id arXiv refuses)."""
        where = f"arXiv API {request.url}?{request.query[:200]}"
        try:
            status, body = self.hosts.get(request.url, request.query)
        except LookupFailed as exc:
            if exc.unreachable:  # offline, or a mirror that is down: say which host and how to point elsewhere
                raise FreshSearchError(unreachable_text("the arXiv API", request.url, "arxiv", exc)) from None
            raise FreshSearchError(f"{where}: {exc}") from None
        if ids and status == 400:
            raise IdListRejected(f"HTTP 400 for id_list of {ids} ids")
        if status != 200:
            raise FreshSearchError(f"{where}: HTTP {status}")
        try:
            return parse_feed(body)
        except AnswerError as exc:
            raise FreshSearchError(f"{where}: {exc}") from None

    def page(self, query: str, start: int, size: int, *, relevance: bool = False) -> tuple[int, list[ArxivRecord]]:
        """``(total results, records)`` of one page, oldest first (or most relevant first); raises
        :class:`FreshSearchError` (retries spent, an answer that is no feed)."""
        request = self._request(query, (), start, size, relevance=relevance)
        key = cache_key("page", self.base_url, request.query)
        stored = self.cache.get_many([key]).get(key)
        if stored is None:
            feed = self._feed(request)
            stored = {"total": feed.total_results,
                      "records": [ArxivRecord.from_entry(e).to_json() for e in feed.entries]}
            if stored["records"] or start >= int(stored["total"]):  # an empty page short of the end: asked again
                self.cache.put_many({key: stored})
        return int(stored["total"]), [ArxivRecord.from_json(r) for r in stored["records"]]

    def search(self, query: str, *, limit: int | None = None, page_size: int = PAGE_SIZE,
               on_page: Callable[[int, int], None] | None = None) -> list[ArxivRecord]:
        """Every result of ``query`` (up to ``limit``), oldest submission first, page after page. A page that stays
        empty before the end (:data:`EMPTY_PAGE_TRIES`) ends the search early: the caller compares the count with
        the total ``on_page`` reported (a rerun asks that page again: it is not cached)."""
        found: list[ArxivRecord] = []
        start, total = 0, None
        while total is None or start < total:
            size = page_size if limit is None else min(page_size, limit - len(found))
            if size <= 0:
                break
            for _ in range(EMPTY_PAGE_TRIES):
                total, records = self.page(query, start, size)
                if records or start >= total:
                    break
            if not records:
                if on_page and start < total:
                    on_page(len(found), total)  # the caller sees the search end short of the total
                break
            found.extend(records)
            start += len(records)
            if on_page:
                on_page(len(found), total)
        return found

    def most_relevant(self, query: str, limit: int) -> list[ArxivRecord]:
        """The ``limit`` results of ``query`` arXiv ranks first (one request)."""
        return self.page(query, 0, limit, relevance=True)[1]

    def lookup_ids(self, ids: Iterable[str]) -> tuple[dict[str, ArxivRecord], set[str], list[str]]:
        """``(records, unknown, failed)`` of ``ids``: a record is kept only when the API returns that very id with
        a title; an id missing from an answer is *unknown* (an answer, cached like a record, so a rerun asks
        nothing); *failed* ids got no answer (retries spent) and are asked again on a rerun. A batch the API
        refuses (HTTP 400, an id it does not accept) is split in halves until the refused id is alone: unknown."""
        wanted = list(dict.fromkeys(ids))
        keys = {i: cache_key("paper", self.base_url, i) for i in wanted}
        absent_keys = {i: cache_key("absent", self.base_url, i) for i in wanted}
        stored = self.cache.get_many([*keys.values(), *absent_keys.values()])
        found = {i: ArxivRecord.from_json(stored[k]) for i, k in keys.items() if k in stored}
        unknown = {i for i, k in absent_keys.items() if k in stored and i not in found}
        missing = [i for i in wanted if i not in found and i not in unknown]
        failed: list[str] = []
        pending = [missing[at:at + ID_BATCH] for at in range(0, len(missing), ID_BATCH)]
        while pending:
            batch = pending.pop(0)
            try:
                records = [r for r in self.fetch_ids(batch) if r.arxiv_id in keys and r.title]
            except IdListRejected:
                if len(batch) > 1:
                    pending[:0] = [batch[:len(batch) // 2], batch[len(batch) // 2:]]
                else:
                    self.cache.put_many({absent_keys[batch[0]]: {"status": 400}})
                    unknown.add(batch[0])
                continue
            except FreshSearchError:
                failed.extend(batch)
                continue
            self.cache.put_many({keys[r.arxiv_id]: r.to_json() for r in records})
            found.update({r.arxiv_id: r for r in records})
            absent = [i for i in batch if i not in found]
            self.cache.put_many({absent_keys[i]: {"status": 200} for i in absent})
            unknown.update(absent)
        return found, unknown, failed

    def fetch_ids(self, batch: list[str]) -> list[ArxivRecord]:
        """One ``id_list`` request, uncached (:class:`IdListRejected` on HTTP 400)."""
        self.id_requests += 1
        feed = self._feed(self._request("", batch, 0, len(batch)), ids=len(batch))
        return [ArxivRecord.from_entry(e) for e in feed.entries]


# -- citation counts ---------------------------------------------------------------------------------------

@dataclass
class CitationCounts:
    """Citation counts of arXiv papers from OpenAlex or Semantic Scholar, cached (module docstring)."""

    source: str
    base_url: str
    hosts: HostPool
    cache: Any
    environ: dict[str, str] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)  # arxiv id -> why the look-up failed

    def counts(self, records: Sequence[ArxivRecord]) -> dict[str, dict[str, Any]]:
        """``{arxiv_id: {"citations": int | None, "found_by": "doi" | "title" | "id" | None}}``."""
        if self.source == NO_CITATION_SOURCE:
            return {r.arxiv_id: {"citations": None, "found_by": None} for r in records}
        keys = {r.arxiv_id: cache_key("citations", self.source, self.base_url, r.arxiv_id) for r in records}
        stored = self.cache.get_many(keys.values())
        out = {i: stored[k] for i, k in keys.items() if k in stored}
        todo = [r for r in records if r.arxiv_id not in out]
        if self.source == OPENALEX:
            fresh = self._openalex(todo)
        elif self.source == SEMANTIC_SCHOLAR:
            fresh = self._semantic_scholar(todo)
        else:  # pragma: no cover - the setting is checked first
            raise ValueError(self.source)
        self.cache.put_many({keys[i]: value for i, value in fresh.items()})
        out.update(fresh)
        for record in todo:
            out.setdefault(record.arxiv_id, {"citations": None, "found_by": None})
        return out

    def _openalex(self, records: Sequence[ArxivRecord]) -> dict[str, dict[str, Any]]:
        """By DOI in batches, then by title for the rest; a query OpenAlex refuses (HTTP 400/403) is asked in its
        other form, and a second refusal is an answer ("not found this way", cached), never a failure to retry."""
        from pyalex import Works

        from surge_dataset.references.base import QueryRejected
        from surge_dataset.references.openalex import title_search, works_list, works_request

        fields = ["id", "doi", "title", "cited_by_count"]

        def get(request: Request) -> list[dict[str, Any]]:
            try:
                return works_list(*self.hosts.get(request.url, request.query, request.headers))
            except QueryRejected:
                raise
            except AnswerError as exc:
                raise LookupFailed(str(exc)) from None

        def by_title(title: str) -> list[dict[str, Any]]:
            try:
                return get(title_search(title, fields, self.base_url, self.environ, 5))
            except QueryRejected:
                return get(title_search(title, fields, self.base_url, self.environ, 5, full_text=True))

        found: dict[str, dict[str, Any]] = {}
        for at in range(0, len(records), DOI_BATCH):
            batch = records[at:at + DOI_BATCH]
            by_doi = {r.arxiv_doi.lower(): r.arxiv_id for r in batch}
            try:
                works = get(works_request(Works().filter_or(doi=[r.arxiv_doi for r in batch]).select(fields),
                                          self.base_url, self.environ, DOI_BATCH))
            except QueryRejected:
                continue  # the titles are searched below
            except LookupFailed as exc:
                self.failures.update({r.arxiv_id: str(exc) for r in batch})
                continue
            for work in works:
                doi = str(work.get("doi") or "").lower().removeprefix("https://doi.org/")
                if doi in by_doi and isinstance(work.get("cited_by_count"), int):
                    found[by_doi[doi]] = {"citations": work["cited_by_count"], "found_by": "doi"}
        for record in records:
            if record.arxiv_id in found or record.arxiv_id in self.failures:
                continue
            try:
                works = by_title(record.title)
            except QueryRejected as exc:  # both forms refused: an answer, not a failure
                found[record.arxiv_id] = {"citations": None, "found_by": None, "refused": str(exc)}
                continue
            except LookupFailed as exc:
                self.failures[record.arxiv_id] = str(exc)
                continue
            scored = [(match_score(record.title, plain_title(str(w.get("title") or ""))), w) for w in works]
            best = max(scored, key=lambda sw: sw[0], default=None)
            if best and best[0] >= TITLE_MATCH and isinstance(best[1].get("cited_by_count"), int):
                found[record.arxiv_id] = {"citations": best[1]["cited_by_count"], "found_by": "title"}
            else:
                found[record.arxiv_id] = {"citations": None, "found_by": None}  # an answer: OpenAlex lacks it
        return found

    def _semantic_scholar(self, records: Sequence[ArxivRecord]) -> dict[str, dict[str, Any]]:
        from surge_dataset.references.base import env_value

        key = env_value(self.environ, "SEMANTIC_SCHOLAR_API_KEY")
        headers = {"x-api-key": key} if key else {}
        found: dict[str, dict[str, Any]] = {}
        for record in records:
            url = f"{self.base_url}/graph/v1/paper/arXiv:{record.arxiv_id}"
            try:
                status, body = self.hosts.get(url, "fields=title,citationCount", headers)
            except LookupFailed as exc:
                self.failures[record.arxiv_id] = str(exc)
                continue
            if status == 404:
                found[record.arxiv_id] = {"citations": None, "found_by": None}
                continue
            try:
                count = json.loads(body)["citationCount"] if status == 200 else None
            except (ValueError, KeyError, TypeError):
                count = None
            if not isinstance(count, int):
                self.failures[record.arxiv_id] = f"HTTP {status}" if status != 200 else "no citationCount"
                continue
            found[record.arxiv_id] = {"citations": count, "found_by": "id"}
        return found
