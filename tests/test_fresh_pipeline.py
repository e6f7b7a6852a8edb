"""`surge data fresh` end to end against local arXiv and OpenAlex/Semantic Scholar servers on 127.0.0.1.

The world of these tests, built by hand: a few survey candidates in June 2025 with small e-prints (helper
``tarballs``), the papers they cite on the fake arXiv, citation counts on the fake OpenAlex. Every expected
number below is counted from that world.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.fresh.candidates import candidate_query, date_window, survey_rule
from surge_dataset.fresh.pipeline import FreshOptions, run_fresh
from tests.support.arxiv_server import ArxivPaper, ArxivServer, matches
from tests.support.bib_server import BibServer, KnownPaper
from tests.support.tarballs import (
    Reference,
    Section,
    bbl_text,
    bib_text,
    gzip_single,
    survey_tex,
    tar_gz,
)

runner = CliRunner()

#: Cited papers on the fake arXiv (2024, cs.LG and cs.CL).
CITED = {
    "2401.00001": "Attention Is All You Need",
    "2401.00002": "Deep Residual Learning for Image Recognition",
    "2401.00003": "Graph Neural Networks for Recommendation: A Study",
    "2401.00004": "BERT: Pre-training of Deep Bidirectional Transformers",
    "2401.00005": "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks",
}


def _cited_papers() -> list[ArxivPaper]:
    return [ArxivPaper(i, t, f"2024-01-{n:02d}T10:00:00", abstract=f"About {t.lower()}.", categories=("cs.LG", "cs.CL"),
                       authors=("C. Writer", "D. Writer")) for n, (i, t) in enumerate(CITED.items(), 1)]


def _refs(*pairs: tuple[str, str]) -> list[Reference]:
    return [Reference(key, title) for key, title in pairs]


REFS = _refs(("vaswani", "Attention is all you need"), ("he", "Deep residual learning for image recognition"),
             ("gnn", "Graph neural network for recommendation: a study"),  # fuzzy: "network" vs "Networks"
             ("closed", "A closed-access journal paper that arXiv never saw"))
SECTIONS = [Section("Introduction", r"Transformers \cite{vaswani,he} changed the field."),
            Section("Graph Models", r"Graph recommenders \cite{gnn} and \cite{vaswani}.", level="subsection"),
            Section("Outlook", r"Closed work \cite{closed}.")]


def _survey(arxiv_id: str, title: str, day: int, source: bytes | None, *, abstract: str = "In this survey we review "
            "the field.", categories: tuple[str, ...] = ("cs.CL",)) -> ArxivPaper:
    return ArxivPaper(arxiv_id, title, f"2025-06-{day:02d}T12:00:00", abstract=abstract, categories=categories,
                      source=source, authors=("E. Surveyor",))


def _bbl_eprint(title: str = "A Survey of Transformers", sections=SECTIONS, refs=REFS) -> bytes:
    return tar_gz({"main.tex": survey_tex(title, "We review.", sections), "main.bbl": bbl_text(refs)})


@contextmanager
def servers(papers: list[ArxivPaper], openalex: list[KnownPaper] = (), s2: list[KnownPaper] = ()
            ) -> Iterator[tuple[ArxivServer, BibServer]]:
    with ArxivServer([*_cited_papers(), *papers]) as arxiv, BibServer({"openalex": openalex,
                                                                        "semanticscholar": s2}) as bib:
        yield arxiv, bib


def options(arxiv: ArxivServer, bib: BibServer, **overrides) -> FreshOptions:
    values = {"since": "2025-06-01", "until": "2025-06-30", "categories": "cs.CL", "rate": 0.0, "max_retries": 0,
              "timeout": 5.0, "topic_papers": 0, "bib_base_url": [f"arxiv={arxiv.address}",
                                                                  f"openalex={bib.base_url('openalex')}",
                                                                  f"semanticscholar={bib.base_url('semanticscholar')}"]}
    return FreshOptions(**{**values, **overrides})


def _read(out: Path, name: str):
    return json.loads((out / name).read_text(encoding="utf-8"))


def _dropped(manifest: dict) -> dict[str, tuple[str, str]]:
    return {d["arxiv_id"]: (d["stage"], d["code"]) for d in manifest["dropped"]}


# -- the survey rule and the query ------------------------------------------------------------------------------

@pytest.mark.parametrize(("title", "abstract", "accepted", "clause"), [
    ("Large Language Models: A Survey", "", True, "title: 'survey'"),
    ("Retrieval Augmented Generation: A Review", "", True, "title: 'review'"),
    ("An Overview of Diffusion Models", "", True, "title: 'overview'"),
    ("Speech Models: Systematic Review and Meta-Analysis", "", True, "title: 'systematic review'"),
    ("Agents for Science", "In this survey, we organise the literature.", True, "abstract: 'this survey'"),
    ("Agents for Science", "We review 200 papers on agents.", True, "abstract: 'we review'"),
    ("Peer Review in the Age of LLMs: A Survey", "", True, "title: 'survey'"),  # the exclusion is cut, survey stays
    ("LLMs as Peer Reviewers", "We study peer review and code review bots.", False,
     "only 'peer review', 'code review' (not a survey of a field)"),
    ("Automatic Review Generation for Papers", "We generate reviews.", False,
     "only 'review generation' (not a survey of a field)"),
    ("Sentiment of Product Reviews", "Product reviews on sites.", False,
     "only 'product reviews' (not a survey of a field)"),
    ("A Household Survey of Internet Use", "We analyse survey data of households.", False,
     "only 'household survey', 'survey data' (not a survey of a field)"),
    ("Faster Transformers", "We propose a new kernel.", False, "no survey or review wording in the title or abstract"),
])
def test_the_survey_rule_clause_by_clause(title, abstract, accepted, clause):
    decision = survey_rule(title, abstract)
    assert (decision.accepted, decision.clause) == (accepted, clause)


def test_the_candidate_query_and_the_local_server_read_it_alike():
    first, last = date_window("2025-06-01", "2025-06-30")
    query = candidate_query(first, last, ["cs.CL", "cs.LG"])
    assert query.startswith("submittedDate:[202506010000 TO 202506302359] AND (cat:cs.CL OR cat:cs.LG) AND (ti:survey")
    inside = ArxivPaper("1", "Graph Learning: A Survey", "2025-06-30T23:00:00", categories=("cs.LG",))
    late = ArxivPaper("2", "Graph Learning: A Survey", "2025-07-01T00:01:00", categories=("cs.LG",))
    other_field = ArxivPaper("3", "Graph Learning: A Survey", "2025-06-10", categories=("q-bio.NC",))
    plural = ArxivPaper("4", "Recent surveys of graph learning", "2025-06-10", categories=("cs.CL",))
    abstract_only = ArxivPaper("5", "Graph Learning", "2025-06-10", abstract="In this survey we...", categories=("cs.CL",))
    assert [matches(query, p) for p in (inside, late, other_field, plural, abstract_only)] == [True, False, False,
                                                                                                True, True]
    assert not matches('ti:"survey graph learning"', inside)  # a phrase: consecutive words, stop words aside
    assert matches('ti:"learning a survey"', inside) and matches("ti:graph ANDNOT cat:cs.CL", inside)


# -- end to end ---------------------------------------------------------------------------------------------------

def test_nested_sections_and_multi_key_cites_end_to_end_with_a_bbl(tmp_path):
    papers = [_survey("2506.00001", "A Survey of Transformers", 3, _bbl_eprint())]
    with servers(papers, openalex=[KnownPaper("A Survey of Transformers", 2025, doi="10.48550/arXiv.2506.00001",
                                              cited_by_count=7)]) as (arxiv, bib):
        result = run_fresh(tmp_path / "out", options(arxiv, bib))
    out = tmp_path / "out"
    (survey,) = _read(out, "surveys.json")
    corpus = {p["doc_id"]: p["Title"] for p in _read(out, "corpus.json")}
    # cited in first-appearance order: vaswani, he, gnn (fuzzy) -> doc ids 0, 1, 2; "closed" is not on arXiv
    assert corpus == {0: CITED["2401.00001"], 1: CITED["2401.00002"], 2: CITED["2401.00003"]}
    assert survey["survey_id"] == 0 and survey["survey_title"] == "A Survey of Transformers"
    assert survey["date"] == "2025-06-03T12:00:00" and survey["year"] == "2025" and survey["category"] == "cs.CL"
    assert survey["authors"] == ["E. Surveyor"] and survey["Bertopic_CD"] is None and survey["all_cites"] == [0, 1, 2]
    nodes = [(n["id"], n["parent_id"], n["title"], n.get("cites"), n.get("origin_cites_number"))
             for n in survey["structure"]]
    assert nodes == [("0", -1, "root", None, None), ("1", "0", "Introduction", [0, 1], 2),
                     ("2", "1", "Graph Models", [2, 0], 2), ("3", "0", "Outlook", [], 1)]
    entry = result.manifest["surveys"][0]
    # 4 distinct keys cited, 3 resolved (2 exact, 1 fuzzy): rate 3/4
    assert (entry["cited_keys"], entry["resolved_keys"], entry["resolved_exact"], entry["resolved_fuzzy"]) == (4, 3, 2, 1)
    assert entry["extract_rate"] == 0.75 and entry["citations"] == 7 and entry["citations_found_by"] == "doi"
    assert entry["bibliography"] == "bbl"
    queries = _read(out, "queries.json")  # sections with at least one resolved cite: Introduction, Graph Models
    assert [(q["original_id"], q["cites"], q["cite_extract_rate"]) for q in queries] == [("1", [0, 1], 1.0),
                                                                                         ("2", [2, 0], 1.0)]
    assert queries[1]["prefix_titles"] == [["title", "A Survey of Transformers"], ["section", "Introduction"],
                                           ["subsection", "Graph Models"]]


def test_a_bib_variant_and_a_gzipped_single_tex_give_the_same_cites(tmp_path):
    bib = tar_gz({"main.tex": survey_tex("A Review of Vision", "We review.", SECTIONS), "refs.bib": bib_text(REFS)})
    single = gzip_single(survey_tex("An Overview of Vision", "We review.", SECTIONS, inline_references=REFS))
    papers = [_survey("2506.00011", "A Review of Vision", 4, bib), _survey("2506.00012", "An Overview of Vision", 5,
                                                                           single)]
    with servers(papers) as (arxiv, bib_server):
        result = run_fresh(tmp_path / "out", options(arxiv, bib_server, citations_from="none"))
    surveys = _read(tmp_path / "out", "surveys.json")
    assert [s["all_cites"] for s in surveys] == [[0, 1, 2], [0, 1, 2]]  # the second survey reuses the doc ids
    assert [e["bibliography"] for e in result.manifest["surveys"]] == ["bib", "bbl"]
    assert [e["citations"] for e in result.manifest["surveys"]] == [None, None]


def test_bad_candidates_are_dropped_with_their_stage_and_reason_and_the_run_goes_on(tmp_path):
    broken = tar_gz({"main.tex": "\\documentclass{article}\n\\begin{document}\n\\section\nIntro \\cite{vaswani}.\n"
                                 "\\subsection\nMore.\n\\end{document}\n", "main.bbl": bbl_text(REFS)})  # no heading readable
    no_bbl = tar_gz({"main.tex": survey_tex("A Survey Without References", "We review.", SECTIONS)})
    low = _bbl_eprint("A Survey of Closed Work", [Section("Only", r"\cite{closed,gone}")],
                      _refs(("closed", "A closed-access journal paper that arXiv never saw"),
                            ("gone", "Another paper nobody can find anywhere")))
    papers = [_survey("2506.00001", "A Survey of Transformers", 3, _bbl_eprint()),
              _survey("2506.00002", "Large Language Models: A Review", 4, None),  # PDF only: 404
              _survey("2506.00003", "Speech Models: A Survey", 5, b"\x1f\x8b\x08\x00not really gzip"),
              _survey("2506.00004", "Broken LaTeX: A Survey", 6, broken),
              _survey("2506.00005", "A Survey Without References", 7, no_bbl),
              _survey("2506.00006", "A Survey of Closed Work", 8, low),
              _survey("2506.00007", "Peer Review Assistance with LLMs", 9, _bbl_eprint(),
                      abstract="We build a peer review assistant."),
              _survey("2506.00008", "Outside the window: a survey", 9, _bbl_eprint(), categories=("q-bio.NC",))]
    with servers(papers) as (arxiv, bib):
        result = run_fresh(tmp_path / "out", options(arxiv, bib, citations_from="none"))
    assert _dropped(result.manifest) == {
        "2506.00002": ("source", "no_source"),
        "2506.00003": ("source", "malformed_archive"),
        "2506.00004": ("source", "broken_latex"),
        "2506.00005": ("source", "no_bibliography"),
        "2506.00006": ("resolve", "low_extract_rate"),
        "2506.00007": ("rule", "not_a_survey"),
    }  # 2506.00008 is in another category: the search never returns it
    reasons = {d["arxiv_id"]: d["reason"] for d in result.manifest["dropped"]}
    assert reasons["2506.00006"].startswith("low_extract_rate: extraction rate 0.00 < 0.5 (0 of 2 cited keys")
    assert "HTTP 404" in reasons["2506.00002"]
    counts = result.manifest["counts"]
    assert (counts["searched"], counts["surveys_by_rule"], counts["kept"], counts["dropped"]) == (7, 6, 1, 6)
    assert counts["dropped_by_stage"] == {"source": 4, "resolve": 1, "rule": 1}


def test_citation_counts_and_min_citations(tmp_path):
    papers = [_survey("2506.00001", "A Survey of Transformers", 3, _bbl_eprint()),
              _survey("2506.00002", "Speech Models: A Survey", 4, _bbl_eprint("Speech Models: A Survey")),
              _survey("2506.00003", "Vision Models: A Survey", 5, _bbl_eprint("Vision Models: A Survey"))]
    openalex = [KnownPaper("A Survey of Transformers", 2025, doi="10.48550/arXiv.2506.00001", cited_by_count=25),
                KnownPaper("Speech models: a survey", 2025, doi="10.1000/journal.version", cited_by_count=3)]
    with servers(papers, openalex=openalex, s2=[KnownPaper("x", 2025, arxiv_id="2506.00001", cited_by_count=30)]
                 ) as (arxiv, bib):
        kept_all = run_fresh(tmp_path / "zero", options(arxiv, bib))
        strict = run_fresh(tmp_path / "twenty", options(arxiv, bib, min_citations=20))
        s2 = run_fresh(tmp_path / "s2", options(arxiv, bib, min_citations=20, citations_from="semanticscholar"))
    # by DOI (25), by title, the journal version (3), unknown (None); --min-citations 0 keeps all three
    assert [(e["citations"], e["citations_found_by"]) for e in kept_all.manifest["surveys"]] == [
        (25, "doi"), (3, "title"), (None, None)]
    assert _dropped(strict.manifest) == {"2506.00002": ("citations", "few_citations"),
                                         "2506.00003": ("citations", "citations_unknown")}
    assert [e["arxiv_id"] for e in strict.manifest["surveys"]] == ["2506.00001"]
    assert [e["citations"] for e in s2.manifest["surveys"]] == [30]
    assert set(_dropped(s2.manifest).values()) == {("citations", "citations_unknown")}


def test_corpus_dedup_topic_papers_and_base_corpus_append(tmp_path):
    # an earlier listing of the cited "Attention Is All You Need" (same normalised title, another arXiv id)
    duplicate = ArxivPaper("2312.00009", "Attention is all you need!", "2023-12-01", categories=("cs.CL",),
                           abstract="Transformers, listed once more.")
    topic = ArxivPaper("2403.00001", "Efficient Transformers for Long Documents", "2024-03-01", categories=("cs.CL",),
                       abstract="Transformers made efficient.")
    later = ArxivPaper("2507.00001", "Transformers After the Survey", "2025-07-02", categories=("cs.CL",))
    base = tmp_path / "base"
    base.mkdir()
    (base / "corpus.json").write_text(json.dumps([
        {"Title": "Deep residual learning for image recognition", "Authors": [], "Year": "2016", "Date": "2016",
         "Abstract": "", "Category": "cs.CV", "doc_id": 40},
        {"Title": "Some old paper", "Authors": [], "Year": "2010", "Date": "2010", "Abstract": "",
         "Category": "cs.CL", "doc_id": 7}]))
    papers = [_survey("2506.00001", "A Survey of Transformers", 3, _bbl_eprint()), duplicate, topic, later]
    with servers(papers) as (arxiv, bib):
        alone = run_fresh(tmp_path / "alone", options(arxiv, bib, citations_from="none", topic_papers=10))
        based = run_fresh(tmp_path / "based", options(arxiv, bib, citations_from="none", topic_papers=10,
                                                      base_corpus=base))
    corpus = _read(tmp_path / "alone", "corpus.json")
    # cited: 0-2. The topic search (ti or abs "transformers", cs.CL, before 2025-06-03; not the survey itself, not
    # the later paper) returns Efficient (ratio 45 to "transformers"), BERT (37.5) and the duplicate listing, which
    # normalises like doc 0 and is merged into it
    assert [(p["doc_id"], p["Title"]) for p in corpus] == [(0, CITED["2401.00001"]), (1, CITED["2401.00002"]),
                                                           (2, CITED["2401.00003"]), (3, topic.title),
                                                           (4, CITED["2401.00004"])]
    assert _read(tmp_path / "alone", "surveys.json")[0]["all_cites"] == [0, 1, 2]
    detail = alone.manifest["counts"]["corpus_detail"]
    assert (detail["new_by_origin"], detail["duplicates_merged"]) == ({"cited": 3, "topic": 2, "random": 0}, 1)
    based_corpus = _read(tmp_path / "based", "corpus.json")
    # the base first, unchanged; "Deep residual..." is the base's doc 40; new papers from 41 (the base's max + 1)
    assert [(p["doc_id"], p["Title"]) for p in based_corpus] == [
        (40, "Deep residual learning for image recognition"), (7, "Some old paper"), (41, CITED["2401.00001"]),
        (42, CITED["2401.00003"]), (43, topic.title), (44, CITED["2401.00004"])]
    assert _read(tmp_path / "based", "surveys.json")[0]["all_cites"] == [40, 41, 42]
    assert based.manifest["counts"]["corpus_detail"]["already_in_base"]["cited"] == 1


def test_manifest_resume_and_a_killed_run(tmp_path):
    papers = [_survey("2506.00001", "A Survey of Transformers", 3, _bbl_eprint()),
              _survey("2506.00002", "Vision Models: A Survey", 4, _bbl_eprint("Vision Models: A Survey"))]
    openalex = [KnownPaper("A Survey of Transformers", 2025, doi="10.48550/arXiv.2506.00001", cited_by_count=2)]
    with servers(papers, openalex=openalex) as (arxiv, bib):
        arxiv.unavailable = {"2506.00002"}  # its e-print answers 503: not fetched this time
        first = run_fresh(tmp_path / "out", options(arxiv, bib))
        assert _dropped(first.manifest) == {"2506.00002": ("source", "not_fetched")}
        assert first.manifest["counts"]["not_fetched"] == 1
        arxiv.unavailable = set()
        api, src, oa = arxiv.count("api"), arxiv.count("src"), bib.count()
        second = run_fresh(tmp_path / "out", options(arxiv, bib))
        # only the missing e-print is downloaded; the search, titles, metadata and counts come from the cache
        assert (arxiv.count("api") - api, arxiv.count("src") - src, bib.count() - oa) == (0, 1, 0)
        assert [e["arxiv_id"] for e in second.manifest["surveys"]] == ["2506.00001", "2506.00002"]
        before = len(arxiv.requests), bib.count()
        # a run killed while moving its files in leaves its staging folder: the next run writes all four again
        (tmp_path / "out" / ".writing").mkdir()
        (tmp_path / "out" / ".writing" / "surveys.json").write_text("[half", encoding="utf-8")
        third = run_fresh(tmp_path / "out", options(arxiv, bib))
        assert (len(arxiv.requests), bib.count()) == before  # a finished run redone from the cache alone
        assert not (tmp_path / "out" / ".writing").exists()
        assert [s["survey_id"] for s in _read(tmp_path / "out", "surveys.json")] == [0, 1]
    manifest = _read(tmp_path / "out", "fresh_manifest.json")
    assert manifest["surveys"] == third.manifest["surveys"] and manifest["dropped"] == []
    assert (manifest["kind"], manifest["version"]) == ("surge-fresh", 1)
    assert manifest["window"] == {"since": "2025-06-01", "until": "2025-06-30"} and manifest["categories"] == ["cs.CL"]
    assert set(manifest) >= {"created", "counts", "dropped", "surveys", "versions", "settings"}
    assert manifest["versions"]["feedparser"].startswith("6.") and manifest["versions"]["bibtexparser"].startswith("2.") and manifest["settings"]["min_extract_rate"] == 0.5
    assert manifest["requests"]["eprints_downloaded"] == 0 and manifest["requests"]["eprints_from_cache"] == 2
    assert [(e["survey_id"], e["arxiv_id"], e["citations"]) for e in manifest["surveys"]] == [
        (0, "2506.00001", 2), (1, "2506.00002", None)]


def test_the_cli_builds_a_split_that_surge_data_build_and_surge_evaluate_take(tmp_path):
    papers = [_survey("2506.00001", "A Survey of Transformers", 3, _bbl_eprint())]
    with servers(papers) as (arxiv, bib):
        result = runner.invoke(app, ["data", "fresh", "--out", str(tmp_path / "src"), "--since", "2025-06-01",
                                     "--until", "2025-06-30", "--categories", "cs.CL", "--rate", "0",
                                     "--topic-papers", "0", "--citations-from", "none",
                                     "--bib-base-url", f"arxiv={arxiv.address}"])
    assert result.exit_code == 0, result.output
    assert "kept 1 of 1 surveys found (1 search results)" in " ".join(result.output.split())
    build = runner.invoke(app, ["data", "build", "--source", str(tmp_path / "src"), "--out", str(tmp_path / "built"),
                                "--test-ids", "0"])
    assert build.exit_code == 0, build.output
    generated = tmp_path / "gen" / "0"
    generated.mkdir(parents=True)
    (generated / "survey.md").write_text("# Transformers\nAttention [1] and residuals [2].\n\n# References\n"
                                         "[1] Attention Is All You Need\n[2] A paper that is not in the corpus\n")
    evaluated = runner.invoke(app, ["evaluate", "--data", str(tmp_path / "built"), "--passages",
                                    str(tmp_path / "gen"), "--metrics", "recall", "--out", str(tmp_path / "r.json")])
    assert evaluated.exit_code == 0, evaluated.output
    # all_cites = the 3 resolved papers; the generated survey cites one of them: recall 1/3
    assert _read(tmp_path, "r.json")["surveys"]["0"]["recall"] == pytest.approx(1 / 3)


def test_bad_settings_are_one_line_errors(tmp_path):
    result = runner.invoke(app, ["data", "fresh", "--out", str(tmp_path / "o"), "--since", "2025-13-01"])
    assert result.exit_code == 2 and "dates are YYYY-MM-DD" in result.output
    result = runner.invoke(app, ["data", "fresh", "--out", str(tmp_path / "o"), "--since", "2025-06-01",
                                 "--citations-from", "openalx"])
    assert result.exit_code == 2 and "did you mean 'openalex'" in result.output
    result = runner.invoke(app, ["data", "fresh", "--out", str(tmp_path / "o"), "--since", "2025-06-01",
                                 "--bib-base-url", "crossref=http://x"])
    assert result.exit_code == 2 and "arxiv-src" in result.output


# -- arXiv ids written in the bibliography ----------------------------------------------------------------------

def _requests(arxiv: ArxivServer, since: int = 0) -> dict[str, int]:
    """The API requests the server recorded from ``since`` on, by what they asked: a title search, an id_list."""
    kinds = {"title": 0, "id_list": 0, "other": 0}
    for request in arxiv.requests[since:]:
        if request.kind != "api":
            continue
        if request.params.get("id_list", [""])[0]:
            kinds["id_list"] += 1
        elif request.params.get("search_query", [""])[0].startswith("ti:"):
            kinds["title"] += 1
        else:
            kinds["other"] += 1
    return kinds


ID_SECTIONS = [Section("Introduction", r"Transformers \cite{vaswani,he} changed the field."),
               Section("Graph Models", r"Graph recommenders \cite{gnn}.", level="subsection")]
WITH_IDS = [Reference("vaswani", "Attention is all you need", eprint="2401.00001v2"),
            Reference("he", "Deep residual learning for image recognition", note=r"\url{https://arxiv.org/abs/2401.00002}"),
            Reference("gnn", "", note="CoRR, abs/2401.00003")]  # no title: the id alone resolves it


@pytest.mark.parametrize("bibliography", ["bbl", "bib"])
def test_a_survey_whose_entries_all_carry_ids_is_resolved_by_id_list_only(tmp_path, bibliography):
    write = {"bbl": lambda refs: {"main.bbl": bbl_text(refs)}, "bib": lambda refs: {"refs.bib": bib_text(refs)}}
    tex = survey_tex("A Survey of Transformers", "We review.", ID_SECTIONS)
    by_title = REFS[:2] + [Reference("gnn", REFS[2].title)]
    with servers([_survey("2506.00001", "A Survey of Transformers", 3,
                          tar_gz({"main.tex": tex, **write[bibliography](WITH_IDS)}))]) as (arxiv, bib):
        ids = run_fresh(tmp_path / "ids", options(arxiv, bib, citations_from="none"))
        assert _requests(arxiv) == {"title": 0, "id_list": 1, "other": 1}  # the candidate search, one id_list
        before = len(arxiv.requests)
        again = run_fresh(tmp_path / "ids", options(arxiv, bib, citations_from="none"))
        assert len(arxiv.requests) == before  # cached: the rerun asks nothing
    with servers([_survey("2506.00001", "A Survey of Transformers", 3,
                          tar_gz({"main.tex": tex, **write[bibliography](by_title)}))]) as (arxiv, bib):
        titles = run_fresh(tmp_path / "titles", options(arxiv, bib, citations_from="none"))
        # three title searches, then the found papers' metadata in one id_list
        assert _requests(arxiv) == {"title": 3, "id_list": 1, "other": 1}
    assert _read(tmp_path / "ids", "surveys.json") == _read(tmp_path / "titles", "surveys.json")
    assert _read(tmp_path / "ids", "surveys.json")[0]["all_cites"] == [0, 1, 2]
    rows = [(e["cited_keys"], e["resolved_keys"], e["resolved_by_id"], e["resolved_by_title"], e["resolved_exact"],
             e["resolved_fuzzy"], e["keys_with_id"], e["keys_with_title"])
            for m in (ids.manifest, titles.manifest) for e in m["surveys"]]
    assert rows == [(3, 3, 3, 0, 0, 0, 3, 2), (3, 3, 0, 3, 2, 1, 0, 3)]
    assert (ids.manifest["counts"]["resolved_by_id"], ids.manifest["counts"]["resolved_by_title"]) == (3, 0)
    assert ids.manifest["requests"]["arxiv_ids"] == {"ids": 3, "ids_found": 3, "ids_unknown": 0, "ids_failed": 0,
                                                     "id_requests": 1, "titles": 0}
    assert again.manifest["requests"]["arxiv_ids"]["id_requests"] == 0


def test_an_id_arxiv_does_not_know_falls_back_to_the_title_search(tmp_path):
    refs = [Reference("vaswani", "Attention is all you need", eprint="2401.09999"),  # unknown id, a known title
            Reference("he", "Deep residual learning for image recognition", note="arXiv:2401.00002"),
            Reference("gnn", REFS[2].title, note="arXiv:2401.08888"),  # refused (HTTP 400), a fuzzy title
            REFS[3],  # closed: no id, a title arXiv does not have
            Reference("ghost", "", note="arXiv:2401.07777")]  # unknown id, no title: unresolved, nothing searched
    sections = [Section("Introduction", r"Transformers \cite{vaswani,he}."),
                Section("More", r"Graphs \cite{gnn,closed,ghost}.")]
    eprint = tar_gz({"main.tex": survey_tex("A Survey of Transformers", "We review.", sections),
                     "main.bbl": bbl_text(refs)})
    with servers([_survey("2506.00001", "A Survey of Transformers", 3, eprint)]) as (arxiv, bib):
        arxiv.refused = {"2401.08888"}
        result = run_fresh(tmp_path / "out", options(arxiv, bib, citations_from="none"))
        # id_list: the 4 ids (400), halves [09999, 00002] (200) and [08888, 07777] (400), then [08888] (400) and
        # [07777] (200): 5; the titles of vaswani, gnn and closed: 3; the metadata of 00001 and 00003: 1 id_list
        assert _requests(arxiv) == {"title": 3, "id_list": 6, "other": 1}
        assert sum(1 for r in arxiv.requests if r.status == 400) == 3
        before = len(arxiv.requests)
        rerun = run_fresh(tmp_path / "out", options(arxiv, bib, citations_from="none"))
        assert len(arxiv.requests) == before  # unknown and refused ids are answers: cached
    entry = result.manifest["surveys"][0]
    assert (entry["cited_keys"], entry["resolved_keys"], entry["resolved_by_id"], entry["resolved_by_title"],
            entry["resolved_exact"], entry["resolved_fuzzy"], entry["keys_with_id"]) == (5, 3, 1, 2, 1, 1, 4)
    assert result.manifest["requests"]["arxiv_ids"] == {"ids": 4, "ids_found": 1, "ids_unknown": 3,
                                                        "ids_failed": 0, "id_requests": 5, "titles": 3}
    assert _read(tmp_path / "out", "surveys.json")[0]["all_cites"] == [0, 1, 2]
    assert [p["Title"] for p in _read(tmp_path / "out", "corpus.json")] == [CITED["2401.00001"], CITED["2401.00002"],
                                                                           CITED["2401.00003"]]
    assert rerun.manifest["surveys"] == result.manifest["surveys"]


def test_an_id_whose_record_is_another_paper_is_taken_for_a_typo_and_the_title_is_searched(tmp_path):
    refs = [Reference("vaswani", "Attention is all you need", eprint="2401.00002"),  # a typo: He et al.'s id
            Reference("he", "Deep residual learning for image recognition", eprint="2401.00002")]
    eprint = tar_gz({"main.tex": survey_tex("A Survey of Transformers", "We review.",
                                            [Section("Introduction", r"Transformers \cite{vaswani,he}.")]),
                     "main.bbl": bbl_text(refs)})
    with servers([_survey("2506.00001", "A Survey of Transformers", 3, eprint)]) as (arxiv, bib):
        result = run_fresh(tmp_path / "out", options(arxiv, bib, citations_from="none"))
        # one id_list for the shared id, one title search for vaswani, one id_list for the metadata it found
        assert _requests(arxiv) == {"title": 1, "id_list": 2, "other": 1}
    entry = result.manifest["surveys"][0]
    assert (entry["resolved_keys"], entry["resolved_by_id"], entry["resolved_by_title"]) == (2, 1, 1)
    corpus = _read(tmp_path / "out", "corpus.json")
    titles = {p["doc_id"]: p["Title"] for p in corpus}
    cited = [titles[d] for d in _read(tmp_path / "out", "surveys.json")[0]["all_cites"]]
    assert sorted(cited) == sorted([CITED["2401.00001"], CITED["2401.00002"]])
