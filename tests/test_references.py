"""The reference resolver chain (surge_dataset/references/): title matching, each service's request and answer,
the HTTP policy (429 + Retry-After, 5xx, a service that is down), the SQLite cache and the offline path.

Every web service is exercised against a local server on 127.0.0.1 (``tests/support/bib_server.py``, BibServer) that
answers in the API's documented shape at the path the client library calls, and counts the requests.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from surge_dataset.core.errors import SettingError, SurgeError
from surge_dataset.core.http import DOWN_AFTER, RateLimiter, parse_retry_after, retry_delay
from surge_dataset.core.normalise import normalise_title
from surge_dataset.core.vocabulary import ChoiceError
from surge_dataset.references import ChainOptions, ReferenceChain, label_reference, match_score
from surge_dataset.references.base import AnswerError, Candidate, MissingExtraError, SourceAnswer, arxiv_id_of
from surge_dataset.references.chain import parse_assignments, parse_services, web_service
from surge_dataset.references.labels import published_after
from surge_dataset.references.match import TitleIndex
from surge_dataset.references.surveygen import SurveyGenSource
from tests.support.bib_server import BibServer, Failure, KnownPaper

WEB = ("openalex", "semanticscholar", "arxiv", "crossref")
FAST = {service: 200.0 for service in WEB}  # rate limits high enough not to slow the tests down

RESNET = "Deep Residual Learning for Image Recognition"
PAPERS = {
    "openalex": [KnownPaper(RESNET, 2016, doi="10.1109/CVPR.2016.90", id="W2194775991"),
                 KnownPaper("Deep Residual Learning for Image Recognition Revisited Again", 2020)],
    "semanticscholar": [KnownPaper("Graph Attention Networks", 2018, arxiv_id="1710.10903", id="s2gat")],
    "arxiv": [KnownPaper("Denoising Diffusion Probabilistic Models", 2020, arxiv_id="2006.11239")],
    "crossref": [KnownPaper("Long Short-Term Memory", 1997, doi="10.1162/neco.1997.9.8.1735")],
}


def chain_for(server: BibServer, tmp_path: Path, **options) -> ReferenceChain:
    settings = {"services": WEB, "base_urls": {s: server.base_url(s) for s in WEB}, "rate_limits": FAST,
                "cache_dir": tmp_path / "cache", "max_retries": 2, **options}
    return ReferenceChain(ChainOptions(**settings), environ={})


def lookup(chain: ReferenceChain, titles: list[str]) -> dict[str, list[SourceAnswer]]:
    return chain.lookup({normalise_title(t): t for t in titles})


def labels(chain: ReferenceChain, titles: list[str], threshold: float = 95.0):
    answers = lookup(chain, titles)
    return [label_reference(t, None, answers[normalise_title(t)], threshold) for t in titles]


# ------------------------------------------------------------------------------------------ pure parts


def test_match_score_is_100_under_the_corpus_rule_and_fuzzy_otherwise():
    assert match_score("Attention is all you need!", "ATTENTION IS ALL YOU NEED") == 100.0
    assert match_score("title - a study", "TITLE A STUDY") == 100.0
    near = match_score(RESNET + " Revisited", "Deep Residual Learning for Image Recognition Revisited Again")
    assert 90 < near < 95  # a near miss: below SurveyGen's 0.95
    assert match_score("", RESNET) == 0.0 and match_score("???", "!!!") == 0.0


def test_title_index_finds_the_nearest_title_within_the_length_band():
    index = TitleIndex(["Graph Attention Networks", RESNET, None, "Long Short-Term Memory"])
    assert index.nearest("graph attention networks.").position == 0  # exact by the corpus rule: 100
    near = index.nearest("Deep Residual Learning for Image Recognitio")
    assert near.position == 1 and 95 < near.score < 100
    assert index.nearest("Something else entirely, about soil") is None


def test_retry_policy_honours_retry_after_and_backs_off():
    assert parse_retry_after("3") == 3.0 and parse_retry_after(" 0.5 ") == 0.5 and parse_retry_after(None) is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412480 - 10) == pytest.approx(10.0)
    assert parse_retry_after("soon") is None
    assert [retry_delay(a, 3, None, backoff=0.5) for a in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, None]
    assert retry_delay(1, 3, 7.0) == 7.0  # the server's wait, as given
    assert retry_delay(1, 3, 3600.0, max_wait=120) is None  # longer than we wait: give the request up
    assert retry_delay(1, 0, None) is None  # no retries


def test_rate_limiter_spaces_request_starts_and_defers_on_429():
    clock = [100.0]
    slept = []
    limiter = RateLimiter(2.0, clock=lambda: clock[0], sleep=slept.append)
    assert [limiter.wait() for _ in range(3)] == [0.0, 0.5, 1.0]
    limiter.defer(5.0)
    assert limiter.wait() == 5.0 and slept == [0.5, 1.0, 5.0]


def test_labels_follow_the_first_close_match_and_failures_make_unchecked():
    found = SourceAnswer("openalex", (Candidate(RESNET, id="W1", year=2016),))
    near = SourceAnswer("crossref", (Candidate(RESNET + " Revisited", id="10.1/x"),))
    failed = SourceAnswer("arxiv", error="HTTP 503 after 3 tries")
    assert label_reference(RESNET, 7, [], 95).label == "in_corpus"  # the exact corpus doc id wins
    exists = label_reference(RESNET, None, [failed, found], 95)
    assert (exists.label, exists.source, exists.id, exists.year, exists.failed) == (
        "exists", "openalex", "W1", 2016, ("arxiv: HTTP 503 after 3 tries",))
    corpus = label_reference(RESNET + "s", None, [SourceAnswer("corpus", (Candidate(RESNET, id="12"),))], 95)
    assert (corpus.label, corpus.doc_id, corpus.method) == ("in_corpus", 12, "fuzzy")
    missing = label_reference(RESNET, None, [near], 95)
    assert missing.label == "not_found" and missing.near["source"] == "crossref" and missing.near["score"] < 95
    assert label_reference(RESNET, None, [near, failed], 95).label == "unchecked"  # never counted fabricated
    assert label_reference("[12] ---", None, [], 95).reason.startswith("no title")


def test_published_after_compares_at_the_coarser_precision():
    assert published_after(None, 2023, "2021-03-04T00:00:00", "2021")
    assert not published_after(None, 2021, "2021-03-04T00:00:00", "2021")  # same year: not after
    assert published_after("2021-03-05", None, "2021-03-04T00:00:00")
    assert not published_after(None, None, "2021-03-04")


def test_settings_are_checked_with_the_closest_name():
    assert parse_services("openalex, arxiv,openalex") == ("openalex", "arxiv")
    with pytest.raises(ChoiceError, match="did you mean 'openalex'"):
        parse_services("openalx")
    assert parse_assignments(["arxiv=http://h:1"], "bib_base_url") == {"arxiv": "http://h:1"}
    assert parse_assignments({"crossref": "http://c"}, "bib_base_url") == {"crossref": "http://c"}
    with pytest.raises(SettingError, match="expected SERVICE=VALUE"):
        parse_assignments(["arxiv"], "bib_base_url")
    with pytest.raises(ChoiceError, match="did you mean 'semanticscholar'"):
        parse_assignments(["semantic_scholar=http://h"], "bib_base_url")


# ------------------------------------------------------------------------------------------ each service


def test_each_service_builds_its_apis_request_shape():
    env = {"SURGE_OPENALEX_EMAIL": "me@example.org", "SURGE_OPENALEX_API_KEY": "oa-key",
           "SEMANTIC_SCHOLAR_API_KEY": "s2-key", "SURGE_BIB_EMAIL": "all@example.org"}
    title = "*Attention* is all you need: a study, (2017)?"
    oa = web_service("openalex").request(title, "http://m/oa/", env)
    assert oa.url == "http://m/oa/works"  # no filter syntax (, : ( ) ?) left in the value: the live API refuses a comma
    assert oa.query.startswith("filter=title.search:Attention+is+all+you+need+a+study+2017&select=id,doi,title")
    assert "per-page=5" in oa.query
    assert "mailto=me%40example.org" in oa.query and oa.headers == {"Authorization": "Bearer oa-key"}
    s2 = web_service("semanticscholar").request(title, "http://m/s2", env)
    assert s2.url == "http://m/s2/graph/v1/paper/search/match" and s2.headers == {"x-api-key": "s2-key"}
    assert "query=Attention+is+all+you+need" in s2.query and "fields=title%2Cyear%2CexternalIds" in s2.query
    ax = web_service("arxiv").request(title, "http://m/ax", env)
    assert ax.url == "http://m/ax/api/query" and "search_query=ti%3A%22Attention+is+all+you+need+a+study+2017%22" in ax.query
    assert "max_results=5" in ax.query and ax.headers == {}
    cr = web_service("crossref").request(title, "http://m/cr", env)
    assert cr.url == "http://m/cr/works" and "query.bibliographic=Attention+is+all" in cr.query
    assert "rows=5" in cr.query and "mailto=all%40example.org" in cr.query


def test_each_service_reads_its_answers_and_rejects_what_is_no_answer():
    s2 = web_service("semanticscholar")
    assert s2.parse(404, b'{"error": "Title match not found"}') == []  # S2's "no match" is an answer
    with pytest.raises(AnswerError, match="HTTP 500"):
        s2.parse(500, b"<html>oops</html>")
    with pytest.raises(AnswerError):
        web_service("openalex").parse(200, b"not json")
    with pytest.raises(AnswerError):
        web_service("arxiv").parse(200, b"<<<")
    doi = "10.48550/arXiv.1706.03762"
    found = web_service("crossref").parse(200, json.dumps({"message": {"items": [
        {"DOI": doi, "title": ["Attention Is All You Need"], "issued": {"date-parts": [[2017]]}}]}}).encode())
    assert found == [Candidate("Attention Is All You Need", id=doi, doi=doi, arxiv_id="1706.03762", year=2017)]
    assert arxiv_id_of("10.48550/arxiv.2006.11239v2") == "2006.11239" and arxiv_id_of("10.1/x") is None


def test_missing_client_library_is_a_surge_error_naming_the_extra(monkeypatch, tmp_path):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyalex" else real(name, *a))
    chain = ReferenceChain(ChainOptions(services=("openalex",), cache_dir=tmp_path), environ={})
    with pytest.raises(MissingExtraError, match=r"pip install 'surge-bench\[bib\]'") as raised:
        chain.check()
    assert isinstance(raised.value, SurgeError)


# ------------------------------------------------------------------------------------------ the chain


def test_chain_asks_each_service_once_per_unresolved_title_in_order(tmp_path):
    titles = [RESNET + ".", "Graph attention networks", "Denoising Diffusion Probabilistic Models",
              "Long Short-Term Memory", "A Title Nobody Has Ever Written Down", RESNET + " Revisited"]
    with BibServer(PAPERS) as server:
        chain = chain_for(server, tmp_path)
        got = labels(chain, titles + [titles[0].upper()])  # the same title twice: asked once
        by_service = {s: server.count(s) for s in WEB}
    assert [(e.label, e.source) for e in got] == [
        ("exists", "openalex"), ("exists", "semanticscholar"), ("exists", "arxiv"), ("exists", "crossref"),
        ("not_found", None), ("not_found", None), ("exists", "openalex")]
    # each service is asked only the titles the ones before it did not find, once each (6 distinct titles)
    assert by_service == {"openalex": 6, "semanticscholar": 5, "arxiv": 4, "crossref": 3}
    resnet, gat, ddpm, lstm = got[:4]
    assert (resnet.id, resnet.doi, resnet.year, resnet.score) == ("W2194775991", "10.1109/CVPR.2016.90", 2016, 100.0)
    assert (gat.id, gat.arxiv_id) == ("s2gat", "1710.10903")
    assert (ddpm.id, ddpm.arxiv_id, ddpm.year, ddpm.date) == ("2006.11239", "2006.11239", 2020, "2020-05-01")
    assert (lstm.doi, lstm.year, lstm.date) == ("10.1162/neco.1997.9.8.1735", 1997, "1997-07-01")
    near = got[5].near  # the near-miss title: OpenAlex returned it, below 95
    assert near["source"] == "openalex" and near["title"].endswith("Revisited Again") and near["score"] < 95
    report = chain.report()["sources"]
    assert report["openalex"]["requests"] == 6 and report["crossref"]["titles"] == 3


def test_a_rerun_answers_from_the_cache_with_zero_requests(tmp_path):
    titles = [RESNET, "Graph Attention Networks", "A Title Nobody Has Ever Written Down"]
    with BibServer(PAPERS) as server:
        first = labels(chain_for(server, tmp_path), titles)
        asked = server.count()
        again = chain_for(server, tmp_path)
        second = labels(again, titles)
        assert server.count() == asked == 3 + 2 + 1 + 1  # openalex, semanticscholar, arxiv, crossref
    assert second == first
    assert again.report()["sources"]["openalex"] == {**again.report()["sources"]["openalex"], "requests": 0,
                                                     "cache_hits": 3}


def test_429_retry_after_is_honoured_and_500s_are_retried(tmp_path):
    failures = {("openalex", RESNET): [Failure(429, "1"), Failure(500)],
                ("semanticscholar", "Graph Attention Networks"): [Failure(503)]}
    with BibServer(PAPERS, failures) as server:
        chain = chain_for(server, tmp_path, services=("openalex", "semanticscholar"))
        start = time.monotonic()
        got = labels(chain, [RESNET, "Graph Attention Networks"])
        took = time.monotonic() - start
        resnet = [r for r in server.requests if r.query == RESNET]
    assert [e.label for e in got] == ["exists", "exists"]
    assert [r.status for r in resnet] == [429, 500, 200]
    assert resnet[1].at - resnet[0].at >= 0.95  # Retry-After: 1 was waited out
    assert took < 6
    stats = chain.report()["sources"]
    assert stats["openalex"]["retries"] == 2 and stats["semanticscholar"]["retries"] == 1


def test_a_service_that_keeps_failing_leaves_titles_unchecked_and_is_not_cached(tmp_path):
    failures = {("openalex", RESNET): [Failure(500)] * 5}
    with BibServer(PAPERS, failures) as server:
        chain = chain_for(server, tmp_path, services=("openalex",), max_retries=1)
        got = labels(chain, [RESNET])
        assert got[0].label == "unchecked" and "HTTP 500 after 2 tries" in got[0].failed[0]
        assert server.count("openalex") == 2
        again = labels(chain_for(server, tmp_path, services=("openalex",), max_retries=1), [RESNET])
        assert server.count("openalex") == 4 and again[0].label == "unchecked"  # a failure is asked again


def test_a_service_that_is_down_is_asked_no_more_after_a_few_failed_titles(tmp_path):
    titles = [f"A Perfectly Ordinary Title About {word}" for word in "Ants Bees Cats Dogs Eels Fish Gnus Hens Ibis".split()]
    assert len(titles) == DOWN_AFTER + 4
    with BibServer(PAPERS, always_fail={"openalex": Failure(503)}) as server:
        chain = chain_for(server, tmp_path, services=("openalex", "crossref"), max_retries=0, concurrency=1)
        got = labels(chain, titles)
        assert server.count("openalex") == DOWN_AFTER and server.count("crossref") == len(titles)
    assert {e.label for e in got} == {"unchecked"}
    assert "down" in chain.report()["sources"]["openalex"]


def test_offline_asks_no_web_service(tmp_path, monkeypatch):
    monkeypatch.setenv("SURGE_OFFLINE", "1")
    with BibServer(PAPERS) as server:
        options = ChainOptions.from_settings(
            type("Config", (), {"bib_services": "openalex,crossref", "bib_surveygen": None, "bib_match_threshold": 95})(),
            type("Run", (), {"bib_base_url": server.base_url_options(), "bib_rate_limit": [], "bib_timeout": 5.0,
                             "bib_max_retries": 1, "bib_concurrency": 2, "cache_dir": tmp_path})())
        chain = ReferenceChain(options)
        got = labels(chain, [RESNET])
        assert server.count() == 0
    assert options.offline and got[0].label == "not_found" and got[0].reason == "no source was asked"
    assert chain.report()["skipped"] == ["openalex", "crossref"]


def test_surveygen_references_are_a_local_source(tmp_path):
    survey = {"metadata": {"title": "A survey"}, "sections": [], "references": [
        {"ref_id": "b0", "matched_paper_id": 15619658, "title": "A logical calculus of the ideas immanent in nervous activity",
         "metadata": {"doi": "10.1007/BF02459570", "year": "1990", "publicationDate": "None"}},
        {"ref_id": "b1", "title": "", "metadata": {"title": "Graph Attention Networks",
                                                   "externalIds": {"ArXiv": "1710.10903"}, "year": 2018}},
        {"ref_id": "b2", "title": ""}]}
    (tmp_path / "sg").mkdir()
    (tmp_path / "sg" / "one.json").write_text(json.dumps(survey), encoding="utf-8")
    source = SurveyGenSource.load(tmp_path / "sg")
    assert len(source) == 2
    chain = ReferenceChain(ChainOptions(services=("surveygen",), surveygen=str(tmp_path / "sg"),
                                        cache_dir=tmp_path / "c", offline=True), environ={})
    got = labels(chain, ["A Logical Calculus of the Ideas Immanent in Nervous Activity.", "Graph attention networks",
                         "Unknown"])
    assert [(e.label, e.source) for e in got] == [("exists", "surveygen"), ("exists", "surveygen"), ("not_found", None)]
    assert (got[0].id, got[0].doi, got[0].year, got[0].date) == ("CorpusId:15619658", "10.1007/BF02459570", 1990, None)
    assert got[1].arxiv_id == "1710.10903"
    with pytest.raises(SurgeError, match="no such file or folder"):
        SurveyGenSource.load(tmp_path / "missing")
