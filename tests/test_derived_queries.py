"""The ``queries`` config derived from ``surveys.json`` when the authors' ``queries.json`` is missing
(``surge_dataset/data/queries.py``), compared with given queries on the data that has both, and used by
retrieval, retrieval-eval and retriever training.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.data.build import build_dataset
from surge_dataset.data.dataset import SurgeData
from surge_dataset.data.queries import (
    CITES_FROM_SECTION,
    CITES_FROM_SURVEY,
    derive_queries,
    question_from_titles,
    survey_topic,
)
from surge_dataset.data.validate import SurgeDataError

from .conftest import REPO_ROOT, SAMPLE_DIR

runner = CliRunner()
FIELDS = ("original_id", "query_id", "date", "year", "category", "content", "prefix_titles", "prefix_titles_query",
          "cites", "cite_extract_rate", "origin_cites_number")


def _load(folder: Path, name: str) -> list[dict]:
    return json.loads((folder / name).read_text(encoding="utf-8"))


def _agreement(derived: list[dict], given: list[dict]) -> dict[str, int]:
    """Per field: how many position-aligned pairs are exactly equal; ``all``: whole records equal."""
    pairs = list(zip(derived, given, strict=True))
    counts = {f: sum(d[f] == g[f] for d, g in pairs) for f in FIELDS}
    counts["all"] = sum(all(d[f] == g[f] for f in FIELDS) for d, g in pairs)
    return counts


def _without_queries(tmp_path: Path) -> Path:
    """The sample as the authors' Drive folder has it: surveys.json and corpus.json, no queries.json."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("surveys.json", "corpus.json"):
        shutil.copy(SAMPLE_DIR / name, src / name)
    return src


# --------------------------------------------------------------------------------------------------
# Derived vs given on the shipped sample (examples/sample has surveys.json AND queries.json)
# --------------------------------------------------------------------------------------------------


def test_sample_derived_vs_given_queries():
    """The sample's structure nodes carry only id/parent_id/title/content (no per-section cites), so every survey
    takes the fallback: each section with >= 100 characters of content in a survey with citations is a query
    citing the survey's all_cites. The sample was written by the same convention (its README: every such
    section yields exactly one query, in structure order, query_id from 0), so:

    * count 54 = 54; per survey 11, 11, 11, 10, 11 and none for survey 43 (empty all_cites);
    * query_id, date, year, category, content and prefix_titles agree on all 54;
    * cites agree on none: derived = the survey's all_cites (17-21 papers), a strict superset of the given
      section's 1-4 papers, in all 54; origin_cites_number agrees on none (17-21 vs at most 6) and
      cite_extract_rate is null (unknown) in every derived query;
    * prefix_titles_query agrees on none (our template vs the authors' LLM-written questions) and original_id
      on none (the section's node id vs the sample's one UUID per survey), so no whole record agrees.
    """
    surveys, given = _load(SAMPLE_DIR, "surveys.json"), _load(SAMPLE_DIR, "queries.json")
    pairs = list(derive_queries(surveys))
    derived = [q for _, q in pairs]
    assert len(derived) == len(given) == 54
    per_survey = {sid: sum(s == sid for s, _ in pairs) for sid in dict.fromkeys(s for s, _ in pairs)}
    assert per_survey == {0: 11, 1: 11, 2: 11, 41: 10, 42: 11}
    assert _agreement(derived, given) == {
        "original_id": 0, "query_id": 54, "date": 54, "year": 54, "category": 54, "content": 54,
        "prefix_titles": 54, "prefix_titles_query": 0, "cites": 0, "cite_extract_rate": 0,
        "origin_cites_number": 0, "all": 0,
    }
    all_cites = {s["survey_id"]: s["all_cites"] for s in surveys}
    assert all(set(g["cites"]) < set(d["cites"]) for d, g in zip(derived, given, strict=True))
    assert all(d["cites"] == all_cites[sid] and d["origin_cites_number"] == len(all_cites[sid])
               for sid, d in pairs)
    assert {d["cite_extract_rate"] for d in derived} == {None}
    assert {(d["derived_from"], d["cites_from"]) for d in derived} == {("surveys.json", CITES_FROM_SURVEY)}
    assert [d["original_id"] for d in derived[:3]] == ["1", "3", "5"]  # node ids of Introduction, Spectral, ...


def _with_section_cites(surveys: list[dict], given: list[dict]) -> list[dict]:
    """The sample's surveys.json laid out as the authors' nodes are believed to be (protocol.md: nodes are
    ``{id, parent_id, title, content, ...}``): every node carries its section's ``cites``,
    ``cite_extract_rate`` and ``origin_cites_number`` (copied from the given query with the same heading path;
    ``[]`` / 0 for the other nodes)."""
    by_path = {tuple(map(tuple, q["prefix_titles"])): q for q in given}
    out = json.loads(json.dumps(surveys))
    for survey in out:
        nodes = {n["id"]: n for n in survey["structure"]}
        for node in survey["structure"]:
            chain, cur = [], node
            while cur["title"] != "root":
                chain.insert(0, cur["title"])
                cur = nodes[cur["parent_id"]]
            levels = ("section", "subsection", "subsubsection")
            path = (("title", survey["survey_title"]), *((levels[i], t) for i, t in enumerate(chain)))
            query = by_path.get(path) if chain else None
            node["cites"] = query["cites"] if query else []
            node["cite_extract_rate"] = query["cite_extract_rate"] if query else 0
            node["origin_cites_number"] = query["origin_cites_number"] if query else 0
    return out


def test_sample_with_section_cites_reproduces_every_field_but_the_question_and_id():
    """With per-section cites in the nodes, the rule "at least one resolved citation" picks exactly the 54 given
    sections (short and empty sections cite nothing) and cites, cite_extract_rate and origin_cites_number come
    through unchanged: all fields agree on 54 but prefix_titles_query and original_id (0 each, as above).

    The authors publish no threshold on cite_extract_rate; the sample's lowest is 1/3 (one section), so a
    threshold of 0.5 would drop exactly that one and renumber the 9 queries after it.
    """
    surveys, given = _load(SAMPLE_DIR, "surveys.json"), _load(SAMPLE_DIR, "queries.json")
    derived = [q for _, q in derive_queries(_with_section_cites(surveys, given))]
    assert _agreement(derived, given) == {f: 54 for f in FIELDS if f not in ("original_id", "prefix_titles_query")} | {
        "original_id": 0, "prefix_titles_query": 0, "all": 0}
    assert {d["cites_from"] for d in derived} == {CITES_FROM_SECTION}
    strict = [q for _, q in derive_queries(_with_section_cites(surveys, given), min_extract_rate=0.5)]
    low = [g for g in given if g["cite_extract_rate"] < 0.5]
    assert len(low) == 1 and len(strict) == 53 and low[0]["content"] not in {q["content"] for q in strict}
    assert strict[-1]["query_id"] == 52


def test_real_surveygen_gold_survey_derived_vs_converted_queries(surveygen_example: Path):
    """Real data with both files: the SurveyGen gold survey (../shared/data) converted by `surge data from-surveygen`.
    Its converter makes a query of each section with content and at least one resolved citation (15) and, like
    the sample, writes nodes without cites, so derivation falls back to the 20 sections with >= 100 characters.
    All 15 converted queries are among the 20 derived, with the same prefix_titles, content and survey, and their
    cites inside the derived ones (the survey's all_cites); the other 5 are sections whose citations do not
    resolve to the corpus (or that cite nothing: "Conflicts of Interest", "Conclusions", ...).
    """
    from surge_dataset.data.surveygen import convert_surveygen

    surveys, _, given = convert_surveygen([surveygen_example])
    derived = [q for _, q in derive_queries(surveys)]
    assert (len(given), len(derived)) == (15, 20)
    key = {(json.dumps(q["prefix_titles"]), q["content"]): q for q in derived}
    assert all((json.dumps(g["prefix_titles"]), g["content"]) in key for g in given)
    assert all(set(g["cites"]) <= set(key[json.dumps(g["prefix_titles"]), g["content"]]["cites"]) for g in given)
    given_keys = {(json.dumps(g["prefix_titles"]), g["content"]) for g in given}
    extra = [q for k, q in key.items() if k not in given_keys]
    assert len(extra) == 5 and all(len(q["content"]) >= 100 for q in extra)
    assert "Conflicts of Interest" in {q["prefix_titles"][-1][1] for q in extra}


def test_real_surge_files_derived_vs_given(shared_data_dir: Path):
    """The authors' real files, when someone has put them in ../shared/data/official (they are on Google Drive
    only, and queries.json is not in the folder their script downloads): every derived query belongs to a
    survey, and most given section paths are derived too. Numbers are printed (`pytest -s`)."""
    folder = shared_data_dir / "official"
    if not ((folder / "surveys.json").is_file() and (folder / "queries.json").is_file()):
        pytest.skip(f"{folder} holds no surveys.json + queries.json (the real SurGE data is on the authors' Drive)")
    surveys, given = _load(folder, "surveys.json"), _load(folder, "queries.json")
    derived = [q for _, q in derive_queries(surveys)]
    paths = {json.dumps(q["prefix_titles"]) for q in derived}
    found = sum(json.dumps(g["prefix_titles"]) in paths for g in given)
    print(f"given {len(given)}, derived {len(derived)}, given heading paths among derived {found}")
    titles = {s["survey_title"] for s in surveys}
    assert derived and all(q["prefix_titles"][0] == ["title", q["prefix_titles"][0][1]] for q in derived)
    assert all(q["prefix_titles"][0][1] in titles for q in derived)
    assert found >= 0.9 * len(given), f"only {found} of {len(given)} given heading paths were derived"


# --------------------------------------------------------------------------------------------------
# The rule on hand-made nodes
# --------------------------------------------------------------------------------------------------


def _node(i, parent, title, content="", **fields):
    return {"id": i, "parent_id": parent, "title": title, "content": content, **fields}


def _survey(structure, sid=3, all_cites=(1, 2, 3)):
    return {"survey_id": sid, "survey_title": "A Survey on Graph Learning", "authors": [], "year": "2022",
            "date": "2022-01-02T00:00:00", "category": "cs.LG", "abstract": "", "structure": structure,
            "all_cites": list(all_cites), "Bertopic_CD": 0.0}


def test_section_cites_levels_own_prefix_titles_and_unreachable_nodes():
    structure = [
        _node("r", -1, "root"),
        _node("1", "r", "Introduction", "short", cites=[5, 6], origin_cites_number=3),  # content length is no rule here
        _node("2", "r", "Methods", level="section", cites=[]),  # no resolved citation: no query
        _node("3", "2", "Graph Methods", level="subsection", cites=[7], cite_extract_rate=0.25, origin_cites_number=4),
        _node("4", "3", "Spectral", cites=[8]),  # no level field: named by depth
        _node("5", "4", "Chebyshev Filters", cites=[9]),  # depth 4: "paragraph"
        _node("6", "7", "Loop A", cites=[1]),  # 6 and 7 point at each other: the root never reaches them
        _node("7", "6", "Loop B", cites=[1]),
        _node("8", "r", "Own Path", cites=[2], prefix_titles=[["title", "As Given"], ["section", "Own Path"]]),
    ]
    structure[3], structure[4] = structure[4], structure[3]  # a child before its parent: still file order
    pairs = list(derive_queries([_survey(structure), _survey([_node(0, None, "root"),
                                                               _node(1, 0, "Tail", cites=[4])], sid=4)]))
    queries = [q for _, q in pairs]
    assert [(sid, q["query_id"], q["original_id"]) for sid, q in pairs] == [
        (3, 0, "1"), (3, 1, "4"), (3, 2, "3"), (3, 3, "5"), (3, 4, "8"), (4, 5, 1)]
    assert [q["prefix_titles"][1:] for q in queries[1:4]] == [
        [["section", "Methods"], ["subsection", "Graph Methods"], ["subsubsection", "Spectral"]],
        [["section", "Methods"], ["subsection", "Graph Methods"]],
        [["section", "Methods"], ["subsection", "Graph Methods"], ["subsubsection", "Spectral"],
         ["paragraph", "Chebyshev Filters"]],
    ]
    assert queries[4]["prefix_titles"] == [["title", "As Given"], ["section", "Own Path"]]  # the node's own, verbatim
    assert (queries[0]["cites"], queries[0]["origin_cites_number"], queries[0]["cite_extract_rate"]) == ([5, 6], 3, 2 / 3)
    assert (queries[2]["origin_cites_number"], queries[2]["cite_extract_rate"]) == (4, 0.25)
    assert queries[1]["cite_extract_rate"] == 1.0 and queries[0]["content"] == "short"
    assert (queries[0]["date"], queries[0]["year"], queries[0]["category"]) == ("2022-01-02T00:00:00", "2022", "cs.LG")
    assert {q["cites_from"] for q in queries} == {CITES_FROM_SECTION}
    assert [q["original_id"] for _, q in derive_queries([_survey(structure)], min_extract_rate=0.5)] == ["1", "4", "5", "8"]

    bad = _survey([_node("r", -1, "root"), _node("1", "r", "Intro", cites=["12"])], sid=9)
    with pytest.raises(SurgeDataError, match=r"surveys.json: survey_id=9: field 'structure\[1\].cites': expected a list"):
        list(derive_queries([bad]))


def test_question_template_is_deterministic_and_readable():
    assert survey_topic("Graph Neural Networks: A Survey of Architectures, Expressive Power and Applications") == (
        "graph neural networks")
    assert survey_topic("A Survey of Label-noise Representation Learning: Past, Present and Future") == (
        "label-noise representation learning")
    assert survey_topic("Survey on reinforcement learning for language processing") == (
        "reinforcement learning for language processing")
    assert survey_topic("Machine Learning Testing: Survey, Landscapes and Horizons") == "machine learning testing"
    assert survey_topic("Deep Neural Approaches to Relation Triplets Extraction: A~Comprehensive~Survey") == (
        "deep neural approaches to relation triplets extraction")
    title = ["title", "Learning from Noisy Labels with Deep Neural Networks: A Survey"]
    assert question_from_titles([title, ["section", "Future Research Directions"], ["subsection",
                                                                                      "{Robust and Fair Training"]]) == (
        "What does research on learning from noisy labels with deep neural networks say about robust and fair "
        "training in the context of future research directions?")
    assert question_from_titles([title, ["section", "Future Research Directions"]]) == (
        "What open challenges and future directions remain in learning from noisy labels with deep neural networks?")
    assert question_from_titles([title, ["section", "2 Introduction"]]) == (
        "What are the motivation and scope of research on learning from noisy labels with deep neural networks?")
    assert question_from_titles([title, ["section", "BERT-Based Methods for IoT"], ["subsection", "2.3.1"]]) == (
        "What does research on learning from noisy labels with deep neural networks say about BERT-based methods "
        "for IoT?")


# --------------------------------------------------------------------------------------------------
# Build, CLI, retrieval and training on derived queries
# --------------------------------------------------------------------------------------------------


def test_derive_queries_flag_ignores_a_present_file(tmp_path: Path):
    result = runner.invoke(app, ["data", "build", "--source", str(SAMPLE_DIR), "--out", str(tmp_path / "d"),
                                 "--derive-queries"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "--derive-queries: the 'queries' config (54 queries) was derived from surveys.json" in result.output
    assert "absent" not in result.output
    data = SurgeData.open(tmp_path / "d")
    assert data.meta["queries_derived"]["reason"] == "--derive-queries (queries.json present, not read)"
    assert "queries.json" not in data.meta["source_files"] and data.meta["absent_files"] == []
    assert [q.prefix_titles_query for q in data.queries("test")][:1] == [
        "What are the motivation and scope of research on graph neural networks?"]
    assert {len(data.queries("train")), len(data.queries("test"))} == {21, 33}
    # queries.json absent: derived without the flag, and the build says so
    result = runner.invoke(app, ["data", "build", "--source", str(_without_queries(tmp_path)), "--out",
                                 str(tmp_path / "a")], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "deriving the queries" in result.output and "queries.json is absent: the 'queries' config" in result.output
    assert "absent (no config built)" not in result.output


@pytest.fixture(scope="module")
def derived_data(tmp_path_factory: pytest.TempPathFactory) -> SurgeData:
    tmp = tmp_path_factory.mktemp("derived")
    build_dataset(_without_queries(tmp), tmp / "surge")
    return SurgeData.open(tmp / "surge")


def test_retrieve_and_retrieval_eval_run_on_derived_queries(derived_data: SurgeData, tmp_path: Path):
    data = str(derived_data.path)
    result = runner.invoke(app, ["index", "bm25", "--data", data, "--out", str(tmp_path / "bm25")])
    assert result.exit_code == 0, result.output
    run = tmp_path / "run.trec"
    result = runner.invoke(app, ["retrieve", "--index", str(tmp_path / "bm25"), "--data", data, "--queries", "test",
                                 "--query-type", "questions", "--k", "100", "--out", str(run)])
    assert result.exit_code == 0, result.output
    assert "33 queries (questions, split test)" in result.output
    assert len({line.split()[0] for line in run.read_text().splitlines()}) == 33
    result = runner.invoke(app, ["retrieval-eval", "--run", str(run), "--data", data], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "R@20" in result.output and "R@100" in result.output


def test_training_pairs_from_derived_queries(derived_data: SurgeData):
    """Train surveys 41 and 42 give 10 and 11 derived questions citing their 18 and 17 all_cites:
    10 x 18 + 11 x 17 = 367 (question, cited paper) pairs, every cited paper being in the corpus."""
    from surge_dataset.retrieval.training import CorpusTexts, build_pairs, build_queries, split_surveys

    train_ids, held = split_surveys(derived_data, 0.0, seed=42)
    assert (train_ids, held) == ({41, 42}, set())  # survey 43 cites nothing
    queries = build_queries(derived_data, train_ids, ["questions"])
    assert len(queries) == 21 and {len(rel) for _, rel in queries} == {18, 17}
    assert len(build_pairs(queries, CorpusTexts(derived_data).doc_ids).texts) == 367


@pytest.mark.slow
def test_a_tiny_training_run_on_derived_queries(derived_data: SurgeData, tmp_path: Path):
    """training/train_retriever.py, one process, two steps on the derived questions alone, then held-out Recall@k."""
    import yaml

    from surge_dataset.testing.models import build_tiny_roberta

    model = build_tiny_roberta(tmp_path / "roberta", seed=0, hidden_size=32, max_length=128)
    out = tmp_path / "run"
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({
        "model": str(model), "data": str(derived_data.path), "output_dir": str(out), "max_steps": 2,
        "batch_size": 4, "negatives": 2, "lr": 1.0e-3, "warmup_ratio": 0.0, "holdout_fraction": 0.5,
        "train_on": ["questions"], "eval_ks": [5, 20], "eval_corpus_size": 50, "logging_steps": 1, "max_doc_length": 64, "seed": 42,
        "progress": False,
    }))
    done = subprocess.run([sys.executable, str(REPO_ROOT / "training" / "train_retriever.py"), "--config", str(config)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1",
                               "TOKENIZERS_PARALLELISM": "false"})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    log = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    start = next(r for r in log if r["event"] == "start")
    (trained,), (heldout,) = start["train_surveys"], start["heldout_surveys"]
    assert start["n_pairs"] == {41: 10 * 18, 42: 11 * 17}[trained] and {trained, heldout} == {41, 42}
    assert [r["step"] for r in log if r["event"] == "train"] == [1, 2]
    assert any("recall@20" in r for r in log if r["event"] == "eval")
    assert (out / "model" / "surge_retriever.json").is_file()
