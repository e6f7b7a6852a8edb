"""The SurveyGen paper's Task 2 systems: Naive-RAG, QUAL-SG's Table 7 ablations, and K from the human survey.

The LLM is ``ScriptedChat`` behind the real LLM layer. ``naive_rag`` is reached as ``module:Class`` so the tests
do not depend on the installed entry-point metadata being fresh; a separate test checks pyproject declares it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from surge_dataset.core.records import Paper
from surge_dataset.data.dataset import SurgeData
from surge_dataset.generation import GenerationError, Topic, generate_surveys, get_generator
from surge_dataset.llm import LLM
from surge_dataset.retrieval import build_bm25_index, read_trec_run, run_retrieval, write_trec_run
from surge_dataset.testing import ScriptedChat
from tests.conftest import REPO_ROOT

NAIVE = "surge_baselines.naive_rag:NaiveRAG"
QUALSG = "surge_baselines.qualsg:QualSG"
SMALL = {"max_sections": 2, "max_subsections": 1, "papers_per_section": 3, "abstract_chars": 100}


@pytest.fixture(scope="module")
def data(sample_dataset: Path) -> SurgeData:
    return SurgeData.open(sample_dataset)


@pytest.fixture(scope="module")
def run(data: SurgeData, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A BM25 survey-title run, 30 papers per survey: test split (survey 0 cites 21) + train (43 cites none)."""
    folder = tmp_path_factory.mktemp("run")
    build_bm25_index(data, folder / "bm25")
    run_retrieval(folder / "bm25", data, folder / "test.trec", split="test", k=30)
    run_retrieval(folder / "bm25", data, folder / "train.trec", split="train", k=30)
    merged = {**read_trec_run(folder / "test.trec"), **read_trec_run(folder / "train.trec")}
    write_trec_run(folder / "all.trec", merged, metadata={"query_type": "titles"})
    return folder / "all.trec"


def _writer(messages: list[dict[str, str]]) -> str:
    user = messages[-1]["content"]
    if "Plan the outline" in user:
        return "1. Foundations: the basics\n2. Methods: main methods\n3. Outlook: open problems"
    labels = re.findall(r"^\[(P\d+)\]", user, re.M)
    return f"This section discusses the topic [{', '.join(labels[:2]) or 'P1'}]."


def _ranked(run: Path, survey_id: int) -> list[int]:
    scores = read_trec_run(run)[str(survey_id)]
    return [int(d) for d, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))]


def test_naive_rag_is_declared_as_an_entry_point() -> None:
    tomllib = pytest.importorskip("tomllib")
    declared = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert declared["project"]["entry-points"]["surge.generators"]["naive_rag"] == NAIVE
    generator = get_generator(NAIVE)
    assert generator.name == "naive_rag" and generator.inputs == "retrieval"
    assert generator.options["select"] == 0 and generator.prompts_version == "surge-baselines-1"


def test_naive_rag_writes_from_the_top_k_papers_k_the_human_surveys_count(data: SurgeData, run: Path, tmp_path: Path) -> None:
    chat = ScriptedChat(responder=_writer)
    report = generate_surveys(data, get_generator(NAIVE, **SMALL), LLM(chat, cache_dir=False), tmp_path / "out", [0, 43],
                              run=run, top_k=30)
    assert report.generated == [0]
    assert "cites no papers" in report.failed[43]  # K = 0 papers cannot be a survey: say so, not a silent constant
    sidecar = json.loads((tmp_path / "out" / "0" / "survey.json").read_text(encoding="utf-8"))
    info = sidecar["system_info"]
    k = len(data.survey(0).all_cites)
    assert (info["k"], info["k_source"]) == (k, "human survey") == (21, "human survey")
    assert info["selected"] == sidecar["papers_given"][:k]  # the run's order, top-K, nothing re-ranked
    assert sidecar["papers_given"] == [d for d in _ranked(run, 0) if d in set(sidecar["papers_given"])]
    stages = [c["stage"] for c in sidecar["calls"]]
    assert stages == ["outline"] + ["write"] * (len(stages) - 1) and len(stages) == 3  # one pass: outline, 2 sections
    assert not any("How relevant" in m[-1]["content"] for m in chat.requests)  # no re-ranking judge
    markdown = (tmp_path / "out" / "0" / "survey.md").read_text(encoding="utf-8")
    titles = {p.title for p in data.corpus.get(info["selected"])}
    listed = re.findall(r"^\[\d+\] (.+)$", markdown.split("## References", 1)[1], re.M)
    assert listed and set(listed) <= titles

    fixed = generate_surveys(data, get_generator(NAIVE, select="5", **SMALL), LLM(ScriptedChat(responder=_writer), cache_dir=False),
                             tmp_path / "fixed", [0, 43], run=run, top_k=30)
    assert fixed.generated == [0, 43]  # an explicit K needs no count from the ground truth
    info = json.loads((tmp_path / "fixed" / "0" / "survey.json").read_text(encoding="utf-8"))["system_info"]
    assert (info["k"], info["k_source"], len(info["selected"])) == (5, "option", 5)



@pytest.mark.parametrize("garbage", ["", "#", "1.\n2.\n- \n**", "## References\n[1] x"])
def test_naive_rag_survives_garbage_answers(data: SurgeData, run: Path, tmp_path: Path, garbage: str) -> None:
    llm = LLM(ScriptedChat(responder=lambda messages: garbage), cache_dir=False)
    report = generate_surveys(data, get_generator(NAIVE, **SMALL), llm, tmp_path / "out", [0], run=run, top_k=30)
    assert report.generated == [0], report.failed
    markdown = (tmp_path / "out" / "0" / "survey.md").read_text(encoding="utf-8")
    assert markdown.startswith(f"# {data.survey(0).survey_title}\n") and "\n## " in markdown

# ------------------------------------------------------------------------------ QUAL-SG: Table 7 by hand
#
# Four candidates, retrieval order P0..P3, K = 2.
#   relevance (LLM rating 5, 4, 3, 2)                  -> ranks r = 1, 2, 3, 4
#   impact (citations per year 20, 30, 10, 40: levels 2, 3, 1, 4) -> ranks a = 3, 2, 4, 1
#   diversity (P0, P1 share their words; P2, P3 share none with anyone: mean cosine distance
#              2/3, 2/3, 1, 1)                         -> ranks d = 3, 4, 1, 2
# mean rank, all three: 7/3, 8/3, 8/3, 7/3  -> {P0, P3}
#   w/o relevance (a, d): 3, 3, 2.5, 1.5    -> {P2, P3}
#   w/o impact (r, d):    2, 3, 2, 3        -> {P0, P2}
#   w/o diversity (r, a): 2, 2, 3.5, 2.5    -> {P0, P1}

CANDIDATES = [
    Paper(100, "Graph networks message passing", "Neural aggregation over neighbours.", year="2020"),
    Paper(101, "Message passing graph networks", "Neural aggregation over neighbours.", year="2020"),
    Paper(102, "Protein folding structure prediction", "Amino acid chains fold.", year="2020"),
    Paper(103, "Quantum error correction codes", "Stabiliser qubits decohere.", year="2020"),
]
RATINGS = dict(zip((p.title for p in CANDIDATES), ("5", "4", "3", "2"), strict=True))
CITATIONS = (20, 30, 10, 40)


def _rater(messages: list[dict[str, str]]) -> str:
    user = messages[-1]["content"]
    return next(rating for title, rating in RATINGS.items() if title in user)


def _select(tmp_path: Path, **options: object) -> tuple[list[int], dict, ScriptedChat]:
    signals = {str(p.doc_id): {"citation_count": c, "year": 2020} for p, c in zip(CANDIDATES, CITATIONS, strict=True)}
    (tmp_path / "signals.json").write_text(json.dumps(signals), encoding="utf-8")
    generator = get_generator(QUALSG, signals=str(tmp_path / "signals.json"), select=2, **options)
    chat = ScriptedChat(responder=_rater)
    selected, info = generator.select_papers(Topic(0, "A survey", "2021-06-01"), CANDIDATES, LLM(chat, cache_dir=False), [])
    return sorted(p.doc_id - 100 for p in selected), info, chat


@pytest.mark.parametrize(("options", "expected", "criteria"), [
    ({}, [0, 3], ["relevance", "impact", "diversity"]),
    ({"relevance": "false"}, [2, 3], ["impact", "diversity"]),
    ({"impact": "false"}, [0, 2], ["relevance", "diversity"]),
    ({"diversity": "false"}, [0, 1], ["relevance", "impact"]),
])
def test_each_ablation_switch_drops_its_criterion_from_the_mean_rank(
    tmp_path: Path, options: dict, expected: list[int], criteria: list[str]
) -> None:
    selected, info, chat = _select(tmp_path, **options)
    assert selected == expected
    assert info["criteria"] == criteria and info["switched_off"] == [k for k in options]
    assert (info["k"], info["k_source"]) == (2, "option")
    assert len(chat.requests) == (0 if "relevance" in options else 4)  # relevance off asks no judge at all


def test_relevance_off_is_not_the_retrieval_order_stand_in(tmp_path: Path) -> None:
    """``llm_relevance=false`` keeps a relevance criterion (ranked by retrieval order, here the same as the
    ratings), so it selects what the full system does; only ``relevance=false`` is Table 7's row."""
    assert _select(tmp_path, llm_relevance="false")[0] == [0, 3]
    assert _select(tmp_path, relevance="false")[0] == [2, 3]


def test_qualsg_k_defaults_to_the_human_surveys_reference_count(data: SurgeData) -> None:
    papers = [p for p in data.corpus.get(list(range(40))) if p is not None]
    generator = get_generator(QUALSG, llm_relevance="false")
    with pytest.raises(GenerationError, match="select=N"):  # no dataset bound: no silent constant either
        generator.select_papers(Topic(0, "x"), papers, None, [])
    generator.bind(data)
    for survey_id in (0, 2):
        selected, info = generator.select_papers(Topic(survey_id, "x"), papers, None, [])
        assert len(selected) == info["k"] == len(data.survey(survey_id).all_cites) and info["k_source"] == "human survey"
    fixed = get_generator(QUALSG, llm_relevance="false", select="66")
    fixed.bind(data)
    notes: list[str] = []
    selected, info = fixed.select_papers(Topic(0, "x"), papers, None, notes)
    assert (info["k"], len(selected)) == (66, len(papers)) and any("K = 66" in n for n in notes)
