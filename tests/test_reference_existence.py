"""The reference_existence metric end to end: compute() and `surge evaluate` against a local server standing in
for OpenAlex, Semantic Scholar, arXiv and Crossref (tests/support/bib_server.py, BibServer), values computed by hand;
--details, the cached rerun, the offline path, the temporal flag, and the ``not_in_corpus`` count."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.cli import app
from surge_dataset.evaluation import EvaluationConfig, compute
from surge_dataset.report.drilldown import drilldown_markdown
from surge_dataset.report.results import load_results
from tests.support.bib_server import BibServer, Failure, KnownPaper

WEB = ("openalex", "semanticscholar", "arxiv", "crossref")
FAST = [f"{service}=500" for service in WEB]
RESNET = "Deep Residual Learning for Image Recognition"
NOBODY = "A Title Nobody Has Ever Written Down"
UNREACHABLE = "Unreachable Paper On Everything"
FUTURE = "Scaling Laws For Future Language Models"
PAPERS = {
    "openalex": [KnownPaper(RESNET, 2016, doi="10.1109/CVPR.2016.90", id="W2194775991"),
                 KnownPaper(FUTURE, 2030, id="W9")],
    "semanticscholar": [KnownPaper("Graph Attention Networks", 2018, arxiv_id="1710.10903", id="s2gat")],
}


def generated_survey(data: SurgeData) -> str:
    """GT survey 0 (dated 2021-03-04) written with eight references, one of each case:

    [1] doc 17, exact (2020)            in_corpus
    [2] doc 18 missing one letter       in_corpus (nearest corpus title, score >= 95)
    [3] ResNet, OpenAlex 2016           exists
    [4] GAT, only Semantic Scholar      exists
    [5] a title nobody has              not_found (every service answered)
    [6] every service answers 503       unchecked (left out of the denominator)
    [7] OpenAlex, dated 2030            exists, after the survey
    [8] doc 35, exact (2021-06-15)      in_corpus, after the survey
    """
    first, second, late = (p.title for p in data.corpus.get([17, 18, 35]))
    typo = second.replace("Meets", "Mets")
    assert typo != second and len(second) > 40
    titles = [first, typo, RESNET, "Graph Attention Networks", NOBODY, UNREACHABLE, FUTURE, late]
    body = " ".join(f"Claim {i} [{i}]." for i in range(1, 9))
    return "# Introduction\n\n" + body + "\n\n# References\n\n" + "\n".join(
        f"[{i}] {t}" for i, t in enumerate(titles, 1)) + "\n"


def unreachable() -> dict[tuple[str, str], list[Failure]]:
    return {(service, UNREACHABLE): [Failure(503)] * 4 for service in WEB}


def run_compute(data, server, tmp_path, **extra):
    settings = {"bib_services": ",".join(WEB), "bib_base_url": server.base_url_options(), "bib_rate_limit": FAST,
                "bib_max_retries": 0, "cache_dir": tmp_path / "cache", **extra}
    return compute("reference_existence", [generated_survey(data)], [0], data=data, **settings)


def test_each_reference_gets_one_label_and_the_value_is_computed_by_hand(sample_dataset, tmp_path):
    data = SurgeData.open(sample_dataset)
    with BibServer(PAPERS, unreachable()) as server:
        result = run_compute(data, server, tmp_path)
        asked = {service: server.count(service) for service in WEB}
    # in_corpus [1] [2] [8], exists [3] [4] [7], not_found [5]; [6] unchecked and left out: 6 / 7
    assert result["reference_existence"] == pytest.approx(6 / 7)
    counts = result["counts"][0]
    assert {k: counts[k] for k in ("refs_in_corpus", "refs_exists", "refs_not_found", "refs_unchecked",
                                   "refs_after_survey", "reference_lookups_failed")} == {
        "refs_in_corpus": 3, "refs_exists": 3, "refs_not_found": 1, "refs_unchecked": 1, "refs_after_survey": 2,
        "reference_lookups_failed": 1}
    assert counts["resolved"] == 2 and counts["not_in_corpus"] == 6  # the corpus's exact rule, unchanged
    # <= 1 request per unresolved title per service: OpenAlex [3]-[7], then what each left unresolved
    assert asked == {"openalex": 5, "semanticscholar": 3, "arxiv": 2, "crossref": 2}
    codes = {d["code"]: d["message"] for d in result["diagnostics"][0]}
    assert "[6] 'Unreachable Paper On Everything'" in codes["references_unchecked"]
    assert codes["reference_after_survey"].startswith("2 reference entries were published after the survey's date")
    assert "[7] 'Scaling Laws" in codes["reference_after_survey"] and "references_corpus_only" not in codes


def test_a_cached_rerun_makes_no_request(sample_dataset, tmp_path):
    data = SurgeData.open(sample_dataset)
    with BibServer(PAPERS) as server:
        first = run_compute(data, server, tmp_path)
        asked = server.count()
        second = run_compute(data, server, tmp_path)
        assert asked == 5 + 3 + 2 + 2 and server.count() == asked  # [6] is answered too now: not_found
    assert first["reference_existence"] == second["reference_existence"] == pytest.approx(6 / 8)


def test_offline_and_no_services_stop_at_the_corpus_and_say_so(sample_dataset, tmp_path, monkeypatch):
    data = SurgeData.open(sample_dataset)
    with BibServer(PAPERS) as server:
        plain = compute("reference_existence", [generated_survey(data)], [0], data=data, cache_dir=tmp_path)
        monkeypatch.setenv("SURGE_OFFLINE", "1")
        offline = run_compute(data, server, tmp_path)
        assert server.count() == 0
    for result, why in ((plain, "no --bib-services"), (offline, "SURGE_OFFLINE=1")):
        assert result["reference_existence"] == pytest.approx(3 / 8)  # [1] [2] [8] in the corpus, 5 not_found
        message = next(d["message"] for d in result["diagnostics"][0] if d["code"] == "references_corpus_only")
        assert message.startswith(f"{why}: 5 reference entries the corpus lacks") and "lower bound" in message


def test_only_reference_existence_asks_the_services(sample_dataset, tmp_path):
    data = SurgeData.open(sample_dataset)
    with BibServer(PAPERS) as server:
        compute("recall", [generated_survey(data)], [0], data=data, bib_services="openalex",
                bib_base_url=server.base_url_options(), cache_dir=tmp_path)
        assert server.count() == 0


def test_surge_evaluate_writes_labels_and_evidence_with_details(sample_dataset, tmp_path):
    data = SurgeData.open(sample_dataset)
    (tmp_path / "passages" / "0").mkdir(parents=True)
    (tmp_path / "passages" / "0" / "survey.md").write_text(generated_survey(data), encoding="utf-8")
    with BibServer(PAPERS, unreachable()) as server:
        def evaluate(out: str) -> dict:
            args = ["evaluate", "--data", str(sample_dataset), "--passages", str(tmp_path / "passages"),
                    "--metrics", "reference_existence", "--bib-services", "openalex,semanticscholar",
                    "--out", str(tmp_path / out), "--details", str(tmp_path / f"{out}.jsonl"),
                    "--cache-dir", str(tmp_path / "cache"), "--bib-max-retries", "0"]
            for option in [*server.base_url_options()[:2], *FAST[:2]]:
                args += ["--bib-base-url" if "=http" in option else "--bib-rate-limit", option]
            result = CliRunner().invoke(app, args)
            assert result.exit_code == 0, result.output
            return json.loads((tmp_path / out).read_text())

        results = evaluate("first.json")
        asked = server.count()
        evaluate("second.json")  # a new results file: scored again, answered from the cache but [6]
        assert asked == 5 + 3 and server.count() == asked + 2
        openalex_url = server.base_url("openalex")
    survey = results["surveys"]["0"]
    assert survey["reference_existence"] == pytest.approx(6 / 7)  # [5] is not_found after two services
    assert results["config"]["bib_services"] == "openalex,semanticscholar"
    openalex = results["references"]["sources"]["openalex"]
    assert openalex["requests"] == 5 and openalex["base_url"] == openalex_url
    records = [json.loads(line) for line in (tmp_path / "first.json.jsonl").read_text().splitlines()]
    by_number = {r["number"]: r for r in records if r.get("metric") == "reference_existence"}
    assert [by_number[n]["label"] for n in range(1, 9)] == [
        "in_corpus", "in_corpus", "exists", "exists", "not_found", "unchecked", "exists", "in_corpus"]
    assert by_number[1]["doc_id"] == 17 and by_number[2]["method"] == "fuzzy" and by_number[2]["doc_id"] == 18
    assert {k: by_number[3][k] for k in ("source", "id", "doi", "year", "score")} == {
        "source": "openalex", "id": "W2194775991", "doi": "10.1109/CVPR.2016.90", "year": 2016, "score": 100.0}
    assert by_number[4]["source"] == "semanticscholar" and by_number[4]["arxiv_id"] == "1710.10903"
    assert by_number[5]["searched"] == ["corpus", "openalex", "semanticscholar"]
    assert by_number[6]["failed"][0].startswith("openalex: HTTP 503 after 1 try")
    assert by_number[7]["after_survey"] and by_number[8]["after_survey"] and not by_number[3]["after_survey"]


def test_not_in_corpus_counts_the_entries_the_corpus_lacks(sample_dataset, tmp_path):
    data = SurgeData.open(sample_dataset)
    counts = compute("recall", [generated_survey(data)], [0], data=data)["counts"][0]
    assert counts["not_in_corpus"] == 6 and "hallucinated" not in counts  # no alias of a name never released
    results = {"config": {}, "surveys": {"0": {"recall": 0.1, "counts": {"references": 8, "resolved": 2,
                                                                          "not_in_corpus": 6}}}, "average": {"recall": 0.1}}
    (tmp_path / "r.json").write_text(json.dumps(results), encoding="utf-8")
    table = drilldown_markdown(load_results([tmp_path / "r.json"]), ["recall"])
    assert "| Not in corpus |" in table and "| 8 (2) | 6 |" in table


def test_services_enter_the_journal_key_only_when_set():
    assert EvaluationConfig().key("fp") == "4463f378b305e144"  # pinned in tests/test_journal_keys.py
    base = EvaluationConfig(metrics=["reference_existence"])
    assert EvaluationConfig(metrics=["reference_existence"], bib_services="openalex").key("fp") != base.key("fp")
    assert EvaluationConfig(metrics=["reference_existence"], bib_match_threshold=90.0).key("fp") != base.key("fp")


def test_official_reads_whole_titles_and_only_cut_titles_change(sample_dataset):
    """SurveyGen's metric does not inherit the released title pattern: on the sample's ground truth written as
    surveys, ``official`` now gives what ``paper`` gives. Before the fix (measured): surveys 0, 1, 2, 41, 42 scored
    1.0 (20 of 21 entries read), 0.9 (18/20), 0.9474 (18/19), 1.0, 0.9412 (16/17). Only the entries whose title
    the released pattern cuts (sample README: ``?``, ``'``, ``()``, ``/``) are read differently."""
    from surge_dataset.data.render import render_survey
    from surge_dataset.evaluation.prepare import prepare_text
    from surge_dataset.survey.whole_titles import whole_reference_titles

    data = SurgeData.open(sample_dataset)
    ids = [0, 1, 2, 41, 42]
    texts = [render_survey(data.survey(i), data.corpus) for i in ids]
    results = {p: compute("reference_existence", texts, ids, data=data, protocol=p) for p in ("official", "paper")}
    for protocol, result in results.items():
        assert [v["reference_existence"] for v in result["per_survey"]] == [1.0] * 5, protocol
        assert [c["refs_in_corpus"] for c in result["counts"]] == [21, 20, 19, 18, 17], protocol  # = len(all_cites)
    cut = {}
    for survey_id, text in zip(ids, texts, strict=True):
        survey = prepare_text(text, data.survey(survey_id), data.corpus, "official")
        whole = whole_reference_titles(text, survey.parsed)
        cut[survey_id] = sorted(w.title for w in whole.values() if w.cut)
        for number, title in whole.items():  # an entry read whole is exactly the released reading's
            if not title.cut:
                assert title.title == survey.parsed.references[number].title
    assert cut == {
        0: ["How Powerful are Graph Neural Networks?"],
        1: ["BERT (Bidirectional Encoder Representations from Transformers) Revisited",
            "Don't Stop Pretraining: Adapt Language Models to Domains and Tasks",
            "Lost in the Middle? Position Effects in Long-Context Retrieval-Augmented Models"],
        2: ["Client/Server Federated Optimization"],
        41: [],
        42: ["BERT (Bidirectional Encoder Representations from Transformers) Revisited",
             "Don't Stop Pretraining: Adapt Language Models to Domains and Tasks"]}
