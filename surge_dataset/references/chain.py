"""The resolver chain: corpus (exact, then nearest title) -> SurveyGen's references -> OpenAlex -> Semantic
Scholar -> arXiv -> Crossref, each optional and in the order ``--bib-services`` gives.

For a whole run at once (:meth:`ReferenceChain.lookup`): every distinct title the corpus lacks (distinct by
the corpus rule: letters a-z, lower-cased) goes to the first source; the titles it does not find go to the
next, and so on, so each web service gets at most one request per unresolved title (retries aside), a few in
flight at a time under its rate limit. Every answer a source gives (not its failures) is stored in
``<cache dir>/references.sqlite`` (:class:`~surge_dataset.core.cache.JsonStore`, as the LLM answers) under
(source, base URL, title): a rerun asks nothing. Offline (``SURGE_OFFLINE=1``) or with no services, the web
is not asked; the corpus and SurveyGen's local references still answer, and the metric says so.

Run options (base URLs, rate limits, timeouts: ``RunOptions``) reach the metric through a
:class:`LookupSession`, which the run's ``EvaluationSession`` opens, hands to the metric's prefetch and closes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from surge_dataset.core import vocabulary
from surge_dataset.core.cache import CacheDir, JsonStore, make_key
from surge_dataset.core.errors import SettingError
from surge_dataset.core.http import LookupFailed, ServiceStats, Transport, parse_base_urls, user_agent
from surge_dataset.core.vocabulary import CORPUS, SURVEYGEN, check_choice, parse_list
from surge_dataset.references.base import (
    AnswerError,
    Candidate,
    QueryRejected,
    SourceAnswer,
    WebService,
    fallback_request,
    require,
)
from surge_dataset.references.labels import best_candidate
from surge_dataset.references.registry import BIB_SERVICES, source_names, web_service

__all__ = ["CACHE_NAME", "OFFLINE_ENV", "ChainOptions", "LookupSession", "ReferenceChain", "is_offline",
           "parse_assignments", "parse_services", "web_service"]

#: ``<cache dir>/<CACHE_NAME>.sqlite`` holds every answer.
CACHE_NAME = "references"
#: Bump when what is stored per answer changes (old entries are then simply not found).
CACHE_VERSION = "references/v2"  # v2: titles stored as plain text with their raw form (markup.py)
OFFLINE_ENV = "SURGE_OFFLINE"


def is_offline(environ: Mapping[str, str] | None = None) -> bool:
    """``SURGE_OFFLINE`` set to 1 / true / yes / on."""
    value = (os.environ if environ is None else environ).get(OFFLINE_ENV, "")
    return value.strip().lower() in {"1", "true", "yes", "on"}


def parse_services(value: str | Sequence[str] | None) -> tuple[str, ...]:
    """``'openalex, arxiv'`` -> ``('openalex', 'arxiv')``, each checked (closest name on a typo), repeats dropped."""
    names = parse_list(value)
    for name in names:
        check_choice("bib_services", name, source_names())
    return tuple(dict.fromkeys(names))  # type: ignore[arg-type]


def parse_assignments(items: Mapping[str, Any] | Sequence[str] | str | None, setting: str) -> dict[str, str]:
    """``['openalex=2', ...]`` (repeatable ``SERVICE=VALUE``) or a mapping -> ``{service: value}``, each service
    checked (the one ``NAME=VALUE`` rule, :func:`surge_dataset.core.vocabulary.parse_assignments`)."""
    return vocabulary.parse_assignments(items, setting, shape="SERVICE=VALUE",
                                        hint=", e.g. openalex=http://127.0.0.1:8000", choices=tuple(BIB_SERVICES))


@dataclass(frozen=True)
class ChainOptions:
    """Everything a chain needs: which sources (from the config) and how to ask them (from the run options)."""

    services: tuple[str, ...] = ()
    threshold: float = 95.0
    surveygen: str | None = None
    base_urls: Mapping[str, str] = field(default_factory=dict)
    rate_limits: Mapping[str, float] = field(default_factory=dict)
    timeout: float = 30.0
    max_retries: int = 4
    concurrency: int = 4
    cache_dir: CacheDir = None
    offline: bool = False

    @classmethod
    def from_settings(cls, config: Any, run: Any, environ: Mapping[str, str] | None = None) -> ChainOptions:
        """Read off an ``EvaluationConfig`` and ``RunOptions``, checking every value (a :class:`SettingError`)."""
        services = parse_services(config.bib_services)
        if SURVEYGEN in services and not config.bib_surveygen:
            raise SettingError("bib_services 'surveygen' needs --bib-surveygen PATH (SurveyGen JSON file or folder)")
        threshold = float(config.bib_match_threshold)
        if not 0 < threshold <= 100:
            raise SettingError(f"bib_match_threshold is a similarity in (0, 100], not {threshold:g}")
        rates = {}
        for name, text in parse_assignments(run.bib_rate_limit, "bib_rate_limit").items():
            try:
                rates[name] = float(text)
            except ValueError:
                rates[name] = 0.0
            if not rates[name] > 0:
                raise SettingError(f"bib_rate_limit {name}={text}: requests per second must be a number above 0")
        if run.bib_timeout <= 0 or run.bib_max_retries < 0 or run.bib_concurrency < 1:
            raise SettingError("bib_timeout must be above 0, bib_max_retries at least 0 and bib_concurrency at least 1 "
                               f"(not {run.bib_timeout}, {run.bib_max_retries}, {run.bib_concurrency})")
        return cls(services=services, threshold=threshold, surveygen=config.bib_surveygen,
                   base_urls=parse_base_urls(run.bib_base_url, "bib_base_url", tuple(BIB_SERVICES)), rate_limits=rates,
                   timeout=float(run.bib_timeout), max_retries=int(run.bib_max_retries),
                   concurrency=int(run.bib_concurrency), cache_dir=run.cache_dir, offline=is_offline(environ))

    @property
    def web_services(self) -> tuple[str, ...]:
        return tuple(s for s in self.services if s != SURVEYGEN)

    def key(self) -> tuple[Any, ...]:
        return (self.services, self.threshold, self.surveygen, tuple(sorted(self.base_urls.items())),
                tuple(sorted(self.rate_limits.items())), self.timeout, self.max_retries, self.concurrency,
                str(self.cache_dir), self.offline)


class ReferenceChain:
    """Looks titles up source after source (module docstring); :attr:`stats` says what each source did."""

    def __init__(self, options: ChainOptions, environ: Mapping[str, str] | None = None, *,
                 transports: Mapping[str, Transport] | None = None) -> None:
        """``transports``: a service's transport given by the caller (``surge data fresh`` shares one per host, so one
        rate limit covers every request to arXiv); the others are made here, one per service."""
        self.options = options
        self.environ = dict(os.environ if environ is None else environ)
        self.cache = JsonStore(options.cache_dir, name=CACHE_NAME)
        self.stats: dict[str, ServiceStats] = {}
        self.skipped: list[str] = list(options.web_services) if options.offline else []
        self._transports: dict[str, Transport] = dict(transports or {})
        self._surveygen: Any = None

    def check(self) -> None:
        """Fail before any lookup when a selected web service's library is missing (:class:`MissingExtraError`)."""
        if self.options.offline:
            return
        for name in self.options.web_services:
            require(name, web_service(name).package)
            require(name, "requests")

    def base_url(self, name: str) -> str:
        return self.options.base_urls.get(name) or web_service(name).default_base_url

    def _stats(self, name: str) -> ServiceStats:
        return self.stats.setdefault(name, ServiceStats())

    def _matched(self, title: str, answer: SourceAnswer) -> bool:
        best = best_candidate(title, answer.candidates) if answer.error is None else None
        return best is not None and best[1] >= self.options.threshold

    def lookup(self, titles: Mapping[str, str], corpus: Any = None) -> dict[str, list[SourceAnswer]]:
        """``{key: title}`` (key: the normalised title) -> each source's answer, in the order asked."""
        answers: dict[str, list[SourceAnswer]] = {key: [] for key in titles}
        remaining = list(titles)
        steps: list[str] = ([CORPUS] if corpus is not None else []) + list(self.options.services)
        for name in steps:
            if not remaining:
                break
            if name == CORPUS:
                found = self._corpus(remaining, titles, corpus)
            elif name == SURVEYGEN:
                found = self._local(remaining, titles)
            elif self.options.offline:
                continue
            else:
                found = self._web(name, remaining, titles)
            for key, answer in found.items():
                answers[key].append(answer)
            remaining = [key for key in remaining if not self._matched(titles[key], found[key])]
        return answers

    # -- the sources ---------------------------------------------------------------------------------------

    def _cached(self, source: str, where: str, keys: Sequence[str]) -> tuple[dict[str, str], dict[str, SourceAnswer]]:
        cache_keys = {key: make_key(CACHE_VERSION, source, where, key) for key in keys}
        stored = self.cache.get_many(cache_keys.values())
        hits = {key: SourceAnswer(source, tuple(Candidate.from_json(c) for c in stored[ck]["candidates"]), cached=True)
                for key, ck in cache_keys.items() if ck in stored}
        stats = self._stats(source)
        stats.titles += len(keys)
        stats.cache_hits += len(hits)
        return cache_keys, hits

    def _store(self, cache_key: str, candidates: Sequence[Candidate]) -> None:
        self.cache.put_many({cache_key: {"candidates": [c.to_json() for c in candidates]}})

    def _corpus(self, keys: Sequence[str], titles: Mapping[str, str], corpus: Any) -> dict[str, SourceAnswer]:
        from surge_dataset.references.corpus import CorpusTitles

        source = CorpusTitles(corpus)
        floor = self.options.threshold  # part of the key: a nearest title is only searched down to it
        cache_keys, found = self._cached(CORPUS, f"{source.identity}|{floor:g}", keys)
        fresh = {}
        for key in keys:
            if key not in found:
                candidates = source.search(titles[key], floor)
                found[key] = SourceAnswer(CORPUS, tuple(candidates))
                fresh[cache_keys[key]] = {"candidates": [c.to_json() for c in candidates]}
        self.cache.put_many(fresh)
        return found

    def _local(self, keys: Sequence[str], titles: Mapping[str, str]) -> dict[str, SourceAnswer]:
        from surge_dataset.references.surveygen import SurveyGenSource

        if self._surveygen is None:
            self._surveygen = SurveyGenSource.load(self.options.surveygen or "")
        self._stats(SURVEYGEN).titles += len(keys)
        return {key: SourceAnswer(SURVEYGEN, tuple(self._surveygen.search(titles[key]))) for key in keys}

    def _transport(self, name: str, service: WebService) -> Transport:
        if name not in self._transports:
            agent = user_agent(self.environ.get("SURGE_BIB_EMAIL", "").strip())
            self._transports[name] = Transport(
                name, rate=self.options.rate_limits.get(name, service.default_rate), timeout=self.options.timeout,
                max_retries=self.options.max_retries, user_agent=agent, stats=self._stats(name),
                one_at_a_time=getattr(service, "one_connection", False))
        return self._transports[name]

    def _web(self, name: str, keys: Sequence[str], titles: Mapping[str, str]) -> dict[str, SourceAnswer]:
        service = web_service(name)
        base = self.base_url(name)
        cache_keys, found = self._cached(name, base, keys)
        todo = [key for key in keys if key not in found]
        if not todo:
            return found
        require(name, service.package)
        require(name, "requests")
        transport = self._transport(name, service)

        def ask(key: str) -> list[Candidate] | str:
            try:
                return self._ask(service, transport, titles[key], base)
            except LookupFailed as exc:
                return str(exc)
            except AnswerError as exc:
                transport.record_failure(str(exc))
                return str(exc)

        with ThreadPoolExecutor(max_workers=min(self.options.concurrency, len(todo)),
                                thread_name_prefix=f"surge-{name}") as pool:
            futures = {pool.submit(ask, key): key for key in todo}
            for future in as_completed(futures):
                key, result = futures[future], future.result()
                if isinstance(result, str):
                    found[key] = SourceAnswer(name, error=result)
                else:
                    found[key] = SourceAnswer(name, tuple(result))
                    self._store(cache_keys[key], result)  # as it comes: a crash keeps what was answered
        return found

    def _ask(self, service: WebService, transport: Transport, title: str, base: str) -> list[Candidate]:
        """One title's answer. A query the service refuses (:class:`QueryRejected`) would be refused again on a rerun:
        it is asked in the service's other form, and a second refusal is a definitive "nothing found" (cached)."""
        try:
            return service.parse(*transport.get(service.request(title, base, self.environ)))
        except QueryRejected:
            transport.count("rejected")
            fallback = fallback_request(service, title, base, self.environ)
            if fallback is None:
                return []
        try:
            return service.parse(*transport.get(fallback))
        except QueryRejected:
            return []

    def report(self) -> dict[str, Any]:
        """What each source did (for ``results["references"]``): counts, and the base URL of each web service."""
        from surge_dataset.core.http import redact_url

        sources = {}
        for name, stats in self.stats.items():
            sources[name] = {**stats.as_dict(), **({"base_url": redact_url(self.base_url(name))}
                                                   if name in BIB_SERVICES else {})}
            transport = self._transports.get(name)
            if transport is not None and transport.down_reason:
                sources[name]["down"] = transport.down_reason
        return {"services": list(self.options.services), "offline": self.options.offline,
                "skipped": list(self.skipped), "threshold": self.options.threshold, "sources": sources}


class LookupSession:
    """The bibliographic lookups of one run: its run options and the chain built from them (one per options).

    Opened and closed by the run's ``EvaluationSession``; a metric gets it in its prefetch, never from a global.
    """

    def __init__(self, run: Any = None, environ: Mapping[str, str] | None = None) -> None:
        self.run = run
        self.environ = environ
        self._chains: dict[tuple[Any, ...], ReferenceChain] = {}

    def chain(self, options: ChainOptions) -> ReferenceChain:
        key = options.key()
        if key not in self._chains:
            self._chains[key] = ReferenceChain(options, self.environ)
        return self._chains[key]

    def report(self) -> dict[str, Any] | None:
        """The used chain's report (None when no metric looked anything up)."""
        used = [chain for chain in self._chains.values() if chain.stats or chain.skipped]
        return used[-1].report() if used else None

    def close(self) -> None:
        """Close the answer cache of every chain (its file is not left open to the garbage collector)."""
        for chain in self._chains.values():
            chain.cache.close()
