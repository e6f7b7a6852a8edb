"""reference_existence and the four service clients against real recorded answers of OpenAlex, Semantic Scholar,
arXiv and Crossref (tests/fixtures/services/, origins in its README), replayed by tests/support/replay.py.

The replay server only maps a request to a recorded file; every match of a title to a paper is made by the code under
test. The 24 references below are 18 real papers the recorded answers know and 6 titles no paper has (the last six,
each answered by the services with a near miss or nothing): every real paper must be found, every fabricated title
rejected, under both protocols.
"""

from __future__ import annotations

import json

import pytest

from surge_dataset import SurgeData
from surge_dataset.core.vocabulary import EXISTS, NOT_FOUND
from surge_dataset.evaluation import EvaluationConfig, RunOptions, compute
from surge_dataset.evaluation.metrics.reference_existence import label_surveys
from surge_dataset.evaluation.prepare import prepare_text
from surge_dataset.references import LookupSession
from surge_dataset.references.base import AnswerError, QueryRejected
from surge_dataset.references.chain import ChainOptions, ReferenceChain, web_service
from surge_dataset.references.markup import plain_title
from tests.support.replay import FIXTURES, ReplayServer

WEB = ("openalex", "semanticscholar", "arxiv", "crossref")
FAST = [f"{service}=500" for service in WEB]

#: (title as a survey cites it, the service whose recorded answer knows the paper; None: no paper has this title)
REFERENCES = [
    ("Effect of native oxide layers on copper thin-film tensile properties: A reactive molecular dynamics study", "openalex"),
    ("PaperQA: Retrieval-Augmented Generative Agent for Scientific Research", "openalex"),
    ("High-throughput screening of human genetic variants by pooled prime editing", "semanticscholar"),
    ("Convalescent-anti-sars-cov-2-plasma/immune-globulin", "semanticscholar"),  # "/": the released pattern cuts
    ("An essential role of active site arginine residue in iodide binding and histidine residue in electron transfer "
     "for iodide oxidation by horseradish peroxidase", "semanticscholar"),
    ("A Perspective on Explanations of Molecular Prediction Models", "semanticscholar"),
    ("Attention is All you Need", "semanticscholar"),
    ("Mining association rules between sets of items in large databases", "semanticscholar"),
    ("Heat-bath random walks with Markov bases", "arxiv"),  # today's feed format
    ("Frequency of Hot Jupiters and Very Hot Jupiters from the OGLE-III Transit Surveys Toward the Galactic Bulge "
     "and Carina", "arxiv"),
    ("Quantum Computers and Quantum Computer Languages: Quantum Assembly Language and Quantum C Language", "arxiv"),
    ("A Luttinger Liquid Core Inside Helium-4 Filled Nanopores", "arxiv"),  # the 2016 feed format, 10 entries
    ("Topological Entropy and Special α-Limit Points of Graph Maps", "crossref"),  # MathML
    ("Robust H∞ Control of Uncertain T-S Fuzzy Time-Delay System: A Delay Decomposition Approach", "crossref"),  # MathML
    ("Performance study of Ni, Co, and Mo catalysts supported on γ-Al2O3 and HZSM5 in HDS reactions of mixed naphtha",
     "crossref"),  # <scp>, <i>, <sub>; commas
    ("Na3MP3O10·12H2O (M = Co, Ni): Crystal Structure and IR Spectroscopy", "crossref"),  # <sub>, <i>; commas
    ("Periodic inspection of air-assisted sprayers", "crossref"),  # <sup>
    ("WIDe-angle GEocoronal Telescope (WIDGET)", "crossref"),  # <title>; ends with ")"
    ("Effect of native oxide layers on copper thin-film tensile properties: A study", None),  # near miss everywhere
    ("abs12032jsdafn", None),
    ("SF Districts in the style of Andy Warhol, with Math", None),  # a comma: OpenAlex's filter refuses it
    ("National Flag of Canada Day", None),
    ("Frederick Bates (politician)", None),
    ("askldjrq3rjaw938h", None),
]


def survey_text() -> str:
    body = " ".join(f"Claim {i} [{i}]." for i in range(1, len(REFERENCES) + 1))
    return "# Introduction\n\n" + body + "\n\n# References\n\n" + "\n".join(
        f"[{i}] {title}" for i, (title, _) in enumerate(REFERENCES, 1)) + "\n"


def settings(server: ReplayServer, tmp_path, **extra):
    return {"bib_services": ",".join(WEB), "bib_base_url": server.base_url_options(), "bib_rate_limit": FAST,
            "bib_max_retries": 0, "cache_dir": tmp_path / "cache", **extra}


@pytest.mark.parametrize("protocol", ["official", "paper"])
def test_every_real_paper_is_found_and_every_fabricated_title_rejected(sample_dataset, tmp_path, protocol):
    data = SurgeData.open(sample_dataset)
    with ReplayServer() as server:
        result = compute("reference_existence", [survey_text()], [0], data=data, protocol=protocol,
                         **settings(server, tmp_path / "compute"))
        survey = prepare_text(survey_text(), data.survey(0), data.corpus, protocol)
        config = EvaluationConfig(metrics=["reference_existence"], bib_services=",".join(WEB), protocol=protocol)
        run = RunOptions(bib_base_url=server.base_url_options(), bib_rate_limit=FAST, bib_max_retries=0,
                         cache_dir=tmp_path / "labels")
        labelled = label_surveys([survey], config, LookupSession(run, environ={}))[survey.survey_id]
        assert server.unmatched == []  # every request the chain sent has a recorded answer
    counts = result["counts"][0]
    assert {k: counts[k] for k in ("refs_in_corpus", "refs_exists", "refs_not_found", "refs_unchecked")} == {
        "refs_in_corpus": 0, "refs_exists": 18, "refs_not_found": 6, "refs_unchecked": 0}
    assert result["reference_existence"] == pytest.approx(18 / 24)
    labels = {n: evidence for n, (evidence, _, _) in labelled.items()}
    assert sorted(labels) == list(range(1, 25))
    for number, (title, service) in enumerate(REFERENCES, 1):
        evidence = labels[number]
        if service is None:
            assert evidence.label == NOT_FOUND, (title, evidence)
        else:
            assert (evidence.label, evidence.source) == (EXISTS, service), (title, evidence)
    # the raw title is kept for audit where the service sent markup
    assert labels[13].matched_raw_title.startswith("Topological Entropy and Special<mml:math")
    assert labels[15].matched_raw_title.startswith("Performance study of Ni, Co, and Mo catalysts supported on\n")
    assert labels[9].arxiv_id == "1605.08386" and labels[12].arxiv_id == "1201.4869"
    assert labels[19].near["score"] < 95 and labels[19].near["title"].endswith("A reactive molecular dynamics study")


def test_under_official_the_whole_title_is_searched_where_the_released_pattern_cuts_it(sample_dataset, tmp_path):
    data = SurgeData.open(sample_dataset)
    survey = prepare_text(survey_text(), data.survey(0), data.corpus, "official")
    # the released reading (SurGE's own metrics) is unchanged: [4] keeps the text after "/", [18] and [23] are lost
    assert survey.parsed.references[4].title == "immune-globulin"
    assert 18 not in survey.parsed.references and 23 not in survey.parsed.references
    with ReplayServer() as server:
        config = EvaluationConfig(metrics=["reference_existence"], bib_services=",".join(WEB))
        lookups = LookupSession(RunOptions(bib_base_url=server.base_url_options(), bib_rate_limit=FAST,
                                           bib_max_retries=0, cache_dir=tmp_path), environ={})
        labelled = label_surveys([survey], config, lookups)[survey.survey_id]
        asked = {s.params.get("query") for s in server.served if s.service == "semanticscholar"}
    assert "Convalescent-anti-sars-cov-2-plasma/immune-globulin" in asked and "immune-globulin" not in asked
    whole = {n: w for n, (_, _, w) in labelled.items()}
    assert (whole[4].cut, whole[4].protocol_title) == (True, "immune-globulin")
    assert (whole[18].title, whole[18].protocol_title) == ("WIDe-angle GEocoronal Telescope (WIDGET)", None)
    assert not whole[1].cut and whole[1].title == REFERENCES[0][0]


# ------------------------------------------------------------------------------------------ each client


def test_each_client_reads_recorded_answers_as_plain_text():
    def body(name: str) -> bytes:
        return (FIXTURES / name).read_bytes()

    crossref = web_service("crossref").parse(200, body("crossref/periodic-inspection-sup.json"))
    assert crossref[-1].title == "Periodic inspection of air‐assisted sprayers1"
    assert crossref[-1].raw_title == "Periodic inspection of air‐assisted sprayers<sup>1</sup>"
    assert crossref[-1].doi == "10.1111/j.1365-2338.1996.tb01531.x" and crossref[-1].year == 1996
    salt = web_service("crossref").parse(200, body("crossref/na3mp3o10-crystal-structure-sub-i.json"))[-1]
    assert salt.title == "Na3MP3O10·12H2O (M = Co, Ni): Crystal Structure and IR Spectroscopy"
    assert salt.raw_title.startswith("Na<sub>3</sub>MP<sub>3</sub>O<sub>10</sub><i>·</i>12H<sub>2</sub>O")
    assert salt.doi == "10.1155/2012/702471" and salt.date == "2012-11-27"
    widget = web_service("crossref").parse(200, body("crossref/widget-telescope-title-tag.json"))[-1]
    assert widget.title == "WIDe-angle GEocoronal Telescope (WIDGET)" and widget.date == "1992-06-01"
    assert web_service("crossref").parse(200, body("crossref/askldjrq-empty.json")) == []

    openalex = web_service("openalex").parse(200, body("openalex/paperqa.json"))
    assert [(c.title, c.id, c.year) for c in openalex] == [
        ("PaperQA: Retrieval-Augmented Generative Agent for Scientific Research", "W4389761608", 2023)]
    assert web_service("openalex").parse(200, body("openalex/empty-list.json")) == []
    with pytest.raises(QueryRejected, match="HTTP 403"):
        web_service("openalex").parse(403, body("openalex/403-invalid-query-parameter.json"))

    s2 = web_service("semanticscholar")
    assert s2.parse(404, body("semanticscholar/askldjrq-not-found.json")) == []
    mined = s2.parse(200, body("semanticscholar/mining-association-rules.json"))
    assert [(c.title, c.doi, c.year) for c in mined] == [
        ("Mining association rules between sets of items in large databases", "10.1145/170035.170072", 1993)]

    arxiv = web_service("arxiv")
    old = arxiv.parse(200, body("arxiv/del-maestro-2016.xml"))
    assert len(old) == 10 and old[0].arxiv_id == "1201.4869" and old[0].doi == "10.1142/S021797921244002X"
    assert old[1].arxiv_id == "cond-mat/0412498" and old[0].date == "2012-01-23"
    new = arxiv.parse(200, body("arxiv/heat-bath-random-walks.xml"))
    assert [(c.title, c.arxiv_id, c.date) for c in new] == [
        ("Heat-bath random walks with Markov bases", "1605.08386", "2016-05-26")]
    assert arxiv.parse(200, body("arxiv/empty.xml")) == []
    with pytest.raises(AnswerError, match="incorrect id format for abc"):
        arxiv.parse(200, body("arxiv/error-incorrect-id.xml"))


@pytest.mark.parametrize(("raw", "text"), [
    ("<scp>T</scp>reebase: an<scp>R</scp>package", "Treebase: anRpackage"),
    ("Sugen's strategy: a signal for P&amp;U purchase", "Sugen's strategy: a signal for P&U purchase"),
    ("Cytogenetic study of &lt;i&gt;Diatenopteryx sorbifolia&lt;/i&gt; Radlk.", "Cytogenetic study of Diatenopteryx sorbifolia Radlk."),
    ("RCS Web Widget &#x2014; Mashing up", "RCS Web Widget — Mashing up"),
    ("Flux Pinning of &lt;inline-formula&gt; &lt;tex-math notation=\"TeX\"&gt;$\\hbox{YBa}_{2}$&lt;/tex-math&gt;"
     "&lt;/inline-formula&gt; (YBCO) Thin Films", "Flux Pinning of (YBCO) Thin Films"),
    ("p < 0.05 in <i>vivo</i>", "p < 0.05 in vivo"),
    ("A plain title", "A plain title"),
])
def test_plain_title_rules(raw, text):
    """Raw titles of the recorded Crossref answers (tests/fixtures/services and habanero's cassettes)."""
    assert plain_title(raw) == text


# ------------------------------------------------------------------------------------------ refused queries


def test_openalex_never_sends_filter_syntax_and_asks_a_refused_query_again_as_a_full_text_search(tmp_path):
    title = REFERENCES[14][0]  # three commas
    request = web_service("openalex").request(title, "http://h", {})
    assert "%2C" not in request.query and "," not in request.query.split("&select=")[0]
    words = "Performance study of Ni Co and Mo catalysts supported on γ Al2O3 and HZSM5 in HDS reactions of mixed naphtha"
    refused = {"openalex": [{"path": "/works", "match": {"filter": f"title.search:{words}"}, "status": 403,
                             "answer": "openalex/403-invalid-query-parameter.json"}]}
    for extra, expected in ((refused, ["openalex/403-invalid-query-parameter.json", "openalex/empty-list.json"]),
                            ({"openalex": [{**refused["openalex"][0], "match": {}}]}, None)):
        with ReplayServer(extra_rules=extra) as server:
            options = ChainOptions(services=("openalex",), base_urls={"openalex": server.base_url("openalex")},
                                   rate_limits={"openalex": 500.0}, max_retries=0, cache_dir=tmp_path / str(bool(expected)))
            chain = ReferenceChain(options, environ={})
            answer = chain.lookup({"t": title})["t"][0]
            served = [s for s in server.served if s.service == "openalex"]
        # refused twice at most: asked as a filter, then as a full-text search; an answer either way, never an error
        assert answer.error is None and answer.candidates == ()
        assert [("filter" in s.params, "search" in s.params) for s in served] == [(True, False), (False, True)]
        if expected:
            assert [s.answer for s in served] == expected
        assert chain.stats["openalex"].rejected == 1 and chain.stats["openalex"].failures == 0
        again = ReferenceChain(options, environ={}).lookup({"t": title})["t"][0]  # cached: a rerun asks nothing
        assert again.cached and again.candidates == ()


def test_the_fixture_index_names_only_files_that_exist():
    index = json.loads((FIXTURES / "index.json").read_text(encoding="utf-8"))
    for service, rules in index["rules"].items():
        assert rules[-1]["match"] == {}, f"{service}: the last rule answers every other request"
        for rule in rules:
            assert (FIXTURES / rule["answer"]).is_file(), rule["answer"]


@pytest.mark.filterwarnings("ignore:A test tried to use socket")
def test_the_suite_reaches_no_host_but_this_machine():
    """pytest-socket (pyproject's addopts) refuses a connection to any host but 127.0.0.1: a test that asked a
    real service would pass or fail with the network."""
    import socket

    from pytest_socket import SocketConnectBlockedError

    with pytest.raises(SocketConnectBlockedError):
        socket.create_connection(("192.0.2.1", 80), timeout=1)  # TEST-NET-1: never routed
